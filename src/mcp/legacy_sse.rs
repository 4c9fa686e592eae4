//! The HTTP+SSE transport of MCP 2024-11-05, for servers that predate
//! streamable HTTP: a GET opens an event stream whose first event,
//! `endpoint`, names where to POST messages; every answer and server
//! message comes back on that stream. rmcp no longer has a client for it,
//! and many hosted servers still speak only this.
//!
//! Tried only after a streamable-HTTP handshake failed (the spec's
//! backwards-compatibility rule), so a current server never sees it.

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt};
use reqwest::header::{HeaderMap, ACCEPT, CONTENT_TYPE};
use reqwest::Url;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// One event may not grow past this: a server streaming one endless event
/// must not be held whole.
const MAX_EVENT: usize = 16 * 1024 * 1024;

/// Messages read ahead of rmcp's loop before the reader waits.
const READ_AHEAD: usize = 64;

#[derive(Debug, thiserror::Error)]
pub(super) enum LegacyError {
    #[error("the GET for an event stream failed: {0}")]
    Open(String),
    #[error("not an HTTP+SSE server: {0}")]
    NotLegacy(String),
    #[error("the endpoint `{0}` is not on the server's own origin")]
    ForeignEndpoint(String),
    #[error("a POST to the endpoint failed: {0}")]
    Post(String),
}

/// An open HTTP+SSE session: where to POST, and the messages the stream
/// brought. The reader task ends with the session.
pub(super) struct LegacySse {
    client: reqwest::Client,
    endpoint: Url,
    headers: HeaderMap,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: JoinHandle<()>,
}

/// Opens the event stream at `url` and waits, within `timeout`, for the
/// `endpoint` event. An endpoint on another origin is refused: the
/// configured headers and token go with every POST, and a server must not
/// be able to send them elsewhere.
pub(super) async fn open(
    client: reqwest::Client,
    url: &str,
    headers: HeaderMap,
    timeout: Duration,
) -> Result<LegacySse, LegacyError> {
    let base = Url::parse(url).map_err(|e| LegacyError::Open(e.to_string()))?;
    let first = async {
        let resp = client
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| LegacyError::Open(crate::util::text::root_cause(&e)))?;
        let status = resp.status();
        let is_sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !status.is_success() || !is_sse {
            return Err(LegacyError::NotLegacy(format!(
                "GET answered {status} without an event stream"
            )));
        }
        let mut events = Box::pin(bounded(resp.bytes_stream())).eventsource();
        match events.next().await {
            Some(Ok(ev)) if ev.event == "endpoint" => Ok((ev.data, events)),
            Some(Ok(ev)) => Err(LegacyError::NotLegacy(format!(
                "the first event is `{}`, not `endpoint`",
                ev.event
            ))),
            Some(Err(e)) => Err(LegacyError::NotLegacy(e.to_string())),
            None => Err(LegacyError::NotLegacy("the stream ended at once".into())),
        }
    };
    let (data, mut events) = tokio::time::timeout(timeout, first)
        .await
        .map_err(|_| LegacyError::NotLegacy("no `endpoint` event in time".into()))??;
    let endpoint = base
        .join(data.trim())
        .map_err(|_| LegacyError::ForeignEndpoint(data.clone()))?;
    if endpoint.origin() != base.origin() {
        return Err(LegacyError::ForeignEndpoint(endpoint.to_string()));
    }
    let (tx, incoming) = mpsc::channel(READ_AHEAD);
    let reader = tokio::spawn(async move {
        while let Some(Ok(ev)) = events.next().await {
            if !(ev.event.is_empty() || ev.event == "message") {
                continue;
            }
            // A line that is not a message is dropped, as a stdio server's
            // stray output is: the request it may have answered times out.
            let Ok(msg) = serde_json::from_str::<ServerJsonRpcMessage>(&ev.data) else {
                continue;
            };
            if tx.send(msg).await.is_err() {
                return;
            }
        }
    });
    Ok(LegacySse {
        client,
        endpoint,
        headers,
        incoming,
        reader,
    })
}

impl Transport<RoleClient> for LegacySse {
    type Error = LegacyError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), LegacyError>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .json(&item);
        async move {
            let resp = request
                .send()
                .await
                .map_err(|e| LegacyError::Post(crate::util::text::root_cause(&e)))?;
            match resp.status() {
                s if s.is_success() => Ok(()),
                s => Err(LegacyError::Post(format!("HTTP {s}"))),
            }
        }
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), LegacyError> {
        self.reader.abort();
        self.incoming.close();
        Ok(())
    }
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// The body's chunks, failing once one event (the bytes since the last
/// blank line) passes [`MAX_EVENT`].
fn bounded<S, B, E>(body: S) -> impl Stream<Item = Result<B, String>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    let mut since_blank = 0usize;
    let mut at_line_start = true;
    body.map(move |chunk| {
        let chunk = chunk.map_err(|e| e.to_string())?;
        for &b in chunk.as_ref() {
            match b {
                b'\n' if at_line_start => since_blank = 0,
                b'\n' => at_line_start = true,
                b'\r' => {}
                _ => {
                    at_line_start = false;
                    since_blank += 1;
                }
            }
        }
        if since_blank > MAX_EVENT {
            return Err(format!("an event passed {} MiB", MAX_EVENT >> 20));
        }
        Ok(chunk)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_endless_event_is_cut_and_blank_lines_reset_the_count() {
        let line = vec![b'x'; MAX_EVENT / 2];
        let mut ok = Vec::new();
        for _ in 0..4 {
            ok.push(Ok::<_, String>(line.clone()));
            ok.push(Ok(b"\n\n".to_vec()));
        }
        let out: Vec<_> = bounded(futures_util::stream::iter(ok)).collect().await;
        assert!(out.iter().all(Result::is_ok));
        let endless = (0..3).map(|_| Ok::<_, String>(line.clone()));
        let out: Vec<_> = bounded(futures_util::stream::iter(endless)).collect().await;
        assert!(out[1].is_ok() && out[2].is_err(), "{out:?}");
    }
}
