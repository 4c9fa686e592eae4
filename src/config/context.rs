//! What config says about the model's context window and compaction:
//! windows per provider and per model, `[context]`, and what the system
//! prompt may spend on what the model can reach (`[prompt]`), and what
//! subagents may spend (`[agents]`).

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

/// What subagents may spend (`[agents]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgentSettings {
    pub max_turns: u32,
    pub max_tokens: u64,
    pub max_total_tokens: u64,
    pub max_depth: u32,
    pub result_bytes: usize,
}

impl Default for AgentSettings {
    fn default() -> AgentSettings {
        AgentSettings::from_section(&Default::default())
    }
}

impl AgentSettings {
    pub(crate) fn from_section(a: &super::file::AgentsSection) -> AgentSettings {
        use super::defaults as d;
        AgentSettings {
            max_turns: a.max_turns.map_or(d::AGENT_MAX_TURNS, |n| n.get()),
            max_tokens: a.max_tokens.map_or(d::AGENT_MAX_TOKENS, |n| n.get()),
            max_total_tokens: a
                .max_total_tokens
                .map_or(d::AGENTS_MAX_TOTAL_TOKENS, |n| n.get()),
            max_depth: a.max_depth.map_or(d::AGENT_MAX_DEPTH, |n| n.get()),
            result_bytes: a.result_bytes.map_or(d::AGENT_RESULT_BYTES, |n| n.get()) as usize,
        }
    }
}

/// What the system prompt of a new session may spend on what the model can
/// reach (`[prompt]`), in bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PromptSettings {
    /// The names of deferred tools, over all servers (each server gets an
    /// equal share).
    pub tool_names_bytes: usize,
    /// One server's `instructions`.
    pub server_instructions_bytes: usize,
    /// All servers' `instructions` together.
    pub instructions_bytes: usize,
    /// The project's AGENTS.md files together.
    pub project_instructions_bytes: usize,
}

impl Default for PromptSettings {
    fn default() -> PromptSettings {
        PromptSettings {
            tool_names_bytes: 4096,
            server_instructions_bytes: 2048,
            instructions_bytes: 6144,
            project_instructions_bytes: 16384,
        }
    }
}

impl PromptSettings {
    /// Each budget is held to four times its default whatever a config
    /// says: a file cannot make hermes send megabytes of a project's text
    /// with every request.
    pub(crate) fn from_section(p: &super::file::PromptSection) -> PromptSettings {
        let d = PromptSettings::default();
        let or = |v: Option<u64>, d: usize| v.map_or(d, |n| (n as usize).min(d * 4));
        PromptSettings {
            tool_names_bytes: or(p.tool_names_bytes, d.tool_names_bytes),
            server_instructions_bytes: or(p.server_instructions_bytes, d.server_instructions_bytes),
            instructions_bytes: or(p.instructions_bytes, d.instructions_bytes),
            project_instructions_bytes: or(
                p.project_instructions_bytes,
                d.project_instructions_bytes,
            ),
        }
    }
}
