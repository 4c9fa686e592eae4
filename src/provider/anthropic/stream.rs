//! Messages stream events folded into one block list. Each block starts
//! whole (`content_block_start`) and grows by deltas: text, thinking and its
//! signature, tool input as partial JSON parsed once the message is whole. Blocks
//! of kinds hermes does not know are kept as they started, so a replay
//! still carries them.

use serde::Deserialize;
use serde_json::Value;

use super::super::fold::{Fold, FoldError, Step};
use super::super::{Completion, Finish, Usage};
use crate::model::{BlockApi, NativeBlocks};

/// How far past the blocks so far a new block's index may jump; blocks come
/// numbered 0, 1, 2 …, and a wild index must not size a vector.
const MAX_INDEX_GAP: usize = 16;

#[derive(Default)]
pub(super) struct MessageFold {
    blocks: Vec<Option<Block>>,
    usage: Usage,
    saw_usage: bool,
    stop_reason: Option<String>,
    stopped: bool,
}

struct Block {
    value: Value,
    /// A tool use's input as it streams in, parsed at the block's end.
    partial_json: String,
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    index: usize,
    #[serde(default)]
    content_block: Option<Value>,
    #[serde(default)]
    delta: Option<Value>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

impl Fold for MessageFold {
    fn push(&mut self, event: &str, data: &str) -> Result<Step, FoldError> {
        let ev: Event =
            serde_json::from_str(data).map_err(|_| FoldError::NotJson(data.to_string()))?;
        let kind = if ev.kind.is_empty() { event } else { &ev.kind };
        match kind {
            "message_start" => {
                if let Some(u) = ev
                    .message
                    .as_ref()
                    .and_then(|m| m.get("usage"))
                    .filter(|u| u.is_object())
                {
                    self.add_usage(u);
                }
            }
            "content_block_start" => {
                let value = ev.content_block.unwrap_or(Value::Null);
                if ev.index > self.blocks.len() + MAX_INDEX_GAP {
                    return Err(FoldError::Remote {
                        message: format!("a malformed stream: content block {} started", ev.index),
                        status: None,
                    });
                }
                if self.blocks.len() <= ev.index {
                    self.blocks.resize_with(ev.index + 1, || None);
                }
                self.blocks[ev.index] = Some(Block {
                    value,
                    partial_json: String::new(),
                });
            }
            "content_block_delta" => {
                let delta = ev.delta.unwrap_or(Value::Null);
                let text = self.apply(ev.index, &delta);
                if delta.get("type").and_then(Value::as_str) == Some("thinking_delta") {
                    let t = delta.get("thinking").and_then(Value::as_str).unwrap_or("");
                    return Ok(Step::Thinking(t.to_string()));
                }
                return Ok(Step::Text(text));
            }
            "message_delta" => {
                if let Some(r) = ev
                    .delta
                    .as_ref()
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.stop_reason = Some(r.to_string());
                }
                if let Some(u) = &ev.usage {
                    self.add_usage(u);
                }
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(Step::End);
            }
            "error" => {
                let e = ev.error.unwrap_or(Value::Null);
                let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                let kind = text("type");
                let status = match kind.as_str() {
                    "overloaded_error" => Some(529),
                    "rate_limit_error" => Some(429),
                    "api_error" => Some(500),
                    _ => None,
                };
                return Err(FoldError::Remote {
                    message: format!("{kind}: {}", text("message")),
                    status,
                });
            }
            // content_block_stop, ping, and events of later API versions.
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
            .filter_map(|mut b| {
                if let Some(raw) = b.close() {
                    let id = b.value.get("id").and_then(Value::as_str).unwrap_or("");
                    unparsed.push((id.to_string(), raw));
                }
                keep(&b.value).then_some(b.value)
            })
            .collect();
        let native = NativeBlocks {
            api: BlockApi::Anthropic,
            blocks,
        };
        let finish = match self.stop_reason.as_deref() {
            Some("max_tokens" | "model_context_window_exceeded") => Finish::Length,
            Some("pause_turn") => Finish::Pause,
            Some("refusal") => Finish::Refusal,
            _ => Finish::Done,
        };
        Completion::from_native(
            native,
            self.saw_usage.then_some(self.usage),
            finish,
            unparsed,
        )
    }
}

/// A whole Message answering a streaming request (LiteLLM's `/v1/messages`
/// does this): folded as the events a stream of it would have sent. `None`
/// when the body is not a Message.
pub(super) fn whole(body: &str) -> Option<Result<Completion, FoldError>> {
    let m: Value = serde_json::from_str(body).ok()?;
    if m.get("type").and_then(Value::as_str) != Some("message") {
        return None;
    }
    let mut fold = MessageFold::default();
    let start = serde_json::json!({"type": "message_start", "message": {"usage": m.get("usage")}});
    let mut events = vec![start];
    for (index, block) in m["content"].as_array()?.iter().enumerate() {
        events.push(serde_json::json!({"type": "content_block_start", "index": index, "content_block": block}));
    }
    events.push(serde_json::json!({"type": "message_delta", "delta": {"stop_reason": m.get("stop_reason")}}));
    events.push(serde_json::json!({"type": "message_stop"}));
    for e in events {
        if let Err(e) = fold.push("", &e.to_string()) {
            return Some(Err(e));
        }
    }
    Some(Ok(Box::new(fold).finish()))
}

impl MessageFold {
    /// Applies one delta to block `index`; returns the text it added.
    fn apply(&mut self, index: usize, delta: &Value) -> String {
        let Some(Some(b)) = self.blocks.get_mut(index) else {
            return String::new();
        };
        let s = |k: &str| delta.get(k).and_then(Value::as_str).unwrap_or("");
        match s("type") {
            "text_delta" => {
                append(&mut b.value, "text", s("text"));
                return s("text").to_string();
            }
            "thinking_delta" => append(&mut b.value, "thinking", s("thinking")),
            "signature_delta" => append(&mut b.value, "signature", s("signature")),
            "input_json_delta" => b.partial_json.push_str(s("partial_json")),
            "citations_delta" => {
                if let (Some(c), Value::Object(o)) = (delta.get("citation"), &mut b.value) {
                    let list = o
                        .entry("citations")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(a) = list {
                        a.push(c.clone());
                    }
                }
            }
            _ => {}
        }
        String::new()
    }

