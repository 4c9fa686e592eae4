//! What can go wrong with a session file or the folder they are kept in,
//! each with the hint that says what to do.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("session file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: not a valid session record ({message})", path.display())]
    BadLine {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{} is not a hermes session (no meta record first)", path.display())]
    NotASession { path: PathBuf },
    #[error("no session with id `{id}`")]
    NotFound { id: String },
    #[error("`{id}` matches {count} sessions")]
    Ambiguous { id: String, count: usize },
    #[error("cannot encode a session record: {0}")]
    Encode(String),
    #[error("session {id} is in use by another hermes{}", pid.map(|p| format!(" (pid {p})")).unwrap_or_default())]
    Locked { id: String, pid: Option<u32> },
    #[error("{} is not a session file of yours (a symlink, or another user's file)", path.display())]
    NotOurs { path: PathBuf },
    #[error("cannot keep sessions in {}: {why}", dir.display())]
    UnsafeFolder { dir: PathBuf, why: String },
}

impl SessionError {
    pub fn io(path: &Path, source: std::io::Error) -> SessionError {
        SessionError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn hint(&self) -> Option<&'static str> {
        match self {
            SessionError::BadLine { .. } => Some(
                "that line was not written by hermes; remove or fix it, or start a new session",
            ),
            SessionError::NotFound { .. } => Some("`hermes sessions list` shows the ids"),
            SessionError::Ambiguous { .. } => Some("give more of the id"),
            SessionError::NotOurs { .. } => {
                Some("hermes reads and appends only to its own session files; remove that one")
            }
            SessionError::UnsafeFolder { .. } => Some(
                "point HERMES_HOME at a folder of your own, or give the sessions folder back to yourself",
            ),
            SessionError::Locked { .. } => {
                Some("wait until that run ends, or add --fork to continue in a copy of the session")
            }
            _ => None,
        }
    }
}
