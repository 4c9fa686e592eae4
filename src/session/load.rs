//! Reading a session file back. A torn last line (hermes died mid-write) is skipped
//! with a warning; a bad line anywhere else is an error naming the file and line,
//! unless a later `torn_line` event records that an earlier resume found it torn.

use std::collections::HashSet;
use std::path::Path;

use super::pairing::{in_entry_order, pair_results, unanswered};
use super::record::{Meta, Record, SessionEvent};
use super::SessionError;
use crate::model::{Message, OfferedTool, ToolCall};

#[derive(Debug, Clone)]
pub struct LoadedSession {
    pub meta: Meta,
    pub messages: Vec<Message>,
    /// Tool calls of the history that never got a result (hermes stopped mid-round).
    pub unanswered: Vec<ToolCall>,
    /// A torn last line, which has no newline yet.
    pub torn_tail: Option<TornTail>,
    /// The recorded deferral decision (`tools` event), if any request was made.
    pub deferred: Option<bool>,
    /// The tools it offered directly, recorded with that decision.
    pub offered: Option<Vec<OfferedTool>>,
    /// The last request since the last compaction as the provider counted
    /// it: how many of `messages` it carried (a usage record is written
    /// before the answer joins the history) and its prompt tokens. What
    /// calibrates the next run's first estimate.
    pub last_usage: Option<(usize, u64)>,
    pub warnings: Vec<String>,
}

/// Reads the session at `path`, its large images put back from the blob
/// folder beside it.
pub(crate) fn load(path: &Path) -> Result<LoadedSession, SessionError> {
    let bytes = super::read_own(path)?;
    let mut loaded = parse(path, &bytes)?;
    if let Some(sessions) = super::index::folder_of(path) {
        let dir = super::blobs::folder(sessions);
        super::blobs::resolve(&mut loaded.messages, &dir, &mut loaded.warnings);
    }
    Ok(loaded)
}

