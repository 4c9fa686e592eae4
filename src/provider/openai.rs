//! OpenAI-compatible Chat Completions over streaming SSE: OpenAI, OpenRouter,
//! Ollama, vLLM and any `custom` endpoint that speaks the same wire format.

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::error::ProviderError;
use super::stream::{Assembler, Chunk};
use super::{retry, ChatRequest, Completion, EventFn, Provider, ProviderEvent, ToolSpec};
use crate::config::{ProviderSettings, RetryPolicy};
use crate::session::Message;
use crate::util::text::excerpt;

pub(crate) struct OpenAiProvider {
    name: String,
    url: String,
    client: reqwest::Client,
    api_key: Option<String>,
    key_env: Option<String>,
    headers: Vec<(String, String)>,
    retry: RetryPolicy,
    idle: Duration,
    deadline: Duration,
    max_reply: u64,
}

impl OpenAiProvider {
    pub(crate) fn new(s: &ProviderSettings) -> Result<Self, ProviderError> {
        if let (None, Some(env)) = (&s.api_key, &s.api_key_env) {
            return Err(ProviderError::MissingKey {
                provider: s.name.clone(),
                env: env.clone(),
            });
        }
        let client = reqwest::Client::builder()
            .connect_timeout(s.connect_timeout)
            .user_agent(concat!("hermes/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ProviderError::Client(e.to_string()))?;
        Ok(OpenAiProvider {
            name: s.name.clone(),
            url: format!("{}/chat/completions", s.base_url),
            client,
            api_key: s.api_key.clone(),
            key_env: s.api_key_env.clone(),
            headers: s.headers.clone(),
            retry: s.retry.clone(),
            idle: s.idle_timeout,
            deadline: s.request_timeout,
            max_reply: s.max_reply_bytes,
        })
    }

    /// The request body. A pure function of the request: a resumed session sends
    /// its history byte for byte as before, and `messages` comes last so that two
    /// successive requests of a session share their whole earlier prefix.
    pub(crate) fn body(req: &ChatRequest<'_>) -> Vec<u8> {
        let body = WireRequest {
            model: req.model,
            stream: true,
            stream_options: StreamOptions {
                include_usage: true,
            },
            tools: req.tools.iter().map(WireTool::from).collect(),
            messages: req.messages.iter().map(WireMessage::from).collect(),
        };
        serde_json::to_vec(&body).unwrap_or_default()
    }

    async fn run(
        &self,
        req: ChatRequest<'_>,
        on_event: EventFn<'_>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let body = Self::body(&req);
        let mut retries = 0;
        loop {
            let attempt =
                tokio::time::timeout(self.deadline, self.attempt(&body, on_event, cancel));
            let outcome = attempt.await.unwrap_or_else(|_| {
                Err(ProviderError::Deadline {
                    provider: self.name.clone(),
                    url: self.url.clone(),
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
        body: &[u8],
        on_event: EventFn<'_>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let mut rb = self
            .client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .body(body.to_vec());
        if let Some(key) = &self.api_key {
            rb = rb.bearer_auth(key);
        }
        for (k, v) in &self.headers {
            rb = rb.header(k, v);
        }
        let resp = tokio::select! {
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
            r = tokio::time::timeout(self.idle, rb.send()) => match r {
                Err(_) => return Err(self.idle_error()),
                Ok(r) => r.map_err(|e| self.connect_error(&e))?,
            },
        };
        let status = resp.status().as_u16();
        if status == 401 || status == 403 {
            return Err(ProviderError::Auth {
                provider: self.name.clone(),
                url: self.url.clone(),
                status,
                key_env: self.key_env.clone(),
            });
        }
        if !resp.status().is_success() {
            let retry_after = resp
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(retry::parse_retry_after);
            let text = self.read_text(resp, cancel).await.unwrap_or_default();
            return Err(ProviderError::Http {
                provider: self.name.clone(),
                url: self.url.clone(),
                status,
                message: error_message(&text),
                retry_after,
            });
        }
        let is_sse = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.contains("text/event-stream"));
        if is_sse {
            self.read_stream(resp, on_event, cancel).await
        } else {
            // A server that ignored `stream: true` and answered with one JSON object.
            let text = self.read_text(resp, cancel).await?;
            let chunk = self.parse_chunk(&text)?;
            let mut asm = Assembler::default();
            let t = asm.push(chunk);
            if !t.is_empty() {
                on_event(ProviderEvent::TextDelta(t));
            }
            Ok(asm.finish())
        }
    }

    async fn read_stream(
        &self,
        resp: reqwest::Response,
        on_event: EventFn<'_>,
        cancel: &CancellationToken,
    ) -> Result<Completion, ProviderError> {
        let limit = self.max_reply;
        let mut total: u64 = 0;
        // Counted before the event parser buffers anything: one endless
        // event must not be held whole.
        let body = resp.bytes_stream().map(move |chunk| {
            let chunk = chunk.map_err(BodyError::Http)?;
            total += chunk.len() as u64;
            if total > limit {
                return Err(BodyError::TooLarge);
            }
            Ok(chunk)
        });
        let mut events = body.eventsource();
        let mut asm = Assembler::default();
        let mut done = false;
        loop {
            let next = tokio::select! {
                _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                n = tokio::time::timeout(self.idle, events.next()) => n.map_err(|_| self.idle_error())?,
            };
            let ev = match next {
                None => break,
                Some(Ok(ev)) => ev,
                Some(Err(eventsource_stream::EventStreamError::Transport(BodyError::TooLarge))) => {
                    return Err(self.too_large())
                }
                Some(Err(e)) => return Err(self.truncated(format!(": {}", root_cause(&e)))),
            };
            let data = ev.data.trim();
            if data == "[DONE]" {
                done = true;
                break;
            }
            if data.is_empty() {
                continue;
            }
            let chunk = self.parse_chunk(data)?;
            let text = asm.push(chunk);
            if !text.is_empty() {
                on_event(ProviderEvent::TextDelta(text));
            }
        }
        if !done && !asm.saw_finish() {
            return Err(self.truncated(String::new()));
        }
        Ok(asm.finish())
    }

    fn parse_chunk(&self, data: &str) -> Result<Chunk, ProviderError> {
        let chunk: Chunk = serde_json::from_str(data).map_err(|_| ProviderError::NotJson {
            provider: self.name.clone(),
            url: self.url.clone(),
            excerpt: excerpt(data, 120),
        })?;
        if let Some(err) = &chunk.error {
            return Err(ProviderError::Remote {
                provider: self.name.clone(),
                url: self.url.clone(),
                message: error_message(&err.to_string()),
            });
        }
        Ok(chunk)
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
            let chunk = tokio::select! {
                _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                r = tokio::time::timeout(self.idle, resp.chunk()) => match r {
                    Err(_) => return Err(self.idle_error()),
                    Ok(Err(e)) => return Err(self.truncated(format!(": {}", root_cause(&e)))),
                    Ok(Ok(c)) => c,
                },
            };
            let Some(chunk) = chunk else { break };
            if (body.len() + chunk.len()) as u64 > self.max_reply {
                return Err(self.too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    fn too_large(&self) -> ProviderError {
        ProviderError::TooLarge {
            provider: self.name.clone(),
            url: self.url.clone(),
            limit: self.max_reply,
        }
    }

    fn connect_error(&self, e: &reqwest::Error) -> ProviderError {
        ProviderError::Connect {
            provider: self.name.clone(),
            url: self.url.clone(),
            message: root_cause(e),
            // Refused or unresolvable: nothing is listening, waiting won't help.
            transient: !e.is_connect() || e.is_timeout(),
        }
    }

    fn idle_error(&self) -> ProviderError {
        ProviderError::Idle {
            provider: self.name.clone(),
            url: self.url.clone(),
            after: self.idle,
        }
    }

    fn truncated(&self, detail: String) -> ProviderError {
        ProviderError::Truncated {
            provider: self.name.clone(),
            url: self.url.clone(),
            detail,
        }
    }
}

impl Provider for OpenAiProvider {
    fn complete<'a>(
        &'a self,
        req: ChatRequest<'a>,
        on_event: EventFn<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(self.run(req, on_event, cancel))
    }
}

/// The response body as the event parser reads it: reqwest's chunks, or the
/// stop once the reply is over its size limit.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error(transparent)]
    Http(reqwest::Error),
    #[error("the reply is over its size limit")]
    TooLarge,
}

/// The innermost cause: "Connection refused (os error 111)" beats reqwest's
/// "error sending request for url (…)".
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    excerpt(&cur.to_string(), 200)
}

/// `error.message` from the usual JSON error shapes, else an excerpt of the body.
fn error_message(body: &str) -> String {
    let v: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let msg = v.as_ref().and_then(|v| {
        let e = v.get("error").unwrap_or(v);
        e.get("message")
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

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    messages: Vec<WireMessage<'a>>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a serde_json::Value,
}

impl<'a> From<&'a ToolSpec> for WireTool<'a> {
    fn from(t: &'a ToolSpec) -> Self {
        WireTool {
            kind: "function",
            function: WireFunction {
                name: &t.name,
                description: &t.description,
                parameters: &t.parameters,
            },
        }
    }
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: &'a str,
    },
    Assistant {
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: std::borrow::Cow<'a, str>,
    },
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireCallFunction<'a>,
}

#[derive(Serialize)]
struct WireCallFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

impl<'a> From<&'a Message> for WireMessage<'a> {
    fn from(m: &'a Message) -> Self {
        match m {
            Message::System { content } => WireMessage::System { content },
            Message::User { content } => WireMessage::User { content },
            Message::Assistant {
                content,
                tool_calls,
            } => WireMessage::Assistant {
                content: (!content.is_empty() || tool_calls.is_empty()).then_some(content.as_str()),
                tool_calls: tool_calls
                    .iter()
                    .map(|c| WireCall {
                        id: &c.id,
                        kind: "function",
                        function: WireCallFunction {
                            name: &c.name,
                            arguments: if c.arguments.is_empty() {
                                "{}"
                            } else {
                                &c.arguments
                            },
                        },
                    })
                    .collect(),
            },
            // Chat Completions has no error flag on tool messages: say it in the text.
            Message::Tool(r) => WireMessage::Tool {
                tool_call_id: &r.tool_call_id,
                content: if r.is_error && !r.content.starts_with("Error") {
                    format!("Error: {}", r.content).into()
                } else {
                    r.content.as_str().into()
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{ToolCall, ToolResult};

    #[test]
    fn body_puts_messages_last_and_is_stable() {
        let msgs = vec![
            Message::System {
                content: "s".into(),
            },
            Message::User {
                content: "hi".into(),
            },
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "echo".into(),
                    arguments: "{\"b\":1,\"a\":2}".into(),
                }],
            },
            Message::Tool(ToolResult {
                tool_call_id: "c1".into(),
                name: "echo".into(),
                content: "boom".into(),
                is_error: true,
            }),
        ];
        let req = ChatRequest {
            model: "m",
            messages: &msgs,
            tools: &[],
        };
        let body = String::from_utf8(OpenAiProvider::body(&req)).unwrap();
        assert_eq!(
            body,
            r#"{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"echo","arguments":"{\"b\":1,\"a\":2}"}}]},{"role":"tool","tool_call_id":"c1","content":"Error: boom"}]}"#
        );
    }

    #[test]
    fn error_message_reads_common_shapes() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad model"}}"#),
            "bad model"
        );
        assert_eq!(error_message(r#"{"error":"nope"}"#), "nope");
        assert_eq!(error_message("<html>oops</html>"), "<html>oops</html>");
        assert_eq!(error_message(""), "(empty body)");
    }
}
