//! The OS sandbox the built-in `shell` runs commands in — the kernel's
//! refusal, not string matching. On Linux: Landlock limits writes to the
//! working folder, the system temp folder, a few devices and the folders the
//! config adds, and (unless `[tools.shell] network = true`) refuses TCP
//! binds and connects; a seccomp filter refuses IP and packet sockets
//! altogether (UDP included) and io_uring, which could go around it.
//!
//! Everything that allocates or opens files is done in hermes, before the
//! fork ([`Prepared::new`]); the child, between fork and exec, only makes
//! three system calls ([`Prepared::enter`]): a forked child of a process
//! with threads must not allocate.

use std::path::PathBuf;

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Policy {
    /// Folders (and files) it may write under: the working folder, the temp
    /// folder, what `[tools.shell] writable` adds.
    pub(crate) writable: Vec<PathBuf>,
    /// Whether it may open network connections.
    pub(crate) network: bool,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum SandboxError {
    /// The kernel cannot sandbox (no Landlock, or not on Linux).
    #[error("this system cannot sandbox commands ({0})")]
    Unsupported(String),
    #[error("cannot set up the sandbox: {0}")]
    Setup(String),
}

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub(crate) use linux::Prepared;

/// Where there is no sandbox to enter: every command is refused unless the
/// config turns the sandbox off.
#[cfg(not(target_os = "linux"))]
pub(crate) struct Prepared;

#[cfg(not(target_os = "linux"))]
impl Prepared {
    pub(crate) fn new(_: &Policy) -> Result<Prepared, SandboxError> {
        Err(SandboxError::Unsupported(
            "the shell sandbox is built on Linux's Landlock".into(),
        ))
    }
}
