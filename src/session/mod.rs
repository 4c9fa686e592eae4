//! Sessions: the append-only JSON Lines file that is the record of truth
//! (its records hold [`crate::model`]'s messages), its single writer, reading
//! it back for `--resume`, finding and removing sessions.

mod blobs;
mod fork;
mod index;
mod load;
mod lock;
mod outcome;
mod pairing;
mod record;
mod remove;
mod store;

use std::path::{Path, PathBuf};

pub(crate) use blobs::sweep as sweep_blobs;
pub(crate) use fork::fork;
pub(crate) use index::{
    find, find_exact, latest_in, list, matching, new_id, path_for, path_for_named, valid_name,
    Summary,
};
pub(crate) use load::{agent_conversations, load};
pub use load::{parse, LoadedSession};
pub use outcome::{Settled, Unanswered};
pub use pairing::in_entry_order;
pub(crate) use pairing::pair_results;
pub use record::{CompactionReason, Meta, Record, SessionEvent, FORMAT_VERSION};
pub(crate) use remove::{older_than, parse_age, remove};
pub(crate) use store::{SessionHandle, AGENT_PREFIX};

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

/// A session's id: its file's name without `.jsonl`.
pub(crate) fn id_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The folder large images and checkpoints are kept in, in the sessions
/// folder `sessions_dir`.
pub(crate) fn blob_folder(sessions_dir: &Path) -> PathBuf {
    blobs::folder(sessions_dir)
}

/// A session file's bytes — only this user's own file, never through a
/// symlink: in a folder others could write to, a planted file must not be
/// loaded as a conversation and continued.
pub(crate) fn read_own(path: &Path) -> Result<Vec<u8>, SessionError> {
    use std::io::Read;
    if !crate::util::private::own_file(path) {
        return Err(SessionError::NotOurs {
            path: path.to_path_buf(),
        });
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    let mut bytes = Vec::new();
    crate::util::private::no_follow(&mut opts)
        .open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| SessionError::io(path, e))?;
    Ok(bytes)
}

/// Makes the sessions folder safe before any session in it is read or
/// written: another user's folder is refused; ours, if others may read or
/// write it, is made owner-only — the repair is returned as a warning.
pub fn guard_folder(dir: &Path) -> Result<Option<String>, SessionError> {
    crate::util::private::own_folder(dir).map_err(|e| SessionError::UnsafeFolder {
        dir: dir.to_path_buf(),
        why: e.to_string(),
    })
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
