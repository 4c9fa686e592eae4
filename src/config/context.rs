//! What config says about the model's context window and compaction:
//! windows per provider and per model, and `[context]`.

use std::collections::BTreeMap;

/// The context windows config gives for a provider's models.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfiguredWindows {
    /// `[providers.NAME] context_window`.
    pub provider: Option<u64>,
    /// `[providers.NAME.models."MODEL"] context_window`.
    pub models: BTreeMap<String, u64>,
}

impl ConfiguredWindows {
    /// The window config gives for `model`: its own entry, else the
    /// provider's.
    pub fn of(&self, model: &str) -> Option<u64> {
        self.models.get(model).copied().or(self.provider)
    }
}

/// When the conversation is compacted (`[context]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextSettings {
    pub compact_at: f64,
    pub warn_at: f64,
    pub auto_compact: bool,
}

impl Default for ContextSettings {
    fn default() -> ContextSettings {
        ContextSettings {
            compact_at: super::defaults::COMPACT_AT,
            warn_at: super::defaults::WARN_AT,
            auto_compact: true,
        }
    }
}
