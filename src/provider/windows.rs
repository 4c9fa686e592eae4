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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(known_window("test-model"), None);
        assert_eq!(known_window("llama3"), None);
    }
}
