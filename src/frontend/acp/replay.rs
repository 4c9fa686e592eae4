//! `session/load`: the conversation as the loader gives it (after its last
//! compaction, rewinds applied) told again as `session/update`s — what the
//! person said, what the model answered, and each tool call with its final
//! state and result — so the editor shows the session as it was.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value};

use super::updates::tool_call;
use crate::model::{Message, ToolResult};

pub(crate) fn updates(messages: &[Message], cwd: &Path) -> Vec<Value> {
    let results: HashMap<&str, &ToolResult> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(r) => Some((r.tool_call_id.as_str(), r)),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for m in messages {
        match m {
            Message::User { content, images } => {
                out.push(json!({
                    "sessionUpdate": "user_message_chunk",
                    "content": {"type": "text", "text": content},
                }));
                for i in images {
                    out.push(json!({
                        "sessionUpdate": "user_message_chunk",
                        "content": {"type": "image", "mimeType": i.media_type, "data": i.data},
                    }));
                }
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                if !content.is_empty() {
                    out.push(json!({
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": content},
                    }));
                }
                for c in tool_calls {
                    let (name, args) = crate::call::shown(&c.name, &c.arguments)
                        .into_iter()
                        .next()
                        .unwrap_or_else(|| (c.name.clone(), c.arguments.clone()));
                    let result = results.get(c.id.as_str());
                    let status = match result {
                        Some(r) if r.is_error => "failed",
                        Some(_) => "completed",
                        None => "pending",
                    };
                    let mut call = tool_call(&c.id, &name, &args, cwd, status);
                    if let Some(r) = result {
                        call["content"] = json!([{
                            "type": "content",
                            "content": {"type": "text", "text": r.content},
                        }]);
                    }
                    out.push(call);
                }
            }
            Message::System { .. } | Message::Tool(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;

    #[test]
    fn a_conversation_is_told_again_with_each_calls_final_state() {
        let messages = vec![
            Message::System {
                content: "you are hermes".into(),
            },
            Message::user("list the files"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![
                    ToolCall {
                        id: "call_a".into(),
                        name: "tool_call".into(),
                        arguments: r#"{"calls":[{"name":"glob","arguments":{"pattern":"*.rs"}}]}"#
                            .into(),
                    },
                    ToolCall {
                        id: "call_b".into(),
                        name: "shell".into(),
                        arguments: r#"{"command":"false"}"#.into(),
                    },
                ],
                native: None,
            },
            Message::Tool(ToolResult {
                tool_call_id: "call_a".into(),
                name: "tool_call".into(),
                content: "main.rs".into(),
                is_error: false,
                images: Vec::new(),
            }),
            Message::Tool(ToolResult {
                tool_call_id: "call_b".into(),
                name: "shell".into(),
                content: "exit 1".into(),
                is_error: true,
                images: Vec::new(),
            }),
            Message::Assistant {
                content: "main.rs".into(),
                tool_calls: Vec::new(),
                native: None,
            },
        ];
        let u = updates(&messages, Path::new("/p"));
        let kinds: Vec<&str> = u
            .iter()
            .map(|v| v["sessionUpdate"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "user_message_chunk",
                "tool_call",
                "tool_call",
                "agent_message_chunk"
            ]
        );
        assert_eq!(u[1]["title"], "Search *.rs");
        assert_eq!(u[1]["status"], "completed");
        assert_eq!(u[1]["content"][0]["content"]["text"], "main.rs");
        assert_eq!(u[2]["status"], "failed");
    }
}
