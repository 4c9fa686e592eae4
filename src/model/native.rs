//! An assistant turn as the provider's own ordered list of content blocks
//! (Anthropic Messages `content`, Bedrock Converse `content`). The provider that
//! produced it replays these blocks, not a rebuild from the neutral view:
//! a signed `thinking` block that changes by one byte, or moves, makes the
//! provider reject the whole history (deferred-tools contract §5).
//!
//! Blocks are kept as parsed JSON. Their text in the session file and on the
//! wire is serde_json's compact rendering with keys sorted, which is a fixed
//! point: read back and written again, a block gives the same bytes, so every
//! replay — in this process or after `--continue` — sends what the first did.
//! Signed strings (thinking text, signatures, redacted data) are kept exactly.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::ToolCall;

/// Whose block format a list is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockApi {
    Anthropic,
    Bedrock,
}

impl BlockApi {
    pub fn name(self) -> &'static str {
        match self {
            BlockApi::Anthropic => "anthropic",
            BlockApi::Bedrock => "bedrock",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NativeBlocks {
    pub api: BlockApi,
    pub blocks: Vec<Value>,
}

/// A tool use found in a block, borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolUse<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub input: &'a Value,
}

const NULL: Value = Value::Null;

impl BlockApi {
    /// The tool use a block holds: Anthropic `{"type":"tool_use","id",…}`,
    /// Bedrock `{"toolUse":{"toolUseId",…}}`.
    pub fn tool_use(self, block: &Value) -> Option<ToolUse<'_>> {
        let (body, id_key) = match self {
            BlockApi::Anthropic if block.get("type")?.as_str()? == "tool_use" => (block, "id"),
            BlockApi::Anthropic => return None,
            BlockApi::Bedrock => (block.get("toolUse")?, "toolUseId"),
        };
        let text = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or("");
        Some(ToolUse {
            id: text(id_key),
            name: text("name"),
            input: body.get("input").unwrap_or(&NULL),
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
        }
    }

    /// A text block in this format.
    pub fn text_block(self, text: &str) -> Value {
        match self {
            BlockApi::Anthropic => json!({"type": "text", "text": text}),
            BlockApi::Bedrock => json!({"text": text}),
        }
    }

    /// An image block in this format (Bedrock's bytes are base64 in JSON).
    pub fn image_block(self, image: &super::Image) -> Value {
        match self {
            BlockApi::Anthropic => json!({"type": "image", "source": {"type": "base64",
                "media_type": image.media_type, "data": image.data}}),
            BlockApi::Bedrock => {
                json!({"image": {"format": image.format(), "source": {"bytes": image.data}}})
            }
        }
    }

    fn text(self, block: &Value) -> Option<&str> {
        match self {
            BlockApi::Anthropic if block.get("type")?.as_str()? != "text" => None,
            _ => block.get("text")?.as_str(),
        }
    }

    /// Gives a tool-use block the id `id` (for one that arrived without).
    fn set_tool_use_id(self, block: &mut Value, id: &str) {
        let slot = match self {
            BlockApi::Anthropic => block.get_mut("id"),
            BlockApi::Bedrock => block
                .get_mut("toolUse")
                .and_then(|b| b.get_mut("toolUseId")),
        };
        match slot {
            Some(v) => *v = Value::String(id.to_string()),
            None => {
                let obj = match self {
                    BlockApi::Anthropic => block.as_object_mut(),
                    BlockApi::Bedrock => block.get_mut("toolUse").and_then(Value::as_object_mut),
                };
                let key = if self == BlockApi::Anthropic {
                    "id"
                } else {
                    "toolUseId"
                };
                if let Some(o) = obj {
                    o.insert(key.into(), Value::String(id.to_string()));
                }
            }
        }
    }
}

impl NativeBlocks {
    /// The text of the turn, its text blocks joined.
    pub fn text(&self) -> String {
        self.blocks
            .iter()
            .filter_map(|b| self.api.text(b))
            .collect()
    }

    /// The tool calls of the turn in block order, as the rest of hermes sees
    /// them: `arguments` is the input's compact JSON.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.blocks
            .iter()
            .filter_map(|b| self.api.tool_use(b))
            .map(|t| ToolCall {
                id: t.id.to_string(),
                name: t.name.to_string(),
                arguments: match t.input {
                    Value::Null => "{}".to_string(),
                    v => v.to_string(),
                },
            })
            .collect()
    }

    /// How many blocks only this provider understands (thinking, reasoning,
    /// anything but text and tool use): what another provider loses.
    pub fn own_blocks(&self) -> usize {
        self.blocks
            .iter()
            .filter(|b| self.api.text(b).is_none() && self.api.tool_use(b).is_none())
            .count()
    }

    /// Writes ids into tool-use blocks that had none: `ids[k]` for the k-th
    /// tool use (the neutral view's calls, ids already assigned).
    pub fn set_tool_use_ids(&mut self, calls: &[ToolCall]) {
        let api = self.api;
        let mut calls = calls.iter();
        for b in &mut self.blocks {
            let Some(t) = api.tool_use(b) else { continue };
            let Some(c) = calls.next() else { return };
            if t.id != c.id {
                api.set_tool_use_id(b, &c.id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_neutral_view_reads_both_formats() {
        let a = NativeBlocks {
            api: BlockApi::Anthropic,
            blocks: serde_json::from_str(
                r#"[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"Hi "},
                {"type":"text","text":"there"},{"type":"tool_use","id":"toolu_01","name":"echo","input":{"b":1,"a":2}}]"#,
            )
            .unwrap(),
        };
        assert_eq!(a.text(), "Hi there");
        assert_eq!(a.own_blocks(), 1, "the thinking block");
        let calls = a.tool_calls();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].arguments, r#"{"a":2,"b":1}"#);
        let b = NativeBlocks {
            api: BlockApi::Bedrock,
            blocks: serde_json::from_str(
                r#"[{"reasoningContent":{"reasoningText":{"text":"t","signature":"s"}}},{"text":"ok"},
                {"toolUse":{"toolUseId":"","name":"echo","input":{}}}]"#,
            )
            .unwrap(),
        };
        assert_eq!(b.text(), "ok");
        let mut b2 = b.clone();
        let mut calls = b.tool_calls();
        calls[0].id = "tooluse_x".into();
        b2.set_tool_use_ids(&calls);
        assert_eq!(b2.tool_calls()[0].id, "tooluse_x");
        assert_eq!(b2.blocks[0], b.blocks[0]);
    }

    #[test]
    fn blocks_read_back_and_written_again_keep_their_bytes() {
        let text = r#"{"api":"anthropic","blocks":[{"signature":"EqQBCgIYAhIM+/sig==","thinking":"plan\n  \"it\" é\u2028","type":"thinking"},{"id":"toolu_01","input":{"n":1.5e300,"z":[1,2]},"name":"x","type":"tool_use"}]}"#;
        let once: NativeBlocks = serde_json::from_str(text).unwrap();
        let written = serde_json::to_string(&once).unwrap();
        let twice: NativeBlocks = serde_json::from_str(&written).unwrap();
        assert_eq!(serde_json::to_string(&twice).unwrap(), written);
        assert_eq!(
            once.blocks[0]["thinking"].as_str().unwrap(),
            "plan\n  \"it\" é\u{2028}"
        );
    }
}