/// A last line without its newline: where it is and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TornTail {
    /// 1-based.
    pub line: usize,
    /// FNV-1a of its bytes, hex.
    pub hash: String,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<LoadedSession, SessionError> {
    let (lines, torn_tail) = split_lines(bytes);
    let mut warnings: Vec<String> = torn_tail
        .iter()
        .map(|t| {
            format!(
                "{}:{}: skipped a torn last line (hermes stopped while writing it)",
                path.display(),
                t.line
            )
        })
        .collect();
    let parse_line = |line: &[u8]| serde_json::from_slice(line).map_err(|e| e.to_string());
    let from = last_compaction(&lines);
    let parsed: Vec<(usize, &[u8], Result<Record, String>)> = lines
        .into_iter()
        .enumerate()
        // Before the last compaction only the meta line and the deferral
        // decision matter: the rest is replaced, and not even parsed. A
        // subagent's records are its own conversation, not this one.
        .filter(|(i, (_, line))| {
            !line.starts_with(super::store::AGENT_PREFIX)
                && (*i == 0
                    || *i >= from
                    || (line.starts_with(br#"{"type":"event""#) && is_tools_event(line)))
        })
        .map(|(_, (n, line))| (n, line, parse_line(line)))
        .collect();
    let acknowledged = Acknowledged::from(&parsed);

    let mut meta = None;
    let mut messages = Vec::new();
    let mut lines_of = Vec::new();
    let mut deferred = None;
    let mut offered = None;
    let mut last_usage = None;
    for (line, text, rec) in parsed {
        // Acknowledged as torn: skipped even if it happens to parse (a whole
        // record cut off just before its newline), as it was when found.
        if acknowledged.covers(line, text) {
            continue;
        }
        let rec = match rec {
            Ok(r) => r,
            Err(message) => {
                return Err(SessionError::BadLine {
                    path: path.to_path_buf(),
                    line,
                    message,
                })
            }
        };
        match rec {
            Record::Meta(m) if meta.is_none() => meta = Some(m),
            Record::Meta(_) => {}
            _ if meta.is_none() => {
                return Err(SessionError::NotASession {
                    path: path.to_path_buf(),
                })
            }
            Record::Message { message, .. } => {
                messages.push(message);
                lines_of.push(line);
            }
            Record::ToolResult { result, .. } => {
                messages.push(Message::Tool(result));
                lines_of.push(line);
            }
            Record::Compaction { messages: view, .. } => {
                lines_of = vec![line; view.len()];
                messages = view;
                last_usage = None;
            }
            Record::Rewind {
                line: to,
                conversation: true,
                ..
            } => {
                let keep = lines_of.iter().take_while(|l| (**l as u64) < to).count();
                messages.truncate(keep);
                lines_of.truncate(keep);
                last_usage = None;
            }
            Record::Rewind { .. } => {}
            Record::Event {
                event: SessionEvent::Usage { prompt_tokens, .. },
                ..
            } => last_usage = Some((messages.len(), prompt_tokens)),
            Record::Event {
                event:
                    SessionEvent::Tools {
                        deferred: d,
                        offered: o,
                    },
                ..
            } => {
                deferred = Some(d);
                offered = o;
            }
            Record::Event { .. } => {}
        }
    }
    let meta = meta.ok_or_else(|| SessionError::NotASession {
        path: path.to_path_buf(),
    })?;
    let mut messages = pair_results(messages, |i, r| {
        warnings.push(format!(
            "{}:{}: skipped a tool result for `{}`, which answers no open call",
            path.display(),
            lines_of[i],
            r.tool_call_id
        ))
    });
    in_entry_order(&mut messages);
    Ok(LoadedSession {
        meta,
        unanswered: unanswered(&messages),
        messages,
        torn_tail,
        deferred,
        offered,
        last_usage,
        warnings,
    })
}

/// A subagent's conversation as its parent's file holds it.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentConversation {
    /// The parent's call that started it.
    pub id: String,
    pub description: String,
    pub agent_type: Option<String>,
    pub model: String,
    pub messages: Vec<Message>,
}

/// The subagents' conversations of the session at `path`, in the order
/// they started.
pub(crate) fn agent_conversations(path: &Path) -> Result<Vec<AgentConversation>, SessionError> {
    let bytes = super::read_own(path)?;
    let mut out: Vec<AgentConversation> = Vec::new();
    for (id, record) in agent_records(&bytes) {
        let at = match out.iter().position(|c| c.id == id) {
            Some(i) => i,
            None => {
                out.push(AgentConversation {
                    id: id.clone(),
                    ..Default::default()
                });
                out.len() - 1
            }
        };
        let c = &mut out[at];
        match record {
            Record::Event {
                event:
                    SessionEvent::SubagentStarted {
                        agent_type,
                        description,
                        model,
                    },
                ..
            } => {
                c.description = description;
                c.agent_type = agent_type;
                c.model = model;
            }
            Record::Message { message, .. } => c.messages.push(message),
            Record::ToolResult { result, .. } => c.messages.push(Message::Tool(result)),
            Record::Compaction { messages, .. } => c.messages = messages,
            _ => {}
        }
    }
    Ok(out)
}

/// The subagents' records of a session file, in order: each with the
/// subagent's id (the parent's call that started it). Lines that do not
/// parse are left out: what shows them is for reading, not for replay.
pub(crate) fn agent_records(bytes: &[u8]) -> Vec<(String, Record)> {
    let (lines, _) = split_lines(bytes);
    lines
        .into_iter()
        .filter(|(_, l)| l.starts_with(super::store::AGENT_PREFIX))
        .filter_map(|(_, l)| {
            let mut v: serde_json::Value = serde_json::from_slice(l).ok()?;
            let agent = v.as_object_mut()?.remove("agent")?.as_str()?.to_string();
            Some((agent, serde_json::from_value(v).ok()?))
        })
        .collect()
}

/// The position (in `lines`) of the last compaction record that parses,
/// or 0 when there is none. Found by the prefix every such record starts
/// with; a torn one (hermes died while writing it) does not parse and is
/// passed over for the one before.
fn last_compaction(lines: &[(usize, &[u8])]) -> usize {
    lines
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, (_, l))| l.starts_with(super::record::COMPACTION_PREFIX))
        .find(|(_, (_, l))| {
            matches!(
                serde_json::from_slice::<Record>(l),
                Ok(Record::Compaction { .. })
            )
        })
        .map_or(0, |(i, _)| i)
}

