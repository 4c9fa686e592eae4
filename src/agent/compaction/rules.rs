//! What a compaction keeps, drops and asks for — pure functions over the
//! history, so each rule is tested on its own. The agent runs them
//! (`compaction/compact.rs`).
//!
//! The history is cut only between *units*: a user message, or an
//! assistant message with the results of its tool calls. So a call never
//! loses its result, a split batch never loses a child, and an assistant
//! message's signed thinking stays or goes with the whole message.

use crate::model::{Message, ToolResult};

/// Results shorter than this are kept whole: their stub would save little.
const STUB_MIN_BYTES: usize = 512;

const STUB_MARK: &str = "[hermes: this result (";

/// The words that ask the model for a summary. Written for the model: what
/// the summary is for, what it must keep, what it may leave out.
const INSTRUCTION: &str =
    "[hermes: the conversation above is about to outgrow the model's context \
window. Write the summary that will replace it: the next requests carry only your summary and the \
newest messages. Keep what is needed to go on without the rest: the user's goals, requests and \
constraints in their own terms; decisions made and why; the names of files, functions, commands, \
tools and identifiers exactly as spelled; what was done, what was found, and what remains; open \
questions and errors not yet solved. Leave out greetings, repetition, and tool output that no \
longer matters. Use short paragraphs and lists, at most 500 words. Do not call tools; answer with \
the summary only.]";

/// The start of each unit after the head (the leading system messages),
/// and the head's length.
pub(super) fn units(messages: &[Message]) -> (usize, Vec<usize>) {
    let head = messages
        .iter()
        .take_while(|m| matches!(m, Message::System { .. }))
        .count();
    let starts = (head..messages.len())
        .filter(|&i| {
            !matches!(messages[i], Message::Tool(_))
                || i == head
                || matches!(
                    messages[i - 1],
                    Message::User { .. } | Message::System { .. }
                )
        })
        .collect();
    (head, starts)
}

/// The index of the newest user message.
pub(super) fn newest_user(messages: &[Message]) -> Option<usize> {
    messages
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
}

/// Stage one: the bodies of tool results before `before` (the newest user
/// message: the current turn's results stay) replaced by a one-line stub;
/// each result stays paired with its call. `None` when there is none to
/// drop.
pub(super) fn stub_old_results(
    messages: &[Message],
    before: usize,
) -> Option<(Vec<Message>, usize)> {
    let mut stubbed = 0;
    let out = messages
        .iter()
        .enumerate()
        .map(|(i, m)| match m {
            Message::Tool(r)
                if i < before
                    && r.content.len() >= STUB_MIN_BYTES
                    && !r.content.starts_with(STUB_MARK) =>
            {
                stubbed += 1;
                Message::Tool(ToolResult {
                    content: format!(
                        "{STUB_MARK}{} bytes) was dropped to keep the conversation within the \
                         model's context window; call the tool again if it is still needed]",
                        r.content.len()
                    ),
                    ..r.clone()
                })
            }
            m => m.clone(),
        })
        .collect();
    (stubbed > 0).then_some((out, stubbed))
}

/// Stage two: where to cut so that the newest units, up to `keep_bytes`
/// (by `size`), stay word for word — the newest unit always. The cut falls
/// at the start of a turn (a user message) where the budget allows one:
/// then the summary request is the previous request and its answer, which
/// the prompt cache still holds. `None` when nothing would be left to
/// summarise.
pub(super) fn cut_for(
    messages: &[Message],
    keep_bytes: u64,
    size: impl Fn(&Message) -> u64,
) -> Option<usize> {
    let (head, starts) = units(messages);
    let mut end = messages.len();
    let mut kept = 0u64;
    let mut earliest = None;
    for &start in starts.iter().rev() {
        let unit: u64 = messages[start..end].iter().map(&size).sum();
        if earliest.is_some() && kept + unit > keep_bytes {
            break;
        }
        kept += unit;
        earliest = Some(start);
        end = start;
    }
    let earliest = earliest?;
    let turn = starts
        .iter()
        .copied()
        .find(|&s| s >= earliest && matches!(messages[s], Message::User { .. }));
    Some(turn.unwrap_or(earliest)).filter(|&c| c > head)
}

/// The longest run of whole units from the head whose size (with the
/// instruction) stays within `limit_bytes`: what one summary request can
/// carry when the history is too long for one. At least one unit.
pub(super) fn fitting_prefix(
    messages: &[Message],
    cut: usize,
    limit_bytes: u64,
    size: impl Fn(&Message) -> u64,
) -> usize {
    let (head, starts) = units(messages);
    let mut total: u64 = messages[..head].iter().map(&size).sum::<u64>() + INSTRUCTION.len() as u64;
    let mut end = head;
    for (k, &start) in starts.iter().enumerate() {
        if start >= cut {
            break;
        }
        let next = starts
            .get(k + 1)
            .copied()
            .unwrap_or(messages.len())
            .min(cut);
        let unit: u64 = messages[start..next].iter().map(&size).sum();
        if end > head && total + unit > limit_bytes {
            break;
        }
        total += unit;
        end = next;
    }
    end
}

/// The request that asks for the summary of `messages[..cut]`: those
/// messages as they were sent — a prefix of the previous request, so the
/// provider's prompt cache still serves it — and the instruction.
pub(super) fn summary_request(
    messages: &[Message],
    cut: usize,
    focus: Option<&str>,
) -> Vec<Message> {
    let mut out = messages[..cut].to_vec();
    let mut content = INSTRUCTION.to_string();
    if let Some(f) = focus.filter(|f| !f.trim().is_empty()) {
        content.push_str(&format!(
            "\n\n[The user asks that the summary give most room to: {}]",
            f.trim()
        ));
    }
    out.push(Message::user(content));
    out
}

