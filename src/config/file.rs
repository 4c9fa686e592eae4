//! The shape of a config file. Every struct denies unknown keys so a typo is an
//! error naming the file, line and key rather than a silently ignored setting.

use std::collections::BTreeMap;
// Zero is refused where it means "never wait" or "never ask", naming file, line and key.
use std::num::{NonZeroU32, NonZeroU64};

use super::checkpoints::CheckpointsSection;
use super::hook_event::{HookEvent, EVENT_COUNT, HOOKS_KEYS};
use serde::{Deserialize, Serialize};

pub use super::file_servers::{Concurrency, Elicitation, McpServerEntry, OAuthEntry, ToolFilter};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Which `[providers.NAME]` (or built-in preset) to use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Replaces the built-in system prompt for new sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Model requests allowed per user turn before hermes gives up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<NonZeroU32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub providers: BTreeMap<String, ProviderEntry>,
    #[serde(default, skip_serializing_if = "ToolsSection::is_empty")]
    pub tools: ToolsSection,
    /// MCP servers hermes starts itself over stdio, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, McpServerEntry>,
    #[serde(default, skip_serializing_if = "HooksSection::is_empty")]
    pub hooks: HooksSection,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approvals: Option<ApprovalsSection>,
    /// The remote connector gateway whose tools are named `connectors__…`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connectors: Option<ConnectorsSection>,
    #[serde(default, skip_serializing_if = "LimitsSection::is_empty")]
    pub limits: LimitsSection,
    #[serde(default, skip_serializing_if = "ContextSection::is_empty")]
    pub context: ContextSection,
    #[serde(default, skip_serializing_if = "PromptSection::is_empty")]
    pub prompt: PromptSection,
    #[serde(default, skip_serializing_if = "AgentsSection::is_empty")]
    pub agents: AgentsSection,
    #[serde(default, skip_serializing_if = "CheckpointsSection::is_empty")]
    pub checkpoints: CheckpointsSection,
    #[serde(default, skip_serializing_if = "super::TuiSection::is_empty")]
    pub tui: super::TuiSection,
    /// The hosts `web_fetch` reaches without asking, and never.
    #[serde(default, skip_serializing_if = "super::NetworkSection::is_empty")]
    pub network: super::NetworkSection,
    #[serde(default, skip_serializing_if = "super::WorktreeSection::is_empty")]
    pub worktree: super::WorktreeSection,
}

/// Subagents (the built-in `agent` tool): what one may spend, what all of
/// a run's may spend together, and how deep they may nest.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentsSection {
    /// Model requests one subagent may make.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<NonZeroU32>,
    /// Tokens (input and output of all its requests) one subagent may spend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<NonZeroU64>,
    /// Tokens all subagents of a run may spend together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_total_tokens: Option<NonZeroU64>,
    /// How deep subagents nest: 1, a subagent starts none of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<NonZeroU32>,
    /// Bytes of a subagent's answer its parent gets as the call's result;
    /// the rest is pointed to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_bytes: Option<NonZeroU64>,
}

impl AgentsSection {
    fn is_empty(&self) -> bool {
        self == &AgentsSection::default()
    }
}

/// What the system prompt may spend on servers, their tools and
/// instructions, and the project's AGENTS.md, in bytes (0: none of it).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PromptSection {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_names_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_instructions_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_instructions_bytes: Option<u64>,
}

impl PromptSection {
    fn is_empty(&self) -> bool {
        self == &PromptSection::default()
    }
}

/// When the conversation is compacted, and when the user is warned.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ContextSection {
    /// Compact before a request that would fill more than this share of the
    /// model's window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_at: Option<Share>,
    /// Warn once a request fills more than this share of the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warn_at: Option<Share>,
    /// `false`: compact only on `/compact` or after the provider refused a
    /// request as too long.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_compact: Option<bool>,
}

impl ContextSection {
    fn is_empty(&self) -> bool {
        self == &ContextSection::default()
    }
}

/// A share of something, above 0 and at most 1; anything else is refused
/// when the file is read, naming its line.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
#[serde(transparent)]
pub struct Share(pub f64);

