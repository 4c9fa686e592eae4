//! The context windows of well-known models, for when config names none.
//! Matched by the model id's family prefix, so dated and regional ids
//! (`claude-sonnet-4-5-20250929`, `us.anthropic.claude-…:0`) find theirs.
//! An unknown model has no window until config gives one or a provider's
//! refusal names it.

/// Family → window in tokens. Longer prefixes first where they overlap.
const KNOWN: &[(&str, u64)] = &[
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-5", 400_000),
    ("codex-", 200_000),
    // Every current Gemini model: 1 048 576 in, 65 536 out.
    ("gemini-", 1_048_576),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gpt-3.5-turbo", 16_385),
    ("claude-", 200_000),
    ("amazon.nova-micro", 128_000),
    ("amazon.nova-", 300_000),
];

/// The window of `model`, if it is a well-known one.
pub(crate) fn known_window(model: &str) -> Option<u64> {
    // Bedrock ids carry a vendor and a region: `us.anthropic.claude-…`.
    // OpenRouter ids carry the vendor: `openai/gpt-4o`.
    let model = model.rsplit('/').next().unwrap_or(model);
    let bare = match model.find("claude-") {
        Some(i) => &model[i..],
        None => ["us.", "eu.", "apac.", "global."]
            .iter()
            .find_map(|r| model.strip_prefix(r))
            .unwrap_or(model),
    };
    KNOWN
        .iter()
        .find(|(prefix, _)| bare.starts_with(prefix))
        .map(|(_, w)| *w)
}

/// `model`'s window in an OpenAI-style model listing (`{"data":[{"id":…}]}`),
/// under the names servers give it: `context_length` (OpenRouter, and its
/// `top_provider`), `max_model_len` (vLLM), `max_context_length` (LM
/// Studio), `max_input_tokens` (LiteLLM's proxy, Anthropic's listing),
/// `context_window`; or in Gemini's (`{"models":[{"name":"models/…",
/// "inputTokenLimit":…}]}`).
pub(crate) fn window_in_listing(listing: &serde_json::Value, model: &str) -> Option<u64> {
    if let Some(models) = listing["models"].as_array() {
        let bare = model.strip_prefix("models/").unwrap_or(model);
        return models
            .iter()
            .find(|m| m["name"].as_str() == Some(&format!("models/{bare}")))?["inputTokenLimit"]
            .as_u64()
            .filter(|w| *w > 0);
    }
    let entry = listing["data"]
        .as_array()?
        .iter()
        .find(|m| m["id"].as_str() == Some(model))?;
    [
        &entry["context_length"],
        &entry["max_model_len"],
        &entry["max_context_length"],
        &entry["max_input_tokens"],
        &entry["context_window"],
        &entry["top_provider"]["context_length"],
    ]
    .into_iter()
    .find_map(serde_json::Value::as_u64)
    .filter(|w| *w > 0)
}

/// The chat models a listing names: OpenAI-style `data[].id`, or
/// Gemini's `models[]` that serve `generateContent`, by their bare id.
pub(crate) fn models_in_listing(listing: &serde_json::Value) -> Vec<String> {
    if let Some(models) = listing["models"].as_array() {
        return models
            .iter()
            .filter(|m| {
                m["supportedGenerationMethods"]
                    .as_array()
                    .is_some_and(|g| g.iter().any(|g| g == "generateContent"))
            })
            .filter_map(|m| m["name"].as_str())
            .map(|n| n.strip_prefix("models/").unwrap_or(n).to_string())
            .collect();
    }
    listing["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["id"].as_str().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geminis_listing_names_its_chat_models_and_their_windows() {
        let listing = serde_json::json!({"models": [
            {"name": "models/gemini-2.5-flash", "version": "001", "displayName": "Gemini 2.5 Flash",
             "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
             "supportedGenerationMethods": ["generateContent", "countTokens", "createCachedContent"]},
            {"name": "models/text-embedding-004", "inputTokenLimit": 2048,
             "supportedGenerationMethods": ["embedContent"]}
        ], "nextPageToken": ""});
        assert_eq!(models_in_listing(&listing), ["gemini-2.5-flash"]);
        assert_eq!(
            window_in_listing(&listing, "gemini-2.5-flash"),
            Some(1_048_576)
        );
        assert_eq!(
            window_in_listing(&listing, "models/gemini-2.5-flash"),
            Some(1_048_576)
        );
        assert_eq!(window_in_listing(&listing, "gemini-9"), None);
        assert_eq!(known_window("gemini-3-flash-preview"), Some(1_048_576));
    }

    #[test]
    fn listings_of_openrouter_vllm_and_lm_studio_say_the_window() {
        let listing = serde_json::json!({"object": "list", "data": [
            {"id": "meta-llama/llama-3.3-70b-instruct", "context_length": 131072,
             "top_provider": {"context_length": 131072, "max_completion_tokens": 16384}},
            {"id": "Qwen/Qwen2.5-7B-Instruct", "object": "model", "owned_by": "vllm",
             "max_model_len": 32768},
            {"id": "qwen2.5-coder-7b", "object": "model", "max_context_length": 4096},
            {"id": "claude-sonnet-4-5", "object": "model", "owned_by": "openai",
             "max_input_tokens": 200000, "max_output_tokens": 64000},
            {"id": "bare", "object": "model", "owned_by": "someone"}
        ]});
        let w = |m| window_in_listing(&listing, m);
        assert_eq!(w("meta-llama/llama-3.3-70b-instruct"), Some(131_072));
        assert_eq!(w("Qwen/Qwen2.5-7B-Instruct"), Some(32_768));
        assert_eq!(w("qwen2.5-coder-7b"), Some(4_096));
        assert_eq!(w("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(w("bare"), None);
        assert_eq!(w("missing"), None);
        assert_eq!(
            window_in_listing(&serde_json::json!({"error": "x"}), "bare"),
            None
        );
    }

    #[test]
    fn families_dated_and_regional_ids_find_their_window() {
        assert_eq!(known_window("gpt-4o-mini"), Some(128_000));
        assert_eq!(known_window("gpt-4.1-2025-04-14"), Some(1_047_576));
        assert_eq!(known_window("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(
            known_window("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            Some(200_000)
        );
        assert_eq!(known_window("us.amazon.nova-pro-v1:0"), Some(300_000));
        assert_eq!(known_window("amazon.nova-micro-v1:0"), Some(128_000));
        assert_eq!(known_window("openai/gpt-4o"), Some(128_000));
        assert_eq!(known_window("anthropic/claude-sonnet-4.5"), Some(200_000));
        assert_eq!(known_window("test-model"), None);
        assert_eq!(known_window("llama3"), None);
    }
}
