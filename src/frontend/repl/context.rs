//! What the REPL's parts share: the run it serves, what ends it, and what
//! a slash command asks the loop to do next.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustyline::error::ReadlineError;
use tokio_util::sync::CancellationToken;

use crate::config::Settings;

/// What ends the interactive session with an error (a failed turn does not:
/// it is reported and the prompt comes back).
#[derive(Debug, thiserror::Error)]
pub enum ReplError {
    #[error("the line editor failed: {0}")]
    Editor(#[from] ReadlineError),
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error("a background task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

pub(crate) struct ReplContext<'a> {
    pub settings: &'a Settings,
    pub cwd: &'a Path,
    pub history: PathBuf,
    /// Cancelled when the run must end (SIGTERM, SIGHUP): the running turn
    /// stops and the REPL returns.
    pub stop: CancellationToken,
    /// A first message to send at once (`hermes "text"`).
    pub first: Option<String>,
    /// The servers, whose forms (elicitation) the REPL fills.
    pub mcp: Arc<crate::mcp::McpRegistry>,
    /// The models the provider lists, once it has answered (asked when the
    /// REPL opens): for Tab after `/model` and a name it does not list.
    pub models: Arc<Mutex<Option<Vec<String>>>>,
    /// `/worktree NAME`: the worktree, and the session that goes on in it
    /// once the REPL has ended (hermes starts again there, on it).
    pub moving: Arc<Mutex<Option<(String, String)>>>,
}

pub(super) enum Flow {
    Continue,
    Quit,
    /// Send this as the user's message.
    Send(String),
    /// Several sessions match what `/resume` was given: ask which.
    Pick(Vec<crate::session::Summary>),
    /// `/resume` alone on a terminal: pick one of these sessions.
    PickSession(Vec<crate::frontend::menu::Item>),
    /// `/model` alone on a terminal: pick one of the provider's models.
    PickModel(Vec<String>),
    /// `/rewind` alone on a terminal (or Esc Esc): pick a turn, then what
    /// of it goes back.
    PickTurn(Vec<crate::frontend::menu::Item>),
    /// `/compact [FOCUS]`: the loop runs it (it drives a turn's events).
    Compact(Option<String>),
    /// `/help`: the loop shows it, with the custom commands it loaded.
    Help,
}
