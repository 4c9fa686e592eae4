//! What one turn changed, as a unified diff (`/diff N`): each path from
//! what stood before the turn's first change of it to what stood after its
//! last — the copy the next turn that changed it kept, or the file as it is
//! now when no later turn did.

use std::path::Path;

use super::turns::Turn;
use super::{Before, Keep};

/// The largest file diffed; past it, the change is only named.
const MAX_DIFFED: usize = 2 << 20;

/// One side of a path's change, as text.
enum Side {
    Absent,
    Text(String),
    /// Bytes that are not text: said, not diffed.
    Binary,
    /// A symbolic link, by its target.
    Link(String),
    /// No copy was kept (past the turn's bound, or kept off).
    NotKept,
}

impl Side {
    fn of_before(b: Option<&Before>, keep: &Keep) -> Side {
        match b {
            None => Side::NotKept,
            Some(Before::Absent) => Side::Absent,
            Some(Before::Link { target }) => Side::Link(target.display().to_string()),
            Some(Before::File { data, .. }) => match keep.bytes_of(data) {
                Some(bytes) => Side::of_bytes(bytes),
                None => Side::NotKept,
            },
        }
    }

    fn now(path: &Path) -> Side {
        match std::fs::symlink_metadata(path) {
            Err(_) => Side::Absent,
            Ok(m) if m.file_type().is_symlink() => Side::Link(
                std::fs::read_link(path)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default(),
            ),
            Ok(m) if m.is_dir() => Side::Binary,
            Ok(_) => match std::fs::read(path) {
                Ok(bytes) => Side::of_bytes(bytes),
                Err(_) => Side::NotKept,
            },
        }
    }

    fn of_bytes(bytes: Vec<u8>) -> Side {
        if bytes.len() > MAX_DIFFED {
            return Side::Binary;
        }
        match String::from_utf8(bytes) {
            Ok(t) if !t.contains('\0') => Side::Text(t),
            _ => Side::Binary,
        }
    }
}

/// The diff of turn `n` of `all`, every path it changed in the order it
/// first changed them, named as `shown` says; `Err` for a turn that does
/// not exist.
pub(crate) fn of_turn(
    all: &[Turn],
    n: usize,
    keep: &Keep,
    shown: impl Fn(&Path) -> String,
) -> Result<String, String> {
    let Some(turn) = all.iter().find(|t| t.number == n) else {
        return Err(format!(
            "there is no turn {n}; this session has {} (/rewind lists them)",
            all.len()
        ));
    };
    let mut out = String::new();
    if turn.code_rewound {
        out.push_str(&format!(
            "# turn {n}'s changes were rewound since; this is what it had done\n"
        ));
    }
    // What a later turn first did to each path: its `before` is what this
    // turn left.
    let mut first_later: std::collections::HashMap<&Path, &crate::sandbox::FileChange> =
        std::collections::HashMap::new();
    for l in all.iter().filter(|t| t.number > n).flat_map(|t| &t.changes) {
        first_later.entry(&l.path).or_insert(l);
    }
    let mut seen: std::collections::HashSet<&Path> = std::collections::HashSet::new();
    for c in &turn.changes {
        if !seen.insert(&c.path) {
            continue;
        }
        let before = Side::of_before(c.before.as_ref(), keep);
        let later = first_later.get(c.path.as_path()).copied();
        let after = match later {
            Some(l) => Side::of_before(l.before.as_ref(), keep),
            None => Side::now(&c.path),
        };
        out.push_str(&path_diff(&shown(&c.path), before, after));
    }
    if seen.is_empty() {
        out.push_str(&format!("# turn {n} changed no files\n"));
    }
    Ok(out)
}

fn path_diff(name: &str, before: Side, after: Side) -> String {
    let text = |s: &Side| match s {
        Side::Text(t) => Some(t.clone()),
        Side::Absent => Some(String::new()),
        _ => None,
    };
    match (&before, &after) {
        (Side::NotKept, _) | (_, Side::NotKept) => {
            format!("# {name}: changed; no copy of it was kept, so its diff cannot be shown\n")
        }
        (Side::Binary, _) | (_, Side::Binary) => {
            format!("# {name}: a binary (or very large) file changed\n")
        }
        (Side::Link(a), Side::Link(b)) => format!("# {name}: a link, from {a} to {b}\n"),
        (Side::Link(a), _) => format!("# {name}: was a link to {a}\n"),
        (_, Side::Link(b)) => format!("# {name}: now a link to {b}\n"),
        _ => {
            let (old, new) = (
                text(&before).unwrap_or_default(),
                text(&after).unwrap_or_default(),
            );
            if old == new {
                return format!("# {name}: back as it was before the turn\n");
            }
            let (from, to) = match (&before, &after) {
                (Side::Absent, _) => ("/dev/null".to_string(), format!("b/{name}")),
                (_, Side::Absent) => (format!("a/{name}"), "/dev/null".to_string()),
                _ => (format!("a/{name}"), format!("b/{name}")),
            };
            similar::TextDiff::configure()
                .timeout(std::time::Duration::from_millis(300))
                .diff_lines(&old, &new)
                .unified_diff()
                .context_radius(3)
                .header(&from, &to)
                .to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{ChangeKind, FileChange};

    fn change(path: &Path, before: Option<Before>) -> FileChange {
        FileChange {
            path: path.to_path_buf(),
            kind: ChangeKind::Modified,
            bytes: None,
            held: None,
            before,
            after: None,
            stripped: None,
        }
    }

    fn turn(number: usize, changes: Vec<FileChange>) -> Turn {
        Turn {
            number,
            line: number as u64,
            prompt: String::new(),
            changes,
            made_folders: Vec::new(),
            kept_folders: Vec::new(),
            conversation_rewound: false,
            code_rewound: false,
            compacted: false,
            rewound_since: Vec::new(),
        }
    }

    #[test]
    fn a_turn_is_diffed_to_what_the_next_turn_found_not_to_the_file_now() {
        let dir = tempfile::tempdir().unwrap();
        let keep = Keep::new(dir.path().join("blobs"), 0);
        let path = dir.path().join("lib.rs");
        let v1 = keep.bytes(b"fn a() {}\n", 0o644).unwrap();
        let v2 = keep.bytes(b"fn b() {}\n", 0o644).unwrap();
        std::fs::write(&path, "fn c() {}\n").unwrap();
        let made = dir.path().join("new.rs");
        std::fs::write(&made, "new\n").unwrap();
        let all = vec![
            turn(
                1,
                vec![change(&path, Some(v1)), change(&made, Some(Before::Absent))],
            ),
            turn(2, vec![change(&path, Some(v2))]),
        ];
        let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
        let d = of_turn(&all, 1, &keep, name).unwrap();
        assert!(d.contains("-fn a() {}\n+fn b() {}\n"), "{d}");
        assert!(d.contains("--- /dev/null\n+++ b/new.rs\n"), "{d}");
        assert!(d.find("lib.rs") < d.find("new.rs"), "{d}");
        let d = of_turn(&all, 2, &keep, name).unwrap();
        assert!(d.contains("-fn b() {}\n+fn c() {}\n"), "{d}");
        assert!(of_turn(&all, 3, &keep, name)
            .unwrap_err()
            .contains("no turn 3"));
        let d = of_turn(&[turn(1, vec![change(&path, None)])], 1, &keep, name).unwrap();
        assert!(d.contains("no copy of it was kept"), "{d}");
    }
}
