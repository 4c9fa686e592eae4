//! The conversation as alternating user / assistant block lists, for the
//! providers whose turns are block lists (Anthropic Messages, Bedrock
//! Converse, Gemini `contents`). An assistant message that came from this provider replays its
//! own blocks; any other is rebuilt from the neutral view. Tool results join
//! the user turn that follows them, and consecutive turns of one role merge
//! into one, so the list alternates as these APIs require.

use serde_json::{json, Value};

use crate::call::ids::{is_legal, legal_everywhere};
use crate::model::{BlockApi, Message, ToolCall, ToolResult};

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Role {
    User,
    Assistant,
}

impl Role {
    pub(super) fn name(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }

    /// The role as Gemini names it.
    pub(super) fn gemini(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "model",
        }
    }
}

pub(super) struct Turns {
    /// System prompt texts, in order.
    pub(super) system: Vec<String>,
    pub(super) turns: Vec<(Role, Vec<Value>)>,
}

/// `with_tools`: whether this request offers any tool. Both APIs refuse tool
/// blocks in a request that defines no tools (a session resumed after its
/// servers went away), so then every tool use and result goes as text.
pub(super) fn turns(messages: &[Message], api: BlockApi, with_tools: bool) -> Turns {
    let mut system = Vec::new();
    let mut turns: Vec<(Role, Vec<Value>)> = Vec::new();
    for m in messages {
        let (role, blocks) = match m {
            Message::System { content } => {
                system.push(content.clone());
                continue;
            }
            Message::User { content, images } => {
                let mut blocks = text_blocks(api, content);
                blocks.extend(images.iter().map(|i| api.image_block(i)));
                (Role::User, blocks)
            }
            Message::Assistant {
                content,
                tool_calls,
                native,
            } => {
                let blocks = match native {
                    Some(n) if n.api == api => {
                        n.blocks.iter().map(|b| with_legal_id(api, b)).collect()
                    }
                    _ => neutral_blocks(api, content, tool_calls),
                };
                let blocks = if with_tools {
                    blocks
                } else {
                    blocks
                        .into_iter()
                        .map(|b| tool_use_as_text(api, b))
                        .collect()
                };
                (Role::Assistant, blocks)
            }
            Message::Tool(r) if !with_tools => (Role::User, text_blocks(api, &result_as_text(r))),
            Message::Tool(r) => (Role::User, vec![tool_result(api, r)]),
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, b)) if *last == role => b.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    Turns { system, turns }
}

/// A block of this API's own, as it is replayed: a tool use whose id
/// the API would refuse — what a compatible server or a proxy issued
/// (`functions.read_file:0`, one past 40 characters, not ASCII) — gets the
/// id its result is sent with ([`legal_everywhere`]), so the two still
/// pair. The session keeps the model's own id.
pub(super) fn with_legal_id(api: BlockApi, block: &Value) -> Value {
    match api.tool_use(block) {
        Some(t) if !is_legal(t.id) => {
            let id = legal_everywhere(t.id).into_owned();
            let mut b = block.clone();
            api.set_tool_use_id(&mut b, &id);
            b
        }
        _ => block.clone(),
    }
}

/// A tool use as text, for a request that offers no tools.
fn tool_use_as_text(api: BlockApi, block: Value) -> Value {
    match api.tool_use(&block) {
        Some(t) => api.text_block(&call_as_text(t.name, t.id, &t.arguments())),
        None => block,
    }
}

/// A call, told in words: what a request without tools carries instead.
pub(super) fn call_as_text(name: &str, id: &str, arguments: &str) -> String {
    format!("[called {name} ({id}) with {arguments}]")
}

/// A tool result, told in words, for the same requests.
pub(super) fn result_as_text(r: &ToolResult) -> String {
    format!("[result of {} ({})]\n{}", r.name, r.tool_call_id, r.content)
}

