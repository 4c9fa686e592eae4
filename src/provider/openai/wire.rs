//! The Chat Completions request body: a pure function of the request, so a
//! resumed session sends its history byte for byte as before, with
//! `messages` last so two successive requests of a session share their
//! whole earlier prefix; the output limit in the field the server reads.

use std::borrow::Cow;

use serde::Serialize;

use crate::call::ids::legal_everywhere;
use crate::model::{Message, ToolSpec};
use crate::provider::schema::OPENAI_CHAT;
use crate::provider::ChatRequest;

/// An output limit in a Chat Completions request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Limit {
    /// `max_tokens`: what compatible servers (vLLM, llama.cpp, Ollama,
    /// LM Studio) read.
    MaxTokens(u32),
    /// `max_completion_tokens`: what OpenAI's own API (and Azure's) wants —
    /// its reasoning models refuse `max_tokens` with a 400.
    MaxCompletionTokens(u32),
}

impl Limit {
    /// The field for a server at `base_url` serving `model`: OpenAI's and
    /// Azure's endpoints, and their reasoning models behind any proxy
    /// (`o1`…, `gpt-5`…), take `max_completion_tokens`; the rest
    /// `max_tokens`.
    pub(super) fn for_server(base_url: &str, model: &str, n: u32) -> Limit {
        let host = base_url
            .split("://")
            .nth(1)
            .unwrap_or(base_url)
            .split(['/', ':'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if host == "api.openai.com"
            || host.ends_with(".openai.azure.com")
            || crate::config::openai_reasoning_model(model)
        {
            Limit::MaxCompletionTokens(n)
        } else {
            Limit::MaxTokens(n)
        }
    }
}

/// The request body. A pure function of the request: a resumed session sends
/// its history byte for byte as before, and `messages` comes last so that two
/// successive requests of a session share their whole earlier prefix.
pub(super) fn body(req: &ChatRequest<'_>, limit: Option<Limit>) -> Vec<u8> {
    let body = WireRequest {
        model: req.model,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        max_tokens: match limit {
            Some(Limit::MaxTokens(n)) => Some(n),
            _ => None,
        },
        max_completion_tokens: match limit {
            Some(Limit::MaxCompletionTokens(n)) => Some(n),
            _ => None,
        },
        tools: req.tools.iter().map(WireTool::from).collect(),
        response_format: req.output.map(crate::provider::OutputFormat::chat),
        messages: wire_messages(req.messages),
    };
    serde_json::to_vec(&body).unwrap_or_default()
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<serde_json::Value>,
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
    parameters: serde_json::Value,
}

impl<'a> From<&'a ToolSpec> for WireTool<'a> {
    fn from(t: &'a ToolSpec) -> Self {
        WireTool {
            kind: "function",
            function: WireFunction {
                name: &t.name,
                description: &t.description,
                parameters: OPENAI_CHAT.adapt(&t.parameters),
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
        content: &'a str,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireCall<'a>>,
    },
    Tool {
        tool_call_id: Cow<'a, str>,
        content: Cow<'a, str>,
    },
    /// A user message in parts: the person's attached images after the
    /// text, or the images of the tool results before it (a tool message
    /// takes text only, so they follow in a user message, as the API
    /// requires).
    #[serde(rename = "user")]
    Parts {
        content: Vec<serde_json::Value>,
    },
}

/// The history as Chat Completions messages: each message as it is, and
/// after a run of tool messages whose results hold images, one user message
/// with those images in order.
fn wire_messages(messages: &[Message]) -> Vec<WireMessage<'_>> {
    let mut out = Vec::with_capacity(messages.len());
    let mut images: Vec<&crate::model::Image> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        out.push(WireMessage::from(m));
        if let Message::Tool(r) = m {
            images.extend(&r.images);
        }
        let run_ends = !matches!(messages.get(i + 1), Some(Message::Tool(_)));
        if run_ends && !images.is_empty() {
            let mut content = vec![serde_json::json!({"type": "text",
                "text": "The images the tool results above returned, in order:"})];
            content.extend(images.drain(..).map(image_part));
            out.push(WireMessage::Parts { content });
        }
    }
    out
}

/// An image as a Chat Completions content part (a data URL).
fn image_part(i: &crate::model::Image) -> serde_json::Value {
    serde_json::json!({"type": "image_url", "image_url": {
        "url": format!("data:{};base64,{}", i.media_type, i.data)}})
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: Cow<'a, str>,
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
            Message::User { content, images } if images.is_empty() => WireMessage::User { content },
            Message::User { content, images } => {
                let mut parts = Vec::with_capacity(images.len() + 1);
                if !content.trim().is_empty() {
                    parts.push(serde_json::json!({"type": "text", "text": content}));
                }
                parts.extend(images.iter().map(image_part));
                WireMessage::Parts { content: parts }
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => WireMessage::Assistant {
                // Tool calls without text go with `""`, not `null`: every
                // server takes a string, and some (llama-cpp-python) answer
                // 500 to `null`.
                content,
                tool_calls: tool_calls
                    .iter()
                    .map(|c| WireCall {
                        id: legal_everywhere(&c.id),
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
                tool_call_id: legal_everywhere(&r.tool_call_id),
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
    use crate::model::{ToolCall, ToolResult};

    #[test]
    fn body_puts_messages_last_and_is_stable() {
        let msgs = vec![
            Message::System {
                content: "s".into(),
            },
            Message::user("hi"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "echo".into(),
                    arguments: "{\"b\":1,\"a\":2}".into(),
                }],
                native: None,
            },
            Message::Tool(ToolResult {
                tool_call_id: "c1".into(),
                name: "echo".into(),
                content: "boom".into(),
                is_error: true,
                images: Vec::new(),
            }),
        ];
        let req = ChatRequest {
            model: "m",
            messages: &msgs,
            tools: &[],
            output: None,
        };
        let body = String::from_utf8(body(&req, None)).unwrap();
        assert_eq!(
            body,
            r#"{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"echo","arguments":"{\"b\":1,\"a\":2}"}}]},{"role":"tool","tool_call_id":"c1","content":"Error: boom"}]}"#
        );
    }

    #[test]
    fn the_output_limit_goes_where_the_server_reads_it() {
        use super::Limit::*;
        let at = Limit::for_server;
        assert_eq!(
            at("https://api.openai.com/v1", "gpt-4.1", 9),
            MaxCompletionTokens(9)
        );
        assert_eq!(
            at("https://my-res.openai.azure.com/openai/v1", "gpt-4o", 9),
            MaxCompletionTokens(9)
        );
        assert_eq!(
            at("http://127.0.0.1:8000/v1", "Qwen/Qwen3-8B", 9),
            MaxTokens(9)
        );
        assert_eq!(at("http://localhost:11434/v1", "llama3.2", 9), MaxTokens(9));
        // OpenAI's reasoning models behind a proxy refuse `max_tokens` too.
        assert_eq!(
            at("https://openrouter.ai/api/v1", "openai/o4-mini", 9),
            MaxCompletionTokens(9)
        );
        assert_eq!(
            at("http://127.0.0.1:4000", "gpt-5-mini", 9),
            MaxCompletionTokens(9)
        );
        assert_eq!(at("http://127.0.0.1:4000", "olmo-2", 9), MaxTokens(9));
    }
}
