//! What belongs to the session an agent is in, as one value: its file's
//! handle, its conversation, and what this run knows of it. Built only from
//! a [`SessionStart`] (`open_session`, the one way a session begins — a
//! subagent's too); switching sessions (`/new`, `/resume`, a reload after
//! `/rewind`) is one assignment, so nothing of the old one is left behind.

use std::collections::BTreeSet;

use super::told::Told;
use crate::model::Message;
use crate::session::{SessionHandle, Unanswered};

pub(crate) struct SessionStart {
    pub handle: SessionHandle,
    pub messages: Vec<Message>,
    pub resumed: bool,
    /// The deferral decision the session recorded, to be kept (resume).
    pub deferred: Option<bool>,
    /// The tools it offered directly, recorded with it, to be offered again.
    pub offered: Option<Vec<crate::model::OfferedTool>>,
    /// The last request's size as the provider counted it (resume): the
    /// messages it carried, its prompt tokens.
    pub last_usage: Option<(usize, u64)>,
    pub warnings: Vec<String>,
    /// Resumed: the folder it last worked in (where it began, or its last
    /// worktree), to tell the model when this run works elsewhere.
    pub worked_in: Option<String>,
}

impl SessionStart {
    /// A session begun in `handle` with `messages`, nothing recorded of it
    /// yet (a subagent's).
    pub(crate) fn fresh(handle: SessionHandle, messages: Vec<Message>) -> SessionStart {
        SessionStart {
            handle,
            messages,
            resumed: false,
            deferred: None,
            offered: None,
            last_usage: None,
            warnings: Vec::new(),
            worked_in: None,
        }
    }
}

/// Token counts and requests of this session, for `/usage`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct UsageTotals {
    pub requests: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}

pub(crate) struct SessionState {
    pub(super) handle: SessionHandle,
    pub(super) messages: Vec<Message>,
    /// The session was resumed, not made by this run.
    pub(super) resumed: bool,
    /// A turn of it was stopped by the user (who may want to come back).
    pub(super) stopped: bool,
    /// Whether the session file holds this session's deferral decision.
    pub(super) deferral_recorded: bool,
    /// Whether this run already noted blocks its provider cannot replay.
    pub(super) foreign_noted: bool,
    /// Whether this session's SessionStart hooks ran in this run.
    pub(super) session_hooked: bool,
    /// How the last turn ended when it did not end with an answer: the
    /// next user message tells the model, so it never sees a bare
    /// `user, user`.
    pub(super) unfinished: Option<Unanswered>,
    pub(super) usage: UsageTotals,
    /// The deferred tools' names as of the last turn, to tell the model
    /// what changed (`None` until the first turn takes stock).
    pub(super) told_tools: Option<BTreeSet<String>>,
    /// The approval mode as its model last heard of it, and where plan
    /// mode goes back to.
    pub(super) told: Told,
    /// Resumed: the folder it last worked in, until the model is told it
    /// works in another now.
    pub(super) worked_in: Option<String>,
}

impl SessionState {
    /// A session as it starts in this run: its conversation, nothing yet
    /// done in it.
    pub(super) fn from_start(start: SessionStart) -> SessionState {
        SessionState {
            handle: start.handle,
            messages: start.messages,
            resumed: start.resumed,
            stopped: false,
            deferral_recorded: start.deferred.is_some(),
            foreign_noted: false,
            session_hooked: false,
            unfinished: None,
            usage: UsageTotals::default(),
            told_tools: None,
            told: Told::default(),
            worked_in: start.worked_in,
        }
    }
}

impl SessionState {
    /// What the next message says first when this run works in another
    /// folder than the session last did (a `--worktree` run continuing
    /// it, a resume from elsewhere): the system prompt, kept byte for byte,
    /// still names the old one. Said once.
    pub(super) fn folder_note(&mut self, now: Option<&std::path::Path>) -> Option<String> {
        let was = self.worked_in.take()?;
        let now = now?;
        (std::path::Path::new(&was) != now).then(|| {
            format!(
                "[hermes: this session now works in {} — no longer in {was}: the tools' paths and commands start there.]",
                now.display()
            )
        })
    }
}
