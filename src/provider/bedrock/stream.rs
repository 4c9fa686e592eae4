//! ConverseStream events folded into one block list. Text blocks arrive as
//! deltas with no start; a tool use starts with its id and name and streams
//! its input as JSON text; reasoning streams its text, then its signature
//! (or arrives redacted, as opaque bytes). Exceptions come as events named
//! `!<exceptionType>` by the framing.

use serde_json::{json, Value};

use super::super::fold::{Fold, FoldError, Step};
use super::super::{Completion, Finish, Usage};
use crate::model::{BlockApi, NativeBlocks};

const MAX_INDEX_GAP: usize = 16;

#[derive(Default)]
pub(super) struct ConverseFold {
    blocks: Vec<Option<Block>>,
    usage: Option<Usage>,
    stop_reason: Option<String>,
    stopped: bool,
}

enum Block {
    Text(String),
    Tool {
        id: String,
        name: String,
        input: String,
    },
    Reasoning {
        text: String,
        signature: String,
    },
    Redacted(Value),
}

fn usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let read = n("cacheReadInputTokens");
    let write = n("cacheWriteInputTokens");
    let prompt = n("inputTokens") + read + write;
    Usage {
        prompt_tokens: prompt,
        completion_tokens: n("outputTokens"),
        total_tokens: prompt + n("outputTokens"),
        cache_read_tokens: read,
        cache_write_tokens: write,
    }
}

fn finish(stop_reason: Option<&str>) -> Finish {
    match stop_reason {
        Some("max_tokens" | "model_context_window_exceeded") => Finish::Length,
        Some("content_filtered") => Finish::Refusal,
        Some("guardrail_intervened") => Finish::Guardrail,
        _ => Finish::Done,
    }
}

/// A whole Converse reply answering a streaming request (a proxy that
/// does not stream): its content blocks are the block list as it is.
/// `None` when the body is not one.
pub(super) fn whole(body: &str) -> Option<Result<Completion, FoldError>> {
    let v: Value = serde_json::from_str(body).ok()?;
    let blocks = v.pointer("/output/message/content")?.as_array()?.clone();
    let native = NativeBlocks {
        api: BlockApi::Bedrock,
        blocks,
    };
    Some(Ok(Completion::from_native(
        native,
        v.get("usage").map(usage),
        finish(v.get("stopReason").and_then(Value::as_str)),
        Vec::new(),
    )))
}

impl Fold for ConverseFold {
    fn push(&mut self, event: &str, data: &str) -> Result<Step, FoldError> {
        if let Some(exception) = event.strip_prefix('!') {
            let message = serde_json::from_str::<Value>(data)
                .ok()
                .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_else(|| data.to_string());
            let status = match exception {
                "throttlingException" => Some(429),
                "serviceUnavailableException" => Some(503),
                "internalServerException" => Some(500),
                _ => None,
            };
            return Err(FoldError::Remote {
                message: format!("{exception}: {message}"),
                status,
            });
        }
        let v: Value =
            serde_json::from_str(data).map_err(|_| FoldError::NotJson(data.to_string()))?;
        let index = v
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        // Blocks come numbered 0, 1, 2 …: a wild index must not size a vector.
        let index = match usize::try_from(index) {
            Ok(i) if i <= self.blocks.len() + MAX_INDEX_GAP => i,
            _ => {
                return Err(FoldError::Remote {
                    message: format!("a malformed stream: content block {index}"),
                    status: None,
                })
            }
        };
        match event {
            "contentBlockStart" => {
                if let Some(t) = v.pointer("/start/toolUse") {
                    let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                    *self.slot(index) = Some(Block::Tool {
                        id: s("toolUseId"),
                        name: s("name"),
                        input: String::new(),
                    });
                }
            }
            "contentBlockDelta" => {
                let delta = v.get("delta").cloned().unwrap_or(Value::Null);
                let text = self.apply(index, &delta);
                if let Some(t) = delta
                    .pointer("/reasoningContent/text")
                    .and_then(Value::as_str)
                {
                    return Ok(Step::Thinking(t.to_string()));
                }
                return Ok(Step::Text(text));
            }
            "messageStop" => {
                self.stopped = true;
                self.stop_reason = v
                    .get("stopReason")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            "metadata" => {
                if let Some(u) = v.get("usage") {
                    self.usage = Some(usage(u));
                }
                // The last event of a complete stream.
                if self.stopped {
                    return Ok(Step::End);
                }
            }
            // messageStart, contentBlockStop, and events of later versions.
            _ => {}
        }
        Ok(Step::Text(String::new()))
    }

    fn complete(&self) -> bool {
        self.stopped
    }

    fn finish(self: Box<Self>) -> Completion {
        let mut unparsed = Vec::new();
        let blocks: Vec<Value> = self
            .blocks
            .into_iter()
            .flatten()
            .filter_map(|b| b.into_value(&mut unparsed))
            .collect();
        let native = NativeBlocks {
            api: BlockApi::Bedrock,
            blocks,
        };
        Completion::from_native(
            native,
            self.usage,
            finish(self.stop_reason.as_deref()),
            unparsed,
        )
    }
}

impl ConverseFold {
    fn slot(&mut self, index: usize) -> &mut Option<Block> {
        if self.blocks.len() <= index {
            self.blocks.resize_with(index + 1, || None);
        }
        &mut self.blocks[index]
    }

