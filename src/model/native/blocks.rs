//! `NativeBlocks`: an assistant turn as its provider's ordered content
//! blocks, and the tool uses and text read from them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::ToolCall;

/// Whose block format a list is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockApi {
    Anthropic,
    Bedrock,
    /// Gemini `generateContent`: a model content's `parts`.
    Gemini,
    /// OpenAI Responses: the output items of one response, without the
    /// `id` and `status` a stateless replay does not carry.
    Responses,
}

impl BlockApi {
    pub fn name(self) -> &'static str {
        match self {
            BlockApi::Anthropic => "anthropic",
            BlockApi::Bedrock => "bedrock",
            BlockApi::Gemini => "gemini",
            BlockApi::Responses => "openai-responses",
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
    pub input: Input<'a>,
}

/// A tool use's arguments as its format holds them: a JSON object
/// (Anthropic and Bedrock `input`, Gemini `args`) or the model's own text
/// (Responses `arguments`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Input<'a> {
    Json(&'a Value),
    Text(&'a str),
}

impl ToolUse<'_> {
    /// The arguments as the rest of hermes keeps them: the model's text
    /// where the format keeps text, else the object's compact JSON (`{}`
    /// for none).
    pub fn arguments(&self) -> String {
        match self.input {
            Input::Json(Value::Null) => "{}".to_string(),
            Input::Json(v) => v.to_string(),
            Input::Text(t) => t.to_string(),
        }
    }
}

impl NativeBlocks {
    /// The text of the turn, its text blocks joined.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for b in &self.blocks {
            self.api.text_into(b, &mut out);
        }
        out
    }

    /// The tool calls of the turn in block order, as the rest of hermes sees
    /// them ([`ToolUse::arguments`]).
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.blocks
            .iter()
            .filter_map(|b| self.api.tool_use(b))
            .map(|t| ToolCall {
                id: t.id.to_string(),
                name: t.name.to_string(),
                arguments: t.arguments(),
            })
            .collect()
    }

    /// How many blocks carry what only this provider can verify (thinking,
    /// a signature, encrypted reasoning): what another provider loses.
    pub fn own_blocks(&self) -> usize {
        self.blocks.iter().filter(|b| self.api.is_own(b)).count()
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