/// The history after the compaction: the head, one user message holding
/// the summary (and, if the cut passed it, the newest user message word for
/// word), then `messages[cut..]` unchanged.
pub(super) fn compacted(messages: &[Message], cut: usize, summary: &str) -> Vec<Message> {
    let (head, _) = units(messages);
    let mut content = format!(
        "[hermes: the earlier part of this conversation ({} messages) was replaced by this \
         summary, which you wrote when the context window filled up.]\n\n{}",
        cut - head,
        summary.trim()
    );
    if let Some(i) = newest_user(messages).filter(|&i| i >= head && i < cut) {
        if let Message::User {
            content: newest, ..
        } = &messages[i]
        {
            content.push_str(
                "\n\n[hermes: the user's newest message, which the summary covers, word for word:]\n\n",
            );
            content.push_str(newest);
        }
    }
    let mut out = messages[..head].to_vec();
    out.push(Message::user(content));
    out.extend_from_slice(&messages[cut..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;

    fn user(s: &str) -> Message {
        Message::user(s)
    }
    fn calls(ids: &[&str]) -> Message {
        Message::Assistant {
            content: String::new(),
            tool_calls: ids
                .iter()
                .map(|id| ToolCall {
                    id: id.to_string(),
                    name: "read_file".into(),
                    arguments: "{}".into(),
                })
                .collect(),
            native: None,
        }
    }
    fn result(id: &str, body: &str) -> Message {
        Message::Tool(ToolResult {
            tool_call_id: id.into(),
            name: "read_file".into(),
            content: body.into(),
            is_error: false,
            images: Vec::new(),
        })
    }
    fn answer(s: &str) -> Message {
        Message::Assistant {
            content: s.into(),
            tool_calls: Vec::new(),
            native: None,
        }
    }
    fn history() -> Vec<Message> {
        vec![
            Message::System {
                content: "sys".into(),
            },
            user("one"),
            calls(&["a", "b"]),
            result("a", &"x".repeat(600)),
            result("b", "short"),
            answer("done one"),
            user("two"),
            calls(&["c"]),
            result("c", &"y".repeat(600)),
        ]
    }
    fn len(m: &Message) -> u64 {
        crate::agent::window::message_bytes(m)
    }

    #[test]
    fn units_never_part_a_call_from_its_results() {
        let (head, starts) = units(&history());
        assert_eq!(head, 1);
        assert_eq!(starts, vec![1, 2, 5, 6, 7]);
    }

    #[test]
    fn only_long_results_before_the_newest_user_message_are_stubbed() {
        let h = history();
        let (out, n) = stub_old_results(&h, newest_user(&h).unwrap()).unwrap();
        assert_eq!(n, 1);
        let Message::Tool(r) = &out[3] else { panic!() };
        assert!(r.content.starts_with(STUB_MARK), "{}", r.content);
        assert_eq!(r.tool_call_id, "a");
        assert_eq!(out[4], h[4]);
        assert_eq!(out[8], h[8], "the current turn's result stays");
        assert!(
            stub_old_results(&out, 6).is_none(),
            "a stub is not stubbed again"
        );
    }

    #[test]
    fn the_newest_unit_is_kept_and_the_newest_user_message_carried_over() {
        let h = history();
        // Room for the newest unit only: the cut passes "two".
        let cut = cut_for(&h, 10, len).unwrap();
        assert_eq!(cut, 7);
        let out = compacted(&h, cut, "they read files");
        assert_eq!(out.len(), 4);
        let Message::User { content, .. } = &out[1] else {
            panic!()
        };
        assert!(content.contains("they read files"));
        assert!(content.ends_with("\n\ntwo"), "{content}");
        assert_eq!(out[2..], h[7..]);
        // Room for both units of the turn: "two" is kept itself.
        let cut = cut_for(&h, len(&h[6]) + len(&h[7]) + len(&h[8]), len).unwrap();
        assert_eq!(cut, 6);
        let out = compacted(&h, cut, "s");
        let Message::User { content, .. } = &out[1] else {
            panic!()
        };
        assert!(!content.contains("two"));
        // Room for the answer before "two" too: the cut still falls where
        // the turn starts.
        let three = len(&h[5]) + len(&h[6]) + len(&h[7]) + len(&h[8]);
        assert_eq!(cut_for(&h, three, len), Some(6));
        // Everything fits: nothing to summarise.
        assert_eq!(cut_for(&h, u64::MAX, len), None);
    }

    #[test]
    fn a_summary_request_is_a_prefix_then_the_instruction() {
        let h = history();
        let req = summary_request(&h, 6, Some("the files"));
        assert_eq!(req[..6], h[..6]);
        let Message::User { content, .. } = &req[6] else {
            panic!()
        };
        assert!(content.starts_with("[hermes: the conversation above"));
        assert!(content.ends_with("most room to: the files]"));
    }

    #[test]
    fn a_history_too_long_for_one_request_is_summarised_in_whole_units() {
        let h = history();
        let limit = len(&h[0]) + INSTRUCTION.len() as u64 + len(&h[1]) + 1;
        assert_eq!(fitting_prefix(&h, 7, limit, len), 2);
        // At least one unit, however small the limit.
        assert_eq!(fitting_prefix(&h, 7, 0, len), 2);
        assert_eq!(fitting_prefix(&h, 7, u64::MAX, len), 7);
    }
}
