//! Reading the terminal while a turn runs, so `/stop` works mid-turn. The line
//! editor reads only between turns; during a turn the terminal is in cooked
//! mode without echo, so a typed line arrives whole on stdin and is shown
//! once complete, above whatever is drawn live. A blocking task polls stdin
//! (100 ms at a time, so it ends promptly with the turn) and reads only when a
//! line is ready: `/stop` cancels the turn, anything else is kept and sent
//! after it. Used only when stdin is a terminal: on a pipe the line editor's
//! own buffering owns the input.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::approve::AnswerSlot;
use super::tool_block::above;

pub(super) struct TypeAhead {
    done: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
    _quiet: Option<super::terminal::TerminalMode>,
}

impl TypeAhead {
    /// Starts watching stdin for the turn that `cancel` stops; other lines
    /// are pushed to `queued`.
    pub(super) fn start(
        cancel: CancellationToken,
        queued: Arc<Mutex<Vec<String>>>,
        answers: AnswerSlot,
    ) -> TypeAhead {
        let quiet = super::terminal::TerminalMode::quiet();
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let task = tokio::task::spawn_blocking(move || {
            while !flag.load(Ordering::SeqCst) {
                let Some(line) = read_ready_line() else {
                    continue;
                };
                for l in line.lines().filter(|l| !l.trim().is_empty()) {
                    above(&format!("› {}", crate::util::sanitize::clean(l)));
                }
                // A question waits: this line is its answer (unless it is
                // `/stop`, or the question is gone).
                let waiting = answers.lock().ok().and_then(|mut a| a.take());
                let line = match waiting {
                    Some(tx) if line.trim() != "/stop" => match tx.send(line) {
                        Ok(()) => continue,
                        Err(line) => line,
                    },
                    _ => line,
                };
                match line.trim() {
                    "" => {}
                    "/stop" => {
                        above("stopping…");
                        cancel.cancel();
                    }
                    other => {
                        above("(queued: sent when this turn ends)");
                        if let Ok(mut q) = queued.lock() {
                            q.push(other.to_string());
                        }
                    }
                }
            }
        });
        TypeAhead {
            done,
            task,
            _quiet: quiet,
        }
    }

    pub(super) async fn finish(self) {
        self.done.store(true, Ordering::SeqCst);
        let _ = self.task.await;
    }
}

/// A line from stdin if one is ready within 100 ms.
#[cfg(unix)]
fn read_ready_line() -> Option<String> {
    let mut pfd = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a bounded timeout.
    let n = unsafe { libc::poll(&mut pfd, 1, 100) };
    if n <= 0 || pfd.revents & libc::POLLIN == 0 {
        return None;
    }
    let mut buf = [0u8; 4096];
    // SAFETY: reads into a buffer we own; cooked mode returns one line.
    let r = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
    if r <= 0 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        return None;
    }
    Some(String::from_utf8_lossy(&buf[..r as usize]).into_owned())
}

#[cfg(not(unix))]
fn read_ready_line() -> Option<String> {
    std::thread::sleep(std::time::Duration::from_millis(100));
    None
}
