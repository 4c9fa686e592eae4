//! Where no overlay can be mounted (`sandbox = "landlock"`, a kernel
//! without user namespaces), a command's writes land as it makes them. The
//! review still runs, on what can be seen: the writable roots' metadata
//! before the command and after. It cannot hold anything back — it is
//! already there — so what it would have held is named as changed
//! unreviewed, and the call fails saying so; everything else is recorded as
//! the overlay's review records it.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::held::{Held, Judge, Shape};
use super::review::{ChangeKind, Changes, FileChange};

/// Past this many entries the roots are not snapshotted (a home folder's
/// worth): the result says the review did not run.
const MAX_ENTRIES: usize = 200_000;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Seen {
    len: u64,
    mtime: i64,
    mtime_ns: i64,
    ctime: i64,
    ctime_ns: i64,
    ino: u64,
    mode: u32,
}

impl Seen {
    fn of(m: &std::fs::Metadata) -> Seen {
        Seen {
            len: m.len(),
            mtime: m.mtime(),
            mtime_ns: m.mtime_nsec(),
            ctime: m.ctime(),
            ctime_ns: m.ctime_nsec(),
            ino: m.ino(),
            mode: m.mode(),
        }
    }

    fn shape(&self) -> Shape {
        match self.mode & libc::S_IFMT {
            libc::S_IFDIR => Shape::Folder,
            libc::S_IFLNK => Shape::Link,
            libc::S_IFREG => Shape::File {
                executable: self.mode & 0o111 != 0,
            },
            _ => Shape::Other,
        }
    }
}

/// The roots' files as they were.
pub(crate) struct Snapshot {
    roots: Vec<PathBuf>,
    skip: Vec<PathBuf>,
    seen: HashMap<PathBuf, Seen>,
}

fn walk(dir: &Path, skip: &[PathBuf], out: &mut HashMap<PathBuf, Seen>) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return true;
    };
    for e in entries.flatten() {
        let p = e.path();
        if skip.iter().any(|s| p.starts_with(s)) {
            continue;
        }
        let Ok(m) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        out.insert(p.clone(), Seen::of(&m));
        if out.len() > MAX_ENTRIES {
            return false;
        }
        if m.is_dir() && !walk(&p, skip, out) {
            return false;
        }
    }
    true
}

impl Snapshot {
    /// The roots' metadata; `None` when there is too much of it.
    pub(crate) fn take(roots: &[PathBuf], skip: &[PathBuf]) -> Option<Snapshot> {
        let mut seen = HashMap::new();
        for r in roots.iter().filter(|r| r.is_dir()) {
            if !walk(r, skip, &mut seen) {
                return None;
            }
        }
        Some(Snapshot {
            roots: roots.to_vec(),
            skip: skip.to_vec(),
            seen,
        })
    }

    /// What changed since, judged as the overlay's review judges; a held
    /// change is recorded with why, though it has landed.
    pub(crate) fn changes(&self, rules: &Held<'_>) -> Changes {
        let mut now = HashMap::new();
        for r in self.roots.iter().filter(|r| r.is_dir()) {
            walk(r, &self.skip, &mut now);
        }
        let mut judge = Judge::new(rules);
        let root_of = |p: &Path| {
            self.roots
                .iter()
                .filter(|r| p.starts_with(r))
                .max_by_key(|r| r.components().count())
                .cloned()
                .unwrap_or_default()
        };
        let mut files = Vec::new();
        for (p, after) in &now {
            let before = self.seen.get(p);
            let kind = match before {
                None => ChangeKind::Created,
                Some(b) if b == after => continue,
                // A folder whose entries changed: its files say what.
                Some(_) if after.shape() == Shape::Folder => continue,
                Some(_) => ChangeKind::Modified,
            };
            if after.shape() == Shape::Folder && kind == ChangeKind::Created {
                continue;
            }
            let root = root_of(p);
            let held = judge.why(&root, &root, p, after.shape(), before.map(Seen::shape));
            files.push(FileChange {
                path: p.clone(),
                kind,
                bytes: (after.shape() != Shape::Link).then_some(after.len),
                held: held.map(str::to_string),
                // The command wrote in place: nothing was kept first.
                before: None,
                after: None,
                stripped: None,
            });
        }
        for (p, before) in &self.seen {
            if now.contains_key(p) || before.shape() == Shape::Folder {
                continue;
            }
            let held = judge.why_removed(&root_of(p), p);
            files.push(FileChange {
                path: p.clone(),
                kind: ChangeKind::Deleted,
                bytes: (before.shape() != Shape::Link).then_some(before.len),
                held: held.map(str::to_string),
                // The command wrote in place: nothing was kept first.
                before: None,
                after: None,
                stripped: None,
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Changes {
            files,
            failed: Vec::new(),
            made_folders: Vec::new(),
            kept_folders: Vec::new(),
        }
    }
}
