//! Built-in provider presets, so `--provider openrouter` works with no config file.
//! A `[providers.NAME]` table of the same name overrides a preset key by key.

use super::{ProviderEntry, ProviderKind};

pub(crate) const NAMES: &[&str] = &[
    "anthropic",
    "bedrock",
    "gemini",
    "ollama",
    "openai",
    "openrouter",
];

pub(super) fn preset(name: &str) -> Option<ProviderEntry> {
    let (kind, url, key, model) = match name {
        "openai" => (
            ProviderKind::Openai,
            "https://api.openai.com/v1",
            Some("OPENAI_API_KEY"),
            "gpt-4.1-mini",
        ),
        "openrouter" => (
            ProviderKind::Openai,
            "https://openrouter.ai/api/v1",
            Some("OPENROUTER_API_KEY"),
            "anthropic/claude-sonnet-4.5",
        ),
        "ollama" => (
            ProviderKind::Openai,
            "http://127.0.0.1:11434/v1",
            None,
            "llama3.2",
        ),
        "anthropic" => (
            ProviderKind::Anthropic,
            "https://api.anthropic.com",
            Some("ANTHROPIC_API_KEY"),
            "claude-sonnet-4-5",
        ),
        // GEMINI_API_KEY, else GOOGLE_API_KEY (`config::provider`).
        "gemini" => (
            ProviderKind::Gemini,
            "https://generativelanguage.googleapis.com/v1beta",
            Some("GEMINI_API_KEY"),
            "gemini-2.5-flash",
        ),
        // Its URL follows the region: https://bedrock-runtime.REGION.amazonaws.com.
        "bedrock" => (
            ProviderKind::Bedrock,
            "",
            None,
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
        _ => return None,
    };
    Some(ProviderEntry {
        kind: Some(kind),
        base_url: (!url.is_empty()).then(|| url.into()),
        api_key_env: key.map(Into::into),
        model: Some(model.into()),
        ..ProviderEntry::default()
    })
}

/// The first preset other than `except` whose key variable is set: the
/// provider a person with only that key means (`ANTHROPIC_API_KEY` set,
/// `OPENAI_API_KEY` not), and its variable.
pub(crate) fn with_key_set(except: &str) -> Option<(&'static str, String)> {
    NAMES.iter().filter(|n| **n != except).find_map(|name| {
        let var = preset(name)?.api_key_env?;
        std::env::var_os(&var)
            .is_some_and(|v| !v.is_empty())
            .then_some((*name, var))
    })
}

/// `user`'s keys over `base`'s.
pub(super) fn overlay(base: ProviderEntry, user: &ProviderEntry) -> ProviderEntry {
    let u = user.clone();
    let mut headers = base.headers;
    headers.extend(u.headers);
    let mut models = base.models;
    models.extend(u.models);
    ProviderEntry {
        kind: u.kind.or(base.kind),
        base_url: u.base_url.or(base.base_url),
        api_key_env: u.api_key_env.or(base.api_key_env),
        api_key: u.api_key.or(base.api_key),
        model: u.model.or(base.model),
        headers,
        max_retries: u.max_retries.or(base.max_retries),
        retry_base_ms: u.retry_base_ms.or(base.retry_base_ms),
        retry_max_ms: u.retry_max_ms.or(base.retry_max_ms),
        connect_timeout_ms: u.connect_timeout_ms.or(base.connect_timeout_ms),
        idle_timeout_ms: u.idle_timeout_ms.or(base.idle_timeout_ms),
        request_timeout_ms: u.request_timeout_ms.or(base.request_timeout_ms),
        max_reply_bytes: u.max_reply_bytes.or(base.max_reply_bytes),
        max_tokens: u.max_tokens.or(base.max_tokens),
        thinking: u.thinking.or(base.thinking),
        thinking_budget: u.thinking_budget.or(base.thinking_budget),
        reasoning_effort: u.reasoning_effort.or(base.reasoning_effort),
        region: u.region.or(base.region),
        profile: u.profile.or(base.profile),
        context_window: u.context_window.or(base.context_window),
        models,
    }
}