/// A `tools` event line (the session's deferral decision), told from other
/// events without parsing it.
fn is_tools_event(line: &[u8]) -> bool {
    const NEEDLE: &[u8] = br#""event":"tools""#;
    line.len() < 512 && line.windows(NEEDLE.len()).any(|w| w == NEEDLE)
}

/// The file's complete, non-blank lines with their 1-based numbers, and the
/// torn last line (text after the last newline: a crash mid-write), which is
/// left out.
fn split_lines(bytes: &[u8]) -> (Vec<(usize, &[u8])>, Option<TornTail>) {
    let mut segments: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    // After the last newline: empty for a clean file, a fragment for a torn one.
    let tail = segments.pop().unwrap_or_default();
    let torn = (!tail.is_empty()).then(|| TornTail {
        line: segments.len() + 1,
        hash: crate::util::hash::hex(tail),
    });
    let lines = segments
        .into_iter()
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .map(|(i, l)| (i + 1, l))
        .collect();
    (lines, torn)
}

/// Lines an earlier resume found torn and said so with a `torn_line` event:
/// by the hash of their bytes, or — for events written before hashes — by
/// their number.
struct Acknowledged {
    hashes: HashSet<String>,
    numbers: HashSet<u64>,
}

impl Acknowledged {
    fn from(parsed: &[(usize, &[u8], Result<Record, String>)]) -> Acknowledged {
        let mut a = Acknowledged {
            hashes: HashSet::new(),
            numbers: HashSet::new(),
        };
        for (_, _, r) in parsed {
            if let Ok(Record::Event {
                event: SessionEvent::TornLine { line, hash },
                ..
            }) = r
            {
                match hash {
                    Some(h) => a.hashes.insert(h.clone()),
                    None => a.numbers.insert(*line),
                };
            }
        }
        a
    }

