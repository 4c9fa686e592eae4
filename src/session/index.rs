//! Finding sessions on disk: by id, the latest for a directory, and the listing.
//! Files live at `sessions/YYYY/MM/DD/<id>.jsonl` and ids start with the date, so a
//! lookup by id reads one folder, not the whole tree.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::record::{Meta, Record};
use super::SessionError;
use crate::model::Message;
use crate::util::time::{entropy, Utc};

/// `20261129-201235-a1b2c3`: sortable by creation time, unique enough per machine.
pub(crate) fn new_id(now: &Utc) -> String {
    format!("{}-{:06x}", now.compact(), entropy() & 0xff_ffff)
}

pub(crate) fn path_for(sessions_dir: &Path, id: &str) -> PathBuf {
    let (y, m, d) = (&id[0..4], &id[4..6], &id[6..8]);
    sessions_dir
        .join(y)
        .join(m)
        .join(d)
        .join(format!("{id}.jsonl"))
}

/// Where a session named by the person (`--session-id`) is made: under
/// the day its id names, when it starts with one, else under today.
pub(crate) fn path_for_named(sessions_dir: &Path, id: &str, now: &Utc) -> PathBuf {
    if id.len() >= 8 && id.as_bytes()[..8].iter().all(u8::is_ascii_digit) {
        return path_for(sessions_dir, id);
    }
    path_for(sessions_dir, &format!("{}{id}", &now.compact()[..8]))
        .with_file_name(format!("{id}.jsonl"))
}

/// Whether `id` may name a session: letters, digits, `.`, `_`, `-`, up to
/// 64, not starting with a dot.
pub(crate) fn valid_name(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The file of the session whose id is exactly `id`, if there is one.
pub(crate) fn find_exact(sessions_dir: &Path, id: &str) -> Option<PathBuf> {
    if well_formed(id) {
        let p = path_for(sessions_dir, id);
        if p.is_file() {
            return Some(p);
        }
    }
    all_files(sessions_dir)
        .into_iter()
        .find(|p| p.file_stem().and_then(|s| s.to_str()) == Some(id))
}

/// The sessions folder of a file at the place [`path_for`] gives, or
/// `None` for a file elsewhere.
pub(super) fn folder_of(file: &Path) -> Option<&Path> {
    let mut up = file.ancestors().skip(1);
    let dated = [2, 2, 4].iter().all(|len| {
        up.next()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.len() == *len && n.bytes().all(|b| b.is_ascii_digit()))
    });
    up.next().filter(|_| dated)
}

fn well_formed(id: &str) -> bool {
    id.len() >= 8
        && id.is_char_boundary(8)
        && id[..8].bytes().all(|b| b.is_ascii_digit())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The file of session `id`; a unique prefix of an id also works.
pub(crate) fn find(sessions_dir: &Path, id: &str) -> Result<PathBuf, SessionError> {
    let id = id.trim();
    if well_formed(id) {
        let exact = path_for(sessions_dir, id);
        if exact.is_file() {
            return Ok(exact);
        }
    }
    let matches: Vec<PathBuf> = all_files(sessions_dir)
        .into_iter()
        .filter(|p| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| !id.is_empty() && s.starts_with(id))
        })
        .collect();
    let count = matches.len();
    let mut found = matches.into_iter();
    match (found.next(), count) {
        (Some(one), 1) => Ok(one),
        (None, _) => Err(SessionError::NotFound { id: id.to_string() }),
        _ => Err(SessionError::Ambiguous {
            id: id.to_string(),
            count,
        }),
    }
}

/// Every session file, oldest first (ids sort by time).
pub(super) fn all_files(sessions_dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(sessions_dir.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if depth < 3 && p.is_dir() {
                stack.push((p, depth + 1));
            } else if depth == 3
                && p.extension().is_some_and(|x| x == "jsonl")
                && crate::util::private::own_file(&p)
            {
                out.push(p);
            }
        }
    }
    out.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    out
}

#[derive(Debug, Clone)]
pub(crate) struct Summary {
    pub path: PathBuf,
    pub meta: Meta,
    /// The first user message, the session's de-facto title; a fork's says
    /// so first (`(fork of ID) …`).
    pub title: String,
}

impl Summary {
    fn new(path: &Path, meta: Meta, first: &str) -> Summary {
        let title = match &meta.forked_from {
            Some(from) if first.is_empty() => format!("(fork of {from})"),
            Some(from) => format!("(fork of {from}) {first}"),
            None => first.to_string(),
        };
        Summary {
            path: path.to_path_buf(),
            meta,
            title,
        }
    }
}

/// Reads a file's head only: the meta line and the first user message.
pub(super) fn summary(path: &Path) -> Option<Summary> {
    let file = std::fs::File::open(path).ok()?;
    let mut meta = None;
    for line in BufReader::new(file).lines().take(64) {
        let Ok(rec) = serde_json::from_str::<Record>(&line.ok()?) else {
            continue;
        };
        match rec {
            Record::Meta(m) => meta = Some(m),
            Record::Message {
                message: Message::User { content, .. },
                ..
            } => return Some(Summary::new(path, meta?, &content)),
            _ => {}
        }
    }
    meta.map(|meta| Summary::new(path, meta, ""))
}

/// Summaries of every session, newest first (by creation time to the millisecond;
/// ids alone order only to the second).
pub(crate) fn list(sessions_dir: &Path) -> Vec<Summary> {
    let mut rows: Vec<Summary> = all_files(sessions_dir)
        .iter()
        .filter_map(|p| summary(p))
        .collect();
    rows.sort_by(|a, b| (&b.meta.created, &b.meta.id).cmp(&(&a.meta.created, &a.meta.id)));
    rows
}

/// The sessions whose id starts with `prefix`, newest first.
pub(crate) fn matching(sessions_dir: &Path, prefix: &str) -> Vec<Summary> {
    let prefix = prefix.trim();
    list(sessions_dir)
        .into_iter()
        .filter(|s| !prefix.is_empty() && s.meta.id.starts_with(prefix))
        .collect()
}

/// The newest session started in `cwd`.
pub(crate) fn latest_in(sessions_dir: &Path, cwd: &Path) -> Option<Summary> {
    let cwd = cwd.to_string_lossy();
    list(sessions_dir).into_iter().find(|s| s.meta.cwd == cwd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_map_to_dated_folders() {
        let id = new_id(&Utc::from_unix(1_796_000_000, 0));
        assert!(id.starts_with("20261130-005320-"), "{id}");
        let p = path_for(Path::new("/s"), &id);
        assert!(p.starts_with("/s/2026/11/30"), "{}", p.display());
        assert_eq!(folder_of(&p), Some(Path::new("/s")));
        assert_eq!(folder_of(Path::new("/tmp/a/b/c/x.jsonl")), None);
        assert!(!well_formed("../../etc"));
    }
}
