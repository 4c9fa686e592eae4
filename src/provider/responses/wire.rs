//! The Responses request body: a pure function of the request, with `input`
//! last, so each request of a session starts with the bytes of the one
//! before. Stateless (`store: false`): the whole conversation goes as input
//! items every time, and no item carries an `id` — with none, the API
//! links nothing to items it never stored, and a reasoning item stands for
//! itself by its `encrypted_content`.
//!
//! A turn that came from this API replays its own items (reasoning, then
//! the message and calls it led to, in order); any other is rebuilt from
//! the neutral view as a message and `function_call` items. Results follow
//! as `function_call_output` items, in entry order.

use serde::Serialize;
use serde_json::{json, Value};

use super::super::blocks::{call_as_text, result_as_text, tool_result, with_legal_id};
use super::super::schema::OPENAI_RESPONSES;
use super::super::ChatRequest;
use crate::call::ids::legal_everywhere;
use crate::config::{openai_reasoning_model, Effort};
use crate::model::{BlockApi, Message};

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    stream: bool,
    store: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    include: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Value>,
    input: Vec<Value>,
}

/// `limit`: the output limit the config names (the server's default
/// otherwise).
/// `web_search`: the API's own search tool offered (it runs the search; its
/// `web_search_call` items come back and are replayed as they came).
pub(super) fn body(
    req: &ChatRequest<'_>,
    effort: Option<Effort>,
    limit: Option<u32>,
    web_search: bool,
) -> Vec<u8> {
    // Only reasoning models take `reasoning` and return encrypted content.
    let reasoning = openai_reasoning_model(req.model);
    let with_tools = !req.tools.is_empty();
    let body = Body {
        model: req.model,
        stream: true,
        store: false,
        include: if reasoning {
            vec!["reasoning.encrypted_content"]
        } else {
            Vec::new()
        },
        reasoning: effort
            .filter(|_| reasoning)
            .map(|e| json!({ "effort": e.name() })),
        max_output_tokens: limit,
        tools: web_search
            .then(|| json!({"type": "web_search"}))
            .into_iter()
            .chain(req.tools.iter().map(|t| {
                json!({"type": "function", "name": t.name, "description": t.description,
                    "parameters": OPENAI_RESPONSES.adapt(&t.parameters), "strict": false})
            }))
            .collect(),
        text: req.output.map(super::super::OutputFormat::responses),
        input: req
            .messages
            .iter()
            .flat_map(|m| items(m, with_tools))
            .collect(),
    };
    serde_json::to_vec(&body).unwrap_or_default()
}

/// A message as input items. Without tools in the request (a session
/// resumed after its servers went away) calls and results go as text.
fn items(m: &Message, with_tools: bool) -> Vec<Value> {
    let api = BlockApi::Responses;
    let message = |role: &str, content: Vec<Value>| json!({"type": "message", "role": role, "content": content});
    let text = |role: &str, t: &str| {
        let kind = if role == "assistant" {
            "output_text"
        } else {
            "input_text"
        };
        message(role, vec![json!({"type": kind, "text": t})])
    };
    match m {
        Message::System { content } => vec![text("system", content)],
        Message::User { content, images } => {
            let mut parts = Vec::new();
            if !content.trim().is_empty() || images.is_empty() {
                parts.push(api.text_block(content));
            }
            parts.extend(images.iter().map(|i| api.image_block(i)));
            vec![message("user", parts)]
        }
        // Its own items, reasoning kept; without tools, a call goes as text.
        Message::Assistant {
            native: Some(n), ..
        } if n.api == api => n
            .blocks
            .iter()
            .map(|b| match api.tool_use(b) {
                Some(t) if !with_tools => {
                    text("assistant", &call_as_text(t.name, t.id, &t.arguments()))
                }
                _ => with_legal_id(api, b),
            })
            .collect(),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let mut out = Vec::new();
            if !content.trim().is_empty() {
                out.push(text("assistant", content));
            }
            for c in tool_calls {
                let arguments = if c.arguments.is_empty() {
                    "{}"
                } else {
                    &c.arguments
                };
                if with_tools {
                    out.push(
                        json!({"type": "function_call", "call_id": legal_everywhere(&c.id),
                        "name": c.name, "arguments": arguments}),
                    );
                } else {
                    out.push(text("assistant", &call_as_text(&c.name, &c.id, arguments)));
                }
            }
            out
        }
        Message::Tool(r) if !with_tools => vec![text("user", &result_as_text(r))],
        Message::Tool(r) => vec![tool_result(api, r)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NativeBlocks, ToolCall, ToolResult, ToolSpec};

    #[test]
    fn reasoning_items_replay_in_place_and_the_input_comes_last() {
        let native = NativeBlocks {
            api: BlockApi::Responses,
            blocks: vec![
                json!({"type": "reasoning", "summary": [], "encrypted_content": "gAAAAABo1-_5x="}),
                json!({"type": "function_call", "call_id": "call_Kfzsl8lPJayEwvd0rkI7731q",
                    "name": "tool_call", "arguments": "{\"calls\":[]}"}),
            ],
        };
        let messages = vec![
            Message::System {
                content: "sys".into(),
            },
            Message::user("go"),
            Message::Assistant {
                content: String::new(),
                tool_calls: native.tool_calls(),
                native: Some(native),
            },
            Message::Tool(ToolResult {
                tool_call_id: "call_Kfzsl8lPJayEwvd0rkI7731q".into(),
                name: "tool_call".into(),
                content: "boom".into(),
                is_error: true,
                images: Vec::new(),
            }),
            Message::Assistant {
                content: "from gemini".into(),
                tool_calls: vec![ToolCall {
                    id: "a.1".into(),
                    name: "tool_call".into(),
                    arguments: String::new(),
                }],
                native: None,
            },
        ];
        let tools = [ToolSpec {
            name: "tool_call".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }];
        let req = ChatRequest {
            model: "gpt-5",
            messages: &messages,
            tools: &tools,
            output: None,
        };
        let body = String::from_utf8(body(&req, Some(Effort::Low), None, false)).unwrap();
        assert!(body.starts_with(r#"{"model":"gpt-5","stream":true,"store":false,"include":["reasoning.encrypted_content"],"reasoning":{"effort":"low"},"tools":[{"description":"d","name":"tool_call","parameters":{"type":"object"},"strict":false,"type":"function"}],"input":["#), "{body}");
        assert!(body.ends_with("]}"));
        let v: Value = serde_json::from_str(&body).unwrap();
        let input = v["input"].as_array().unwrap();
        assert_eq!(input[2]["encrypted_content"], "gAAAAABo1-_5x=");
        assert_eq!(input[3]["type"], "function_call");
        assert_eq!(input[4]["output"], "Error: boom");
        assert_eq!(input[5]["content"][0]["type"], "output_text");
        let mapped = input[6]["call_id"].as_str().unwrap();
        assert!(crate::call::ids::is_legal(mapped), "{mapped}");
        assert_eq!(input[6]["arguments"], "{}");
        let plain = ChatRequest {
            model: "gpt-4.1",
            messages: &messages[..2],
            tools: &[],
            output: None,
        };
        let plain = String::from_utf8(body_of(&plain)).unwrap();
        assert!(
            !plain.contains("include") && !plain.contains("reasoning"),
            "{plain}"
        );
    }

    fn body_of(req: &ChatRequest<'_>) -> Vec<u8> {
        body(req, Some(Effort::High), None, false)
    }
}
