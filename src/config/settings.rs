//! The settings a run works with: flags, layers and presets resolved once
//! into fully typed values, every default filled in here and nowhere else
//! (ripgrep's low-level → high-level args). Callers get no `Option` that
//! stands for "use the default"; an `Option` left means "not configured".

use std::collections::BTreeMap;

use std::path::Path;
use std::time::Duration;

use super::builtin::BuiltinSettings;
pub use super::context::{AgentSettings, ConfiguredWindows, ContextSettings, PromptSettings};
use super::hook_settings::HooksSettings;
pub use super::limits::Limits;
pub use super::mcp_server::{mcp_servers, McpServerSettings, RemoteSettings};

use super::approvals::{approval_settings, ApprovalRule, ApprovalSettings, RuleOrigin};
use super::defaults::{self, ms};
use super::file::{Decision, DeferMode, WarmUp};
use super::provider::resolve_provider;
pub use super::provider::{ProviderSettings, RetryPolicy, Thinking};
use super::{load_merged, ConfigError, Overrides, Paths};
use crate::util::time::Utc;

/// When MCP and connector tools are deferred behind the bridge tools.
#[derive(Debug, Clone, PartialEq)]
pub struct DeferPolicy {
    pub mode: DeferMode,
    pub max_tools: usize,
    pub max_share: f64,
    pub context_window: usize,
    pub warm_up: WarmUp,
    pub search_wait: Duration,
    /// The most tools the provider's API takes in one request, and the
    /// API's name: more than that are deferred whatever `mode` says.
    pub api_limit: Option<(usize, &'static str)>,
}

impl Default for DeferPolicy {
    fn default() -> Self {
        DeferPolicy {
            mode: defaults::DEFER,
            max_tools: defaults::DEFER_MAX_TOOLS,
            max_share: defaults::DEFER_MAX_SHARE,
            context_window: defaults::CONTEXT_WINDOW,
            warm_up: defaults::WARM_UP,
            search_wait: Duration::from_millis(defaults::SEARCH_WAIT_MS),
            api_limit: None,
        }
    }
}

/// What the project's server files (`.mcp.json`, …) that were read leave
/// out, a line a server.
fn server_file_notes(sources: &[std::path::PathBuf]) -> Vec<String> {
    sources
        .iter()
        .filter(|p| super::mcp_json::is_server_file(p))
        .filter_map(|p| std::fs::read_to_string(p).ok().map(|t| (p, t)))
        .flat_map(|(p, t)| super::mcp_json::notes(p, &t))
        .collect()
}

fn claude_settings_notes(sources: &[std::path::PathBuf]) -> Vec<String> {
    sources
        .iter()
        .filter(|p| super::claude::is_settings(p))
        .filter_map(|p| std::fs::read_to_string(p).ok().map(|t| (p, t)))
        .flat_map(|(p, t)| super::claude::notes(p, &t))
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConnectorSettings {
    pub url: String,
    /// Variable holding the bearer token; no token is sent without one.
    pub token_env: Option<String>,
    pub timeout: Duration,
}

/// The system prompt of a new session.
#[derive(Debug, Clone, PartialEq)]
pub enum SystemPrompt {
    /// hermes' own, naming the session's working directory and date.
    Builtin,
    /// `system_prompt` from the config, as written.
    Custom(String),
}

impl SystemPrompt {
    pub fn text(&self, cwd: &Path, now: &Utc) -> String {
        match self {
            SystemPrompt::Custom(text) => text.clone(),
            SystemPrompt::Builtin => format!(
                "You are hermes, an AI agent working in a terminal for a developer. \
                 Answer concisely. Use the tools you are given when they help; \
                 report tool failures honestly. Modes: ask (each change approved), auto, \
                 plan (reads only, until the person approves the plan you end with).\n{}",
                SystemPrompt::environment(cwd, now)
            ),
        }
    }

    /// Where and when the work happens: the working directory, platform,
    /// shell and date (what a subagent's prompt says too).
    pub fn environment(cwd: &Path, now: &Utc) -> String {
        format!(
            "Working directory: {}\nPlatform: {} {}; shell: {}\n\
                 Today's date: {:04}-{:02}-{:02}",
            cwd.display(),
            std::env::consts::OS,
            std::env::consts::ARCH,
            if std::path::Path::new("/bin/bash").exists() {
                "bash"
            } else {
                "sh"
            },
            now.year,
            now.month,
            now.day
        )
    }
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub paths: Paths,
    pub provider: ProviderSettings,
    pub max_turns: u32,
    /// Tokens the run may spend, input and output of every request
    /// (`--max-budget-tokens`); `None`: no bound.
    pub max_budget_tokens: Option<u64>,
    pub system_prompt: SystemPrompt,
    pub builtin: BuiltinSettings,
    pub defer: DeferPolicy,
    pub mcp_servers: BTreeMap<String, McpServerSettings>,
    pub hooks: HooksSettings,
    pub approvals: ApprovalSettings,
    /// The connector gateway, when one is configured.
    pub connectors: Option<ConnectorSettings>,
    pub limits: Limits,
    pub context: ContextSettings,
    pub prompt: PromptSettings,
    pub agents: AgentSettings,
    pub tui: super::TuiSettings,
    pub worktree: super::WorktreeSettings,
    /// Problems of the config files that do not stop a run.
    pub warnings: Vec<String>,
}

pub fn resolve(paths: Paths, cwd: &Path, ov: &Overrides) -> Result<Settings, ConfigError> {
    let super::Merged {
        file,
        sources,
        held,
        ..
    } = load_merged(&paths, cwd, ov)?;
    let provider = resolve_provider(&file, ov).map_err(|e| match &held {
        Some(h) => ConfigError::WithHeld {
            source: Box::new(e),
            held: h.clone(),
        },
        None => e,
    })?;
    // Every key the config holds, in use this run or not: a tool result
    // that prints the file must not carry one to the model.
    for p in file.providers.values() {
        if let Some(k) = &p.api_key {
            crate::util::secrets::remember(k);
        }
    }
    let t = &file.tools;
    let (hooks, hook_warnings) = HooksSettings::from_section(&file.hooks)?;
    let approvals = file.approvals.clone().unwrap_or_default();
    let mut builtin = BuiltinSettings {
        own_folders: vec![
            paths.config_dir.clone(),
            paths.data_dir.clone(),
            paths.cache_dir.clone(),
        ],
        worktrees_dir: Some(paths.worktrees_dir()),
        run_files: sources
            .iter()
            .cloned()
            .chain(super::referenced::files(&file, cwd))
            .collect(),
        network: super::NetworkSettings::from_section(&file.network),
        ..BuiltinSettings::from_section(t)
    };
    // hermes' own state is no command's business: sessions, tokens, trust,
    // the config that may hold keys, and the changes waiting for review.
    builtin.shell.stage = Some(paths.data_dir.join("stage"));
    builtin.checkpoints = file
        .checkpoints
        .keep
        .unwrap_or(true)
        // The sessions' blob folder (`session::blob_folder`), beside the
        // large images.
        .then(|| {
            (
                paths.sessions_dir().join("blobs"),
                file.checkpoints.max_mb.unwrap_or(1024),
            )
        });
    builtin.roots.extend(ov.add_dirs.iter().cloned());
    builtin.shell.hidden.extend([
        paths.sessions_dir(),
        paths.data_dir.join("oauth"),
        paths.data_dir.join("trusted-folders"),
        paths.data_dir.join("stage"),
        paths.config_file(),
    ]);
    let worktree = super::WorktreeSettings::from_section(&file.worktree, paths.worktrees_dir());
    Ok(Settings {
        paths,
        provider,
        max_turns: ov
            .max_turns
            .or(file.max_turns.map(|n| n.get()))
            .unwrap_or(defaults::MAX_TURNS),
        max_budget_tokens: ov.max_budget_tokens,
        system_prompt: match &file.system_prompt {
            Some(text) => SystemPrompt::Custom(text.clone()),
            None => SystemPrompt::Builtin,
        },
        builtin,
        defer: DeferPolicy {
            mode: t.defer.unwrap_or(defaults::DEFER),
            max_tools: t.defer_max_tools.unwrap_or(defaults::DEFER_MAX_TOOLS),
            max_share: t.defer_max_share.unwrap_or(defaults::DEFER_MAX_SHARE),
            context_window: t.context_window.unwrap_or(defaults::CONTEXT_WINDOW),
            warm_up: t.warm_up.unwrap_or(defaults::WARM_UP),
            search_wait: Duration::from_millis(
                t.search_wait_ms.unwrap_or(defaults::SEARCH_WAIT_MS),
            ),
            api_limit: None,
        },
        mcp_servers: mcp_servers(&file),
        hooks,
        approvals: {
            let mut a = approval_settings(&approvals)?;
            a.rules.extend(
                ov.approve
                    .iter()
                    .map(|g| ApprovalRule::glob(g, Decision::Allow, RuleOrigin::Flag)),
            );
            a.yolo = ov.yolo;
            if let Some(m) = ov.mode {
                a.mode = m;
            }
            a
        },
        warnings: super::file_warnings(&sources)
            .into_iter()
            .chain(held)
            .chain(hook_warnings)
            .chain(server_file_notes(&sources))
            .chain(claude_settings_notes(&sources))
            .collect(),
        limits: Limits::from_section(&file.limits),
        tui: super::TuiSettings::from_section(&file.tui),
        worktree,
        context: ContextSettings {
            compact_at: file
                .context
                .compact_at
                .map_or(defaults::COMPACT_AT, |s| s.0),
            warn_at: file.context.warn_at.map_or(defaults::WARN_AT, |s| s.0),
            auto_compact: file.context.auto_compact.unwrap_or(true),
        },
        prompt: PromptSettings::from_section(&file.prompt),
        agents: AgentSettings::from_section(&file.agents),
        connectors: file.connectors.as_ref().map(|c| ConnectorSettings {
            url: c.url.clone(),
            token_env: c.token_env.clone(),
            timeout: ms(c
                .timeout_ms
                .map_or(defaults::CONNECTOR_TIMEOUT_MS, |n| n.get())),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::file::ApprovalMode;
    use crate::config::Concurrency;

    #[test]
    fn an_empty_config_resolves_to_the_documented_defaults() {
        let home = tempfile::tempdir().unwrap();
        let ov = Overrides {
            config_path: Some(home.path().join("missing.toml")),
            ..Overrides::default()
        };
        std::fs::write(home.path().join("missing.toml"), "").unwrap();
        let s = resolve(Paths::under(home.path()), home.path(), &ov).unwrap();
        assert_eq!(s.provider.name, "openai");
        assert_eq!(s.max_turns, 50);
        assert_eq!(s.defer, DeferPolicy::default());
        assert_eq!(s.defer.mode, DeferMode::Auto, "the product default is auto");
        assert_eq!(
            s.approvals.mode,
            ApprovalMode::Ask,
            "ask before a tool acts"
        );
        assert!(s.connectors.is_none() && s.mcp_servers.is_empty());
        let server = McpServerSettings::command("x");
        assert_eq!(server.concurrency, Concurrency::Serial);
        assert_eq!(server.startup_timeout, Duration::from_secs(10));
        assert_eq!(server.tool_timeout, Duration::from_secs(60));
        assert!(server.enabled);
    }
}
