//! Server processes. hermes spawns each server itself (rather than through
//! rmcp's child-process transport) so that it owns the child: it reads the exit
//! status for error messages and kills the whole process group on the way out.
//!
//! - environment: a safe base plus the server's `env`; nothing else of hermes'
//!   environment (API keys included) reaches the server;
//! - stderr: drained continuously into a per-server log file, the last lines
//!   kept in memory for error messages — never on the terminal, never left to
//!   fill a pipe and block the server;
//! - exit: stdin closed, a grace period, SIGTERM to the group, then SIGKILL;
//!   and a `Drop` backstop that SIGKILLs the group if that never ran.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::McpError;
use crate::config::McpServerSettings;

const TAIL_LINES: usize = 20;

/// The last lines a server wrote to stderr, and how much of each line an
/// error message quotes (`[limits] stderr_quote_chars`).
#[derive(Clone, Default, Debug)]
pub(super) struct StderrTail(Arc<Mutex<VecDeque<String>>>, usize);

impl StderrTail {
    fn new(quote_chars: usize) -> StderrTail {
        StderrTail(Arc::default(), quote_chars)
    }

    fn push(&self, line: String) {
        if let Ok(mut q) = self.0.lock() {
            if q.len() == TAIL_LINES {
                q.pop_front();
            }
            q.push_back(line);
        }
    }

    pub(super) fn last(&self, n: usize) -> Vec<String> {
        self.0
            .lock()
            .map(|q| q.iter().rev().take(n).rev().cloned().collect())
            .unwrap_or_default()
    }

    /// `; last stderr: a | b | c`, or nothing when the server wrote none;
    /// each line cut to the quote limit.
    pub(super) fn describe(&self) -> String {
        let lines: Vec<String> = self
            .last(5)
            .iter()
            .map(|l| crate::util::text::excerpt(l, self.1))
            .collect();
        if lines.is_empty() {
            String::new()
        } else {
            format!("; last stderr: {}", lines.join(" | "))
        }
    }
}

pub(super) struct Spawned {
    pub process: ServerProcess,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// A running server process and its group. Dropping it kills the group.
pub(super) struct ServerProcess {
    child: Child,
    /// Tells when the process has ended — whether or not its pipes are
    /// still open (a child it forked may hold them) — without reaping it:
    /// until hermes reads its status, its pid (and process group id) stays
    /// its own, so signalling the group can never reach a stranger.
    exited: ExitWatch,
    /// The stderr drain; awaited on exit so the log holds the last lines.
    drain: Option<tokio::task::JoinHandle<()>>,
    pid: Option<u32>,
    pub tail: StderrTail,
}

/// Tells when a server process has ended: its pidfd turns readable
/// (Linux 5.3 and later; elsewhere it never tells, and a crash is seen when
/// the pipes close).
#[derive(Clone)]
pub(super) struct ExitWatch(Option<Arc<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>>>);

impl ExitWatch {
    /// One that never tells (a remote server has no process).
    pub(super) fn never() -> ExitWatch {
        ExitWatch(None)
    }

    fn of(pid: Option<u32>) -> ExitWatch {
        #[cfg(target_os = "linux")]
        if let Some(pid) = pid {
            use std::os::fd::FromRawFd;
            // SAFETY: pidfd_open takes a pid and flags and returns a new
            // descriptor (or -1), which is then owned here.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
            if fd >= 0 {
                let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as i32) };
                // SAFETY: the descriptor is owned by the AsyncFd from here
                // on and closed only when it is dropped.
                if let Ok(afd) = unsafe { tokio::io::unix::AsyncFd::register(fd) } {
                    return ExitWatch(Some(Arc::new(afd)));
                }
            }
        }
        let _ = pid;
        ExitWatch(None)
    }

    /// Whether the process has ended, now.
    pub(super) fn ended_now(&self) -> bool {
        use std::os::fd::AsRawFd;
        let Some(afd) = &self.0 else { return false };
        let mut p = libc::pollfd {
            fd: afd.get_ref().as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd on a descriptor owned by `afd`, no waiting.
        unsafe { libc::poll(&mut p, 1, 0) == 1 }
    }

    /// Returns once the process has ended (never, without a pidfd).
    pub(super) async fn ended(&self) {
        match &self.0 {
            Some(afd) => {
                let _ = afd.readable().await;
            }
            None => std::future::pending().await,
        }
    }
}

pub(super) fn spawn(
    name: &str,
    entry: &McpServerSettings,
    log_path: &Path,
) -> Result<Spawned, McpError> {
    let mut cmd = Command::new(&entry.command);
    crate::util::child_env::scrubbed(&mut cmd)
        .args(&entry.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd.envs(&entry.env);
    if let Some(cwd) = &entry.cwd {
        cmd.current_dir(cwd);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd.spawn().map_err(|e| McpError::Spawn {
        server: name.to_string(),
        command: entry.command.clone(),
        reason: match e.kind() {
            std::io::ErrorKind::NotFound => "command not found".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        },
    })?;
    let tail = StderrTail::new(entry.limits.stderr_quote_chars);
    let drain = child.stderr.take().map(|stderr| {
        tokio::spawn(drain(
            stderr,
            log_path.to_path_buf(),
            tail.clone(),
            entry.limits,
        ))
    });
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(McpError::Spawn {
            server: name.to_string(),
            command: entry.command.clone(),
            reason: "no stdio pipes".into(),
        });
    };
    let pid = child.id();
    if let Some(pid) = pid {
        crate::util::groups::started(pid);
    }
    Ok(Spawned {
        process: ServerProcess {
            pid,
            child,
            exited: ExitWatch::of(pid),
            drain,
            tail,
        },
        stdin,
        stdout,
    })
}

/// Copies a server's stderr to its log as raw bytes — whatever encoding, any
/// line length: a drain that stopped would leave the server to die on a full
/// pipe — and keeps the last lines, each cut to `limits.stderr_line_bytes`,
/// for error messages. The log is rotated past `limits.server_log_bytes`.
async fn drain(
    mut stderr: tokio::process::ChildStderr,
    log: PathBuf,
    tail: StderrTail,
    limits: crate::config::Limits,
) {
    use tokio::io::AsyncReadExt;
    if let Some(dir) = log.parent() {
        let _ = crate::util::private::create_dir_all(dir);
    }
    let mut file = LogFile::open(log, limits.server_log_bytes).await;
    let mut line: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 8192];
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        file.write(chunk).await;
        for piece in chunk.split_inclusive(|b| *b == b'\n') {
            let room = limits.stderr_line_bytes.saturating_sub(line.len());
            let (body, ends) = match piece.strip_suffix(b"\n") {
                Some(body) => (body, true),
                None => (piece, false),
            };
            line.extend_from_slice(&body[..body.len().min(room)]);
            if ends {
                tail.push(String::from_utf8_lossy(&line).into_owned());
                line.clear();
            }
        }
    }
    if !line.is_empty() {
        tail.push(String::from_utf8_lossy(&line).into_owned());
    }
}

