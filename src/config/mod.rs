//! Configuration: the file format, where files live, and how layers resolve into
//! the [`Settings`] a run uses. Layers, lowest first: built-in presets < user file
//! (or `--config PATH`) < project `.hermes/config.toml` < `HERMES_*` env < flags.

mod anchor;
mod approvals;
mod builtin;
mod checkpoints;
pub(crate) mod claude;
mod claude_permissions;
pub mod codex_toml;
mod context;
pub mod defaults;
pub(crate) mod edit;
mod error;
mod file;
mod file_servers;
mod hook_event;
mod hook_settings;
mod limits;
mod load;
mod matcher;
pub mod mcp_json;
mod mcp_server;
mod merged;
mod network;
mod paths;
mod presets;
pub(crate) use presets::with_key_set;
pub(crate) use presets::NAMES as PRESETS;
mod provider;
pub(crate) mod referenced;
mod settings;
mod show;
pub(crate) mod trust;
mod tui;
mod worktree;
pub use worktree::{WorktreeSection, WorktreeSettings};
pub mod vars;
pub use network::{HostRule, NetworkSection, NetworkSettings, NetworkValue, ShellNetwork};
pub use tui::{EditMode, Theme, TuiSection, TuiSettings};

pub(crate) use approvals::approval_settings;
pub use approvals::{ApprovalRule, ApprovalSettings, RuleOrigin};
pub use builtin::{BuiltinSettings, ShellSettings, WebFetchSettings};
pub use file::{
    ApprovalMode, ApprovalsSection, Concurrency, ConfigFile, ConnectorsSection, Decision,
    DeferMode, Effort, Elicitation, ForwardPorts, HookEntry, HooksSection, LimitsSection,
    McpServerEntry, OAuthEntry, ProviderEntry, ProviderKind, ShellSandbox, ShellSection,
    ThinkingMode, ToolFilter, ToolsSection, WarmUp, WebFetchSection, WebSearchSection,
};
pub use hook_event::HookEvent;
pub use hook_settings::{HookSettings, HooksSettings};
pub use matcher::HookMatcher;
pub use paths::Paths;
pub(crate) use paths::{agent_type_files_in, project_agent_files, project_dir, project_files};
pub(crate) use provider::openai_reasoning_model;

pub use settings::{
    mcp_servers, resolve, AgentSettings, ConfiguredWindows, ConnectorSettings, ContextSettings,
    DeferPolicy, Limits, McpServerSettings, PromptSettings, ProviderSettings, RemoteSettings,
    RetryPolicy, Settings, SystemPrompt, Thinking,
};

pub use error::ConfigError;
pub use merged::{file_warnings, load_merged, parse_text, Merged, Overrides};
pub(crate) use show::show;
pub use show::show_masked;
pub(crate) use trust::project_trusted;
