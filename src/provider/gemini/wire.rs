//! The `generateContent` request body: a pure function of the request, with
//! `contents` last, so each request of a session starts with the bytes of
//! the one before.
//!
//! The history goes as alternating `user` / `model` contents (one user
//! content holds every `functionResponse` of a step, as many as the step
//! had calls). A model content that came from Gemini replays its own parts,
//! signatures in place; one rebuilt from another provider's turn has no
//! signature, and Gemini 3 refuses a step whose first function call has
//! none in the current turn — so the first call of every model content
//! without one carries the dummy Google documents for calls it did not
//! generate (`skip_thought_signature_validator`), always, so the bytes of
//! a content never change as the turn moves on.

use serde::Serialize;
use serde_json::{json, Value};

use super::super::blocks::turns;
use super::super::schema::GEMINI;
use super::super::ChatRequest;
use crate::config::{Effort, Thinking};
use crate::model::BlockApi;

/// The signature Google documents for a function call it did not
/// generate ("skip validation"); accepted by the Gemini API and Vertex.
pub(crate) const DUMMY_SIGNATURE: &str = "skip_thought_signature_validator";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body {
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
    generation_config: Value,
    contents: Vec<Value>,
}

/// `web_search`: Google Search grounding offered (`google_search`): the
/// API searches and answers; its sources come as the candidate's
/// `groundingMetadata`, beside the parts, and only the parts are replayed.
pub(super) fn body(
    req: &ChatRequest<'_>,
    max_tokens: u32,
    thinking: Thinking,
    effort: Option<Effort>,
    web_search: bool,
) -> Vec<u8> {
    let t = turns(req.messages, BlockApi::Gemini, !req.tools.is_empty());
    let system: Vec<Value> = t
        .system
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| json!({ "text": s }))
        .collect();
    let declarations: Vec<Value> = req
        .tools
        .iter()
        .map(|t| {
            json!({"name": t.name, "description": t.description,
                "parametersJsonSchema": GEMINI.adapt(&t.parameters)})
        })
        .collect();
    let mut generation = json!({ "maxOutputTokens": max_tokens });
    let thinking = match (thinking, effort) {
        (_, Some(e)) => Some(json!({ "thinkingLevel": e.name() })),
        (Thinking::Budget(b), None) => Some(json!({ "thinkingBudget": b })),
        // Dynamic thinking: the model decides.
        (Thinking::Adaptive, None) => Some(json!({ "thinkingBudget": -1 })),
        (Thinking::Off, None) => None,
    };
    if let Some(t) = thinking {
        generation["thinkingConfig"] = t;
    }
    if let Some(o) = req.output {
        o.gemini(&mut generation);
    }
    let body = Body {
        system_instruction: (!system.is_empty()).then(|| json!({ "parts": system })),
        tools: (!declarations.is_empty())
            .then(|| json!({ "functionDeclarations": declarations }))
            .into_iter()
            .chain(web_search.then(|| json!({ "google_search": {} })))
            .collect(),
        generation_config: generation,
        contents: t
            .turns
            .into_iter()
            .map(|(role, mut parts)| {
                if role.gemini() == "model" {
                    sign_first_call(&mut parts);
                }
                json!({"role": role.gemini(), "parts": parts})
            })
            .collect(),
    };
    serde_json::to_vec(&body).unwrap_or_default()
}

/// The dummy signature on the first function call of a model content
/// that has none.
fn sign_first_call(parts: &mut [Value]) {
    let first = parts.iter_mut().find(|p| p.get("functionCall").is_some());
    if let Some(Value::Object(p)) = first {
        p.entry("thoughtSignature")
            .or_insert_with(|| Value::String(DUMMY_SIGNATURE.into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, NativeBlocks, ToolCall, ToolResult, ToolSpec};

    fn request(messages: &[Message]) -> String {
        let tools = [ToolSpec {
            name: "tool_call".into(),
            description: "d".into(),
            parameters: json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object", "properties": {"calls": {"type": "array", "items": {}}},
                "additionalProperties": false}),
        }];
        let req = ChatRequest {
            model: "gemini-3-flash",
            messages,
            tools: &tools,
            output: None,
        };
        String::from_utf8(body(&req, 8192, Thinking::Off, Some(Effort::High), false)).unwrap()
    }

    #[test]
    fn signed_parts_replay_as_they_came_and_rebuilt_calls_carry_the_dummy() {
        let native = NativeBlocks {
            api: BlockApi::Gemini,
            blocks: vec![
                json!({"functionCall": {"id": "a1", "name": "tool_call", "args": {"calls": []}},
                    "thoughtSignature": "CikBcsjaf3=="}),
                json!({"functionCall": {"id": "a2", "name": "tool_call", "args": {"calls": []}}}),
            ],
        };
        let result = |id: &str| {
            Message::Tool(ToolResult {
                tool_call_id: id.into(),
                name: "tool_call".into(),
                content: "ok".into(),
                is_error: id == "a2",
                images: Vec::new(),
            })
        };
        let foreign = Message::Assistant {
            content: "from claude".into(),
            tool_calls: vec![ToolCall {
                id: "toolu_01abc".into(),
                name: "tool_call".into(),
                arguments: "{\"calls\":[]}".into(),
            }],
            native: None,
        };
        let messages = vec![
            Message::System {
                content: "sys".into(),
            },
            Message::user("go"),
            foreign,
            result("toolu_01abc"),
            Message::Assistant {
                content: String::new(),
                tool_calls: native.tool_calls(),
                native: Some(native),
            },
            result("a1"),
            result("a2"),
        ];
        let body = request(&messages);
        assert_eq!(
            body,
            r#"{"systemInstruction":{"parts":[{"text":"sys"}]},"tools":[{"functionDeclarations":[{"description":"d","name":"tool_call","parametersJsonSchema":{"additionalProperties":false,"properties":{"calls":{"items":{},"type":"array"}},"type":"object"}}]}],"generationConfig":{"maxOutputTokens":8192,"thinkingConfig":{"thinkingLevel":"high"}},"contents":[{"parts":[{"text":"go"}],"role":"user"},{"parts":[{"text":"from claude"},{"functionCall":{"args":{"calls":[]},"id":"toolu_01abc","name":"tool_call"},"thoughtSignature":"skip_thought_signature_validator"}],"role":"model"},{"parts":[{"functionResponse":{"id":"toolu_01abc","name":"tool_call","response":{"output":"ok"}}}],"role":"user"},{"parts":[{"functionCall":{"args":{"calls":[]},"id":"a1","name":"tool_call"},"thoughtSignature":"CikBcsjaf3=="},{"functionCall":{"args":{"calls":[]},"id":"a2","name":"tool_call"}}],"role":"model"},{"parts":[{"functionResponse":{"id":"a1","name":"tool_call","response":{"output":"ok"}}},{"functionResponse":{"id":"a2","name":"tool_call","response":{"error":"ok"}}}],"role":"user"}]}"#
        );
    }
}
