//! Putting files back as they were before a turn. A path someone changed
//! since the turn left it (its stamp no longer the one recorded) is left
//! as it is and named — unless forced: the person's own work is never
//! overwritten by an undo they did not see coming.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::turns::{self, Turn, Undo};
use super::{Before, Keep, KeptFolder, Stamp};

/// Why a rewind cannot be done as asked.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum Refused {
    #[error("the session has no turn {n}; its turns are 1 to {count}")]
    NoTurn { n: usize, count: usize },
    #[error(
        "turn {n} was compacted into a summary since: its conversation cannot be rewound to \
         (code only puts its files back)"
    )]
    Compacted { n: usize },
}

/// A rewind to before turn `n`, worked out: which line its record names
/// and what goes back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plan {
    pub n: usize,
    pub line: u64,
    pub code: bool,
    pub conversation: bool,
    pub undo: Vec<Undo>,
    /// The folders those turns made, outermost first.
    pub folders: Vec<PathBuf>,
    /// The folders those turns removed or gave another mode, each as it
    /// was before the first of them did.
    pub kept_folders: Vec<KeptFolder>,
    /// How many turns there are.
    pub turns: usize,
}

impl Plan {
    /// Back to before turn `n` of `all`: its files and every later turn's
    /// not already put back (`code`), its conversation (`conversation`).
    pub(crate) fn new(
        all: &[Turn],
        n: usize,
        code: bool,
        conversation: bool,
    ) -> Result<Plan, Refused> {
        let turn = all.get(n.wrapping_sub(1)).ok_or(Refused::NoTurn {
            n,
            count: all.len(),
        })?;
        if conversation && turn.compacted {
            return Err(Refused::Compacted { n });
        }
        let later: Vec<&Turn> = all
            .iter()
            .filter(|t| t.number >= n && !t.code_rewound)
            .collect();
        Ok(Plan {
            n,
            line: turn.line,
            code,
            conversation,
            undo: if code {
                turns::undo_of(&later)
            } else {
                Vec::new()
            },
            folders: if code {
                later
                    .iter()
                    .flat_map(|t| t.made_folders.iter().cloned())
                    .collect()
            } else {
                Vec::new()
            },
            kept_folders: if code {
                let mut seen = std::collections::HashSet::new();
                later
                    .iter()
                    .flat_map(|t| &t.kept_folders)
                    .filter(|k| seen.insert(k.path.clone()))
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            },
            turns: all.len(),
        })
    }

    /// Puts the files back ([`restore`]), then removes the folders the
    /// turns made, the innermost first, each once it is empty — one that
    /// holds something the turns did not put there stays — and makes the
    /// folders they removed again, each given back its mode (the innermost
    /// first, so a read-only folder is filled before it is closed).
    pub(crate) fn restore(&self, keep: &Keep, force: bool) -> Restored {
        let mut out = restore(&self.undo, keep, force);
        let stood: std::collections::HashSet<&PathBuf> =
            self.kept_folders.iter().map(|k| &k.path).collect();
        let stood = |dir: &PathBuf| stood.contains(dir);
        for dir in self.folders.iter().rev().filter(|d| !stood(d)) {
            if std::fs::remove_dir(dir).is_ok() {
                out.folders.push(dir.clone());
            }
        }
        let mut kept: Vec<&KeptFolder> = self.kept_folders.iter().collect();
        kept.sort_by_key(|k| k.path.components().count());
        for k in &kept {
            match std::fs::symlink_metadata(&k.path) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => out
                    .failed
                    .push((k.path.clone(), "a file stands where the folder was".into())),
                Err(_) => match std::fs::create_dir_all(&k.path) {
                    Ok(()) => out.remade.push(k.path.clone()),
                    Err(e) => out.failed.push((k.path.clone(), e.to_string())),
                },
            }
        }
        for k in kept.iter().rev() {
            if std::fs::symlink_metadata(&k.path).is_ok_and(|m| m.is_dir()) {
                let _ = std::fs::set_permissions(&k.path, std::fs::Permissions::from_mode(k.mode));
            }
        }
        out
    }

    /// What it will do, for the question before it.
    pub(crate) fn describe(&self) -> String {
        let (n, last) = (self.n, self.turns);
        let dropped = if n == last {
            format!("drop turn {n} from the conversation")
        } else {
            format!("drop turns {n}–{last} from the conversation")
        };
        let files = format!("put {} file(s) back as before turn {n}", self.undo.len());
        match (self.code, self.conversation) {
            (true, true) => format!("{files} and {dropped}"),
            (true, false) => files,
            _ => dropped,
        }
    }

    /// The record that says it was done — with what each file put back
    /// was left as (`restored`) — appended, nothing rewritten.
    pub(crate) fn record(&self, restored: &Restored) -> crate::session::Record {
        crate::session::Record::Rewind {
            ts: crate::util::time::Utc::now().rfc3339(),
            line: self.line,
            code: self.code,
            conversation: self.conversation,
            restored: restored
                .files
                .iter()
                .map(|p| crate::session::RestoredFile {
                    path: p.clone(),
                    left: Stamp::of(p),
                })
                .collect(),
        }
    }

    /// What was done, a line each, paths as `shown` gives them.
    pub(crate) fn report(&self, r: &Restored, shown: impl Fn(&Path) -> String) -> Vec<String> {
        let mut out: Vec<String> = r
            .files
            .iter()
            .map(|p| format!("restored {}", shown(p)))
            .collect();
        out.extend(r.kept.iter().map(|p| {
            format!(
                "kept {} — changed since the turn; --force puts it back too",
                shown(p)
            )
        }));
        out.extend(
            r.failed
                .iter()
                .map(|(p, why)| format!("not restored {}: {why}", shown(p))),
        );
        out.extend(
            r.folders
                .iter()
                .map(|p| format!("removed folder {}", shown(p))),
        );
        out.extend(
            r.remade
                .iter()
                .map(|p| format!("made folder {} again", shown(p))),
        );
        if self.conversation {
            out.push(match self.n {
                1 => "the conversation is back to before turn 1: the next request sends none of its turns".to_string(),
                n => format!(
                    "the conversation is back to before turn {n}: the next request sends turns 1–{}",
                    n - 1
                ),
            });
        }
        out
    }
}