    fn covers(&self, line: usize, text: &[u8]) -> bool {
        self.numbers.contains(&(line as u64))
            || (!self.hashes.is_empty() && self.hashes.contains(&crate::util::hash::hex(text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = r#"{"type":"meta","version":1,"id":"s","created":"t","cwd":"/","provider":"p","model":"m","hermes_version":"0"}"#;

    /// A tool result record answering `id`, with `id` as its content.
    fn result(id: &str, name: &str) -> String {
        format!(
            r#"{{"type":"tool_result","ts":"t","tool_call_id":"{id}","name":"{name}","content":"{id}","is_error":false}}"#
        )
    }

    fn user(text: &str) -> String {
        format!(r#"{{"type":"message","ts":"t","message":{{"role":"user","content":"{text}"}}}}"#)
    }

    #[test]
    fn torn_tail_is_skipped_with_a_warning() {
        let text = format!("{META}\n{}\n{{\"type\":\"mess", user("hi"));
        let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(s.messages.len(), 1);
        let torn = s.torn_tail.unwrap();
        assert_eq!(torn.line, 3);
        assert_eq!(torn.hash, crate::util::hash::hex(b"{\"type\":\"mess"));
        assert!(s.warnings[0].contains("f.jsonl:3"));
    }

    fn compaction(texts: &[&str]) -> String {
        let messages: Vec<String> = texts
            .iter()
            .map(|t| format!(r#"{{"role":"user","content":"{t}"}}"#))
            .collect();
        format!(
            r#"{{"type":"compaction","ts":"t","reason":"threshold","summarised":3,"stubbed":0,"messages":[{}]}}"#,
            messages.join(",")
        )
    }

    #[test]
    fn the_last_compaction_replaces_all_before_it_which_is_not_even_parsed() {
        let tools = r#"{"type":"event","ts":"t","event":"tools","deferred":true}"#;
        let text = format!(
            "{META}\n{tools}\nnot json: never read\n{}\n{}\n{}\n{}\n",
            compaction(&["first summary"]),
            user("between"),
            compaction(&["second summary", "kept"]),
            user("after"),
        );
        let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
        let texts: Vec<&str> = s
            .messages
            .iter()
            .map(|m| match m {
                Message::User { content, .. } => content.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(texts, ["second summary", "kept", "after"]);
        assert_eq!(s.deferred, Some(true), "the decision before it still holds");
    }

    /// A rewind keeps the messages of the lines before its turn, and what
    /// follows it; a second, further back, takes back more; one of files
    /// only changes nothing here.
    #[test]
    fn a_rewind_keeps_the_lines_before_its_turn_and_what_follows_it() {
        let rewind = |line: u64, conversation: bool| {
            format!(
                r#"{{"type":"rewind","ts":"t","line":{line},"code":true,"conversation":{conversation}}}"#
            )
        };
        let texts = |text: &str| -> Vec<String> {
            parse(Path::new("f.jsonl"), text.as_bytes())
                .unwrap()
                .messages
                .iter()
                .map(|m| match m {
                    Message::User { content, .. } => content.clone(),
                    _ => String::new(),
                })
                .collect()
        };
        // Lines: 1 meta, 2 one, 3 two, 4 three.
        let base = format!(
            "{META}\n{}\n{}\n{}\n",
            user("one"),
            user("two"),
            user("three")
        );
        let once = format!("{base}{}\n{}\n", rewind(3, true), user("four"));
        assert_eq!(texts(&once), ["one", "four"]);
        let code_only = format!("{base}{}\n", rewind(3, false));
        assert_eq!(texts(&code_only), ["one", "two", "three"]);
        let twice = format!("{once}{}\n{}\n", rewind(2, true), user("five"));
        assert_eq!(texts(&twice), ["five"]);
        let after_compaction = format!(
            "{base}{}\n{}\n{}\n",
            compaction(&["summary"]),
            user("six"),
            rewind(6, true)
        );
        assert_eq!(texts(&after_compaction), ["summary"]);
    }

    #[test]
    fn the_last_count_since_the_last_compaction_is_kept_with_its_request() {
        let usage = |n: u64| {
            format!(
                r#"{{"type":"event","ts":"t","event":"usage","completion_tokens":1,"prompt_tokens":{n},"total_tokens":{}}}"#,
                n + 1
            )
        };
        let text = format!(
            "{META}\n{}\n{}\n{}\n{}\n{}\n",
            user("one"),
            usage(50),
            compaction(&["summary"]),
            user("two"),
            usage(70),
        );
        let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(s.last_usage, Some((2, 70)));
        let text = format!(
            "{META}\n{}\n{}\n{}\n",
            user("one"),
            usage(50),
            compaction(&["s"])
        );
        let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(
            s.last_usage, None,
            "a count of the history before the compaction"
        );
    }

    #[test]
    fn a_compaction_cut_off_mid_write_leaves_the_one_before_in_force() {
        let torn = compaction(&["never whole"]);
        let text = format!(
            "{META}\n{}\n{}\n{}\n{{\"type\":\"event\",\"ts\":\"t\",\"event\":\"torn_line\",\"line\":5,\"hash\":\"{}\"}}\n{}\n",
            compaction(&["summary"]),
            user("between"),
            &torn[..torn.len() / 2],
            crate::util::hash::hex(&torn.as_bytes()[..torn.len() / 2]),
            user("after"),
        );
        let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(s.messages.len(), 3, "{:?}", s.messages);
    }

    #[test]
    fn garbage_in_the_middle_is_an_error_with_its_line() {
        let text = format!("{META}\nnot json\n{}\n", user("hi"));
        let err = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap_err();
        assert!(err.to_string().starts_with("f.jsonl:2: "), "{err}");
    }

    #[test]
    fn an_acknowledged_torn_line_is_skipped() {
        let text = format!(
            "{META}\n{{\"type\":\"mess\n{{\"type\":\"event\",\"ts\":\"t\",\"event\":\"torn_line\",\"line\":2}}\n{}\n",
            user("again")
        );
        let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(s.messages.len(), 1);
        assert_eq!(s.torn_tail, None);
    }

    #[test]
    fn a_torn_line_acknowledged_by_hash_is_skipped_where_edits_moved_it() {
        let fragment = "{\"type\":\"mess";
        let hash = crate::util::hash::hex(fragment.as_bytes());
        // Acknowledged as line 2; a line added above by hand moved it to 3.
        let text = format!(
            "{META}\n{}\n{fragment}\n{{\"type\":\"event\",\"ts\":\"t\",\"event\":\"torn_line\",\"line\":2,\"hash\":\"{hash}\"}}\n",
            user("added by hand")
        );
        let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(s.messages.len(), 1);
        // Another bad line at the acknowledged number is still an error.
        let text = format!(
            "{META}\nnot json\n{{\"type\":\"event\",\"ts\":\"t\",\"event\":\"torn_line\",\"line\":2,\"hash\":\"{hash}\"}}\n"
        );
        let err = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap_err();
        assert!(err.to_string().starts_with("f.jsonl:2: "), "{err}");
    }

    #[test]
    fn a_tool_result_that_answers_no_call_is_skipped_with_a_warning() {
        let result = |id: &str| result(id, "echo");
        let text = [
            META.to_string(),
            user("x"),
            r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"echo","arguments":"{}"}]}}"#.to_string(),
            result("a"),
            result("a"),
            result("stranger"),
            user("y"),
            result("late"),
        ]
        .join("\n")
            + "\n";
        let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
        let tools: Vec<&str> = s
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool(r) => Some(r.tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(tools, ["a"]);
        assert_eq!(s.warnings.len(), 3, "{:?}", s.warnings);
        assert!(
            s.warnings[0].starts_with("f.jsonl:5: skipped a tool result for `a`"),
            "{:?}",
            s.warnings
        );
        assert!(s.warnings[2].starts_with("f.jsonl:8: "), "{:?}", s.warnings);
        assert!(s.unanswered.is_empty());
    }

    /// A file written before hermes renamed repeated ids: two calls under
    /// one id, each with its result. Both results stay, so each call is
    /// answered when the history is sent again.
    #[test]
    fn two_calls_under_one_id_keep_both_results() {
        let text = [
            META.to_string(),
            user("x"),
            r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"echo","arguments":"{\"text\":\"s1\"}"},{"id":"a","name":"echo","arguments":"{\"text\":\"s2\"}"}]}}"#.to_string(),
            result("a", "echo"),
            result("a", "echo"),
        ]
        .join("\n")
            + "\n";
        let s = parse(Path::new("f"), text.as_bytes()).unwrap();
        let results = s
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Tool(_)))
            .count();
        assert_eq!(results, 2);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert!(s.unanswered.is_empty());
        // A third call under that id with no result is still a call to repair.
        let text = text.replacen(
            r#"{\"text\":\"s2\"}"}"#,
            r#"{\"text\":\"s2\"}"},{"id":"a","name":"echo","arguments":"{}"}"#,
            1,
        );
        let s = parse(Path::new("f"), text.as_bytes()).unwrap();
        assert_eq!(s.unanswered.len(), 1, "{:?}", s.unanswered);
    }

