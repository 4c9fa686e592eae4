//! The advisory lock a session's writer holds, and the pid note beside it.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::SessionError;

/// The lock on one session file; dropping it removes the pid note (the
/// kernel drops the lock itself when the file is closed).
pub(super) struct Held {
    note: PathBuf,
}

impl Held {
    /// Takes the exclusive lock without waiting, or says who holds it.
    pub(super) fn take(file: &File, path: &Path, id: &str) -> Result<Held, SessionError> {
        let note = note_path(path);
        if !try_lock(file)? {
            let pid = std::fs::read_to_string(&note)
                .ok()
                .and_then(|p| p.trim().parse().ok());
            return Err(SessionError::Locked {
                id: id.to_string(),
                pid,
            });
        }
        // Only a message depends on the note: a note that cannot be written
        // costs the pid in another opener's error, nothing more.
        let _ = write_owner_only(&note, &format!("{}\n", std::process::id()));
        Ok(Held { note })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.note);
    }
}

fn note_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// `Ok(false)` when another process holds the lock. A file system that
/// cannot lock (some network mounts) goes on without one: refusing every
/// session there would be worse than the race the lock prevents.
#[cfg(unix)]
fn try_lock(file: &File) -> Result<bool, SessionError> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this process owns and keeps open.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    Ok(e.raw_os_error() != Some(libc::EWOULDBLOCK))
}

#[cfg(not(unix))]
fn try_lock(_: &File) -> Result<bool, SessionError> {
    Ok(true)
}

/// The pid note, never through a symlink: a `.lock` planted as a link to
/// another file must not have that file overwritten.
fn write_owner_only(path: &Path, text: &str) -> std::io::Result<()> {
    let mut opts = crate::util::private::options();
    opts.create(true).write(true).truncate(true);
    crate::util::private::no_follow(&mut opts);
    std::io::Write::write_all(&mut opts.open(path)?, text.as_bytes())
}
