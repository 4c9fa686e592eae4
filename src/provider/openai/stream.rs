//! Assembling Chat Completions stream chunks into one message. Tool calls arrive
//! as fragments keyed by `index` (the id and name once, the arguments in pieces);
//! some servers omit the index or send each call whole, and all of those shapes
//! must come out as the same complete calls.

use serde::Deserialize;

use super::super::fold::{Fold, FoldError, Step};
use super::super::http::error_message;
use super::super::{Completion, Finish, Usage};
use crate::model::ToolCall;

#[derive(Debug, Deserialize)]
pub(crate) struct Chunk {
    #[serde(default)]
    pub choices: Vec<Choice>,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub error: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Choice {
    #[serde(default)]
    pub delta: Option<Delta>,
    /// Present instead of `delta` in a non-streamed reply.
    #[serde(default)]
    pub message: Option<Delta>,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

#[derive(Debug, Deserialize, Default)]
pub(crate) struct Delta {
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub tool_calls: Option<Vec<CallDelta>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct CallDelta {
    #[serde(default)]
    pub index: Option<usize>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct FunctionDelta {
    #[serde(default)]
    pub name: Option<String>,
    /// A string in the spec; some servers send an object, which is kept as JSON text.
    #[serde(default)]
    pub arguments: Option<serde_json::Value>,
}

#[derive(Debug, Default)]
pub(crate) struct Assembler {
    content: String,
    calls: Vec<(usize, ToolCall)>,
    usage: Option<Usage>,
    finish_reason: Option<String>,
}

impl Assembler {
    /// Folds one chunk in; returns the text it added, for streaming to the user.
    pub(crate) fn push(&mut self, chunk: Chunk) -> String {
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        let mut text = String::new();
        for choice in chunk.choices {
            if let Some(r) = choice.finish_reason {
                self.finish_reason = Some(r);
            }
            let Some(delta) = choice.delta.or(choice.message) else {
                continue;
            };
            if let Some(t) = delta.content {
                text.push_str(&t);
            }
            for call in delta.tool_calls.unwrap_or_default() {
                self.push_call(call);
            }
        }
        self.content.push_str(&text);
        text
    }

    fn push_call(&mut self, d: CallDelta) {
        let index = d.index.unwrap_or_else(|| {
            // No index: a new id (or no call yet) starts a call, else it continues the last.
            match (&d.id, self.calls.last()) {
                (Some(id), Some((i, last))) if *id == last.id || id.is_empty() => *i,
                (None, Some((i, _))) => *i,
                _ => self.calls.len(),
            }
        });
        let pos = match self.calls.iter().position(|(i, _)| *i == index) {
            Some(p) => p,
            None => {
                self.calls.push((
                    index,
                    ToolCall {
                        id: String::new(),
                        name: String::new(),
                        arguments: String::new(),
                    },
                ));
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[pos].1;
        if let Some(id) = d.id.filter(|i| !i.is_empty()) {
            call.id = id;
        }
        if let Some(f) = d.function {
            // The name comes once, whole; some servers (llama-cpp-python)
            // repeat it in every chunk of the call, which must not double it.
            if let Some(n) = f.name.filter(|n| *n != call.name) {
                call.name.push_str(&n);
            }
            match f.arguments {
                Some(serde_json::Value::String(s)) => call.arguments.push_str(&s),
                Some(serde_json::Value::Null) | None => {}
                Some(other) => call.arguments.push_str(&other.to_string()),
            }
        }
    }

    pub(super) fn saw_finish(&self) -> bool {
        self.finish_reason.is_some()
    }

    pub(crate) fn finish(self) -> Completion {
        let mut calls: Vec<(usize, ToolCall)> = self.calls;
        calls.sort_by_key(|(i, _)| *i);
        // A call without an id keeps it empty: the turn loop gives it one
        // that is unique in the whole session.
        let tool_calls = calls.into_iter().map(|(_, c)| c).collect();
        let finish = match self.finish_reason.as_deref() {
            Some("length") => Finish::Length,
            Some("content_filter") => Finish::Refusal,
            _ => Finish::Done,
        };
        Completion {
            content: self.content,
            tool_calls,
            native: None,
            usage: self.usage,
            finish,
            unparsed_inputs: Vec::new(),
        }
    }
}

/// Chat Completions chunks folded into one message; `data: [DONE]` ends it.
#[derive(Default)]
pub(super) struct ChunkFold {
    asm: Assembler,
    done: bool,
}

impl Fold for ChunkFold {
    fn push(&mut self, _event: &str, data: &str) -> Result<Step, FoldError> {
        if data == "[DONE]" {
            self.done = true;
            return Ok(Step::End);
        }
        let chunk: Chunk =
            serde_json::from_str(data).map_err(|_| FoldError::NotJson(data.to_string()))?;
        if let Some(err) = &chunk.error {
            return Err(FoldError::Remote {
                message: error_message(&err.to_string()),
                status: None,
            });
        }
        Ok(Step::Text(self.asm.push(chunk)))
    }

    fn complete(&self) -> bool {
        self.done || self.asm.saw_finish()
    }

    fn finish(self: Box<Self>) -> Completion {
        self.asm.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(v: serde_json::Value) -> Chunk {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn fragments_by_index_make_whole_calls() {
        let mut a = Assembler::default();
        a.push(chunk(
            serde_json::json!({"choices":[{"delta":{"content":"Hi "}}]}),
        ));
        a.push(chunk(
            serde_json::json!({"choices":[{"delta":{"tool_calls":[
            {"index":0,"id":"c1","type":"function","function":{"name":"echo","arguments":""}},
            {"index":1,"id":"c2","function":{"name":"echo","arguments":"{\"te"}}]}}]}),
        ));
        a.push(chunk(
            serde_json::json!({"choices":[{"delta":{"tool_calls":[
            {"index":0,"function":{"arguments":"{}"}},
            {"index":1,"function":{"arguments":"xt\":1}"}}]}}]}),
        ));
        a.push(chunk(
            serde_json::json!({"choices":[{"delta":{},"finish_reason":"tool_calls"}],
            "usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}),
        ));
        assert!(a.saw_finish());
        let c = a.finish();
        assert_eq!(c.content, "Hi ");
        assert_eq!(c.tool_calls.len(), 2);
        assert_eq!(c.tool_calls[0].arguments, "{}");
        assert_eq!(c.tool_calls[1].id, "c2");
        assert_eq!(c.tool_calls[1].arguments, "{\"text\":1}");
        assert_eq!(c.usage.unwrap().total_tokens, 7);
    }

    #[test]
    fn calls_without_index_or_id_still_assemble() {
        let mut a = Assembler::default();
        a.push(chunk(
            serde_json::json!({"choices":[{"delta":{"tool_calls":[
            {"function":{"name":"a","arguments":{"x":1}}}]}}]}),
        ));
        let c = a.finish();
        assert_eq!(c.tool_calls[0].id, "");
        assert_eq!(c.tool_calls[0].arguments, "{\"x\":1}");
    }

    #[test]
    fn a_name_repeated_in_every_chunk_is_not_appended() {
        let mut a = Assembler::default();
        for args in ["{\"pa", "th\":", "\"a\"}"] {
            a.push(chunk(
                serde_json::json!({"choices":[{"delta":{"tool_calls":[
                {"index":0,"id":"call_8f2kQ1mZx7","type":"function",
                 "function":{"name":"read_file","arguments":args}}]}}]}),
            ));
        }
        let c = a.finish();
        assert_eq!(c.tool_calls[0].name, "read_file");
        assert_eq!(c.tool_calls[0].arguments, "{\"path\":\"a\"}");
    }
}

#[cfg(test)]
mod properties {
    use super::{Assembler, Chunk};
    use crate::util::arbitrary::{config, json_value};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn stream_chunks_assemble_without_panicking(chunks in prop::collection::vec(json_value(), 0..20)) {
            let mut asm = Assembler::default();
            for c in chunks {
                if let Ok(chunk) = serde_json::from_value::<Chunk>(c) {
                    asm.push(chunk);
                }
            }
            let done = asm.finish();
            prop_assert!(done.tool_calls.len() <= 20 * 12);
        }
    }
}
