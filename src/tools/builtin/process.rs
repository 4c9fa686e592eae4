//! A command as a process: started in a session of its own with no
//! controlling terminal, stdin closed, stdout and stderr on one pipe so
//! their lines interleave as written; watched until it ends, times out or
//! is stopped, its output kept head and tail; its whole process group
//! killed however that ends.

use std::os::fd::{FromRawFd, OwnedFd};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

/// After the command exits, how long output may still come from what it
/// left running (a daemon holding the pipe) before that is cut off.
const AFTER_EXIT: Duration = Duration::from_millis(200);

/// The shell commands run in: bash where there is one.
pub(crate) fn shell_path() -> &'static str {
    if std::path::Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    }
}

/// How a command ended.
pub(super) enum End {
    Exited(std::process::ExitStatus),
    TimedOut(Duration),
    Stopped,
}

/// A command started: the process, its output, and the guard that kills
/// its group when dropped.
pub(super) struct Running {
    child: tokio::process::Child,
    reader: tokio::net::unix::pipe::Receiver,
    group: crate::util::groups::Owned,
}

/// `cmd` started in `dir`; `Err` says why not, naming `program`.
pub(super) fn start(
    mut cmd: tokio::process::Command,
    dir: &std::path::Path,
    program: &str,
) -> Result<Running, String> {
    let (reader, writer) = pipe().map_err(|e| format!("cannot run the command: {e}"))?;
    crate::util::child_env::scrubbed(&mut cmd)
        .current_dir(dir)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    // A session of its own, with no controlling terminal: nothing the
    // command does (TIOCSTI, /dev/tty) reaches the terminal hermes runs in,
    // and its process group is the session's, which hermes kills whole.
    // SAFETY: setsid is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let also = writer
        .try_clone()
        .map_err(|e| format!("cannot run the command: {e}"))?;
    cmd.stdout(Stdio::from(writer)).stderr(Stdio::from(also));
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    // The parent's copies of the write end must go, or the read never ends.
    drop(cmd);
    // However this call ends — finished, timed out, or dropped by a stop —
    // the command and everything it started are killed.
    let group = crate::util::groups::Owned::new(child.id());
    let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(reader)
        .map_err(|e| format!("cannot read the command's output: {e}"))?;
    Ok(Running {
        child,
        reader,
        group,
    })
}

impl Running {
    /// The process, its output, and the guard of its group — for one that
    /// runs on in the background.
    pub(super) fn into_parts(
        self,
    ) -> (
        tokio::process::Child,
        tokio::net::unix::pipe::Receiver,
        crate::util::groups::Owned,
    ) {
        (self.child, self.reader, self.group)
    }

    /// How the command ended, and its output: at most `limit` bytes, its
    /// head and tail. Whatever it left behind is killed with it.
    pub(super) async fn watch(
        self,
        limit: usize,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<(End, String), String> {
        let Running {
            mut child,
            mut reader,
            group,
        } = self;
        let mut out = HeadTail::new(limit);
        let mut buf = vec![0u8; 16 * 1024];
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let after_exit = tokio::time::sleep(Duration::from_secs(3600));
        tokio::pin!(after_exit);
        let (mut eof, mut status) = (false, None);
        let end = loop {
            if let (true, Some(s)) = (eof, status) {
                break End::Exited(s);
            }
            tokio::select! {
                biased;
                _ = cancel.cancelled() => break End::Stopped,
                _ = &mut deadline => break End::TimedOut(timeout),
                r = reader.read(&mut buf), if !eof => match r {
                    Ok(0) | Err(_) => eof = true,
                    Ok(n) => out.push(&buf[..n]),
                },
                s = child.wait(), if status.is_none() => match s {
                    Ok(s) => {
                        status = Some(s);
                        after_exit.as_mut().reset(tokio::time::Instant::now() + AFTER_EXIT);
                    }
                    Err(e) => return Err(format!("cannot wait for the command: {e}")),
                },
                _ = &mut after_exit, if status.is_some() && !eof => eof = true,
            }
        };
        drop(group);
        let _ = child.wait().await;
        Ok((end, out.text()))
    }
}

/// One pipe for stdout and stderr both, so their lines interleave as the
/// command wrote them.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors this function then owns.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The first and last `half` bytes of a stream of any length, and how
/// many between them were dropped.
struct HeadTail {
    half: usize,
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: u64,
}

impl HeadTail {
    fn new(budget: usize) -> HeadTail {
        HeadTail {
            half: budget / 2,
            head: Vec::new(),
            tail: Default::default(),
            dropped: 0,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) {
        let room = self.half - self.head.len().min(self.half);
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(self.half);
        self.tail.drain(..excess);
        self.dropped += excess as u64;
    }

    fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!(
                "\n[… {} bytes of output not shown …]\n",
                self.dropped
            ));
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        s.push_str(&String::from_utf8_lossy(&tail));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_keep_the_ends_and_count_the_middle() {
        let mut h = HeadTail::new(8);
        h.push(b"abcdefghij");
        h.push(b"klmnop");
        assert_eq!(h.text(), "abcd\n[… 8 bytes of output not shown …]\nmnop");
    }
}