    /// Applies one delta to block `index`, making the block if the delta is
    /// its first sign; returns the text it added.
    fn apply(&mut self, index: usize, delta: &Value) -> String {
        let slot = self.slot(index);
        if let Some(t) = delta.get("text").and_then(Value::as_str) {
            match slot {
                Some(Block::Text(s)) => s.push_str(t),
                _ => *slot = Some(Block::Text(t.to_string())),
            }
            return t.to_string();
        }
        if let Some(i) = delta.pointer("/toolUse/input").and_then(Value::as_str) {
            if let Some(Block::Tool { input, .. }) = slot {
                input.push_str(i);
            }
            return String::new();
        }
        if let Some(r) = delta.get("reasoningContent") {
            if let Some(data) = r.get("redactedContent") {
                *slot = Some(Block::Redacted(data.clone()));
                return String::new();
            }
            if !matches!(slot, Some(Block::Reasoning { .. })) {
                *slot = Some(Block::Reasoning {
                    text: String::new(),
                    signature: String::new(),
                });
            }
            if let Some(Block::Reasoning { text, signature }) = slot {
                if let Some(t) = r.get("text").and_then(Value::as_str) {
                    text.push_str(t);
                }
                if let Some(s) = r.get("signature").and_then(Value::as_str) {
                    signature.push_str(s);
                }
            }
        }
        String::new()
    }
}

impl Block {
    /// The block as Converse replays it, or `None` for one it would refuse:
    /// blank text, reasoning cut before its signature. Tool input that is
    /// not a JSON object is replayed as `{}`; its text goes to `unparsed`
    /// for the call, which then fails as invalid arguments.
    fn into_value(self, unparsed: &mut Vec<(String, String)>) -> Option<Value> {
        Some(match self {
            Block::Text(t) if t.trim().is_empty() => return None,
            Block::Text(t) => json!({"text": t}),
            Block::Tool { id, name, input } => {
                let input = match serde_json::from_str::<Value>(&input) {
                    Ok(v @ Value::Object(_)) => v,
                    _ if input.trim().is_empty() => json!({}),
                    _ => {
                        unparsed.push((id.clone(), input));
                        json!({})
                    }
                };
                json!({"toolUse": {"toolUseId": id, "name": name, "input": input}})
            }
            Block::Reasoning { signature, .. } if signature.is_empty() => return None,
            Block::Reasoning { text, signature } => {
                json!({"reasoningContent": {"reasoningText": {"text": text, "signature": signature}}})
            }
            Block::Redacted(data) => json!({"reasoningContent": {"redactedContent": data}}),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reasoning_text_and_tool_turn_folds_into_its_blocks() {
        let mut f = ConverseFold::default();
        let mut shown = String::new();
        let events = [
            ("messageStart", r#"{"role":"assistant","p":"abc"}"#),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Let me "}},"p":"x"}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"think."}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"EqQBsig=="}}}"#,
            ),
            ("contentBlockStop", r#"{"contentBlockIndex":0}"#),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":1,"delta":{"text":"Rea"}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":1,"delta":{"text":"ding."}}"#,
            ),
            ("contentBlockStop", r#"{"contentBlockIndex":1}"#),
            (
                "contentBlockStart",
                r#"{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","name":"tool_call"}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"calls\""}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":2,"delta":{"toolUse":{"input":":[]}"}}}"#,
            ),
            ("contentBlockStop", r#"{"contentBlockIndex":2}"#),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":3,"delta":{"reasoningContent":{"redactedContent":"b3BhcXVl"}}}"#,
            ),
            ("messageStop", r#"{"stopReason":"tool_use"}"#),
        ];
        for (e, d) in events {
            if let Step::Text(t) = f.push(e, d).unwrap() {
                shown.push_str(&t);
            }
        }
        assert!(f.complete());
        assert_eq!(
            f.push("metadata", r#"{"usage":{"inputTokens":10,"outputTokens":5,"totalTokens":15,"cacheReadInputTokens":3,"cacheWriteInputTokens":0},"metrics":{"latencyMs":1}}"#)
                .unwrap(),
            Step::End
        );
        let c = Box::new(f).finish();
        assert_eq!(shown, "Reading.");
        assert_eq!(c.content, "Reading.");
        let n = c.native.unwrap();
        assert_eq!(
            n.blocks[0].to_string(),
            r#"{"reasoningContent":{"reasoningText":{"signature":"EqQBsig==","text":"Let me think."}}}"#
        );
        assert_eq!(c.tool_calls[0].id, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q");
        assert_eq!(c.tool_calls[0].arguments, r#"{"calls":[]}"#);
        assert_eq!(
            n.blocks[3]["reasoningContent"]["redactedContent"],
            "b3BhcXVl"
        );
        assert_eq!(c.usage.unwrap().prompt_tokens, 13);
    }

    #[test]
    fn blocks_bedrock_would_refuse_are_left_out_and_cut_input_is_kept_for_the_call() {
        let mut f = ConverseFold::default();
        for (e, d) in [
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":0,"delta":{"text":"  \n"}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":1,"delta":{"reasoningContent":{"text":"no sig"}}}"#,
            ),
            (
                "contentBlockStart",
                r#"{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_X","name":"write"}}}"#,
            ),
            (
                "contentBlockDelta",
                r#"{"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"pa"}}}"#,
            ),
            ("messageStop", r#"{"stopReason":"max_tokens"}"#),
        ] {
            f.push(e, d).unwrap();
        }
        assert!(f
            .push(
                "contentBlockDelta",
                r#"{"contentBlockIndex":99999999999,"delta":{"text":"x"}}"#
            )
            .is_err());
        let c = Box::new(f).finish();
        let n = c.native.unwrap();
        assert_eq!(n.blocks.len(), 1, "{:?}", n.blocks);
        assert_eq!(
            c.unparsed_inputs,
            [("tooluse_X".to_string(), r#"{"pa"#.to_string())]
        );
        assert_eq!(c.finish, Finish::Length);
    }

    #[test]
    fn exceptions_say_whether_they_are_worth_a_retry() {
        let mut f = ConverseFold::default();
        let e = f
            .push("!throttlingException", r#"{"message":"Too many requests"}"#)
            .unwrap_err();
        assert!(
            matches!(&e, FoldError::Remote { status: Some(429), message } if message.contains("Too many requests"))
        );
        let e = f
            .push("!validationException", r#"{"message":"bad"}"#)
            .unwrap_err();
        assert!(matches!(e, FoldError::Remote { status: None, .. }));
    }
}