    /// Counts from `message_start` (input, cache) and `message_delta`
    /// (output so far: the last one is the total).
    fn add_usage(&mut self, u: &Value) {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        self.saw_usage = true;
        if let Some(i) = n("input_tokens") {
            let read = n("cache_read_input_tokens").unwrap_or(0);
            let write = n("cache_creation_input_tokens").unwrap_or(0);
            self.usage.cache_read_tokens = read;
            self.usage.cache_write_tokens = write;
            self.usage.prompt_tokens = i + read + write;
        }
        if let Some(o) = n("output_tokens") {
            self.usage.completion_tokens = o;
        }
        self.usage.total_tokens = self.usage.prompt_tokens + self.usage.completion_tokens;
    }
}

/// Whether a finished block is worth replaying: the API refuses text blocks
/// without non-blank text, and a thinking block cut before its signature
/// arrived cannot be verified.
fn keep(block: &Value) -> bool {
    let s = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or("");
    match s("type") {
        "text" => !s("text").trim().is_empty(),
        "thinking" => !s("signature").is_empty(),
        _ => !block.is_null(),
    }
}

impl Block {
    /// A tool use's streamed input becomes its `input`. Input that is not a
    /// JSON object becomes `{}`, and its text is returned for the call.
    fn close(&mut self) -> Option<String> {
        let kind = self.value.get("type").and_then(Value::as_str);
        // A server tool's use (Anthropic's web search) streams its input
        // the same way; it is the provider's call, never hermes'.
        if kind == Some("server_tool_use") {
            let json = std::mem::take(&mut self.partial_json);
            if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(&json) {
                self.value["input"] = v;
            }
            return None;
        }
        if kind != Some("tool_use") {
            return None;
        }
        let json = std::mem::take(&mut self.partial_json);
        if json.trim().is_empty() {
            return None;
        }
        let (input, unparsed) = match serde_json::from_str::<Value>(&json) {
            Ok(v @ Value::Object(_)) => (v, None),
            _ => (Value::Object(Default::default()), Some(json)),
        };
        self.value["input"] = input;
        unparsed
    }
}

fn append(block: &mut Value, key: &str, more: &str) {
    if let Value::Object(o) = block {
        match o.get_mut(key) {
            Some(Value::String(s)) => s.push_str(more),
            _ => {
                o.insert(key.into(), Value::String(more.to_string()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(events: &[&str]) -> (MessageFold, String) {
        let (f, text, _) = fold_thinking(events);
        (f, text)
    }

    /// The fold, the text shown, and the thinking streamed.
    fn fold_thinking(events: &[&str]) -> (MessageFold, String, String) {
        let mut f = MessageFold::default();
        let (mut text, mut thinking) = (String::new(), String::new());
        for e in events {
            match f.push("", e).unwrap() {
                Step::Text(t) => text.push_str(&t),
                Step::Thinking(t) => thinking.push_str(&t),
                Step::End => {}
            }
        }
        (f, text, thinking)
    }

    #[test]
    fn a_thinking_text_and_tool_turn_folds_into_its_blocks() {
        let (f, shown, thought) = fold_thinking(&[
            r#"{"type":"message_start","message":{"id":"msg_01","usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me "}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"think."}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAh=="}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading."}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01A","name":"tool_call","input":{}}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"calls\":"}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"[]}"}}"#,
            r#"{"type":"content_block_stop","index":2}"#,
            r#"{"type":"content_block_start","index":3,"content_block":{"type":"redacted_thinking","data":"opaque"}}"#,
            r#"{"type":"content_block_stop","index":3}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}"#,
        ]);
        assert_eq!(shown, "Reading.");
        assert_eq!(thought, "Let me think.", "streamed for a front end to show");
        assert!(!f.complete(), "no message_stop yet: a cut stream");
        let mut f = f;
        assert_eq!(f.push("", r#"{"type":"message_stop"}"#).unwrap(), Step::End);
        assert!(f.complete());
        let c = Box::new(f).finish();
        let n = c.native.unwrap();
        assert_eq!(n.blocks.len(), 4);
        assert_eq!(
            n.blocks[0].to_string(),
            r#"{"signature":"EqQBCgIYAh==","thinking":"Let me think.","type":"thinking"}"#
        );
        assert_eq!(n.blocks[2]["input"], serde_json::json!({"calls": []}));
        assert_eq!(n.blocks[3]["data"], "opaque");
        assert_eq!(c.content, "Reading.");
        assert_eq!(c.tool_calls[0].arguments, r#"{"calls":[]}"#);
        let u = c.usage.unwrap();
        assert_eq!(
            (
                u.prompt_tokens,
                u.cache_read_tokens,
                u.cache_write_tokens,
                u.completion_tokens
            ),
            (115, 100, 5, 42)
        );
        assert_eq!(c.finish, Finish::Done);
    }

    #[test]
    fn blocks_the_api_would_refuse_are_left_out_and_cut_input_is_kept_for_the_call() {
        let (f, _) = fold(&[
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" \n"}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"cut before its sig"}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01X","name":"write","input":{}}}"#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"/tm"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}"#,
        ]);
        let c = Box::new(f).finish();
        let n = c.native.unwrap();
        assert_eq!(n.blocks.len(), 1, "{:?}", n.blocks);
        assert_eq!(n.blocks[0]["input"], serde_json::json!({}));
        assert_eq!(
            c.unparsed_inputs,
            [("toolu_01X".to_string(), r#"{"path":"/tm"#.to_string())]
        );
        assert_eq!(c.finish, Finish::Length);
    }

    #[test]
    fn a_wild_block_index_is_an_error_not_an_allocation() {
        let mut f = MessageFold::default();
        for index in ["18446744073709551615", "1000000000000", "17"] {
            let e = f.push(
                "",
                &format!(r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"text","text":""}}}}"#),
            );
            assert!(
                matches!(
                    e,
                    Err(FoldError::Remote { .. }) | Err(FoldError::NotJson(_))
                ),
                "{index}"
            );
        }
        assert!(f.push("", r#"{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}"#).is_ok());
    }

    #[test]
    fn stream_errors_say_whether_they_are_worth_a_retry() {
        let mut f = MessageFold::default();
        let overloaded = f
            .push(
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            )
            .unwrap_err();
        assert!(matches!(
            overloaded,
            FoldError::Remote {
                status: Some(529),
                ..
            }
        ));
        let bad = f
            .push(
                "error",
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"no"}}"#,
            )
            .unwrap_err();
        assert!(matches!(bad, FoldError::Remote { status: None, .. }));
        assert!(matches!(f.push("", "not json"), Err(FoldError::NotJson(_))));
    }

    #[test]
    fn stop_reasons_map_to_one_vocabulary() {
        for (reason, want) in [
            ("max_tokens", Finish::Length),
            ("pause_turn", Finish::Pause),
            ("refusal", Finish::Refusal),
            ("end_turn", Finish::Done),
        ] {
            let (f, _) = fold(&[&format!(
                r#"{{"type":"message_delta","delta":{{"stop_reason":"{reason}"}},"usage":{{"output_tokens":1}}}}"#
            )]);
            assert_eq!(Box::new(f).finish().finish, want, "{reason}");
        }
    }
}