/// What putting files back did.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Restored {
    /// Put back as they were (or removed, where nothing was).
    pub files: Vec<PathBuf>,
    /// Changed since the turn: left as they are.
    pub kept: Vec<PathBuf>,
    /// Could not be put back: the path and why.
    pub failed: Vec<(PathBuf, String)>,
    /// Folders the turns made, removed (innermost first).
    pub folders: Vec<PathBuf>,
    /// Folders the turns removed, made again (outermost first).
    pub remade: Vec<PathBuf>,
}

/// Puts each of `undo` back from `keep`; `force`: over changes made since.
pub(crate) fn restore(undo: &[Undo], keep: &Keep, force: bool) -> Restored {
    let mut out = Restored::default();
    // The latest first: a folder's files go before the folder would.
    for u in undo.iter().rev() {
        let Some(before) = &u.before else {
            out.failed.push((
                u.path.clone(),
                "no copy of it was kept (past [checkpoints] max_mb, the sandbox in Landlock-only \
                 mode, or an older hermes)"
                    .into(),
            ));
            continue;
        };
        let now = Stamp::of(&u.path);
        // A folder the turn made where this was (its files, put back just
        // before, gone from it) is the turn's too.
        let made_folder = u.left == Some(Stamp::Absent)
            && std::fs::read_dir(&u.path).is_ok_and(|mut d| d.next().is_none());
        // As a later turn's rewind put it back, untouched since: hermes'
        // own work, not the person's.
        let rewound = u.rewound == Some(now);
        if !force && u.left != Some(now) && !rewound && !made_folder {
            if now != already(before, &u.path, keep) {
                out.kept.push(u.path.clone());
            }
            continue;
        }
        match put_back(&u.path, before, keep) {
            Ok(()) => out.files.push(u.path.clone()),
            Err(e) => out.failed.push((u.path.clone(), e)),
        }
    }
    out.files.reverse();
    out.kept.reverse();
    out
}

/// `now` when what stands at `path` already is `before` (a second rewind,
/// or the person undid it by hand): nothing to keep or say.
fn already(before: &Before, path: &Path, keep: &Keep) -> Stamp {
    let same = match before {
        Before::Absent => std::fs::symlink_metadata(path).is_err(),
        Before::Link { target } => std::fs::read_link(path).is_ok_and(|t| &t == target),
        Before::File { data, .. } => {
            std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) && keep.holds(data, path)
        }
    };
    if same {
        Stamp::of(path)
    } else {
        Stamp::Absent
    }
}