/// Blank text is left out: both APIs refuse blocks without non-blank text.
fn text_blocks(api: BlockApi, text: &str) -> Vec<Value> {
    if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![api.text_block(text)]
    }
}

/// An assistant message from another provider: its text and tool calls.
/// Arguments that are not a JSON object (a model's broken JSON) are sent as
/// an empty input; the call's own result already told the model so. An id
/// this API would refuse is mapped, the same way as its result's.
fn neutral_blocks(api: BlockApi, content: &str, calls: &[ToolCall]) -> Vec<Value> {
    let mut blocks = text_blocks(api, content);
    for c in calls {
        let input = match serde_json::from_str::<Value>(&c.arguments) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({}),
        };
        blocks.push(api.tool_use_block(&legal_everywhere(&c.id), &c.name, input));
    }
    blocks
}

pub(super) fn tool_result(api: BlockApi, r: &ToolResult) -> Value {
    // Both APIs refuse blank text, inside a result too.
    let text = if r.content.trim().is_empty() {
        "(no output)"
    } else {
        &r.content
    };
    let id = legal_everywhere(&r.tool_call_id);
    match api {
        BlockApi::Anthropic => {
            // Images go inside the result, after its text.
            let content = if r.images.is_empty() {
                json!(text)
            } else {
                let mut parts = vec![json!({"type": "text", "text": text})];
                parts.extend(r.images.iter().map(|i| api.image_block(i)));
                Value::Array(parts)
            };
            let mut b = json!({"type": "tool_result", "tool_use_id": id, "content": content});
            if r.is_error {
                b["is_error"] = json!(true);
            }
            b
        }
        BlockApi::Bedrock => {
            let mut content = vec![json!({"text": text})];
            content.extend(r.images.iter().map(|i| api.image_block(i)));
            json!({"toolResult": {
                "toolUseId": id,
                "content": content,
                "status": if r.is_error { "error" } else { "success" },
            }})
        }
        // `output` or `error`, as the API documents; images as the parts
        // of a multimodal function response. `name` is required, and the
        // id answers the call's.
        BlockApi::Gemini => {
            let key = if r.is_error { "error" } else { "output" };
            let mut fr = json!({"id": id, "name": r.name, "response": {key: text}});
            if !r.images.is_empty() {
                fr["parts"] = r.images.iter().map(|i| api.image_block(i)).collect();
            }
            json!({ "functionResponse": fr })
        }
        // Text, or text and images as input parts; the error flag in the
        // text, as Chat Completions has none either.
        BlockApi::Responses => {
            let text = if r.is_error && !text.starts_with("Error") {
                format!("Error: {text}")
            } else {
                text.to_string()
            };
            let output = if r.images.is_empty() {
                json!(text)
            } else {
                let mut parts = vec![api.text_block(&text)];
                parts.extend(r.images.iter().map(|i| api.image_block(i)));
                Value::Array(parts)
            };
            json!({"type": "function_call_output", "call_id": id, "output": output})
        }
    }
}

/// How many assistant messages carry blocks of another provider that a
/// replay to this one leaves out (signed thinking cannot cross providers;
/// text and tool calls go over as the neutral view).
pub(crate) fn foreign_messages(messages: &[Message], api: Option<BlockApi>) -> usize {
    messages
        .iter()
        .filter(|m| match m {
            Message::Assistant {
                native: Some(n), ..
            } => Some(n.api) != api && n.own_blocks() > 0,
            _ => false,
        })
        .count()
}

