//! Where each provider's block format keeps text, a tool use and what only
//! that provider can verify:
//!
//! | format | text | tool use (id, name, arguments) | its own |
//! |---|---|---|---|
//! | Anthropic | `{"type":"text"}` | `{"type":"tool_use","id","name","input"}` | `thinking` (signed), `redacted_thinking` |
//! | Bedrock | `{"text"}` | `{"toolUse":{"toolUseId","name","input"}}` | `reasoningContent` |
//! | Gemini | `{"text"}` not `thought` | `{"functionCall":{"id"?,"name","args"}}` | a part with `thoughtSignature` (beside its text or call), a `thought` part |
//! | Responses | `{"type":"message"}`'s `output_text` | `{"type":"function_call","call_id","name","arguments"}` (text) | `{"type":"reasoning","encrypted_content"}` |
//!
//! A Gemini signature rides on the part it came with, so a split keeps
//! child 0 as its parent part with new arguments ([`BlockApi::with_input`]):
//! the signature stays in place, as the seed's rule that child 0 keeps the
//! parent says.

use serde_json::{json, Value};

use super::{BlockApi, Input, ToolUse};
use crate::model::Image;

impl BlockApi {
    /// The tool use a block holds.
    pub fn tool_use(self, block: &Value) -> Option<ToolUse<'_>> {
        let (body, id_key) = match self {
            BlockApi::Anthropic if block.get("type")?.as_str()? == "tool_use" => (block, "id"),
            BlockApi::Bedrock => (block.get("toolUse")?, "toolUseId"),
            BlockApi::Gemini => (block.get("functionCall")?, "id"),
            BlockApi::Responses if block.get("type")?.as_str()? == "function_call" => {
                return Some(ToolUse {
                    id: str_at(block, "call_id"),
                    name: str_at(block, "name"),
                    input: Input::Text(str_at(block, "arguments")),
                })
            }
            BlockApi::Anthropic | BlockApi::Responses => return None,
        };
        let args = if self == BlockApi::Gemini {
            "args"
        } else {
            "input"
        };
        Some(ToolUse {
            id: str_at(body, id_key),
            name: str_at(body, "name"),
            input: Input::Json(body.get(args).unwrap_or(&Value::Null)),
        })
    }

    /// A tool-use block in this format.
    pub fn tool_use_block(self, id: &str, name: &str, input: Value) -> Value {
        match self {
            BlockApi::Anthropic => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
            BlockApi::Bedrock => {
                json!({"toolUse": {"toolUseId": id, "name": name, "input": input}})
            }
            BlockApi::Gemini => json!({"functionCall": {"id": id, "name": name, "args": input}}),
            BlockApi::Responses => json!({"type": "function_call", "call_id": id, "name": name,
                "arguments": input.to_string()}),
        }
    }

    /// `block`, a tool use, with `input` for its arguments and everything
    /// else kept — its id, and a signature beside it.
    pub fn with_input(self, block: &Value, input: Value) -> Value {
        let mut b = block.clone();
        let slot = match self {
            BlockApi::Anthropic => b.get_mut("input"),
            BlockApi::Bedrock => b.get_mut("toolUse").and_then(|t| t.get_mut("input")),
            BlockApi::Gemini => b.get_mut("functionCall").and_then(|f| f.get_mut("args")),
            BlockApi::Responses => b.get_mut("arguments"),
        };
        let value = match self {
            BlockApi::Responses => Value::String(input.to_string()),
            _ => input,
        };
        match slot {
            Some(s) => *s = value,
            None => {
                let (outer, key) = match self {
                    BlockApi::Anthropic => (Some(&mut b), "input"),
                    BlockApi::Bedrock => (b.get_mut("toolUse"), "input"),
                    BlockApi::Gemini => (b.get_mut("functionCall"), "args"),
                    BlockApi::Responses => (Some(&mut b), "arguments"),
                };
                if let Some(Value::Object(o)) = outer {
                    o.insert(key.into(), value);
                }
            }
        }
        b
    }

    /// A text block of the person's (or of a rebuilt turn) in this format.
    pub fn text_block(self, text: &str) -> Value {
        match self {
            BlockApi::Anthropic => json!({"type": "text", "text": text}),
            BlockApi::Bedrock | BlockApi::Gemini => json!({"text": text}),
            BlockApi::Responses => json!({"type": "input_text", "text": text}),
        }
    }

    /// An image block in this format (Bedrock's bytes are base64 in JSON).
    pub fn image_block(self, image: &Image) -> Value {
        match self {
            BlockApi::Anthropic => json!({"type": "image", "source": {"type": "base64",
                "media_type": image.media_type, "data": image.data}}),
            BlockApi::Bedrock => {
                json!({"image": {"format": image.format(), "source": {"bytes": image.data}}})
            }
            BlockApi::Gemini => {
                json!({"inlineData": {"mimeType": image.media_type, "data": image.data}})
            }
            BlockApi::Responses => json!({"type": "input_image",
                "image_url": format!("data:{};base64,{}", image.media_type, image.data)}),
        }
    }

    /// Appends the answer text `block` holds to `out`.
    pub(super) fn text_into(self, block: &Value, out: &mut String) {
        let text = |b: &Value| b.get("text").and_then(Value::as_str).map(str::to_string);
        let found = match self {
            BlockApi::Anthropic if block.get("type").and_then(Value::as_str) != Some("text") => {
                None
            }
            BlockApi::Anthropic | BlockApi::Bedrock => text(block),
            BlockApi::Gemini if block.get("thought") == Some(&Value::Bool(true)) => None,
            BlockApi::Gemini => text(block),
            BlockApi::Responses if block.get("type").and_then(Value::as_str) == Some("message") => {
                Some(
                    block
                        .get("content")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter(|p| p.get("type").and_then(Value::as_str) == Some("output_text"))
                        .filter_map(text)
                        .collect(),
                )
            }
            BlockApi::Responses => None,
        };
        if let Some(t) = found {
            out.push_str(&t);
        }
    }

    /// Whether `block` carries what only this provider can verify, and
    /// another provider's replay must leave out.
    pub(super) fn is_own(self, block: &Value) -> bool {
        match self {
            BlockApi::Anthropic => !matches!(
                block.get("type").and_then(Value::as_str),
                Some("text" | "tool_use")
            ),
            BlockApi::Bedrock => block.get("text").is_none() && block.get("toolUse").is_none(),
            BlockApi::Gemini => {
                block.get("thoughtSignature").is_some()
                    || block.get("thought") == Some(&Value::Bool(true))
            }
            BlockApi::Responses => !matches!(
                block.get("type").and_then(Value::as_str),
                Some("message" | "function_call")
            ),
        }
    }

    /// Gives a tool-use block the id `id` (for one that arrived without,
    /// or with one the session had already).
    pub fn set_tool_use_id(self, block: &mut Value, id: &str) {
        let (body, key) = match self {
            BlockApi::Anthropic => (Some(block), "id"),
            BlockApi::Bedrock => (block.get_mut("toolUse"), "toolUseId"),
            BlockApi::Gemini => (block.get_mut("functionCall"), "id"),
            BlockApi::Responses => (Some(block), "call_id"),
        };
        if let Some(Value::Object(o)) = body {
            o.insert(key.into(), Value::String(id.to_string()));
        }
    }
}

/// The string at `key` of `v`, or `""`.
fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}
