//! What hermes notices on a server's pipes, on their way to and from rmcp.
//! rmcp silently drops two kinds of incoming message, and the call whose
//! answer it was would then wait out its whole timeout and be reported as
//! "timed out":
//!
//! - a line over rmcp's limit (16 MiB): a result too large to carry;
//! - a response whose id answers no request hermes sent (a server that
//!   mixes up JSON-RPC ids, or answers twice).
//!
//! [`Watched`] counts both as they pass; a call that is the only one in
//! flight when one is seen can say what really happened, at once.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

/// The longest line rmcp's stdio transport accepts.
pub(super) const LIMIT: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Incoming lines longer than this are not read for their id: a stray
/// answer that large goes unnoticed (and the call times out as before).
const PROBED: usize = 1 << 20;

/// One kind of dropped message, counted.
#[derive(Default)]
pub(super) struct Counter {
    count: AtomicU64,
    notify: Notify,
}

impl Counter {
    pub(super) fn seen(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Returns once more than `n` have been seen.
    pub(super) async fn past(&self, n: u64) {
        loop {
            let notified = self.notify.notified();
            if self.seen() > n {
                return;
            }
            notified.await;
        }
    }

    fn bump(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.notify.notify_waiters();
    }
}

/// What one connection's pipes showed.
#[derive(Default)]
pub(super) struct Seen {
    /// Lines too long for rmcp.
    pub(super) oversize: Counter,
    /// Responses to no request of ours.
    pub(super) stray: Counter,
    /// The id of the last stray response, for the message.
    pub(super) stray_id: Mutex<String>,
    /// Ids of requests sent and not answered yet.
    open: Mutex<HashSet<String>>,
}

impl Seen {
    fn sent(&self, id: String) {
        if let Ok(mut open) = self.open.lock() {
            open.insert(id);
        }
    }

    fn answered(&self, id: &str) {
        let ours = self.open.lock().is_ok_and(|mut open| open.remove(id));
        if !ours {
            if let Ok(mut s) = self.stray_id.lock() {
                *s = crate::util::text::excerpt(id, 40);
            }
            self.stray.bump();
        }
    }
}

/// The server's stdout, passed through unchanged: line lengths counted,
/// responses matched against the requests sent.
pub(super) struct Watched<R> {
    inner: R,
    run: usize,
    flagged: bool,
    line: Vec<u8>,
    seen: Arc<Seen>,
}

impl<R> Watched<R> {
    pub(super) fn new(inner: R, seen: Arc<Seen>) -> Watched<R> {
        Watched {
            inner,
            run: 0,
            flagged: false,
            line: Vec::new(),
            seen,
        }
    }

    fn end_of_line(&mut self) {
        if self.run < PROBED {
            #[derive(serde::Deserialize)]
            struct Probe<'a> {
                #[serde(borrow)]
                id: Option<&'a serde_json::value::RawValue>,
                method: Option<serde::de::IgnoredAny>,
            }
            if let Ok(p) = serde_json::from_slice::<Probe<'_>>(&self.line) {
                if let (Some(id), None) = (p.id, p.method) {
                    let id = id.get().to_string();
                    self.seen.answered(&id);
                }
            }
        }
        self.line.clear();
        self.run = 0;
        self.flagged = false;
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
                for piece in buf.filled()[before..].split_inclusive(|b| *b == b'\n') {
                    let (body, ends) = match piece.strip_suffix(b"\n") {
                        Some(body) => (body, true),
                        None => (piece, false),
                    };
                    if this.run < PROBED {
                        let room = PROBED - this.run;
                        this.line.extend_from_slice(&body[..body.len().min(room)]);
                    }
                    this.run += body.len();
                    // rmcp counts the newline too: content of LIMIT bytes
                    // is already over.
                    if this.run >= LIMIT && !this.flagged {
                        this.flagged = true;
                        this.seen.oversize.bump();
                    }
                    if ends {
                        this.end_of_line();
                    }
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

/// The server's stdin, passed through unchanged: the id of each request
/// rmcp writes is noted. rmcp writes `{"jsonrpc":"2.0","id":…` first, so
/// the head of a line tells.
pub(super) struct Noted<W> {
    inner: W,
    head: Vec<u8>,
    at_start: bool,
    seen: Arc<Seen>,
}

const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;

impl<W> Noted<W> {
    pub(super) fn new(inner: W, seen: Arc<Seen>) -> Noted<W> {
        Noted {
            inner,
            head: Vec::new(),
            at_start: true,
            seen,
        }
    }

    fn note(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.head.clear();
                self.at_start = true;
                continue;
            }
            if !self.at_start {
                continue;
            }
            self.head.push(b);
            let n = self.head.len();
            if n <= HEAD.len() {
                if self.head[..] != HEAD[..n] {
                    self.at_start = false;
                }
                continue;
            }
            // After the head: the id runs to the first `,` (a number, or a
            // string without commas, as rmcp makes them).
            if b == b',' || b == b'}' {
                let id = String::from_utf8_lossy(&self.head[HEAD.len()..n - 1]).into_owned();
                self.seen.sent(id);
                self.at_start = false;
            } else if n > HEAD.len() + 64 {
                self.at_start = false;
            }
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Noted<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        let r = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = r {
            this.note(&buf[..n]);
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn answers_are_matched_to_requests_and_strays_counted() {
        let seen = Arc::new(Seen::default());
        let mut out = Noted::new(Vec::new(), seen.clone());
        out.write_all(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}"#)
            .await
            .unwrap();
        out.write_all(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}\n")
            .await
            .unwrap();
        // Written in two pieces, cut inside the id.
        out.write_all(br#"{"jsonrpc":"2.0","id":1"#).await.unwrap();
        out.write_all(b"2,\"method\":\"ping\"}\n").await.unwrap();
        let incoming = concat!(
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"id\":5}}\n",
            "{\"result\":{\"content\":[{\"id\":9}]},\"jsonrpc\":\"2.0\",\"id\":3}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":987654,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{}}\n",
        );
        let mut reader = Watched::new(incoming.as_bytes(), seen.clone());
        let mut sink = Vec::new();
        reader.read_to_end(&mut sink).await.unwrap();
        assert_eq!(sink, incoming.as_bytes(), "passed through unchanged");
        // 987654 was never sent; 3 was answered twice.
        assert_eq!(seen.stray.seen(), 2);
        assert_eq!(seen.oversize.seen(), 0);
    }
}
