//! What a resumed session shows before its prompt: the last exchanges as
//! they were drawn when they happened, so the screen reads as the
//! conversation did, not as raw Markdown flattened to one line.

use crate::agent::Agent;
use crate::util::text::excerpt;

/// A resumed session opens with its last exchanges, drawn as they were
/// shown: the user's lines, the answers laid out as Markdown (long ones
/// cut, with how to see the rest), each tool call on one line with how it
/// ended.
pub(super) fn show(agent: &Agent) {
    let messages = agent.messages();
    let users = messages
        .iter()
        .filter(|m| matches!(m, crate::model::Message::User { .. }))
        .count();
    if users == 0 {
        return;
    }
    let id = agent.session().id();
    for line in resumed_lines(messages, id, super::terminal::columns(2)) {
        errln!("{line}");
    }
    // The model's plan as it last stood.
    if let Some(u) = last_plan(messages) {
        for line in super::plan_view::lines(u.explanation.as_deref(), &u.plan) {
            errln!("{}", crate::util::sanitize::clean(&line));
        }
    }
    errln!("— resumed session {id} ({users} message(s) of yours) —");
}

/// The last plan `update_plan` was given and took (its result no error).
fn last_plan(messages: &[crate::model::Message]) -> Option<crate::call::PlanUpdate> {
    use crate::model::Message;
    let failed = |id: &str| {
        messages
            .iter()
            .any(|m| matches!(m, Message::Tool(r) if r.tool_call_id == id && r.is_error))
    };
    messages.iter().rev().find_map(|m| match m {
        Message::Assistant { tool_calls, .. } => tool_calls.iter().rev().find_map(|c| {
            let args = serde_json::from_str(&c.arguments).ok()?;
            (c.name == crate::call::UPDATE_PLAN && !failed(&c.id))
                .then(|| crate::call::PlanUpdate::read(&args).ok())
                .flatten()
        }),
        _ => None,
    })
}

