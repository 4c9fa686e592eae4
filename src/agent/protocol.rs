//! Events out of the core. Serialised as-is for `--json`, one object per line.

use serde::Serialize;
use tokio::sync::mpsc;

pub use crate::session::Settled;

/// What settled an approval, and whether it stood for a question nobody
/// could answer (a one-shot run). `--json` and the session file give its
/// text: `rule approvals.deny[0]`, `mode ask (nobody to ask)`, `you, once`.
#[derive(Debug, Clone, PartialEq)]
pub struct SettledBy {
    pub by: crate::policy::By,
    pub nobody_to_ask: bool,
}

impl SettledBy {
    /// Settled by `by`, not for want of someone to ask.
    pub(crate) fn new(by: crate::policy::By) -> SettledBy {
        SettledBy {
            by,
            nobody_to_ask: false,
        }
    }
}

impl std::fmt::Display for SettledBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.by)?;
        if self.nobody_to_ask {
            f.write_str(" (nobody to ask)")?;
        }
        Ok(())
    }
}

impl Serialize for SettledBy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

pub use crate::session::CompactionReason;

/// The version of the `--json` event stream, in `session_started`: raised
/// when an event or field changes meaning or goes away (new events and
/// fields are added without it).
pub(crate) const EVENTS_SCHEMA: u32 = 4;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The first event of a run. `schema`: the version of this event
    /// stream (`EVENTS_SCHEMA`), for scripts that read it.
    SessionStarted {
        schema: u32,
        id: String,
        path: String,
        resumed: bool,
    },
    Warning {
        message: String,
    },
    /// A model request is about to be sent (`request` counts from 1 in the turn).
    ModelRequest {
        request: u32,
    },
    TextDelta {
        text: String,
    },
    /// The model's thinking as it streams (Anthropic and Bedrock thinking,
    /// an OpenAI reasoning summary, a Gemini thought summary): for a front
    /// end that shows it (an editor, `--json`); the terminal does not.
    ThinkingDelta {
        text: String,
    },
    Retrying {
        attempt: u32,
        delay_ms: u64,
        reason: String,
    },
    Usage {
        prompt_tokens: u64,
        completion_tokens: u64,
        total_tokens: u64,
        /// Of `prompt_tokens`, read from the provider's prompt cache
        /// (left out when zero, as docs/sessions.md says).
        #[serde(skip_serializing_if = "is_zero")]
        cache_read_tokens: u64,
        /// Of `prompt_tokens`, written to the provider's prompt cache.
        #[serde(skip_serializing_if = "is_zero")]
        cache_write_tokens: u64,
        /// The conversation's size after this request (its input and
        /// output), and the model's window, when hermes knows it.
        #[serde(skip_serializing_if = "Option::is_none")]
        context_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        context_window: Option<u64>,
    },
    /// The history was compacted: old tool results stubbed, older turns
    /// replaced by a summary the model wrote.
    Compacted {
        reason: CompactionReason,
        before_tokens: u64,
        after_tokens: u64,
        summarised: u64,
        stubbed: u64,
    },
    /// The person is asked about one entry: the round waits for the
    /// answer (the REPL reads it from the terminal, a `--json-answers`
    /// script writes it on stdin) and says how it was settled in an
    /// `approval` event. `arguments`: the entry's own, whole, as the model
    /// sent them — a front end cuts them to its screen, the schema's
    /// required ones (the target) first.
    ApprovalAsked {
        id: String,
        name: String,
        arguments: ShownArguments,
        /// The path the call acts on as hermes resolved it (absolute, links
        /// followed), where that is not the `path` the model gave.
        #[serde(skip_serializing_if = "Option::is_none")]
        resolved_path: Option<String>,
        why: String,
        /// What the call would change (a unified diff), when the tool can
        /// say: shown under its target instead of its arguments' bodies.
        #[serde(skip_serializing_if = "Option::is_none")]
        preview: Option<String>,
        /// What "this session" or "always" would allow from then on (the
        /// tool; for `shell`, exactly this command line); `None` when the
        /// call can only be allowed once.
        #[serde(skip_serializing_if = "Option::is_none")]
        grants: Option<String>,
    },
    /// A server asks the user to fill a form (elicitation): its id (the
    /// answer names it, on the answers channel approvals use), the
    /// server's own message, and each field as it is asked.
    FormAsked {
        id: String,
        server: String,
        message: String,
        fields: Vec<crate::mcp::Field>,
        /// The server's own schema of the form, for an editor that draws
        /// it (ACP `elicitation/create`); `fields` is what `--json` gives.
        #[serde(skip)]
        schema: serde_json::Value,
    },
    /// How an entry's approval was settled: `decision` is `allow` or `deny`
    /// (an `ask` nobody could answer is a deny), `by` what decided it.
    Approval {
        id: String,
        name: String,
        decision: Settled,
        by: SettledBy,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The entry's arguments, when nobody could be asked about it (a
        /// one-shot run): the refusal shows them whole.
        #[serde(skip_serializing_if = "Option::is_none")]
        arguments: Option<ShownArguments>,
        /// With `arguments`: the path as resolved, as in `approval_asked`.
        #[serde(skip_serializing_if = "Option::is_none")]
        resolved_path: Option<String>,
    },
    /// A round of tool calls begins: its entries' ids in the order the
    /// model gave them (a split batch's entries at its place), so a front
    /// end can keep each entry in its place whatever order the others'
    /// events come in.
    ToolRoundStarted {
        ids: Vec<String>,
        /// Each entry's underlying tool and its own arguments, beside its
        /// id: an editor (ACP) lists the round's calls before any is asked
        /// about. Not in `--json`, whose later events carry them.
        #[serde(skip)]
        entries: Vec<(String, String)>,
    },
    /// An entry passed its checks and waits for its server (concurrency gate,
    /// start-up). `name` is the underlying tool, `arguments` the entry's own.
    ToolCallQueued {
        id: String,
        name: String,
        arguments: String,
        /// As in `approval_asked`.
        #[serde(skip_serializing_if = "Option::is_none")]
        resolved_path: Option<String>,
    },
    /// The entry is being sent to its tool now.
    ToolCallStarted {
        id: String,
        name: String,
        arguments: String,
        /// As in `approval_asked`.
        #[serde(skip_serializing_if = "Option::is_none")]
        resolved_path: Option<String>,
    },
    /// A server's progress report on a running call: `id`, the entry it
    /// is about, when the server named its progress token.
    ToolProgress {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        server: String,
        progress: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    ToolCallFinished {
        id: String,
        name: String,
        /// For an entry that never started (refused before it ran): its
        /// arguments, which no earlier event gave.
        #[serde(skip_serializing_if = "Option::is_none")]
        arguments: Option<String>,
        is_error: bool,
        content: String,
        /// The change a built-in edit made, as a unified diff, for the
        /// person (the model has `content`).
        #[serde(skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
        /// The files the call changed and that landed (a built-in write,
        /// what the sandbox saw a `shell` command do).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        changed: Vec<ChangedFile>,
    },
    TurnDone {
        text: String,
        model_requests: u32,
        /// Why the model's last answer ended: `end_turn`, or `max_tokens`
        /// (its output limit) or `refusal` (it declined, or a guardrail).
        stop: TurnStop,
    },
    /// The model's task list changed (`update_plan`): the whole plan.
    PlanUpdated {
        #[serde(skip_serializing_if = "Option::is_none")]
        explanation: Option<String>,
        plan: Vec<crate::call::PlanStep>,
    },
    /// A background process started (`shell` with `background: true`):
    /// its id in the session.
    ProcessStarted {
        id: u32,
        command: String,
    },
    /// A background process' output, as `shell_output` read it.
    ProcessOutput {
        id: u32,
        text: String,
        /// Bytes it wrote before these that the 1 MiB ring no longer held.
        #[serde(skip_serializing_if = "is_zero")]
        dropped_bytes: u64,
    },
    /// A background process ended: its exit code or signal, or why hermes
    /// stopped it (`shell_kill`, its time bound, its session's end).
    ProcessExited {
        id: u32,
        exit_code: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        signal: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        stopped: Option<String>,
        /// Bytes of its output the ring dropped over its life.
        dropped_bytes: u64,
    },
    /// A port opened in the sandbox's loopback: `/forward PORT` reaches it
    /// from this machine (`[tools.shell] forward_ports = "ask"`). `id`:
    /// the background process listening, when it can be told.
    PortOpened {
        port: u16,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<u32>,
    },
    /// A port of the sandbox's loopback is reached at `host` on this
    /// machine's.
    PortForwarded {
        port: u16,
        host: u16,
    },
    /// `web_fetch` read a page: where it ended up (after redirects), its
    /// host, the HTTP status and the bytes read from the network (0 when
    /// the session's copy was still good).
    WebFetched {
        url: String,
        domain: String,
        status: u16,
        bytes: u64,
    },
    /// An event of a subagent: `id` is the `agent` call that started it
    /// (its entry in the round), `description` what the parent called it.
    Subagent {
        id: String,
        description: String,
        event: Box<Event>,
    },
    Error {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
    },
    /// The last event of a one-shot run: what a script judges it by.
    RunSummary(Box<RunSummary>),
}

