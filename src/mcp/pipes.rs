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
    /// Ids of requests sent and not answered yet, and of requests
    /// cancelled and not answered yet (a late answer to one is no stray).
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    waiting: HashSet<String>,
    cancelled: std::collections::VecDeque<String>,
}

/// Cancelled requests remembered for their late answers.
const CANCELLED_KEPT: usize = 256;

impl Seen {
    fn sent(&self, id: String) {
        if let Ok(mut open) = self.open.lock() {
            open.waiting.insert(id);
        }
    }

    fn cancelled(&self, id: String) {
        if let Ok(mut open) = self.open.lock() {
            if open.waiting.remove(&id) {
                open.cancelled.push_back(id);
                if open.cancelled.len() > CANCELLED_KEPT {
                    open.cancelled.pop_front();
                }
            }
        }
    }

    /// Requests of ours waiting for an answer.
    pub(super) fn waiting(&self) -> usize {
        self.open.lock().map(|o| o.waiting.len()).unwrap_or(0)
    }

    fn answered(&self, id: &str) {
        let ours = self.open.lock().is_ok_and(|mut open| {
            open.waiting.remove(id) || {
                let late = open.cancelled.iter().position(|c| c == id);
                late.map(|i| open.cancelled.remove(i)).is_some()
            }
        });
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
                    self.seen.answered(&normal_id(id.get()));
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

/// An id as rmcp matches it: `3`, `"3"` and `3.0` are one request.
fn normal_id(raw: &str) -> String {
    let unquoted = raw.trim().trim_matches('"');
    match unquoted.parse::<f64>() {
        Ok(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => format!("{}", n as i64),
        _ => raw.trim().to_string(),
    }
}

/// The server's stdin, passed through unchanged: the id of each request
/// rmcp writes is noted — rmcp writes `{"jsonrpc":"2.0","id":N,"method"…`,
/// so the head of a line tells (its answers to the server's own requests
/// have no `method`) — and so is each request it cancels.
pub(super) struct Noted<W> {
    inner: W,
    /// The head of the current line.
    head: Vec<u8>,
    /// Whether the head is the whole line so far.
    at_start: bool,
    seen: Arc<Seen>,
}

const CANCEL_HEAD: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/cancelled""#;
/// How much of each line written is kept: enough for a request's head and
/// a whole cancellation.
const NOTED_HEAD: usize = 512;

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
                self.end_of_line();
            } else if self.head.len() < NOTED_HEAD {
                self.head.push(b);
            } else {
                self.at_start = false;
            }
        }
    }

    fn end_of_line(&mut self) {
        let line = std::mem::take(&mut self.head);
        let whole = std::mem::replace(&mut self.at_start, true);
        // A request: `{"jsonrpc":"2.0","id":N,"method"…` however long.
        if let Some(rest) = line.strip_prefix(HEAD) {
            if let Some(comma) = rest.iter().position(|b| *b == b',') {
                if rest[comma + 1..].starts_with(br#""method""#) {
                    let id = String::from_utf8_lossy(&rest[..comma]);
                    self.seen.sent(normal_id(&id));
                }
            }
            return;
        }
        // A cancellation, which is short: read whole.
        if whole && line.starts_with(CANCEL_HEAD) {
            #[derive(serde::Deserialize)]
            struct Cancel<'a> {
                #[serde(borrow)]
                params: Params<'a>,
            }
            #[derive(serde::Deserialize)]
            struct Params<'a> {
                #[serde(borrow, rename = "requestId")]
                request_id: &'a serde_json::value::RawValue,
            }
            if let Ok(c) = serde_json::from_slice::<Cancel<'_>>(&line) {
                self.seen.cancelled(normal_id(c.params.request_id.get()));
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
        // A request cancelled, and an answer of ours to the server's ping.
        out.write_all(br#"{"jsonrpc":"2.0","id":13,"method":"tools/call"}"#)
            .await
            .unwrap();
        out.write_all(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":13}}\n")
            .await
            .unwrap();
        out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":77,\"result\":{}}\n")
            .await
            .unwrap();
        assert_eq!(seen.waiting(), 2, "3 and 12");
        let incoming = concat!(
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"id\":5}}\n",
            "{\"result\":{\"content\":[{\"id\":9}]},\"jsonrpc\":\"2.0\",\"id\":\"3\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":987654,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":12.0,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":13,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":77,\"result\":{}}\n",
        );
        let mut reader = Watched::new(incoming.as_bytes(), seen.clone());
        let mut sink = Vec::new();
        reader.read_to_end(&mut sink).await.unwrap();
        assert_eq!(sink, incoming.as_bytes(), "passed through unchanged");
        // 987654 and 77 were never asked for; 3 was answered twice; the
        // late answer to the cancelled 13 is no stray.
        assert_eq!(seen.stray.seen(), 3);
        assert_eq!(seen.waiting(), 0);
        assert_eq!(seen.oversize.seen(), 0);
    }
}
