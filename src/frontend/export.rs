//! `/export`: the conversation as Markdown a person can read or share —
//! what they typed, the answers as written, each tool call a collapsible
//! block (`<details>`) holding its arguments and its result.

use crate::model::Message;

/// The conversation of session `id` as one Markdown document.
pub(crate) fn markdown(messages: &[Message], id: &str) -> String {
    let mut out = format!("# hermes session {id}\n");
    for m in messages {
        match m {
            Message::User { content, .. } => {
                out.push_str("\n## You\n\n");
                out.push_str(super::resumed::as_typed(content).trim_end());
                out.push('\n');
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                out.push_str("\n## hermes\n\n");
                if !content.trim().is_empty() {
                    out.push_str(content.trim_end());
                    out.push_str("\n\n");
                }
                for call in tool_calls {
                    let result = messages.iter().find_map(|r| match r {
                        Message::Tool(r) if r.tool_call_id == call.id => Some(r),
                        _ => None,
                    });
                    let mark = match result {
                        Some(r) if r.is_error => "✗",
                        Some(_) => "✓",
                        None => "…",
                    };
                    let label = super::tool_block::ToolBlock::label(&call.name, &call.arguments);
                    out.push_str(&format!(
                        "<details><summary>{mark} {}</summary>\n\n",
                        html_text(&label)
                    ));
                    out.push_str(&fenced("json", &call.arguments));
                    if let Some(r) = result {
                        out.push_str(&fenced("text", &r.content));
                    }
                    out.push_str("</details>\n\n");
                }
            }
            Message::System { .. } | Message::Tool(_) => {}
        }
    }
    out
}

/// `text` in a code fence longer than any run of backticks in it, so what
/// a tool printed never ends the block early.
fn fenced(lang: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}\n\n", text.trim_end())
}

/// Text safe inside an HTML element (`<summary>`).
fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ToolCall, ToolResult};

    #[test]
    fn turns_read_as_markdown_with_each_call_collapsible() {
        let call = ToolCall {
            id: "call_Xk3mT9vQ2pL8nR4sW6yZ1aB7".into(),
            name: "shell".into(),
            arguments: r#"{"command":"cat <notes.md"}"#.into(),
        };
        let messages = vec![
            Message::System {
                content: "you are hermes".into(),
            },
            Message::user("[hermes: the previous request was stopped before you answered it.]\n\nwhat is in the notes?"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![call.clone()],
                native: None,
            },
            Message::Tool(ToolResult {
                tool_call_id: call.id.clone(),
                name: "shell".into(),
                content: "```rust\nfn main() {}\n```\n[exit code 0]".into(),
                is_error: false,
                images: vec![],
            }),
            Message::Assistant {
                content: "A **main** function.".into(),
                tool_calls: vec![],
                native: None,
            },
        ];
        let md = markdown(&messages, "20261205-abc");
        assert!(
            md.starts_with("# hermes session 20261205-abc\n\n## You\n\nwhat is in the notes?\n"),
            "{md}"
        );
        assert!(!md.contains("you are hermes"), "{md}");
        assert!(
            md.contains("<details><summary>✓ shell $ cat &lt;notes.md</summary>"),
            "{md}"
        );
        // The result's own fence does not end the block.
        assert!(
            md.contains("````text\n```rust\nfn main() {}\n```\n[exit code 0]\n````"),
            "{md}"
        );
        assert!(md.trim_end().ends_with("A **main** function."), "{md}");
    }
}