impl<'de> Deserialize<'de> for Share {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Share, D::Error> {
        let v = f64::deserialize(d)?;
        if v > 0.0 && v <= 1.0 {
            Ok(Share(v))
        } else {
            Err(serde::de::Error::custom(format!(
                "must be a share above 0 and at most 1 (0.8 is 80%), got {v}"
            )))
        }
    }
}

/// Bounds on what hermes holds, keeps and passes on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    /// Bytes of one tool result passed to the model; the rest is cut with a note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_output_bytes: Option<NonZeroU64>,
    /// Bytes of each MCP server stderr line kept for error messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_line_bytes: Option<NonZeroU64>,
    /// Characters of each stderr line an error message quotes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_quote_chars: Option<NonZeroU64>,
    /// Size at which a server's stderr log is rotated to `.log.1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_log_bytes: Option<NonZeroU64>,
    /// Servers the background catalog fill starts at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub servers_started_at_once: Option<NonZeroU64>,
}

impl LimitsSection {
    fn is_empty(&self) -> bool {
        self == &LimitsSection::default()
    }
}

/// `[hooks]`: whether Claude Code's files add theirs, and a list of hooks
/// per event, keyed as [`HookEvent::key`] says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HooksSection {
    /// Whether Claude Code's settings files (`~/.claude/settings.json`, a
    /// project's `.claude/settings.json`) add their hooks; default yes.
    pub claude_code: Option<bool>,
    lists: [Vec<HookEntry>; EVENT_COUNT],
}

impl HooksSection {
    fn is_empty(&self) -> bool {
        self == &HooksSection::default()
    }

    pub fn list(&self, event: HookEvent) -> &Vec<HookEntry> {
        &self.lists[event.index()]
    }

    pub fn list_mut(&mut self, event: HookEvent) -> &mut Vec<HookEntry> {
        &mut self.lists[event.index()]
    }

    /// Every list with its event, in [`HookEvent::ALL`]'s order.
    pub fn lists(&self) -> impl Iterator<Item = (HookEvent, &Vec<HookEntry>)> {
        HookEvent::ALL.into_iter().zip(self.lists.iter())
    }

    pub fn lists_mut(&mut self) -> impl Iterator<Item = &mut Vec<HookEntry>> {
        self.lists.iter_mut()
    }
}

impl Serialize for HooksSection {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        if let Some(c) = self.claude_code {
            m.serialize_entry("claude_code", &c)?;
        }
        for (event, list) in self.lists().filter(|(_, l)| !l.is_empty()) {
            m.serialize_entry(event.key(), list)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for HooksSection {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = HooksSection;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of hook lists")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<HooksSection, A::Error> {
                use serde::de::Error;
                let mut out = HooksSection::default();
                let mut seen = std::collections::HashSet::new();
                while let Some(key) = map.next_key::<HooksKey>()? {
                    if !seen.insert(key) {
                        return Err(A::Error::custom("a key given twice"));
                    }
                    match key {
                        HooksKey::ClaudeCode => out.claude_code = Some(map.next_value()?),
                        HooksKey::Event(e) => *out.list_mut(e) = map.next_value()?,
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// A key of `[hooks]`, read as a field name is, so an unknown one is an
/// error at its own line.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum HooksKey {
    ClaudeCode,
    Event(HookEvent),
}

impl<'de> Deserialize<'de> for HooksKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = HooksKey;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a hook event's key")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<HooksKey, E> {
                match key {
                    "claude_code" => Ok(HooksKey::ClaudeCode),
                    _ => HookEvent::from_key(key)
                        .map(HooksKey::Event)
                        .ok_or_else(|| E::unknown_field(key, &HOOKS_KEYS)),
                }
            }
        }
        d.deserialize_identifier(Visitor)
    }
}