impl Event {
    /// How a background process ended (`process_exited`), as said to a
    /// person: `exited with code 3`, `stopped (shell_kill)`.
    pub(crate) fn process_end(&self) -> Option<String> {
        match self {
            Event::ProcessExited {
                exit_code,
                signal,
                stopped,
                ..
            } => Some(crate::tools::ended_how(
                *exit_code,
                *signal,
                stopped.as_deref(),
            )),
            _ => None,
        }
    }
}

impl From<crate::tools::Notice> for Event {
    fn from(n: crate::tools::Notice) -> Event {
        use crate::tools::Notice;
        match n {
            Notice::Started { id, command } => Event::ProcessStarted { id, command },
            Notice::Output { id, text, dropped } => Event::ProcessOutput {
                id,
                text,
                dropped_bytes: dropped,
            },
            Notice::Exited {
                id,
                code,
                signal,
                stopped,
                dropped,
            } => Event::ProcessExited {
                id,
                exit_code: code,
                signal,
                stopped,
                dropped_bytes: dropped,
            },
            Notice::PortOpened { port, id } => Event::PortOpened { port, id },
            Notice::PortForwarded { port, host } => Event::PortForwarded { port, host },
            Notice::Warning(message) => Event::Warning { message },
            Notice::Fetched {
                url,
                domain,
                status,
                bytes,
            } => Event::WebFetched {
                url,
                domain,
                status,
                bytes,
            },
        }
    }
}

