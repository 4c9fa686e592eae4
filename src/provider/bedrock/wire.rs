//! The ConverseStream request body: a pure function of the request, with
//! `messages` last, so each request of a session starts with the bytes of the
//! one before.

use serde::Serialize;
use serde_json::{json, Value};

use super::super::blocks::turns;
use super::super::schema::BEDROCK;
use super::super::ChatRequest;
use crate::config::Thinking;
use crate::model::BlockApi;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body {
    inference_config: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_model_request_fields: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<Value>,
    messages: Vec<Value>,
}

pub(super) fn body(req: &ChatRequest<'_>, max_tokens: u32, thinking: Thinking) -> Vec<u8> {
    let t = turns(req.messages, BlockApi::Bedrock, !req.tools.is_empty());
    let tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| {
            json!({"toolSpec": {"name": t.name, "description": t.description,
                "inputSchema": {"json": BEDROCK.adapt(&t.parameters)}}})
        })
        .collect();
    // Claude's thinking on Bedrock goes through as Anthropic's own fields.
    let additional = match thinking {
        Thinking::Off => None,
        Thinking::Budget(b) => Some(json!({
            "thinking": {"type": "enabled", "budget_tokens": b},
            "anthropic_beta": ["interleaved-thinking-2025-05-14"],
        })),
        Thinking::Adaptive => Some(json!({"thinking": {"type": "adaptive"}})),
    };
    let body = Body {
        inference_config: json!({"maxTokens": max_tokens}),
        additional_model_request_fields: additional,
        system: t
            .system
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| json!({"text": s}))
            .collect(),
        tool_config: (!tools.is_empty()).then(|| json!({"tools": tools})),
        output_config: req.output.and_then(super::super::OutputFormat::bedrock),
        messages: t
            .turns
            .into_iter()
            .map(|(role, content)| json!({"role": role.name(), "content": content}))
            .collect(),
    };
    serde_json::to_vec(&body).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::blocks::sample;

    #[test]
    fn the_body_replays_reasoning_blocks_with_their_signature() {
        let (msgs, tools) = sample(
            BlockApi::Bedrock,
            r#"[{"reasoningContent":{"reasoningText":{"text":"plan","signature":"sig"}}},{"toolUse":{"toolUseId":"tooluse_1","name":"echo","input":{}}}]"#,
        );
        let req = ChatRequest {
            model: "m",
            messages: &msgs,
            tools: &tools,
            output: None,
        };
        let body = String::from_utf8(body(&req, 1000, Thinking::Off)).unwrap();
        assert_eq!(
            body,
            r#"{"inferenceConfig":{"maxTokens":1000},"system":[{"text":"s"}],"toolConfig":{"tools":[{"toolSpec":{"description":"d","inputSchema":{"json":{"type":"object"}},"name":"echo"}}]},"messages":[{"content":[{"text":"hi"}],"role":"user"},{"content":[{"reasoningContent":{"reasoningText":{"signature":"sig","text":"plan"}}},{"toolUse":{"input":{},"name":"echo","toolUseId":"tooluse_1"}}],"role":"assistant"},{"content":[{"toolResult":{"content":[{"text":"out"}],"status":"success","toolUseId":"tooluse_1"}}],"role":"user"}]}"#
        );
    }
}
