//! One line of a session file. Every record is a JSON object with a `type`.

use serde::{Deserialize, Serialize};

use crate::model::{Message, OfferedTool, ToolResult};

pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Meta(Meta),
    Message {
        ts: String,
        message: Message,
    },
    ToolResult {
        ts: String,
        #[serde(flatten)]
        result: ToolResult,
    },
    Event {
        ts: String,
        #[serde(flatten)]
        event: SessionEvent,
    },
    /// A compaction: the history from here on is `messages`, replacing
    /// everything before (a summary, stubs of old tool results, the newest
    /// messages as they were). A loader starts from the last one.
    Compaction {
        ts: String,
        reason: CompactionReason,
        /// Messages replaced by the summary, and tool results whose bodies
        /// were dropped.
        summarised: u64,
        stubbed: u64,
        messages: Vec<Message>,
    },
    /// `hermes rewind`: back to just before line `line` (a turn's prompt).
    /// With `conversation`, a loader keeps only the messages of lines
    /// before it (and what follows this record); with `code`, the files the
    /// turns from there changed were put back as they were. The lines
    /// before stay as they are: nothing in the file is rewritten.
    Rewind {
        ts: String,
        line: u64,
        code: bool,
        conversation: bool,
        /// Each file it put back, with what it left there: a later rewind
        /// of an earlier turn tells hermes' own restore from a person's
        /// edit by it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        restored: Vec<RestoredFile>,
    },
}

/// A file a rewind put back, and the stamp it left.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestoredFile {
    pub path: std::path::PathBuf,
    pub left: crate::sandbox::kept::Stamp,
}

/// How every compaction record's line begins: a loader finds the last one
/// without reading the lines before it.
pub(super) const COMPACTION_PREFIX: &[u8] = br#"{"type":"compaction","#;

/// What hermes notes in a session beside the conversation. Serialised flat
/// into the record: `{"type":"event","ts":…,"event":"usage",…}`; the fields
/// of each are in the order earlier versions wrote them (alphabetical), so a
/// record reads and writes back byte for byte.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SessionEvent {
    /// Token counts of one model request. The cache counts (prompt tokens
    /// read from and written to the provider's cache) are left out when zero,
    /// as records from before they existed have them.
    Usage {
        #[serde(default, skip_serializing_if = "is_zero")]
        cache_read_tokens: u64,
        #[serde(default, skip_serializing_if = "is_zero")]
        cache_write_tokens: u64,
        completion_tokens: u64,
        prompt_tokens: u64,
        total_tokens: u64,
    },
    /// A torn line (crash mid-write) found when the session was resumed:
    /// its number then, and a hash of its bytes (FNV-1a, hex), by which later
    /// loads know it even if the file was edited and the numbers moved.
    /// Records written before the hash existed carry the number only.
    TornLine {
        line: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hash: Option<String>,
    },
    Resumed,
    /// What a `shell` command changed in the writable folders, written
    /// just before its result: each file made, changed or deleted, its
    /// size, and — for what was held back — why. Checkpoints and run
    /// summaries read it.
    FilesChanged {
        tool_call_id: String,
        #[serde(flatten)]
        changes: crate::sandbox::Changes,
    },
    /// Whether this session's MCP and connector tools sit behind the bridge,
    /// decided at its first request and kept for its whole life, so a
    /// resumed session offers the same tool definitions.
    Tools {
        deferred: bool,
        /// When they do not: the MCP and connector tools offered, as sent,
        /// so a resumed session offers exactly these again (records from
        /// before this have none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offered: Option<Vec<OfferedTool>>,
    },
    /// This run of the session works in hermes' worktree `name` (on
    /// `branch`, at `path`, made from the checkout at `repo`): written
    /// when a `--worktree` run opens or continues the session.
    Worktree {
        name: String,
        branch: String,
        path: String,
        repo: String,
    },
    /// This session began as a copy of session `from` (`--fork`).
    Forked {
        from: String,
    },
    /// A turn that ended without an answer: `how` (stopped by the user,
    /// ended by an error …). The next user message tells the model.
    TurnEnded {
        how: super::Unanswered,
    },
    /// How one entry's approval was settled (see `Event::Approval`).
    Approval {
        by: String,
        call_id: String,
        decision: super::Settled,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        tool: String,
    },
    /// A subagent began (its first record, under its id): what the parent
    /// called it for, its type when one was named, and its model.
    SubagentStarted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent_type: Option<String>,
        description: String,
        model: String,
    },
    /// `messages` assistant messages carry blocks of another provider
    /// (signed thinking, say) that `provider` cannot take: they are replayed
    /// as their text and tool calls only.
    NativeBlocksDropped {
        messages: u64,
        provider: String,
    },
    /// An event this version does not know (written by a newer hermes):
    /// read and skipped.
    #[serde(other)]
    Unknown,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub version: u32,
    pub id: String,
    pub created: String,
    pub cwd: String,
    pub provider: String,
    pub model: String,
    pub hermes_version: String,
    /// The session this one is a copy of (`--fork`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
}

/// Why the history was compacted (`--json` and the session file:
/// `threshold`, `requested`, `refused`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// The next request would have passed `[context] compact_at`.
    Threshold,
    /// `/compact`.
    Requested,
    /// The provider refused a request as too long.
    Refused,
}
