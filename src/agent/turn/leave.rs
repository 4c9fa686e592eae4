//! Leaving a session: its SessionEnd hooks, then whether it is kept. One
//! place for both, so the REPL's exit, `/new`, `/resume` and a one-shot
//! run end a session alike.

use tokio_util::sync::CancellationToken;

use super::super::core::Agent;
use crate::policy::HookEvent;

/// Why a session ends, as Claude Code's SessionEnd hooks read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EndReason {
    /// `/new`.
    Clear,
    /// Another session was resumed in its place.
    Resume,
    /// The REPL ended (`/exit`, Ctrl-D).
    PromptInputExit,
    /// A one-shot run ended.
    Other,
}

impl EndReason {
    fn as_str(self) -> &'static str {
        match self {
            EndReason::Clear => "clear",
            EndReason::Resume => "resume",
            EndReason::PromptInputExit => "prompt_input_exit",
            EndReason::Other => "other",
        }
    }
}

/// What became of the session left.
#[derive(Debug, Clone, PartialEq)]
pub struct Left {
    /// Kept: it had an answer (or a stop) worth coming back to.
    pub kept: bool,
    /// The person had written in it.
    pub asked: bool,
    /// What its SessionEnd hooks said for the person, for the caller to
    /// show: after the session, no turn's events are being printed.
    pub warnings: Vec<String>,
}

impl Agent {
    /// Ends this session: SessionEnd hooks (once, for a session that had a
    /// prompt in this run; told only), then the session is kept, or
    /// removed when no answer came in it — so `--continue` finds the last
    /// real conversation.
    pub(crate) async fn leave(&mut self, reason: EndReason) -> Left {
        let mut warnings = Vec::new();
        if self.state.session_hooked && self.policy.has(HookEvent::SessionEnd) {
            self.state.session_hooked = false;
            let o = self
                .policy
                .session_end(&self.hook_ctx(), reason.as_str(), &CancellationToken::new())
                .await;
            warnings = o.warnings;
        }
        let kept = self.keeps_session();
        if !kept {
            let _ = self.state.handle.clone().discard().await;
        }
        Left {
            kept,
            asked: self.has_user_message(),
            warnings,
        }
    }
}