/// A short history around one native assistant turn (system, user, the
/// turn, a result for its first tool use) and one tool, for the body tests.
#[cfg(test)]
pub(super) fn sample(api: BlockApi, blocks: &str) -> (Vec<Message>, Vec<crate::model::ToolSpec>) {
    let native = crate::model::NativeBlocks {
        api,
        blocks: serde_json::from_str(blocks).unwrap(),
    };
    let calls = native.tool_calls();
    let mut msgs = vec![
        Message::System {
            content: "s".into(),
        },
        Message::user("hi"),
        Message::Assistant {
            content: String::new(),
            tool_calls: calls.clone(),
            native: Some(native),
        },
    ];
    msgs.extend(calls.first().map(|c| {
        Message::Tool(ToolResult {
            tool_call_id: c.id.clone(),
            name: c.name.clone(),
            content: "out".into(),
            is_error: false,
            images: Vec::new(),
        })
    }));
    let tools = vec![crate::model::ToolSpec {
        name: "echo".into(),
        description: "d".into(),
        parameters: json!({"type": "object"}),
    }];
    (msgs, tools)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NativeBlocks;

    #[test]
    fn ids_another_api_refuses_are_mapped_alike_in_call_and_result() {
        let calls = [ToolCall {
            id: "functions.read:0".into(),
            name: "read".into(),
            arguments: "{}".into(),
        }];
        let r = ToolResult {
            tool_call_id: "functions.read:0".into(),
            name: "read".into(),
            content: " \n".into(),
            is_error: false,
            images: Vec::new(),
        };
        for api in [BlockApi::Anthropic, BlockApi::Bedrock] {
            let call = &neutral_blocks(api, "", &calls)[0];
            let id = api.tool_use(call).unwrap().id.to_string();
            assert!(
                crate::call::ids::is_legal(&id) && id.starts_with("call_"),
                "{id}"
            );
            let result = tool_result(api, &r).to_string();
            assert!(result.contains(&id), "{result}");
            assert!(result.contains("(no output)"), "blank output: {result}");
        }
    }

    #[test]
    fn tool_results_and_user_text_merge_into_one_user_turn() {
        let native = NativeBlocks {
            api: BlockApi::Anthropic,
            blocks: vec![
                json!({"type":"thinking","thinking":"t","signature":"s"}),
                json!({"type":"tool_use","id":"toolu_1","name":"x","input":{}}),
            ],
        };
        let messages = vec![
            Message::System {
                content: "sys".into(),
            },
            Message::user("hi"),
            Message::Assistant {
                content: String::new(),
                tool_calls: native.tool_calls(),
                native: Some(native.clone()),
            },
            Message::Tool(ToolResult {
                tool_call_id: "toolu_1".into(),
                name: "x".into(),
                content: "out".into(),
                is_error: true,
                images: Vec::new(),
            }),
            Message::user("again"),
        ];
        let t = turns(&messages, BlockApi::Anthropic, true);
        assert_eq!(t.system, ["sys"]);
        assert_eq!(t.turns.len(), 3);
        assert_eq!(
            t.turns[1].1, native.blocks,
            "own blocks replayed as they are"
        );
        assert_eq!(t.turns[2].1.len(), 2);
        assert_eq!(t.turns[2].1[0]["is_error"], true);
        assert_eq!(t.turns[2].1[1]["text"], "again");

        let b = turns(&messages, BlockApi::Bedrock, true);
        assert_eq!(
            b.turns[1].1,
            vec![json!({"toolUse":{"toolUseId":"toolu_1","name":"x","input":{}}})],
            "another provider's thinking is left out"
        );
        assert_eq!(b.turns[2].1[0]["toolResult"]["status"], "error");
        assert_eq!(foreign_messages(&messages, Some(BlockApi::Bedrock)), 1);
        let bare = turns(&messages, BlockApi::Anthropic, false);
        assert_eq!(
            bare.turns[1].1[1],
            json!({"type": "text", "text": "[called x (toolu_1) with {}]"}),
            "no tools offered: tool blocks go as text"
        );
        assert_eq!(bare.turns[2].1[0]["text"], "[result of x (toolu_1)]\nout");
        assert_eq!(foreign_messages(&messages, Some(BlockApi::Anthropic)), 0);
        assert_eq!(foreign_messages(&messages, None), 1);
    }
}
