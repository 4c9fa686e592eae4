//! Signals that end a run: Ctrl-C (SIGINT), SIGTERM and SIGHUP. The first
//! stops the turn like `/stop` — entries not started are never sent, running
//! ones are cancelled, the session file is flushed — and then the servers are
//! shut down before hermes exits with 128 + the signal's number. A second
//! signal of any of them does not wait for that: every server group is
//! killed and hermes exits at once.
//!
//! In the REPL, Ctrl-C stops only the running turn (the REPL handles it);
//! SIGTERM and SIGHUP end the session as above.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// The watch of one run; dropping it stops watching.
pub(crate) struct Signals {
    /// Cancelled by the first signal.
    pub(crate) stop: CancellationToken,
    received: Arc<AtomicI32>,
    task: tokio::task::JoinHandle<()>,
}

impl Signals {
    /// Starts watching. With `ctrl_c_ends_run` false (the REPL), SIGINT is
    /// left to the REPL's own per-turn handling.
    pub(crate) fn watch(ctrl_c_ends_run: bool) -> Signals {
        let stop = CancellationToken::new();
        let received = Arc::new(AtomicI32::new(0));
        let task = tokio::spawn(watch(ctrl_c_ends_run, stop.clone(), received.clone()));
        Signals {
            stop,
            received,
            task,
        }
    }

    /// The signal that stopped the run, if one did.
    pub(crate) fn received(&self) -> Option<i32> {
        match self.received.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n),
        }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(unix)]
async fn watch(ctrl_c_ends_run: bool, stop: CancellationToken, received: Arc<AtomicI32>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return;
    };
    // In the REPL, SIGINT is watched here only once the run is ending, so a
    // Ctrl-C that stopped an earlier turn is not taken for a second signal.
    let interrupt = || signal(SignalKind::interrupt()).ok();
    let mut int = if ctrl_c_ends_run { interrupt() } else { None };
    let mut count = 0;
    loop {
        let signo = tokio::select! {
            Some(()) = async { int.as_mut()?.recv().await }, if int.is_some() => libc::SIGINT,
            Some(()) = term.recv() => libc::SIGTERM,
            Some(()) = hup.recv() => libc::SIGHUP,
            else => return,
        };
        count += 1;
        if count == 1 {
            received.store(signo, Ordering::SeqCst);
            stop.cancel();
            if int.is_none() {
                int = interrupt();
            }
        } else {
            crate::mcp::kill_all_now();
            crate::frontend::restore_terminal();
            std::process::exit(128 + received.load(Ordering::SeqCst));
        }
    }
}

#[cfg(not(unix))]
async fn watch(_: bool, stop: CancellationToken, received: Arc<AtomicI32>) {
    if tokio::signal::ctrl_c().await.is_ok() {
        received.store(2, Ordering::SeqCst);
        stop.cancel();
        if tokio::signal::ctrl_c().await.is_ok() {
            crate::mcp::kill_all_now();
            crate::frontend::restore_terminal();
            std::process::exit(130);
        }
    }
}