/// A command run (through `sh -c`) around tool calls whose name matches.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HookEntry {
    /// A name for `hermes hooks test NAME` and for messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Glob over the underlying tool name (`mcp__files__write*`); default all.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// Claude Code's matcher (`Edit|Write`, `mcp__memory__.*`): exact
    /// names joined by `|`, or a regular expression; instead of `match`.
    #[serde(rename = "matcher", skip_serializing_if = "Option::is_none")]
    pub claude_matcher: Option<String>,
    pub command: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<NonZeroU64>,
    /// `false`: outside the sandbox even when it runs the project's code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<bool>,
    /// Runs only for calls whose arguments match: a JSON pointer and a
    /// regex each, as an approval rule's `when` (Claude Code's `"if":
    /// "Bash(git commit:*)"` becomes `{ "/command" = … }`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub when: BTreeMap<String, String>,
    /// Runs beside the call and never holds it: what it answers decides
    /// nothing (Claude Code's `"async": true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ApprovalsSection {
    /// What a call no rule and no annotation decides gets: `ask`, `auto`
    /// (run it) or `deny`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<ApprovalMode>,
    /// Globs over tool names that run without asking.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Globs over tool names that are always asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ask: Vec<String>,
    /// Globs over tool names that never run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    /// Rules with argument conditions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleEntry>,
    /// Tool calls one user turn may make; past it, calls fail unrun.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tool_calls_per_turn: Option<NonZeroU32>,
}

/// `{ tool = "mcp__git__*", when = { "/branch" = "^main$" }, decision = "deny" }`
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RuleEntry {
    /// A glob over tool names.
    pub tool: String,
    pub decision: Decision,
    /// JSON pointer into the call's arguments → a regex its value must
    /// match; every pair must match for the rule to apply.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub when: BTreeMap<String, String>,
    /// Told to the model when the rule denies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalMode {
    Ask,
    Auto,
    Deny,
    /// Investigate, then propose: reads run, nothing that changes files
    /// does (`shell` runs with every working folder read-only).
    Plan,
}

impl ApprovalMode {
    pub fn name(self) -> &'static str {
        match self {
            ApprovalMode::Ask => "ask",
            ApprovalMode::Auto => "auto",
            ApprovalMode::Deny => "deny",
            ApprovalMode::Plan => "plan",
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConnectorsSection {
    /// Base URL: `GET {url}/tools` lists, `POST {url}/dispatch` runs.
    pub url: String,
    /// Variable holding the bearer token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<NonZeroU64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI-compatible Chat Completions.
    Openai,
    /// OpenAI's Responses API, stateless, reasoning kept encrypted.
    #[serde(rename = "openai-responses")]
    OpenaiResponses,
    Anthropic,
    Bedrock,
    /// Gemini's `generateContent`, signatures kept.
    Gemini,
}

impl ProviderKind {
    /// The name config gives it (`kind = "…"`).
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::OpenaiResponses => "openai-responses",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Bedrock => "bedrock",
            ProviderKind::Gemini => "gemini",
        }
    }
}

/// How hard a reasoning model thinks: OpenAI Responses `reasoning.effort`,
/// Gemini 3 `thinkingLevel`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Minimal,
    Low,
    Medium,
    High,
}

