//! The Messages request body. A pure function of the request, with
//! `messages` last, so each request of a session starts with the bytes of
//! the one before — except for the one moving prompt-cache breakpoint, which
//! marks the conversation's newest block and is not part of what the cache
//! compares.

use serde::Serialize;
use serde_json::{json, Value};

use super::super::blocks::turns;
use super::super::schema::ANTHROPIC;
use super::super::ChatRequest;
use crate::config::Thinking;
use crate::model::BlockApi;

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<Value>,
    messages: Vec<Value>,
}

/// The server tool that searches the web, run by Anthropic: its blocks
/// (`server_tool_use`, `web_search_tool_result`) come back in the answer
/// and are replayed as they came, like thinking.
const WEB_SEARCH: &str = "web_search_20250305";

pub(super) fn body(
    req: &ChatRequest<'_>,
    max_tokens: u32,
    thinking: Thinking,
    web_search: Option<u32>,
) -> Vec<u8> {
    let t = turns(req.messages, BlockApi::Anthropic, !req.tools.is_empty());
    let mut system: Vec<Value> = t
        .system
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| json!({"type": "text", "text": s}))
        .collect();
    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": ANTHROPIC.adapt(&t.parameters)}),
        )
        .collect();
    // First, so the cache breakpoint stays on the last of hermes' own.
    if let Some(uses) = web_search {
        tools.insert(
            0,
            json!({"type": WEB_SEARCH, "name": "web_search", "max_uses": uses}),
        );
    }
    let mut messages: Vec<Value> = t
        .turns
        .into_iter()
        .map(|(role, content)| json!({"role": role.name(), "content": content}))
        .collect();
    // Prompt caching: the stable prefix (tools, then system), the whole
    // conversation so far, which the next request starts with, and where the
    // previous request ended (the message before the newest answer): the
    // cache looks back only about 20 blocks from a breakpoint, and a split
    // batch adds more than that. Four breakpoints, the API's limit.
    mark(tools.last_mut());
    mark(system.last_mut());
    let previous_end = messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .and_then(|a| a.checked_sub(1));
    for i in [previous_end, messages.len().checked_sub(1)]
        .into_iter()
        .flatten()
    {
        mark(
            messages[i]
                .get_mut("content")
                .and_then(Value::as_array_mut)
                .and_then(|c| c.last_mut()),
        );
    }
    let body = Body {
        model: req.model,
        max_tokens,
        stream: true,
        thinking: match thinking {
            Thinking::Off => None,
            Thinking::Budget(b) => Some(json!({"type": "enabled", "budget_tokens": b})),
            Thinking::Adaptive => Some(json!({"type": "adaptive"})),
        },
        system,
        tools,
        output_config: req.output.and_then(super::super::OutputFormat::anthropic),
        messages,
    };
    serde_json::to_vec(&body).unwrap_or_default()
}

/// A cache breakpoint on `block` — not on thinking blocks, which refuse one.
fn mark(block: Option<&mut Value>) {
    let Some(Value::Object(b)) = block else {
        return;
    };
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
    if kind == "thinking" || kind == "redacted_thinking" {
        return;
    }
    b.insert("cache_control".into(), json!({"type": "ephemeral"}));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::blocks::sample;

    #[test]
    fn the_body_replays_native_blocks_and_marks_the_cache_prefix() {
        let (msgs, tools) = sample(
            BlockApi::Anthropic,
            r#"[{"type":"thinking","thinking":"plan","signature":"sig"},{"type":"tool_use","id":"toolu_01","name":"echo","input":{"b":1,"a":2}}]"#,
        );
        let req = ChatRequest {
            model: "claude",
            messages: &msgs,
            tools: &tools,
            output: None,
        };
        let body = String::from_utf8(body(&req, 4096, Thinking::Budget(2048), None)).unwrap();
        assert_eq!(
            body,
            r#"{"model":"claude","max_tokens":4096,"stream":true,"thinking":{"budget_tokens":2048,"type":"enabled"},"system":[{"cache_control":{"type":"ephemeral"},"text":"s","type":"text"}],"tools":[{"cache_control":{"type":"ephemeral"},"description":"d","input_schema":{"type":"object"},"name":"echo"}],"messages":[{"content":[{"cache_control":{"type":"ephemeral"},"text":"hi","type":"text"}],"role":"user"},{"content":[{"signature":"sig","thinking":"plan","type":"thinking"},{"id":"toolu_01","input":{"a":2,"b":1},"name":"echo","type":"tool_use"}],"role":"assistant"},{"content":[{"cache_control":{"type":"ephemeral"},"content":"out","tool_use_id":"toolu_01","type":"tool_result"}],"role":"user"}]}"#
        );
    }
}
