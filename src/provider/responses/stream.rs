//! Responses stream events folded into one response's output items. Text
//! is shown as `response.output_text.delta` comes; each item is taken
//! whole from `response.output_item.done` (a reasoning item's encrypted
//! content is complete only there), at its `output_index`; the response
//! ends with `response.completed`, `response.incomplete` or
//! `response.failed`.
//!
//! Items are kept for a stateless replay: without the `id` and `status`
//! the server keeps for stored responses (a reasoning id sent with `store:
//! false` is looked up and not found), and a message as its text — what
//! the API takes back as input. Reasoning items are kept otherwise whole.

use serde_json::{json, Value};

use super::super::fold::{Fold, FoldError, Step};
use super::super::{Completion, Finish, Usage};
use crate::model::{BlockApi, NativeBlocks};

/// How far past the items so far a new item's index may jump: a wild
/// index must not size a vector.
const MAX_INDEX_GAP: usize = 16;

#[derive(Default)]
pub(super) struct ResponsesFold {
    items: Vec<Option<Value>>,
    usage: Option<Usage>,
    finish: Option<Finish>,
}

impl Fold for ResponsesFold {
    fn push(&mut self, event: &str, data: &str) -> Result<Step, FoldError> {
        let v: Value =
            serde_json::from_str(data).map_err(|_| FoldError::NotJson(data.to_string()))?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(event);
        match kind {
            "response.output_text.delta" => {
                let delta = v.get("delta").and_then(Value::as_str).unwrap_or("");
                return Ok(Step::Text(delta.to_string()));
            }
            "response.reasoning_summary_text.delta" => {
                let delta = v.get("delta").and_then(Value::as_str).unwrap_or("");
                return Ok(Step::Thinking(delta.to_string()));
            }
            "response.output_item.done" => {
                let index = v.get("output_index").and_then(Value::as_u64).unwrap_or(0) as usize;
                if index > self.items.len() + MAX_INDEX_GAP {
                    return Err(FoldError::Remote {
                        message: format!("a malformed stream: output item {index} came"),
                        status: None,
                    });
                }
                if let Some(item) = v.get("item").filter(|i| i.is_object()) {
                    if self.items.len() <= index {
                        self.items.resize_with(index + 1, || None);
                    }
                    self.items[index] = Some(replayable(item));
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = v.get("response").unwrap_or(&Value::Null);
                self.usage = usage(response.get("usage").unwrap_or(&Value::Null));
                let reason = response
                    .pointer("/incomplete_details/reason")
                    .and_then(Value::as_str);
                self.finish = Some(match (kind, reason) {
                    ("response.completed", _) => Finish::Done,
                    (_, Some("content_filter")) => Finish::Refusal,
                    _ => Finish::Length,
                });
                return Ok(Step::End);
            }
            "response.failed" => {
                let e = v.pointer("/response/error").unwrap_or(&Value::Null);
                return Err(remote(e));
            }
            // The documented shape is flat; some servers nest it.
            "error" => return Err(remote(v.get("error").unwrap_or(&v))),
            _ => {}
        }
        Ok(Step::Text(String::new()))
    }

    fn complete(&self) -> bool {
        self.finish.is_some()
    }

    fn finish(self: Box<Self>) -> Completion {
        let ResponsesFold {
            items,
            usage,
            finish,
        } = *self;
        let blocks: Vec<Value> = items.into_iter().flatten().collect();
        let refused = blocks.iter().any(|b| {
            b.get("content")
                .and_then(Value::as_array)
                .is_some_and(|c| c.iter().any(|p| p["type"] == "refusal"))
        });
        let finish = match finish {
            Some(Finish::Done) if refused => Finish::Refusal,
            f => f.unwrap_or_default(),
        };
        let native = NativeBlocks {
            api: BlockApi::Responses,
            blocks,
        };
        Completion::from_native(native, usage, finish, Vec::new())
    }
}

/// An output item as a stateless request takes it back. A search's
/// `web_search_call` keeps its `status` (the API wants one back; its id,
/// never stored, goes as the others' do).
fn replayable(item: &Value) -> Value {
    let mut item = item.clone();
    if let Value::Object(o) = &mut item {
        o.remove("id");
        if o.get("type").and_then(Value::as_str) != Some("web_search_call") {
            o.remove("status");
        }
        if o.get("type").and_then(Value::as_str) == Some("message") {
            let parts: Vec<Value> = o
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|p| match p.get("type").and_then(Value::as_str) {
                    Some("output_text") => json!({"type": "output_text", "text": p["text"]}),
                    Some("refusal") => json!({"type": "refusal", "refusal": p["refusal"]}),
                    _ => p.clone(),
                })
                .collect();
            o.insert("content".into(), Value::Array(parts));
        }
    }
    item
}

fn usage(u: &Value) -> Option<Usage> {
    if !u.is_object() {
        return None;
    }
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        prompt_tokens: n("/input_tokens"),
        completion_tokens: n("/output_tokens"),
        total_tokens: n("/total_tokens"),
        cache_read_tokens: n("/input_tokens_details/cached_tokens"),
        cache_write_tokens: 0,
    })
}

