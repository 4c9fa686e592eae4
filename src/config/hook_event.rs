//! The hook events hermes runs, in one table: each with its `[hooks]` key
//! and Claude Code's name for it. The config sections, the lists that add
//! up across layers, the events read from Claude Code's settings files and
//! the policy's hooks are all derived from it, so an event added here is
//! added everywhere (a list missed in one place once let a project's hooks
//! replace the user's).

/// A moment hooks run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    Pre,
    Post,
    PostFailure,
    PermissionRequest,
    UserPromptSubmit,
    Stop,
    SubagentStart,
    SubagentStop,
    SessionStart,
    SessionEnd,
    PreCompact,
    Notification,
}

/// How many events there are.
pub(super) const EVENT_COUNT: usize = 12;

/// Every event in `HookEvent`'s order: the event, its `[hooks]` key and
/// Claude Code's name for it.
const TABLE: [(HookEvent, &str, &str); EVENT_COUNT] = [
    (HookEvent::Pre, "pre_tool_call", "PreToolUse"),
    (HookEvent::Post, "post_tool_call", "PostToolUse"),
    (
        HookEvent::PostFailure,
        "post_tool_call_failure",
        "PostToolUseFailure",
    ),
    (
        HookEvent::PermissionRequest,
        "permission_request",
        "PermissionRequest",
    ),
    (
        HookEvent::UserPromptSubmit,
        "user_prompt_submit",
        "UserPromptSubmit",
    ),
    (HookEvent::Stop, "stop", "Stop"),
    (HookEvent::SubagentStart, "subagent_start", "SubagentStart"),
    (HookEvent::SubagentStop, "subagent_stop", "SubagentStop"),
    (HookEvent::SessionStart, "session_start", "SessionStart"),
    (HookEvent::SessionEnd, "session_end", "SessionEnd"),
    (HookEvent::PreCompact, "pre_compact", "PreCompact"),
    (HookEvent::Notification, "notification", "Notification"),
];

/// The keys a `[hooks]` table may have: `claude_code` and every event's.
pub(crate) const HOOKS_KEYS: [&str; EVENT_COUNT + 1] = {
    let mut out = ["claude_code"; EVENT_COUNT + 1];
    let mut i = 0;
    while i < EVENT_COUNT {
        out[i + 1] = TABLE[i].1;
        i += 1;
    }
    out
};

impl HookEvent {
    pub const ALL: [HookEvent; EVENT_COUNT] = {
        let mut out = [HookEvent::Pre; EVENT_COUNT];
        let mut i = 0;
        while i < EVENT_COUNT {
            out[i] = TABLE[i].0;
            i += 1;
        }
        out
    };

    /// Its place in [`HookEvent::ALL`], for lists indexed by event.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its `[hooks]` key: `pre_tool_call`.
    pub fn key(self) -> &'static str {
        TABLE[self.index()].1
    }

    /// Claude Code's name for it: `PreToolUse`.
    pub fn claude_name(self) -> &'static str {
        TABLE[self.index()].2
    }

    pub fn from_key(key: &str) -> Option<HookEvent> {
        TABLE.iter().find(|(_, k, _)| *k == key).map(|(e, ..)| *e)
    }

    pub fn from_claude_name(name: &str) -> Option<HookEvent> {
        TABLE.iter().find(|(.., c)| *c == name).map(|(e, ..)| *e)
    }

    /// Whether its hooks are about one tool call (their matcher names the
    /// tool; they see its input).
    pub fn about_a_call(self) -> bool {
        matches!(
            self,
            HookEvent::Pre
                | HookEvent::Post
                | HookEvent::PostFailure
                | HookEvent::PermissionRequest
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_enums_order_and_names_each_event_once() {
        for (i, (e, key, claude)) in TABLE.iter().enumerate() {
            assert_eq!(e.index(), i, "{key} is out of place");
            assert_eq!(HookEvent::from_key(key), Some(*e));
            assert_eq!(HookEvent::from_claude_name(claude), Some(*e));
        }
        assert_eq!(HOOKS_KEYS[1..], TABLE.map(|(_, k, _)| k));
    }
}
