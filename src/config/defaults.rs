//! Every built-in default, in one place: the settings (`settings.rs`) and
//! the sections resolved beside it (`approvals`, `builtin`, hooks, the
//! provider) read them here, so none of them needs another to know one.

use std::time::Duration;

use super::file::{ApprovalMode, Concurrency, DeferMode, WarmUp};

/// A default (or configured) count of milliseconds as a duration.
pub(super) fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

pub const PROVIDER: &str = "openai";
/// Model requests allowed in one user turn.
pub const MAX_TURNS: u32 = 50;
pub const MAX_RETRIES: u32 = 4;
pub const RETRY_BASE_MS: u64 = 500;
pub const RETRY_MAX_MS: u64 = 30_000;
pub const CONNECT_TIMEOUT_MS: u64 = 10_000;
pub const IDLE_TIMEOUT_MS: u64 = 120_000;
/// One model request, start to last byte: 15 minutes.
pub const REQUEST_TIMEOUT_MS: u64 = 900_000;
/// One reply's body: 32 MiB (a long answer is a few hundred KiB).
pub const MAX_REPLY_BYTES: u64 = 32 * 1024 * 1024;
/// Output tokens per reply for providers that require a number.
pub const MAX_TOKENS: u32 = 8192;
/// The smallest thinking budget Anthropic accepts.
pub const MIN_THINKING_BUDGET: u32 = 1024;
pub const DEFER: DeferMode = DeferMode::Auto;
pub const DEFER_MAX_TOOLS: usize = 40;
pub const DEFER_MAX_SHARE: f64 = 0.1;
pub const CONTEXT_WINDOW: usize = 128_000;
/// Compact before a request past 80% of the window: room for the
/// answer and the next tool results.
pub const COMPACT_AT: f64 = 0.8;
pub const WARN_AT: f64 = 0.7;
pub const WARM_UP: WarmUp = WarmUp::Predict;
/// A cold start's catalog fill is given this long before tool_search
/// answers from what it has (a handshake takes well under a second).
pub const SEARCH_WAIT_MS: u64 = 3_000;
pub const CONCURRENCY: Concurrency = Concurrency::Serial;
pub const STARTUP_TIMEOUT_MS: u64 = 10_000;
pub const TOOL_TIMEOUT_MS: u64 = 60_000;
/// Hooks match every tool unless they say otherwise.
pub const HOOK_MATCH: &str = "*";
pub const HOOK_TIMEOUT_MS: u64 = 60_000;
pub const APPROVAL_MODE: ApprovalMode = ApprovalMode::Ask;
pub const MAX_TOOL_CALLS_PER_TURN: u32 = 200;
pub const CONNECTOR_TIMEOUT_MS: u64 = 60_000;
pub const TOOL_OUTPUT_BYTES: u64 = 64 * 1024;
pub const STDERR_LINE_BYTES: u64 = 2048;
pub const STDERR_QUOTE_CHARS: u64 = 300;
pub const SERVER_LOG_BYTES: u64 = 10 * 1024 * 1024;
pub const SERVERS_STARTED_AT_ONCE: u64 = 8;
/// The built-in tools a run offers unless `[tools] builtin` says otherwise.
pub const BUILTIN_TOOLS: &[&str] = &[
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "grep",
    "shell",
    "web_fetch",
    "update_plan",
    "agent",
];
/// The most of a body `web_fetch` reads.
pub const WEB_FETCH_MAX_BYTES: u64 = 5 * 1000 * 1000;
/// Searches one answer may run with the provider's own search.
pub const WEB_SEARCH_MAX_USES: u32 = 5;
/// How long one `web_fetch` may take, redirects included.
pub const WEB_FETCH_TIMEOUT_MS: u64 = 30_000;
/// What one subagent may spend: requests, and tokens (input and output).
pub const AGENT_MAX_TURNS: u32 = 25;
pub const AGENT_MAX_TOKENS: u64 = 500_000;
/// What all of a run's subagents may spend together.
pub const AGENTS_MAX_TOTAL_TOKENS: u64 = 2_000_000;
/// Subagents start none of their own.
pub const AGENT_MAX_DEPTH: u32 = 1;
/// The most of a subagent's answer its parent is handed.
pub const AGENT_RESULT_BYTES: u64 = 16 * 1024;
/// How long a `shell` command may run unless it asks for less or more.
pub const SHELL_TIMEOUT_MS: u64 = 120_000;
/// The most a `shell` call may ask for.
pub const SHELL_MAX_TIMEOUT_MS: u64 = 600_000;
/// How long a background process may run: a working day.
pub const BACKGROUND_MAX_S: u64 = 8 * 3600;
/// Background processes a session may have at once.
pub const BACKGROUND_MAX: usize = 16;
pub const SHELL_CONCURRENCY: Concurrency = Concurrency::Serial;
/// Processes a sandboxed command may have at once.
pub const SHELL_MAX_PROCESSES: u64 = 512;
/// Memory each of a sandboxed command's processes may take, in MiB.
pub const SHELL_MAX_MEMORY_MB: u64 = 4096;
/// What a sandboxed command never sees, unless `[tools.shell] hide` says
/// otherwise: where people keep keys and tokens.
pub const SHELL_HIDDEN: &[&str] = &[
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gh",
    "~/.config/gcloud",
    "~/.azure",
    "~/.kube",
    "~/.netrc",
    "~/.docker/config.json",
    "~/.npmrc",
    "~/.pypirc",
    "~/.git-credentials",
    "~/.cargo/credentials.toml",
    "~/.cargo/credentials",
];