impl Effort {
    pub fn name(self) -> &'static str {
        match self {
            Effort::Minimal => "minimal",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProviderEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ProviderKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Name of the environment variable that holds the API key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// The key itself; discouraged (prefer `api_key_env`), masked by `config show`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Default model when neither `model` nor `-m` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Extra HTTP headers sent with every request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Retries after the first attempt for 429, 5xx and dropped connections.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    /// First backoff delay; doubles each retry, with jitter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_base_ms: Option<u64>,
    /// Upper bound of one backoff delay, `Retry-After` included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_max_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect_timeout_ms: Option<NonZeroU64>,
    /// Longest silence allowed while waiting for the next bytes of a reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_timeout_ms: Option<NonZeroU64>,
    /// Longest one model request may take, however steadily bytes arrive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_timeout_ms: Option<NonZeroU64>,
    /// Largest reply accepted, in bytes of the response body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_reply_bytes: Option<NonZeroU64>,
    /// Output tokens one reply may use (anthropic, bedrock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<NonZeroU32>,
    /// Extended thinking (anthropic, bedrock with Claude): off, enabled, adaptive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingMode>,
    /// Thinking tokens per turn; at least 1024 (Anthropic, Bedrock), any
    /// (Gemini 2.5's `thinkingBudget`). Setting it turns thinking on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<NonZeroU32>,
    /// How hard a reasoning model thinks (openai-responses `reasoning.effort`,
    /// gemini `thinkingLevel`): minimal, low, medium or high.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<Effort>,
    /// AWS region (bedrock); else AWS_REGION, AWS_DEFAULT_REGION, the profile's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// AWS profile for credentials and region (bedrock); else AWS_PROFILE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// The context window of this provider's models, in tokens, where
    /// `models` names none for the model in use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<NonZeroU64>,
    /// Per model: `[providers.NAME.models."MODEL"] context_window = N`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelEntry>,
}

/// What hermes is told about one model of a provider.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<NonZeroU64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingMode {
    Off,
    Enabled,
    Adaptive,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolsSection {
    /// Built-in tools to offer the model; default all of them (`read_file`,
    /// `write_file`, `edit_file`, `glob`, `grep`, `shell`), `[]` none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub builtin: Option<Vec<String>>,
    /// The built-in `shell`: its sandbox, network, timeout, concurrency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell: Option<ShellSection>,
    /// The built-in `web_fetch`: how much of a page it reads, how long it waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_fetch: Option<WebFetchSection>,
    /// The provider's own web search, where its API has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_search: Option<WebSearchSection>,
    /// Whether MCP and connector tools are listed to the model or found through
    /// tool_search / tool_describe / tool_call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defer: Option<DeferMode>,
    /// `auto` defers when there are more tools than this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defer_max_tools: Option<usize>,
    /// `auto` defers when the tool schemas would take more than this share of
    /// the context window (estimated at 4 bytes a token).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defer_max_share: Option<f64>,
    /// The model's context window in tokens, for `defer_max_share`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<usize>,
    /// Which MCP servers are started before a call needs them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_up: Option<WarmUp>,
    /// How long tool_search waits for catalogs still loading, in ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_wait_ms: Option<u64>,
}

/// `[tools.shell]`
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShellSection {
    /// `"on"` (the default), `"landlock"` (no namespaces) or `"off"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<ShellSandbox>,
    /// What sandboxed commands reach: `"allowed"` (the default: the hosts
    /// `[network] allow` names, through hermes' proxy), `false` (nothing
    /// but their own loopback) or `true` (everything).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<super::ShellNetwork>,
    /// How long a command may run unless it asks for another limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<NonZeroU64>,
    /// How many commands run at once: `"serial"`, `"parallel"` or a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<Concurrency>,
    /// More folders sandboxed commands may write to (`~/.cargo/registry`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writable: Vec<String>,
    /// Paths absent inside the sandbox (replaces the secret folders' list).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hide: Option<Vec<String>>,
    /// Processes a command may have at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_processes: Option<NonZeroU64>,
    /// How much memory each of a command's processes may take, in MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_memory_mb: Option<NonZeroU64>,
    /// How long a background process may run, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_max_s: Option<NonZeroU64>,
    /// Whether a port a background process opens in the sandbox's loopback
    /// is forwarded to this machine's: `"ask"`, `"always"` or `"never"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forward_ports: Option<ForwardPorts>,
}

/// `[tools.web_fetch]`
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WebFetchSection {
    /// The most of a body read, in bytes (default 5 MB); the tool's output
    /// bound applies after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<NonZeroU64>,
    /// How long one fetch may take, redirects included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<NonZeroU64>,
}

/// `[tools.web_search]`
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WebSearchSection {
    /// Offer the provider's server-side search (Anthropic's `web_search`
    /// tool) — run by the provider, not hermes; off by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native: Option<bool>,
    /// The most searches one answer may run (Anthropic's `max_uses`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<NonZeroU32>,
}

/// Whether a sandboxed server's port is reached from the host.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ForwardPorts {
    /// Offered to the person as it opens (never in a run nobody answers).
    #[default]
    Ask,
    Always,
    Never,
}

/// How `shell` is sandboxed (docs/tools.md, "The sandbox").
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ShellSandbox {
    /// Namespaces, Landlock and seccomp; Landlock and seccomp alone where
    /// the kernel gives no user namespaces (the default).
    On,
    /// Landlock and seccomp only.
    Landlock,
    /// No sandbox: every command is asked.
    Off,
}

/// Starting servers ahead of their first call.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WarmUp {
    /// The servers of search hits, of the tools a resumed session's last
    /// turn used, and of those the user's words point at when a turn starts.
    Predict,
    /// The same without the prediction from the user's words.
    Hits,
    /// Servers start on their first call only.
    Off,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DeferMode {
    Always,
    Never,
    Auto,
}

impl ToolsSection {
    fn is_empty(&self) -> bool {
        self == &ToolsSection::default()
    }
}