/// Puts `before` back at `path`, opened beneath from `/` without following
/// a link: a folder a command swapped for a link since the turn is refused,
/// not written through.
fn put_back(path: &Path, before: &Before, keep: &Keep) -> Result<(), String> {
    use crate::util::beneath;
    let e = |e: std::io::Error| {
        if beneath::is_link_error(&e) {
            "a link stands on the way to it now; hermes does not write through one".to_string()
        } else {
            e.to_string()
        }
    };
    match before {
        Before::Absent => beneath::remove(path, false).or_else(|err| {
            if err.raw_os_error() == Some(libc::EISDIR) {
                Ok(())
            } else {
                Err(e(err))
            }
        }),
        Before::Link { target } => {
            beneath::remove(path, true).map_err(e)?;
            beneath::symlink(path, target).map_err(e)
        }
        Before::File { data, mode } => {
            // Read first: a missing blob leaves what stands there.
            let mut blob = keep.open(data)?;
            // In place where a file of its own stands: a 40 000-file
            // rewind makes and frees no inode (benchmarks.md).
            if beneath::overwrite_from(path, &mut blob, *mode).map_err(e)? {
                return Ok(());
            }
            // A folder or a link standing there goes (a link itself, not
            // what it points to); a file is replaced whole.
            let odd = std::fs::symlink_metadata(path)
                .is_ok_and(|m| m.is_dir() || m.file_type().is_symlink());
            if odd {
                beneath::remove(path, true).map_err(e)?;
            }
            beneath::replace_from(path, &mut blob, Some(*mode)).map_err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn undo(path: PathBuf, before: Before, left: Stamp) -> Undo {
        Undo {
            path,
            before: Some(before),
            left: Some(left),
            rewound: None,
        }
    }

    /// A file with its mode, a link, a file made, a file where a folder
    /// was made: each back as it was; one edited since kept, unless forced.
    #[test]
    fn what_was_kept_comes_back_and_a_later_edit_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let keep = Keep::new(dir.path().join("blobs"), 0);
        let at = |p: &str| dir.path().join("w").join(p);
        std::fs::create_dir_all(at("folder")).unwrap();
        let script = keep.bytes(b"#!/bin/sh\n", 0o755).unwrap();
        let notes = keep.bytes(b"mine\n", 0o644).unwrap();
        std::fs::write(at("made.txt"), "new").unwrap();
        std::fs::write(at("edited.txt"), "model's").unwrap();
        let left = Stamp::of(&at("edited.txt"));
        std::fs::write(at("edited.txt"), "the person's, longer").unwrap();
        let list = vec![
            undo(at("run.sh"), script, Stamp::Absent),
            undo(
                at("link"),
                Before::Link {
                    target: "run.sh".into(),
                },
                Stamp::Absent,
            ),
            undo(at("made.txt"), Before::Absent, Stamp::of(&at("made.txt"))),
            // A file the turn turned into a folder (now empty).
            undo(at("folder"), notes.clone(), Stamp::Absent),
            undo(at("edited.txt"), notes.clone(), left),
        ];
        let back = restore(&list, &keep, false);
        assert!(back.failed.is_empty(), "{back:?}");
        assert_eq!(back.kept, [at("edited.txt")]);
        assert_eq!(std::fs::read(at("run.sh")).unwrap(), b"#!/bin/sh\n");
        let mode = std::fs::metadata(at("run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        assert_eq!(std::fs::read_link(at("link")).unwrap(), Path::new("run.sh"));
        assert!(!at("made.txt").exists());
        assert_eq!(std::fs::read(at("folder")).unwrap(), b"mine\n");
        assert_eq!(
            std::fs::read_to_string(at("edited.txt")).unwrap(),
            "the person's, longer"
        );
        // Forced, the edit goes too; a blob gone is said, not guessed.
        let forced = restore(&list[4..], &keep, true);
        assert_eq!(forced.files, [at("edited.txt")]);
        assert_eq!(std::fs::read(at("edited.txt")).unwrap(), b"mine\n");
        std::fs::remove_dir_all(dir.path().join("blobs")).unwrap();
        std::fs::write(at("edited.txt"), "again").unwrap();
        let gone = restore(&list[4..], &keep, true);
        assert_eq!(gone.failed.len(), 1, "{gone:?}");
        assert_eq!(std::fs::read(at("edited.txt")).unwrap(), b"again");
    }
}