/// An error the stream reported, with the HTTP status the same error has
/// as a response: a rate limit may be retried, a context overflow
/// compacted; a spent quota is neither.
fn remote(e: &Value) -> FoldError {
    let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
    let code = text("code");
    let status = match code {
        "rate_limit_exceeded" => Some(429),
        "server_error" | "server_is_overloaded" => Some(500),
        "context_length_exceeded" | "invalid_prompt" => Some(400),
        _ => None,
    };
    FoldError::Remote {
        message: format!("{code}: {}", text("message")),
        status,
    }
}

/// A response that came whole (`stream` ignored): its `output` items.
pub(super) fn whole(body: &str) -> Result<Completion, FoldError> {
    let v: Value = serde_json::from_str(body).map_err(|_| FoldError::NotJson(body.to_string()))?;
    let output = v
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| FoldError::NotJson(body.to_string()))?;
    let mut fold = ResponsesFold::default();
    for (i, item) in output.iter().enumerate() {
        let done = json!({"type": "response.output_item.done", "output_index": i, "item": item});
        fold.push("", &done.to_string())?;
    }
    let end = match v.get("status").and_then(Value::as_str) {
        Some("incomplete") => "response.incomplete",
        _ => "response.completed",
    };
    fold.push("", &json!({"type": end, "response": v}).to_string())?;
    Ok(Box::new(fold).finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reasoning model's turn as it streams (gpt-5, `store: false`):
    /// the reasoning item's encrypted content is whole only at its
    /// `output_item.done`.
    #[test]
    fn items_are_taken_whole_from_done_without_their_ids() {
        let events = [
            r#"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[],"usage":null}}"#,
            r#"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_68d7","type":"reasoning","encrypted_content":"gAAAA-partial","summary":[]}}"#,
            r#"{"type":"response.output_item.done","sequence_number":2,"output_index":0,"item":{"id":"rs_68d7","type":"reasoning","encrypted_content":"gAAAA-whole==","summary":[]}}"#,
            r#"{"type":"response.output_item.added","sequence_number":3,"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}"#,
            r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"On it","logprobs":[]}"#,
            r#"{"type":"response.output_item.done","sequence_number":5,"output_index":1,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"On it"}]}}"#,
            r#"{"type":"response.output_item.done","sequence_number":6,"output_index":2,"item":{"id":"fc_684d","type":"function_call","status":"completed","arguments":"{\"city\": \"Detroit\"}","call_id":"call_Kfzsl8lPJayEwvd0rkI7731q","name":"weather"}}"#,
            r#"{"type":"response.completed","sequence_number":7,"response":{"id":"resp_1","status":"completed","usage":{"input_tokens":78,"input_tokens_details":{"cached_tokens":64},"output_tokens":719,"output_tokens_details":{"reasoning_tokens":704},"total_tokens":797}}}"#,
        ];
        let mut f = ResponsesFold::default();
        let mut shown = String::new();
        for e in events {
            match f.push("", e).unwrap() {
                Step::Text(t) => shown.push_str(&t),
                Step::Thinking(_) => {}
                Step::End => break,
            }
        }
        assert!(f.complete());
        let c = Box::new(f).finish();
        assert_eq!(shown, "On it");
        assert_eq!(c.content, "On it");
        let n = c.native.unwrap();
        assert_eq!(
            n.blocks[0],
            json!({"type":"reasoning","encrypted_content":"gAAAA-whole==","summary":[]})
        );
        assert_eq!(
            n.blocks[1],
            json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":"On it"}]})
        );
        assert_eq!(c.tool_calls[0].id, "call_Kfzsl8lPJayEwvd0rkI7731q");
        assert_eq!(
            c.tool_calls[0].arguments, "{\"city\": \"Detroit\"}",
            "the model's own bytes"
        );
        let u = c.usage.unwrap();
        assert_eq!(
            (u.prompt_tokens, u.cache_read_tokens, u.completion_tokens),
            (78, 64, 719)
        );
    }

    #[test]
    fn failures_carry_the_status_their_code_means() {
        let failed = |code: &str| {
            ResponsesFold::default()
                .push(
                    "",
                    &json!({"type":"response.failed","response":{"status":"failed",
                    "error":{"code": code, "message": "Please try again in 11.054s."}}})
                    .to_string(),
                )
                .unwrap_err()
        };
        assert!(matches!(
            failed("rate_limit_exceeded"),
            FoldError::Remote {
                status: Some(429),
                ..
            }
        ));
        assert!(matches!(
            failed("context_length_exceeded"),
            FoldError::Remote {
                status: Some(400),
                ..
            }
        ));
        assert!(matches!(
            failed("insufficient_quota"),
            FoldError::Remote { status: None, .. }
        ));
        let mut f = ResponsesFold::default();
        f.push("", r#"{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3}}}"#).unwrap();
        assert_eq!(Box::new(f).finish().finish, Finish::Length);
        let big = ResponsesFold::default().push(
            "",
            r#"{"type":"response.output_item.done","output_index":999999999,"item":{}}"#,
        );
        assert!(big.is_err(), "a wild index sizes nothing");
    }
}
