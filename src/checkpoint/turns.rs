//! A session's turns as `hermes rewind` sees them: each prompt the person
//! sent, the line it is on, and every file the turn's tool calls changed
//! (its subagents' included) with what it was before.

use std::path::{Path, PathBuf};

use crate::model::Message;
use crate::sandbox::kept::KeptFolder;
use crate::sandbox::FileChange;
use crate::session::{Record, SessionError, SessionEvent};

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Turn {
    /// 1-based, in the order the prompts were sent.
    pub number: usize,
    /// The line of the session file its prompt is on.
    pub line: u64,
    pub prompt: String,
    /// What its calls changed and landed, in order.
    pub changes: Vec<FileChange>,
    /// The folders its calls made where nothing was, outermost first.
    pub made_folders: Vec<PathBuf>,
    /// The folders its calls removed or gave another mode, as they were.
    pub kept_folders: Vec<KeptFolder>,
    /// A rewind since took its conversation back, or its files.
    pub conversation_rewound: bool,
    pub code_rewound: bool,
    /// A compaction after it: its conversation is summarised, and cannot be
    /// rewound to (its files can).
    pub compacted: bool,
    /// What rewinds of later turns left at the paths they put back (the
    /// latest last).
    pub rewound_since: Vec<crate::session::RestoredFile>,
}

/// The turns of the session file at `path`.
pub(crate) fn of_session(path: &Path) -> Result<Vec<Turn>, SessionError> {
    let bytes = crate::session::read_own(path)?;
    Ok(read(&bytes))
}

/// The turns in a session file's bytes. Lines that do not parse are passed
/// over: what the loader refuses, `--continue` says.
pub(crate) fn read(bytes: &[u8]) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = i as u64 + 1;
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let agent = raw.starts_with(crate::session::AGENT_PREFIX);
        let record = if agent {
            serde_json::from_slice::<serde_json::Value>(raw)
                .ok()
                .and_then(|mut v| {
                    v.as_object_mut()?.remove("agent");
                    serde_json::from_value::<Record>(v).ok()
                })
        } else {
            serde_json::from_slice::<Record>(raw).ok()
        };
        let Some(record) = record else {
            continue;
        };
        match record {
            Record::Message {
                message: Message::User { content, .. },
                ..
            } if !agent => turns.push(Turn {
                number: turns.len() + 1,
                line,
                prompt: content,
                changes: Vec::new(),
                made_folders: Vec::new(),
                kept_folders: Vec::new(),
                conversation_rewound: false,
                code_rewound: false,
                compacted: false,
                rewound_since: Vec::new(),
            }),
            Record::Event {
                event: SessionEvent::FilesChanged { changes, .. },
                ..
            } => {
                if let Some(t) = turns.last_mut() {
                    t.changes
                        .extend(changes.files.into_iter().filter(|f| f.held.is_none()));
                    t.made_folders.extend(changes.made_folders);
                    t.kept_folders.extend(changes.kept_folders);
                }
            }
            Record::Compaction { .. } if !agent => {
                for t in &mut turns {
                    t.compacted = true;
                }
            }
            Record::Rewind {
                line: to,
                code,
                conversation,
                restored,
                ..
            } => {
                for t in turns.iter_mut() {
                    if t.line >= to {
                        t.code_rewound |= code;
                        t.conversation_rewound |= conversation;
                    } else {
                        t.rewound_since.extend(restored.iter().cloned());
                    }
                }
            }
            _ => {}
        }
    }
    turns
}

/// Where each changed path goes back to: for the turns given (oldest
/// first), each path's state before the first of them changed it, and the
/// stamp the last of them left.
pub(crate) fn undo_of(turns: &[&Turn]) -> Vec<Undo> {
    // A map from path to its place: linear in the number of changes (a
    // turn of 40 000 files is rewound in the time it took).
    let mut at: std::collections::HashMap<&std::path::Path, usize> =
        std::collections::HashMap::new();
    let mut out: Vec<Undo> = Vec::new();
    for c in turns.iter().flat_map(|t| &t.changes) {
        match at.get(c.path.as_path()) {
            Some(&i) => out[i].left = c.after,
            None => {
                at.insert(&c.path, out.len());
                out.push(Undo {
                    path: c.path.clone(),
                    before: c.before.clone(),
                    left: c.after,
                    rewound: None,
                });
            }
        }
    }
    // The latest rewind since the first of them that put a path back.
    if let Some(first) = turns.first() {
        for r in &first.rewound_since {
            if let Some(&i) = at.get(r.path.as_path()) {
                out[i].rewound = Some(r.left);
            }
        }
    }
    out
}

/// One path to put back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Undo {
    pub path: PathBuf,
    /// None: nothing was kept of it (it cannot be undone).
    pub before: Option<super::Before>,
    pub left: Option<super::Stamp>,
    /// What a rewind of a later turn left at it, if one put it back.
    pub rewound: Option<super::Stamp>,
}