    #[test]
    fn a_late_result_goes_back_to_its_round() {
        let result = |id: &str| result(id, "echo");
        // b's result could not be written; the run went on; a resume appended it.
        let text = [
            META.to_string(),
            user("x"),
            r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"echo","arguments":"{}"},{"id":"b","name":"echo","arguments":"{}"}]}}"#.to_string(),
            result("a"),
            user("y"),
            r#"{"type":"message","ts":"t","message":{"role":"assistant","content":"fine"}}"#.to_string(),
            result("b"),
        ]
        .join("\n")
            + "\n";
        let s = parse(Path::new("f"), text.as_bytes()).unwrap();
        let shape: Vec<String> = s
            .messages
            .iter()
            .map(|m| match m {
                Message::Tool(r) => format!("tool {}", r.tool_call_id),
                Message::User { content, .. } => format!("user {content}"),
                Message::Assistant { .. } => "assistant".into(),
                Message::System { .. } => "system".into(),
            })
            .collect();
        assert_eq!(
            shape,
            [
                "user x",
                "assistant",
                "tool a",
                "tool b",
                "user y",
                "assistant"
            ]
        );
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert!(s.unanswered.is_empty());
    }

    #[test]
    fn unanswered_tool_calls_are_reported() {
        let text = format!(
            "{META}\n{}\n{}\n",
            user("x"),
            r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"echo","arguments":"{}"},{"id":"b","name":"echo","arguments":"{}"}]}}"#
        ) + r#"{"type":"tool_result","ts":"t","tool_call_id":"a","name":"echo","content":"ok","is_error":false}"#
            + "\n";
        let s = parse(Path::new("f"), text.as_bytes()).unwrap();
        assert_eq!(s.unanswered.len(), 1);
        assert_eq!(s.unanswered[0].id, "b");
    }

    #[test]
    fn results_come_back_in_entry_order_whatever_order_they_were_written_in() {
        let result = |id: &str| result(id, "tool_call");
        let text = [
            META.to_string(),
            user("x"),
            r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"tool_call","arguments":"{}"},{"id":"b","name":"tool_call","arguments":"{}"},{"id":"c","name":"tool_call","arguments":"{}"}]}}"#.to_string(),
            result("c"),
            r#"{"type":"event","ts":"t","event":"tools","deferred":true}"#.to_string(),
            result("a"),
            result("b"),
            user("y"),
        ]
        .join("\n")
            + "\n";
        let s = parse(Path::new("f"), text.as_bytes()).unwrap();
        let ids: Vec<&str> = s.messages[2..5]
            .iter()
            .map(|m| match m {
                Message::Tool(r) => r.tool_call_id.as_str(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert!(matches!(s.messages[5], Message::User { .. }));
        assert_eq!(s.deferred, Some(true));
    }

    /// A session written before events were typed: it loads, and every record
    /// hermes wrote reads and writes back as the very same bytes.
    #[test]
    fn a_committed_earlier_session_still_loads_and_round_trips() {
        let text = include_str!("../../tests/fixtures/session-v1.jsonl");
        let s = parse(Path::new("session-v1.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(s.deferred, Some(true));
        assert_eq!(s.torn_tail, None, "the torn line was acknowledged");
        let roles: Vec<&str> = s
            .messages
            .iter()
            .map(|m| match m {
                Message::System { .. } => "system",
                Message::User { .. } => "user",
                Message::Assistant { .. } => "assistant",
                Message::Tool(_) => "tool",
            })
            .collect();
        assert_eq!(
            roles,
            ["system", "user", "assistant", "tool", "tool", "assistant"]
        );
        let Message::Tool(first) = &s.messages[3] else {
            unreachable!()
        };
        assert_eq!(first.content, "alpha", "results come back in entry order");
        for (n, line) in text.lines().enumerate() {
            let Ok(rec) = serde_json::from_str::<Record>(line) else {
                assert_eq!(n + 1, 10, "only the torn line may fail to parse");
                continue;
            };
            if let Record::Event {
                event: SessionEvent::Unknown,
                ..
            } = rec
            {
                assert!(line.contains("some_later_event"));
                continue;
            }
            assert_eq!(serde_json::to_string(&rec).unwrap(), line, "line {}", n + 1);
        }
    }

    #[test]
    fn a_file_without_meta_is_not_a_session() {
        let err = parse(Path::new("f"), format!("{}\n", user("x")).as_bytes()).unwrap_err();
        assert!(matches!(err, SessionError::NotASession { .. }));
    }
}

#[cfg(test)]
mod properties {
    use crate::util::arbitrary::{config, text};
    use proptest::prelude::*;
    use std::path::Path;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn session_files_load_without_panicking(lines in prop::collection::vec(text(), 0..12), torn in any::<bool>()) {
            let meta = r#"{"type":"meta","version":1,"id":"s","created":"t","cwd":"/","provider":"p","model":"m","hermes_version":"0"}"#;
            let mut file = format!("{meta}\n");
            for l in &lines {
                file.push_str(&l.replace('\n', " "));
                file.push('\n');
            }
            if torn {
                file.pop();
            }
            let _ = crate::session::parse(Path::new("fuzz.jsonl"), file.as_bytes());
        }
    }
}
