//! `streamGenerateContent` events folded into one model content. Each
//! `data:` is a whole `GenerateContentResponse`: the new parts of the one
//! candidate, its `finishReason` at the end, `usageMetadata` so far. There
//! is no end marker; the finish reason says the stream is complete.
//!
//! Parts are kept as they came, signatures where they came: consecutive
//! text parts are joined (a text answer streams as many), and a signature
//! that comes on a later text part — the empty part Gemini 3 ends a text
//! answer with — moves with its text onto the joined part, as the API
//! would have sent it unstreamed. A part that already carries a signature
//! is never joined into, so two signatures never meet.

use serde_json::Value;

use super::super::fold::{Fold, FoldError, Step};
use super::super::{Completion, Finish, Usage};
use crate::model::{BlockApi, NativeBlocks};

#[derive(Default)]
pub(super) struct GeminiFold {
    parts: Vec<Value>,
    finish: Option<String>,
    /// `promptFeedback.blockReason`: the prompt was refused whole.
    blocked: Option<String>,
    usage: Option<Usage>,
}

impl Fold for GeminiFold {
    fn push(&mut self, _event: &str, data: &str) -> Result<Step, FoldError> {
        let v: Value =
            serde_json::from_str(data).map_err(|_| FoldError::NotJson(data.to_string()))?;
        // Some Google front ends wrap each response in an array.
        let responses = match v {
            Value::Array(all) => all,
            one => vec![one],
        };
        let (mut text, mut thought) = (String::new(), String::new());
        for r in responses {
            let (t, th) = self.response(&r)?;
            text.push_str(&t);
            thought.push_str(&th);
        }
        // Gemini streams its thought summaries in chunks of their own; a
        // chunk with answer text too shows the answer (the summary stays
        // in the native parts).
        if text.is_empty() && !thought.is_empty() {
            return Ok(Step::Thinking(thought));
        }
        Ok(Step::Text(text))
    }

    fn complete(&self) -> bool {
        self.finish.is_some() || self.blocked.is_some()
    }

    fn finish(self: Box<Self>) -> Completion {
        let finish = match (self.blocked.as_deref(), self.finish.as_deref()) {
            (Some(_), _) => Finish::Refusal,
            (_, Some("MAX_TOKENS")) => Finish::Length,
            (
                _,
                Some(
                    "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
                    | "IMAGE_SAFETY" | "LANGUAGE",
                ),
            ) => Finish::Refusal,
            _ => Finish::Done,
        };
        let native = NativeBlocks {
            api: BlockApi::Gemini,
            blocks: self.parts,
        };
        Completion::from_native(native, self.usage, finish, Vec::new())
    }
}

impl GeminiFold {
    /// One response of the stream; the answer text it adds, and the
    /// thought summary.
    fn response(&mut self, r: &Value) -> Result<(String, String), FoldError> {
        if let Some(e) = r.get("error").filter(|e| e.is_object()) {
            let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
            return Err(FoldError::Remote {
                message: format!("{}: {}", text("status"), text("message")),
                status: e
                    .get("code")
                    .and_then(Value::as_u64)
                    .and_then(|c| u16::try_from(c).ok()),
            });
        }
        if let Some(reason) = r
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            self.blocked = Some(reason.to_string());
        }
        if let Some(u) = r.get("usageMetadata").filter(|u| u.is_object()) {
            let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
            let prompt = n("promptTokenCount");
            let output = n("candidatesTokenCount") + n("thoughtsTokenCount");
            self.usage = Some(Usage {
                prompt_tokens: prompt,
                completion_tokens: output,
                total_tokens: n("totalTokenCount").max(prompt + output),
                cache_read_tokens: n("cachedContentTokenCount"),
                cache_write_tokens: 0,
            });
        }
        let Some(candidate) = r.pointer("/candidates/0") else {
            return Ok((String::new(), String::new()));
        };
        if let Some(f) = candidate.get("finishReason").and_then(Value::as_str) {
            self.finish = Some(f.to_string());
        }
        let (mut shown, mut thought) = (String::new(), String::new());
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            if let Some(t) = answer_text(part) {
                shown.push_str(t);
            } else if part.get("thought") == Some(&Value::Bool(true)) {
                thought.push_str(part.get("text").and_then(Value::as_str).unwrap_or(""));
            }
            self.add(part.clone());
        }
        Ok((shown, thought))
    }

    /// A part, joined to the text part before it where both are plain
    /// answer text and the earlier one carries no signature.
    fn add(&mut self, part: Value) {
        let joinable = |p: &Value| {
            answer_text(p).is_some()
                && p.as_object()
                    .is_some_and(|o| o.keys().all(|k| k == "text" || k == "thoughtSignature"))
        };
        let last = self.parts.last_mut();
        match last {
            Some(prev)
                if joinable(prev) && prev.get("thoughtSignature").is_none() && joinable(&part) =>
            {
                let more = answer_text(&part).unwrap_or("");
                let joined = format!("{}{more}", answer_text(prev).unwrap_or(""));
                prev["text"] = Value::String(joined);
                if let Some(sig) = part.get("thoughtSignature") {
                    prev["thoughtSignature"] = sig.clone();
                }
            }
            _ => self.parts.push(part),
        }
    }
}