/// A server's stderr log, rotated once it grows past `rotate_at` bytes.
struct LogFile {
    path: PathBuf,
    file: Option<tokio::fs::File>,
    size: u64,
    rotate_at: u64,
}

impl LogFile {
    async fn open(path: PathBuf, rotate_at: u64) -> LogFile {
        let file = Self::append(&path).await;
        let size = match &file {
            Some(f) => f.metadata().await.map(|m| m.len()).unwrap_or(0),
            None => 0,
        };
        LogFile {
            path,
            file,
            size,
            rotate_at,
        }
    }

    async fn append(path: &Path) -> Option<tokio::fs::File> {
        let mut o = crate::util::private::options();
        o.create(true).append(true);
        tokio::fs::OpenOptions::from(o).open(path).await.ok()
    }

    /// A log that cannot be written costs the log, never the server.
    async fn write(&mut self, bytes: &[u8]) {
        if self.size >= self.rotate_at {
            let mut old = self.path.clone().into_os_string();
            old.push(".1");
            let _ = tokio::fs::rename(&self.path, &old).await;
            self.file = Self::append(&self.path).await;
            self.size = 0;
        }
        if let Some(f) = self.file.as_mut() {
            // tokio hands a write to a blocking thread: without the flush, the
            // last lines a server writes as it exits were lost whenever
            // hermes exited right after.
            if f.write_all(bytes).await.is_ok() && f.flush().await.is_ok() {
                self.size += bytes.len() as u64;
            }
        }
    }
}

impl ServerProcess {
    /// The exit code if the process has ended (waiting up to `wait` for it).
    pub(super) async fn exit_status(&mut self, wait: Duration) -> Option<std::process::ExitStatus> {
        tokio::time::timeout(wait, self.child.wait())
            .await
            .ok()?
            .ok()
    }

    pub(super) fn exit_watch(&self) -> ExitWatch {
        self.exited.clone()
    }

    /// Once the process has ended, waits (briefly) for its last stderr lines
    /// to reach the tail, so error messages quote them.
    pub(super) async fn settle_stderr(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            if let Some(d) = self.drain.take() {
                let _ = tokio::time::timeout(Duration::from_millis(500), d).await;
            }
        }
    }

    /// "exited with code N" / "was killed by signal N" / "stopped answering".
    pub(super) async fn describe_exit(&mut self, wait: Duration) -> String {
        let status = self.exit_status(wait).await;
        self.settle_stderr().await;
        match status {
            Some(s) => match (s.code(), signal_of(&s)) {
                (Some(c), _) => format!("exited with code {c}"),
                (None, Some(sig)) => format!("was killed by signal {sig}"),
                _ => "exited".into(),
            },
            None => "stopped answering".into(),
        }
    }

    /// Stops the server politely, then firmly: the caller has already closed
    /// stdin (by dropping the connection); wait `grace`, SIGTERM the group,
    /// wait a second more, SIGKILL it.
    pub(super) async fn terminate(&mut self, grace: Duration) {
        if self.exit_status(grace).await.is_some() {
            self.kill_group(libc_signal::TERM); // stray grandchildren
        } else {
            self.kill_group(libc_signal::TERM);
            if self.exit_status(Duration::from_secs(1)).await.is_none() {
                self.kill_group(libc_signal::KILL);
                let _ = self.exit_status(Duration::from_secs(1)).await;
            }
        }
        // The pipe closes with the group; let the log take its last lines.
        if let Some(d) = self.drain.take() {
            let _ = tokio::time::timeout(Duration::from_millis(500), d).await;
        }
    }

    fn kill_group(&self, sig: i32) {
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            // The child leads its own group (process_group(0)), so its pid is the group id.
            unsafe {
                libc::killpg(pid as libc::pid_t, sig);
            }
        }
        #[cfg(not(unix))]
        let _ = sig;
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill_group(libc_signal::KILL);
        }
        if let Some(pid) = self.pid {
            crate::util::groups::ended(pid);
        }
    }
}

#[cfg(unix)]
mod libc_signal {
    pub(super) const TERM: i32 = libc::SIGTERM;
    pub(super) const KILL: i32 = libc::SIGKILL;
}

#[cfg(not(unix))]
mod libc_signal {
    pub const TERM: i32 = 15;
    pub const KILL: i32 = 9;
}

#[cfg(unix)]
fn signal_of(s: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    s.signal()
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> Option<i32> {
    None
}
