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
    /// The folder the session last worked in: where it began, or the
    /// worktree its last `--worktree` run was in.
    pub worked_in: String,
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
                    || (line.starts_with(br#"{"type":"event""#) && is_kept_event(line)))
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
    let mut worked_in = None;
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
            Record::Event {
                event: SessionEvent::Worktree { path, .. },
                ..
            } => worked_in = Some(path),
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
        worked_in: worked_in.unwrap_or_else(|| meta.cwd.clone()),
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
/// The events read from before the last compaction too: the deferral
/// decision, and which folder the session works in.
fn is_kept_event(line: &[u8]) -> bool {
    let has = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
    line.len() < 512 && (has(br#""event":"tools""#) || has(br#""event":"worktree""#))
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
#[path = "load_tests.rs"]
mod tests;

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