/// The answer text a part holds (not a thought summary).
fn answer_text(part: &Value) -> Option<&str> {
    if part.get("thought") == Some(&Value::Bool(true)) {
        return None;
    }
    part.get("text").and_then(Value::as_str)
}

/// A reply that came whole (a server that does not stream): one
/// `GenerateContentResponse`, or an array of them.
pub(super) fn whole(body: &str) -> Result<Completion, FoldError> {
    let mut fold = GeminiFold::default();
    fold.push("", body)?;
    if !fold.complete() {
        return Err(FoldError::NotJson(body.to_string()));
    }
    Ok(Box::new(fold).finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(events: &[&str]) -> Completion {
        let mut f = GeminiFold::default();
        for e in events {
            f.push("", e).unwrap();
        }
        assert!(f.complete());
        Box::new(f).finish()
    }

    /// Gemini 3 streams a text answer as text parts and ends it with an
    /// empty part that carries the signature.
    #[test]
    fn text_parts_are_joined_and_the_closing_signature_moves_onto_them() {
        let c = fold(&[
            r#"{"candidates":[{"content":{"parts":[{"text":"Merha"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"totalTokenCount":11},"modelVersion":"gemini-3-flash"}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"ba!"}],"role":"model"},"index":0}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"Eu4FCusFARFNMg"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2,"totalTokenCount":162,"thoughtsTokenCount":150}}"#,
        ]);
        assert_eq!(c.content, "Merhaba!");
        let n = c.native.unwrap();
        assert_eq!(
            n.blocks,
            vec![serde_json::json!({"text": "Merhaba!", "thoughtSignature": "Eu4FCusFARFNMg"})]
        );
        let u = c.usage.unwrap();
        assert_eq!(
            (u.prompt_tokens, u.completion_tokens, u.total_tokens),
            (10, 152, 162)
        );
        assert_eq!(c.finish, Finish::Done);
    }

    /// With `includeThoughts`, the thought summary streams in chunks of its
    /// own before the answer: shown as thinking, kept as its parts.
    #[test]
    fn a_thought_summary_streams_as_thinking_and_stays_in_the_parts() {
        let mut f = GeminiFold::default();
        let steps: Vec<Step> = [
            r#"{"candidates":[{"content":{"parts":[{"text":"**Weighing the options**\nA haiku needs","thought":true}],"role":"model"},"index":0}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"Autumn moonlight"}],"role":"model"},"finishReason":"STOP","index":0}]}"#,
        ]
        .iter()
        .map(|e| f.push("", e).unwrap())
        .collect();
        assert_eq!(
            steps,
            [
                Step::Thinking("**Weighing the options**\nA haiku needs".into()),
                Step::Text("Autumn moonlight".into())
            ]
        );
        let c = Box::new(f).finish();
        assert_eq!(c.content, "Autumn moonlight");
        assert_eq!(
            c.native.unwrap().blocks.len(),
            2,
            "the thought kept for replay"
        );
    }

    /// Parallel calls come each in its own event; only the first is signed.
    #[test]
    fn calls_keep_their_parts_and_signatures_and_text_never_joins_a_signed_part() {
        let c = fold(&[
            r#"{"candidates":[{"content":{"parts":[{"text":"Checking.","thoughtSignature":"c2lnMQ=="}],"role":"model"}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":" More."}],"role":"model"}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get","args":{"city":"Paris"},"id":"c1"},"thoughtSignature":"c2lnMg=="}],"role":"model"}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get","args":{"city":"London"},"id":"c2"}}],"role":"model"},"finishReason":"STOP","finishMessage":"Model generated function call(s)."}]}"#,
        ]);
        let n = c.native.unwrap();
        assert_eq!(n.blocks.len(), 4);
        assert_eq!(n.blocks[0]["thoughtSignature"], "c2lnMQ==");
        assert_eq!(n.blocks[1]["text"], " More.");
        assert_eq!(n.blocks[2]["thoughtSignature"], "c2lnMg==");
        let calls = n.tool_calls();
        assert_eq!(calls[0].id, "c1");
        assert_eq!(calls[1].arguments, r#"{"city":"London"}"#);
        assert_eq!(n.own_blocks(), 2);
    }

    #[test]
    fn errors_blocks_and_limits_are_told_apart() {
        let mut f = GeminiFold::default();
        let e = f
            .push("", r#"{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}"#)
            .unwrap_err();
        assert!(
            matches!(e, FoldError::Remote { status: Some(503), ref message } if message.contains("overloaded")),
            "{e:?}"
        );
        let blocked = fold(&[
            r#"{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":4,"totalTokenCount":4}}"#,
        ]);
        assert_eq!(blocked.finish, Finish::Refusal);
        let cut = fold(&[
            r#"[{"candidates":[{"content":{"parts":[{"text":"long","thoughtSignature":"c2ln"}],"role":"model"},"finishReason":"MAX_TOKENS"}]}]"#,
        ]);
        assert_eq!(cut.finish, Finish::Length);
        assert!(matches!(
            GeminiFold::default().push("", "data"),
            Err(FoldError::NotJson(_))
        ));
    }
}