/// A one-shot run, summed up: its session, exit code and time, what it
/// asked of the model, how each tool call ended (subagents' included) and
/// what files it left changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub session_id: String,
    pub exit_code: u8,
    pub duration_ms: u64,
    pub model_requests: u64,
    pub tokens: RunTokens,
    pub calls: RunCalls,
    pub files_changed: Vec<ChangedFile>,
    /// Background processes its `shell` calls started (left out when none).
    #[serde(skip_serializing_if = "RunProcesses::is_none")]
    pub processes: RunProcesses,
    /// Pages `web_fetch` read (left out when none).
    #[serde(skip_serializing_if = "RunWeb::is_none")]
    pub web: RunWeb,
    /// The answer as the JSON value `--output-schema` asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<serde_json::Value>,
    /// The worktree the run worked in (`--worktree`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<RunWorktree>,
}

/// hermes' worktree a run worked in: its name, branch and folder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunWorktree {
    pub name: String,
    pub branch: String,
    pub path: String,
}

/// Background processes of a run: how many started, and how many of them
/// exited with code 0 (the rest failed, or were stopped — all are stopped
/// by the run's end).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunProcesses {
    pub started: u64,
    pub exited_ok: u64,
}

impl RunProcesses {
    fn is_none(&self) -> bool {
        self.started == 0
    }
}

/// Pages of a run's `web_fetch` calls: how many, their hosts in the
/// order first fetched, and the bytes read from the network.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunWeb {
    pub fetches: u64,
    pub domains: Vec<String>,
    pub bytes: u64,
}

impl RunWeb {
    fn is_none(&self) -> bool {
        self.fetches == 0
    }
}

/// Tokens of every model request of a run: `cached`, of `input`, read
/// from the provider's prompt cache.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunTokens {
    pub input: u64,
    pub output: u64,
    pub cached: u64,
}

/// Tool calls of a run by how they ended: `denied` by a rule, a hook or
/// the person; `refused` because nobody could be asked (a one-shot run's
/// question); `cancelled` by a stop before or while they ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunCalls {
    pub ok: u64,
    pub error: u64,
    pub denied: u64,
    pub refused: u64,
    pub cancelled: u64,
}

/// A file a call changed: its path and whether it was made, changed or
/// removed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangedFile {
    pub path: String,
    pub kind: crate::sandbox::ChangeKind,
}

impl ChangedFile {
    /// The changes of `changes` that landed.
    pub(crate) fn landed(changes: Option<&crate::sandbox::Changes>) -> Vec<ChangedFile> {
        changes
            .into_iter()
            .flat_map(|c| c.landed())
            .map(|f| ChangedFile {
                path: f.path.to_string_lossy().into_owned(),
                kind: f.kind,
            })
            .collect()
    }
}

/// Why a turn's last answer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnStop {
    EndTurn,
    MaxTokens,
    Refusal,
}

pub(crate) type EventTx = mpsc::UnboundedSender<Event>;

/// An entry's arguments as shown to a person: the target first — the
/// arguments its tool's schema marks required, in the schema's order.
/// Serialised as the arguments alone.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownArguments {
    pub value: serde_json::Value,
    pub required: Vec<String>,
}

/// `arguments` with its `path` put as `resolved` has it: what a person is
/// shown, so they see where a call acts (`../x` or a link is not where it
/// writes). The arguments unchanged where nothing was resolved.
pub fn with_resolved(arguments: &serde_json::Value, resolved: Option<&str>) -> serde_json::Value {
    let mut out = arguments.clone();
    if let (Some(p), Some(o)) = (resolved, out.as_object_mut()) {
        o.insert("path".into(), serde_json::Value::String(p.to_string()));
    }
    out
}

impl Serialize for ShownArguments {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