/// The lines [`show`] draws, for a terminal `columns` wide (`None`:
/// not a terminal, the text as it came).
fn resumed_lines(
    messages: &[crate::model::Message],
    id: &str,
    columns: Option<usize>,
) -> Vec<String> {
    use crate::model::Message;
    use crate::util::sanitize::clean;
    /// The most lines of one answer shown again.
    const ANSWER_LINES: usize = 30;
    // From the third-last user message on.
    let start = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::User { .. }))
        .map(|(i, _)| i)
        .rev()
        .nth(2)
        .unwrap_or(0);
    let failed: std::collections::HashSet<&str> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(r) if r.is_error => Some(r.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    let laid_out = columns.is_some() && super::markdown::wanted(true);
    let mut out = Vec::new();
    for m in &messages[start..] {
        match m {
            Message::User { content, .. } => {
                out.push(format!("› {}", clean(&excerpt(as_typed(content), 300))));
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => {
                if !content.trim().is_empty() {
                    let text = if laid_out {
                        let md = super::markdown::Markdown::new(columns.unwrap_or(0));
                        let mut md = match super::markdown::no_colour() {
                            true => md.without_colour(),
                            false => md,
                        };
                        let mut text = md.push(&clean(content));
                        text.push_str(&md.finish());
                        text
                    } else {
                        clean(content)
                    };
                    let lines: Vec<&str> = text.trim_end_matches('\n').lines().collect();
                    let shown = cut_at(&lines, ANSWER_LINES);
                    out.extend(lines.iter().take(shown).map(|l| l.to_string()));
                    if lines.len() > shown {
                        out.push(format!(
                            "  … {} more lines (hermes sessions show {id})",
                            lines.len() - shown
                        ));
                    }
                }
                for call in tool_calls {
                    let mark = if failed.contains(call.id.as_str()) {
                        "✗"
                    } else {
                        "✓"
                    };
                    let label = super::tool_block::ToolBlock::label(&call.name, &call.arguments);
                    out.push(format!("  {mark} {label}"));
                }
            }
            Message::System { .. } | Message::Tool(_) => {}
        }
    }
    out
}

/// A user message as the person typed it: the notes hermes put at its
/// head for the model (`[hermes: the previous request was stopped …]`,
/// a mode switch, tools that changed) left out.
pub(super) fn as_typed(content: &str) -> &str {
    let mut rest = content;
    while rest.starts_with("[hermes: ") {
        match rest.find("]\n\n") {
            Some(end) => rest = &rest[end + 3..],
            None => break,
        }
    }
    rest
}

/// How many of `lines` to show, at most `most`: never a table's box cut in
/// two — the cut moves up to above the table, or, for a table at the very
/// top, down to below it.
fn cut_at(lines: &[&str], most: usize) -> usize {
    if lines.len() <= most {
        return lines.len();
    }
    let boxed = |l: &str| {
        let bare = crate::util::sanitize::clean(l);
        bare.trim_start().starts_with(['┌', '├', '└', '│'])
    };
    let mut cut = most;
    while cut > 0 && boxed(lines[cut - 1]) && boxed(lines[cut]) {
        cut -= 1;
    }
    if cut == 0 {
        cut = most;
        while cut < lines.len() && boxed(lines[cut]) {
            cut += 1;
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, ToolCall, ToolResult};

    #[test]
    fn answers_are_laid_out_and_tool_calls_are_one_line_each() {
        let call = ToolCall {
            id: "call_Xk3mT9vQ2pL8nR4sW6yZ1aB7".into(),
            name: "shell".into(),
            arguments: r#"{"command":"cargo test --lib"}"#.into(),
        };
        let messages = vec![
            Message::user("which crates are slow to build?"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![call.clone()],
                native: None,
            },
            Message::Tool(ToolResult {
                tool_call_id: call.id.clone(),
                name: "shell".into(),
                content: "exit 101".into(),
                is_error: true,
                images: vec![],
            }),
            Message::Assistant {
                content: "## Slowest\n\n| crate | s |\n|---|--:|\n| rmcp | 41 |\n| **aws-lc-sys** | 97 |\n"
                    .into(),
                tool_calls: vec![],
                native: None,
            },
        ];
        let lines = resumed_lines(&messages, "20261203-abc", Some(60)).join("\n");
        assert!(
            lines.contains("› which crates are slow to build?"),
            "{lines}"
        );
        assert!(lines.contains("  ✗ shell $ cargo test --lib"), "{lines}");
        // A table drawn as a box, not `| a | b |`; no `**` left.
        assert!(lines.contains('│') || lines.contains('┃'), "{lines}");
        assert!(!lines.contains("| rmcp |"), "{lines}");
        assert!(!lines.contains("**"), "{lines}");
        // Off a terminal: the text as it came.
        let plain = resumed_lines(&messages, "20261203-abc", None).join("\n");
        assert!(plain.contains("| rmcp | 41 |"), "{plain}");
    }

    #[test]
    fn a_long_answer_is_cut_with_where_the_rest_is() {
        let long: String = (1..=50).map(|i| format!("line {i}\n\n")).collect();
        let messages = vec![
            Message::user("list them"),
            Message::Assistant {
                content: long,
                tool_calls: vec![],
                native: None,
            },
        ];
        let lines = resumed_lines(&messages, "20261203-abc", Some(80));
        assert!(lines.len() < 40, "{lines:?}");
        assert!(
            lines
                .last()
                .unwrap()
                .contains("more lines (hermes sessions show 20261203-abc)"),
            "{lines:?}"
        );
    }

    #[test]
    fn what_the_person_typed_is_shown_without_hermes_notes() {
        assert_eq!(
            as_typed("[hermes: the previous request was stopped before you answered it.]\n\ngo on"),
            "go on"
        );
        assert_eq!(
            as_typed(
                "[hermes: plan mode is on. Investigate.]\n\n[hermes: tools changed]\n\nplan it"
            ),
            "plan it"
        );
        assert_eq!(as_typed("[hermes: alone]"), "[hermes: alone]");
        assert_eq!(
            as_typed("a [hermes: note] inside"),
            "a [hermes: note] inside"
        );
    }

    #[test]
    fn a_table_is_never_cut_in_two() {
        let mut lines = vec!["intro"; 27];
        // Drawn dim on a terminal: the escape does not hide the box.
        lines.extend([
            "┌──┬──┐",
            "\u{1b}[2m│\u{1b}[0ma │b │",
            "├──┼──┤",
            "│1 │2 │",
            "└──┴──┘",
            "after",
        ]);
        assert_eq!(cut_at(&lines, 30), 27, "up to above the table");
        let top = ["┌──┐", "│a │", "│b │", "└──┘", "after", "more"];
        assert_eq!(cut_at(&top, 2), 4, "a table at the top is shown whole");
        assert_eq!(cut_at(&["a", "b"], 30), 2);
    }
}
