//! The one request loop every provider goes through: POST a JSON body, retry
//! what is worth retrying, hold each attempt to its deadline, the silence
//! between chunks to the idle timeout and the reply to its size limit, and
//! fold the streamed events into one message. What differs between providers
//! — auth, framing, event shapes — comes in through [`Api`] and [`Fold`].

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use super::error::ProviderError;
use super::fold::{Fold, FoldError, Step};
use super::{retry, ChatRequest, Completion, EventFn, ProviderEvent};
use crate::config::{ProviderSettings, RetryPolicy};
use crate::model::BlockApi;
use crate::util::text::excerpt;

/// How a provider frames its stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Framing {
    /// Server-sent events (`event:` / `data:` lines).
    Sse,
    /// AWS event-stream binary frames (`application/vnd.amazon.eventstream`).
    AwsEventStream,
}

impl Framing {
    fn content_type(self) -> &'static str {
        match self {
            Framing::Sse => "text/event-stream",
            Framing::AwsEventStream => "application/vnd.amazon.eventstream",
        }
    }
}

/// What one stream event added.
/// One provider's side of the request loop.
pub(crate) trait Api: Send + Sync {
    fn endpoint(&self) -> &Endpoint;
    /// The endpoint of a request for `model`: the one endpoint, for APIs
    /// that name the model in the body.
    fn endpoint_for(&self, _model: &str) -> std::borrow::Cow<'_, Endpoint> {
        std::borrow::Cow::Borrowed(self.endpoint())
    }
    /// The request body: a pure function of the request, so a replay sends
    /// the same bytes.
    fn body(&self, req: &ChatRequest<'_>) -> Vec<u8>;
    /// The native block format of its replies, if any.
    fn blocks(&self) -> Option<BlockApi> {
        None
    }
    /// What the API takes of a tool definition.
    fn dialect(&self) -> super::schema::Dialect;
    /// Headers for one attempt of this body to `url`: auth, version,
    /// signature.
    fn headers(&self, url: &str, body: &[u8]) -> Result<Vec<(String, String)>, ProviderError>;
    fn framing(&self) -> Framing;
    fn fold(&self) -> Box<dyn Fold>;
    /// A reply that came as one JSON document instead of a stream (servers
    /// that ignore `stream: true`), when the format allows one.
    fn whole(&self, _body: &str) -> Option<Result<Completion, FoldError>> {
        None
    }
    /// What `base_url` must point at, for the hint of a reply that is not JSON.
    fn expected(&self) -> &'static str;
    /// What a 401/403 refused, for its error.
    fn credential(&self) -> &'static str {
        "API key"
    }
    /// Whether an answer with this status and body refused the credential
    /// (most APIs: 401 and 403; Gemini also a 400 that says so).
    fn refused_credential(&self, status: u16, _body: &str) -> bool {
        status == 401 || status == 403
    }
    /// Where the API lists its models (`data[].id`), and — OpenRouter, vLLM,
    /// LM Studio — may say a model's window.
    fn models_url(&self) -> Option<String> {
        None
    }
}

#[derive(Clone)]
pub(crate) struct Endpoint {
    pub(crate) name: String,
    pub(crate) url: String,
    client: reqwest::Client,
    key_env: Option<String>,
    headers: Vec<(String, String)>,
    retry: RetryPolicy,
    idle: Duration,
    deadline: Duration,
    max_reply: u64,
    /// The API's model listing, asked for at most once a run (for a
    /// model's window, and for `/model`'s names).
    listing: std::sync::Arc<tokio::sync::OnceCell<Option<serde_json::Value>>>,
}

/// `authorization: Bearer KEY`, when there is a key (OpenAI's APIs and
/// those that copy them).
pub(crate) fn bearer(key: Option<&str>) -> Vec<(String, String)> {
    key.iter()
        .map(|k| ("authorization".to_string(), format!("Bearer {k}")))
        .collect()
}

