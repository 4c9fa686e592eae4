//! Noticing a message too large for the MCP client. rmcp drops an incoming
//! line over its limit (16 MiB) and keeps the connection, so the call whose
//! result it was would wait out its whole timeout and be reported as "timed
//! out". hermes watches the server's stdout on its way to rmcp and counts
//! such lines, so a call can say what really happened, at once.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::Notify;

/// The longest line rmcp's stdio transport accepts.
pub(super) const LIMIT: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// How many over-long lines a server has sent.
#[derive(Default)]
pub(super) struct Oversize {
    count: AtomicU64,
    notify: Notify,
}

impl Oversize {
    pub(super) fn seen(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Returns once more than `n` over-long lines have been seen.
    pub(super) async fn past(&self, n: u64) {
        loop {
            let notified = self.notify.notified();
            if self.seen() > n {
                return;
            }
            notified.await;
        }
    }
}

/// The server's stdout, passed through unchanged, line lengths counted.
pub(super) struct Watched<R> {
    inner: R,
    run: usize,
    flagged: bool,
    signal: Arc<Oversize>,
}

impl<R> Watched<R> {
    pub(super) fn new(inner: R, signal: Arc<Oversize>) -> Watched<R> {
        Watched {
            inner,
            run: 0,
            flagged: false,
            signal,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                for b in &buf.filled()[before..] {
                    if *b == b'\n' {
                        this.run = 0;
                        this.flagged = false;
                    } else {
                        this.run += 1;
                        // rmcp counts the newline too: content of LIMIT
                        // bytes is already over.
                        if this.run >= LIMIT && !this.flagged {
                            this.flagged = true;
                            this.signal.count.fetch_add(1, Ordering::SeqCst);
                            this.signal.notify.notify_waiters();
                        }
                    }
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}