impl Endpoint {
    /// The endpoint of `model`: this one when it is the configured model
    /// (`configured`), else the same at `url(model)`, sharing connections
    /// (APIs whose URL names the model: Bedrock, Gemini).
    pub(crate) fn for_model(
        &self,
        configured: &str,
        model: &str,
        url: impl FnOnce(&str) -> String,
    ) -> std::borrow::Cow<'_, Endpoint> {
        if model == configured {
            std::borrow::Cow::Borrowed(self)
        } else {
            std::borrow::Cow::Owned(self.with_url(url(model)))
        }
    }

    /// The same endpoint at another URL, sharing its connections.
    pub(crate) fn with_url(&self, url: String) -> Endpoint {
        Endpoint {
            url,
            ..self.clone()
        }
    }

    pub(crate) fn new(s: &ProviderSettings, url: String) -> Result<Endpoint, ProviderError> {
        let client = reqwest::Client::builder()
            .use_preconfigured_tls(crate::util::tls::config())
            .connect_timeout(s.connect_timeout)
            .user_agent(concat!("hermes/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ProviderError::Client(e.to_string()))?;
        Ok(Endpoint {
            name: s.name.clone(),
            url,
            client,
            key_env: s.api_key_env.clone(),
            headers: s.headers.clone(),
            retry: s.retry.clone(),
            idle: s.idle_timeout,
            deadline: s.request_timeout,
            max_reply: s.max_reply_bytes,
            listing: Default::default(),
        })
    }

    /// The model listing at `url`, asked for once a run (within 3 s; `None`
    /// when it cannot be had, which is no error).
    pub(crate) async fn listing(
        &self,
        url: &str,
        headers: &[(String, String)],
    ) -> Option<serde_json::Value> {
        self.listing
            .get_or_init(|| self.get_json(url, headers, Duration::from_secs(3)))
            .await
            .clone()
    }

    /// A GET of `url` answered with JSON, within `wait`; `None` for anything
    /// else (a listing is a nicety: its failure is no error).
    pub(crate) async fn get_json(
        &self,
        url: &str,
        headers: &[(String, String)],
        wait: Duration,
    ) -> Option<serde_json::Value> {
        /// A model listing is at most a few hundred KB (OpenRouter's).
        const MAX: usize = 8 << 20;
        let mut rb = self.client.get(url).timeout(wait);
        for (k, v) in headers.iter().chain(&self.headers) {
            rb = rb.header(k, v);
        }
        let resp = rb.send().await.ok()?;
        if !resp.status().is_success() || resp.content_length().unwrap_or(0) > MAX as u64 {
            return None;
        }
        let bytes = resp.bytes().await.ok()?;
        (bytes.len() <= MAX)
            .then(|| serde_json::from_slice(&bytes).ok())
            .flatten()
    }

    /// Sends `body`, retrying as the policy allows, and returns the whole
    /// assistant message.
    pub(crate) async fn run(
        &self,
        api: &dyn Api,
        body: &[u8],
        on_event: EventFn<'_>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let mut retries = 0;
        loop {
            let attempt =
                tokio::time::timeout(self.deadline, self.attempt(api, body, on_event, cancel));
            let outcome = attempt.await.unwrap_or_else(|_| {
                Err(ProviderError::Deadline {
                    provider: self.name.clone(),
                    url: self.shown_url(),
                    after: self.deadline,
                })
            });
            match outcome {
                Ok(c) => return Ok(c),
                Err(e) if e.is_retryable() && retries < self.retry.max_retries => {
                    let delay = retry::delay(&self.retry, retries, e.retry_after());
                    retries += 1;
                    on_event(ProviderEvent::Retrying {
                        attempt: retries,
                        delay,
                        reason: e.to_string(),
                    });
                    tokio::select! {
                        _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                        _ = tokio::time::sleep(delay) => {}
                    }
                }
                Err(e) if e.is_retryable() && retries > 0 => {
                    return Err(ProviderError::GaveUp {
                        attempts: retries + 1,
                        last: Box::new(e),
                    })
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn attempt(
        &self,
        api: &dyn Api,
        body: &[u8],
        on_event: EventFn<'_>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let framing = api.framing();
        let mut rb = self
            .client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, framing.content_type())
            .body(body.to_vec());
        for (k, v) in api.headers(&self.url, body)?.iter().chain(&self.headers) {
            rb = rb.header(k, v);
        }
        let resp = self
            .within(rb.send(), cancel)
            .await?
            .map_err(|e| self.connect_error(&e))?;
        let status = resp.status().as_u16();
        if resp.status().is_success() {
            return self.read_reply(api, resp, on_event, cancel).await;
        }
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(retry::parse_retry_after);
        let text = self.read_text(resp, cancel).await.unwrap_or_default();
        if api.refused_credential(status, &text) {
            return Err(ProviderError::Auth {
                provider: self.name.clone(),
                credential: api.credential(),
                url: self.shown_url(),
                status,
                key_env: self.key_env.clone(),
                message: error_message(&text),
            });
        }
        Err(ProviderError::Http {
            provider: self.name.clone(),
            url: self.shown_url(),
            status,
            message: error_message(&text),
            // Gemini says when to come back in the body (`RetryInfo`).
            retry_after: retry_after.or_else(|| retry::delay_in_body(&text)),
        })
    }

    /// A successful reply: a stream in the API's framing, or one JSON
    /// document from a server that ignored `stream`.
    async fn read_reply(
        &self,
        api: &dyn Api,
        resp: reqwest::Response,
        on_event: EventFn<'_>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let framing = api.framing();
        let streamed = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.contains(framing.content_type()));
        if streamed {
            return self.read_stream(api, resp, on_event, cancel).await;
        }
        let text = self.read_text(resp, cancel).await?;
        match api.whole(&text) {
            Some(Ok(c)) => {
                if !c.content.is_empty() {
                    on_event(ProviderEvent::TextDelta(c.content.clone()));
                }
                Ok(c)
            }
            Some(Err(e)) => Err(self.fold_error(e, false, api)),
            None => Err(self.not_json(&text, api)),
        }
    }

    async fn read_stream(
        &self,
        api: &dyn Api,
        resp: reqwest::Response,
        on_event: EventFn<'_>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let limit = self.max_reply;
        let mut total: u64 = 0;
        // Counted before any framing buffers anything: one endless event
        // must not be held whole. Silence is timed on bytes, not events: an
        // SSE comment (`: keep-alive`, sent while a model thinks) is life.
        let body = Box::pin(Idle::new(
            resp.bytes_stream().map(move |chunk| {
                let chunk = chunk.map_err(BodyError::Http)?;
                total += chunk.len() as u64;
                if total > limit {
                    return Err(BodyError::TooLarge);
                }
                Ok(chunk)
            }),
            self.idle,
        ));
        let mut fold = api.fold();
        let mut shown = false;
        let mut push = |event: &str, data: &str| -> Result<bool, ProviderError> {
            match fold.push(event, data) {
                Ok(Step::Text(t)) => {
                    if !t.is_empty() {
                        shown = true;
                        on_event(ProviderEvent::TextDelta(t));
                    }
                    Ok(false)
                }
                Ok(Step::Thinking(t)) => {
                    if !t.is_empty() {
                        on_event(ProviderEvent::ThinkingDelta(t));
                    }
                    Ok(false)
                }
                Ok(Step::End) => Ok(true),
                Err(e) => Err(self.fold_error(e, shown, api)),
            }
        };
        match api.framing() {
            Framing::Sse => self.sse(body, &mut push, cancel).await?,
            Framing::AwsEventStream => self.event_stream(body, &mut push, cancel).await?,
        };
        if !fold.complete() {
            return Err(self.truncated(String::new()));
        }
        Ok(fold.finish())
    }

    /// Feeds SSE events to `push` until the stream ends or `push` says stop.
    async fn sse<B: AsRef<[u8]>>(
        &self,
        body: impl Stream<Item = Result<B, BodyError>> + Unpin,
        push: &mut (dyn FnMut(&str, &str) -> Result<bool, ProviderError> + Send),
        cancel: &CancellationToken,
    ) -> Result<(), ProviderError> {
        let mut events = body.eventsource();
        loop {
            let ev = match self.unless_cancelled(events.next(), cancel).await? {
                None => return Ok(()),
                Some(Ok(ev)) => ev,
                Some(Err(eventsource_stream::EventStreamError::Transport(BodyError::TooLarge))) => {
                    return Err(self.too_large())
                }
                Some(Err(eventsource_stream::EventStreamError::Transport(BodyError::Idle))) => {
                    return Err(self.idle_error())
                }
                Some(Err(e)) => return Err(self.truncated(format!(": {}", root_cause(&e)))),
            };
            let data = ev.data.trim();
            if data.is_empty() {
                continue;
            }
            if push(&ev.event, data)? {
                return Ok(());
            }
        }
    }

    /// Feeds AWS event-stream messages to `push`: `:event-type` and payload;
    /// an `exception` message becomes the error it names.
    async fn event_stream<B: AsRef<[u8]>>(
        &self,
        mut body: impl Stream<Item = Result<B, BodyError>> + Unpin,
        push: &mut (dyn FnMut(&str, &str) -> Result<bool, ProviderError> + Send),
        cancel: &CancellationToken,
    ) -> Result<(), ProviderError> {
        let mut frames = super::event_stream::FrameReader::default();
        loop {
            let chunk = match self.unless_cancelled(body.next(), cancel).await? {
                None => return Ok(()),
                Some(Ok(c)) => c,
                Some(Err(BodyError::TooLarge)) => return Err(self.too_large()),
                Some(Err(BodyError::Idle)) => return Err(self.idle_error()),
                Some(Err(BodyError::Http(e))) => {
                    return Err(self.truncated(format!(": {}", root_cause(&e))))
                }
            };
            let events = frames
                .feed(chunk.as_ref())
                .map_err(|e| self.truncated(format!(": a broken event-stream frame ({e})")))?;
            for (event, payload) in events {
                if push(&event, &payload)? {
                    return Ok(());
                }
            }
        }
    }

    /// A whole (non-streamed) body, within the idle timeout between chunks
    /// and the reply size limit.
    async fn read_text(
        &self,
        mut resp: reqwest::Response,
        cancel: &CancellationToken,
    ) -> Result<String, ProviderError> {
        let mut body = Vec::new();
        loop {
            let chunk = self
                .within(resp.chunk(), cancel)
                .await?
                .map_err(|e| self.truncated(format!(": {}", root_cause(&e))))?;
            let Some(chunk) = chunk else { break };
            if (body.len() + chunk.len()) as u64 > self.max_reply {
                return Err(self.too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// `fut`'s output, unless the idle timeout passes first or the turn is
    /// stopped: every wait of a request goes through here.
    async fn within<T>(
        &self,
        fut: impl std::future::Future<Output = T>,
        cancel: &CancellationToken,
    ) -> Result<T, ProviderError> {
        self.unless_cancelled(tokio::time::timeout(self.idle, fut), cancel)
            .await?
            .map_err(|_| self.idle_error())
    }

    /// `fut`'s output unless the turn is stopped first: for a body whose
    /// silence [`Idle`] already times.
    async fn unless_cancelled<T>(
        &self,
        fut: impl std::future::Future<Output = T>,
        cancel: &CancellationToken,
    ) -> Result<T, ProviderError> {
        tokio::select! {
            _ = cancel.cancelled() => Err(ProviderError::Cancelled),
            r = fut => Ok(r),
        }
    }

    /// An error inside the stream. One the provider would answer with a
    /// retryable status is retried — unless text was already shown, which
    /// the user saw and a second attempt would repeat.
    fn fold_error(&self, e: FoldError, shown: bool, api: &dyn Api) -> ProviderError {
        match e {
            FoldError::NotJson(data) => ProviderError::NotJson {
                provider: self.name.clone(),
                url: self.shown_url(),
                excerpt: excerpt(&crate::util::secrets::mask(&data), 120),
                expected: api.expected(),
            },
            FoldError::Remote {
                message,
                status: Some(status),
            } if !shown => ProviderError::Http {
                provider: self.name.clone(),
                url: self.shown_url(),
                status,
                message: excerpt(&crate::util::secrets::mask(&message), 300),
                retry_after: None,
            },
            FoldError::Remote { message, .. } => ProviderError::Remote {
                provider: self.name.clone(),
                url: self.shown_url(),
                message: excerpt(&crate::util::secrets::mask(&message), 300),
            },
        }
    }

    fn not_json(&self, text: &str, api: &dyn Api) -> ProviderError {
        self.fold_error(FoldError::NotJson(text.to_string()), false, api)
    }

    fn too_large(&self) -> ProviderError {
        ProviderError::TooLarge {
            provider: self.name.clone(),
            url: self.shown_url(),
            limit: self.max_reply,
        }
    }

    fn connect_error(&self, e: &reqwest::Error) -> ProviderError {
        ProviderError::Connect {
            provider: self.name.clone(),
            url: self.shown_url(),
            message: root_cause(e),
            // Refused or unresolvable: nothing is listening, waiting won't help.
            transient: !e.is_connect() || e.is_timeout(),
        }
    }

    /// The URL as errors show it: a password or `?key=` in it masked.
    fn shown_url(&self) -> String {
        crate::util::secrets::mask(&self.url).into_owned()
    }

    fn idle_error(&self) -> ProviderError {
        ProviderError::Idle {
            provider: self.name.clone(),
            url: self.shown_url(),
            after: self.idle,
        }
    }

    fn truncated(&self, detail: String) -> ProviderError {
        ProviderError::Truncated {
            provider: self.name.clone(),
            url: self.shown_url(),
            detail,
        }
    }
}

/// The response body as the framing reads it: reqwest's chunks, or the stop
/// once the reply is over its size limit.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error(transparent)]
    Http(reqwest::Error),
    #[error("the reply is over its size limit")]
    TooLarge,
    #[error("the reply went silent")]
    Idle,
}

/// A body stream that fails with [`BodyError::Idle`] once no bytes have
/// come for `idle`; every chunk, whatever it holds, restarts the clock.
struct Idle<S> {
    inner: S,
    idle: Duration,
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl<S> Idle<S> {
    fn new(inner: S, idle: Duration) -> Idle<S> {
        Idle {
            inner,
            idle,
            timer: Box::pin(tokio::time::sleep(idle)),
        }
    }
}

impl<S, T> Stream for Idle<S>
where
    S: Stream<Item = Result<T, BodyError>> + Unpin,
{
    type Item = Result<T, BodyError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let this = &mut *self;
        match this.inner.poll_next_unpin(cx) {
            Poll::Ready(item) => {
                let next = tokio::time::Instant::now() + this.idle;
                this.timer.as_mut().reset(next);
                Poll::Ready(item)
            }
            Poll::Pending => match std::future::Future::poll(this.timer.as_mut(), cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(BodyError::Idle))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

/// A model id or ARN as one path segment: everything but RFC 3986's
/// unreserved characters percent-encoded (`:` → `%3A`, `/` → `%2F`).
pub(super) fn path_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The innermost cause: "Connection refused (os error 111)" beats reqwest's
/// "error sending request for url (…)".
pub(crate) fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    excerpt(&crate::util::secrets::mask(&cur.to_string()), 200)
}

/// `error.message` (or `message`) from the usual JSON error shapes, else an
/// excerpt of the body; secrets it echoes (the key, say) masked.
pub(crate) fn error_message(body: &str) -> String {
    raw_error_message(&crate::util::secrets::mask(body))
}

fn raw_error_message(body: &str) -> String {
    let v: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let msg = v.as_ref().and_then(|v| {
        // Some Google front ends send `[{"error":{…}}]`.
        let v = v.get(0).filter(|_| v.is_array()).unwrap_or(v);
        let e = v.get("error").unwrap_or(v);
        e.get("message")
            .or_else(|| e.get("Message"))
            .and_then(|m| m.as_str())
            .or_else(|| e.as_str())
            .map(str::to_string)
    });
    match msg {
        Some(m) => excerpt(&m, 300),
        None if body.trim().is_empty() => "(empty body)".into(),
        None => excerpt(body, 200),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_message_reads_common_shapes() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad model"}}"#),
            "bad model"
        );
        assert_eq!(
            error_message(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "Overloaded"
        );
        assert_eq!(
            error_message(r#"{"message":"Too many requests"}"#),
            "Too many requests"
        );
        assert_eq!(error_message(r#"{"error":"nope"}"#), "nope");
        assert_eq!(error_message("<html>oops</html>"), "<html>oops</html>");
        assert_eq!(error_message(""), "(empty body)");
    }
}
