//! What a change replaced, kept — the checkpoint `hermes rewind` puts
//! back (`hermes rewind`). A file kept as it was in the session's blob
//! folder: named by the hash of its bytes (a file kept by many turns
//! unchanged is kept once), written before the record that names it. Not
//! synced: what a crash of the machine itself takes is the turn's undo,
//! not the person's work.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// What stood at a path before a change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Before {
    /// Nothing: the change made it.
    Absent,
    /// A file: its bytes in the blob folder (`sha256:<hex>`) and its mode.
    File { data: String, mode: u32 },
    /// A symbolic link to `target`.
    Link { target: PathBuf },
}

/// A folder that stood before a change removed it or gave it another
/// mode, with the mode it had: a rewind makes it again and gives it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptFolder {
    pub path: PathBuf,
    pub mode: u32,
}

impl KeptFolder {
    pub(crate) fn of(path: &Path, m: &std::fs::Metadata) -> KeptFolder {
        KeptFolder {
            path: path.to_path_buf(),
            mode: m.mode() & 0o7777,
        }
    }
}

/// What a change left at its path, to tell later whether someone else
/// changed it since: the inode (an editor that saves by renaming makes a
/// new one), its modification time and size. Not the change time, which a
/// `chown` or another hard link moves without touching the content.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stamp {
    Absent,
    Present { ino: u64, mtime_ns: i64, size: u64 },
}

impl Stamp {
    pub(crate) fn of_meta(m: &std::fs::Metadata) -> Stamp {
        Stamp::Present {
            ino: m.ino(),
            mtime_ns: m.mtime().saturating_mul(1_000_000_000) + m.mtime_nsec(),
            size: m.len(),
        }
    }

    /// What stands at `path` now (a link itself, not what it points to).
    pub(crate) fn of(path: &Path) -> Stamp {
        match std::fs::symlink_metadata(path) {
            Ok(m) => Stamp::of_meta(&m),
            Err(_) => Stamp::Absent,
        }
    }
}

/// The blob folder checkpoints are kept in, and the most bytes one turn
/// may keep there (0: no bound).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Keep {
    dir: PathBuf,
    max: u64,
    /// A file that is its only name may be kept by a second name: the
    /// change replaces it by a rename. Not when something else writes it
    /// (an editor may write the same inode in place).
    link: bool,
}

/// Bytes kept since the turn began: one count for a process, whose one
/// conversation at a time has one turn at a time (its subagents' changes
/// are their parent's turn's).
static THIS_TURN: AtomicU64 = AtomicU64::new(0);

/// A turn begins: nothing kept in it yet.
pub(crate) fn new_turn() {
    THIS_TURN.store(0, Ordering::Relaxed);
}

/// Past the bound: not kept.
fn over(max: u64) -> std::io::Error {
    std::io::Error::other(format!(
        "this turn's checkpoints would pass [checkpoints] max_mb ({} MB)",
        max >> 20
    ))
}

/// `size` more bytes for this turn, if they fit under `max`.
fn take(max: u64, size: u64) -> std::io::Result<()> {
    if max == 0 {
        return Ok(());
    }
    let before = THIS_TURN.fetch_add(size, Ordering::Relaxed);
    if max > 0 && before.saturating_add(size) > max {
        THIS_TURN.fetch_sub(size, Ordering::Relaxed);
        return Err(over(max));
    }
    Ok(())
}

/// The folder in the blob folder where each running hermes lists what it
/// kept and has not named in a session record yet (a turn not ended, a
/// question about held files open): `hermes sessions prune` in another
/// process spares those, whatever their age.
const IN_USE: &str = ".in-use";

/// This process' list, opened once.
static IN_USE_FILE: std::sync::Mutex<Option<(PathBuf, std::fs::File)>> =
    std::sync::Mutex::new(None);

/// Adds `hash` to this process' list in `dir`.
fn mark_in_use(dir: &Path, hash: &str) {
    #[cfg(target_os = "linux")]
    {
        use std::io::Write;
        let mut f = IN_USE_FILE.lock().unwrap_or_else(|e| e.into_inner());
        let mine = dir.join(IN_USE);
        if f.as_ref().is_none_or(|(d, _)| *d != mine) {
            let Some(mark) = super::orphans::mark_of(std::process::id() as libc::pid_t) else {
                return;
            };
            let _ = crate::util::private::create_dir_all(&mine);
            let opened = crate::util::private::no_follow(
                std::fs::OpenOptions::new().create(true).append(true),
            )
            .open(mine.join(mark.replace(':', "-")));
            match opened {
                Ok(file) => *f = Some((mine, file)),
                Err(_) => return,
            }
        }
        if let Some((_, file)) = f.as_mut() {
            let _ = file.write_all(format!("{hash}\n").as_bytes());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (dir, hash);
}

/// The blobs running hermes processes kept and may not have named yet; the
/// lists of processes that are gone are removed.
pub(crate) fn in_use(dir: &Path) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    let Ok(entries) = std::fs::read_dir(dir.join(IN_USE)) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        #[cfg(target_os = "linux")]
        {
            let alive = name
                .split_once('-')
                .and_then(|(pid, _)| pid.parse::<libc::pid_t>().ok())
                .and_then(super::orphans::mark_of)
                .is_some_and(|m| m.replace(':', "-") == name);
            if !alive {
                let _ = std::fs::remove_file(e.path());
                continue;
            }
        }
        if let Ok(text) = std::fs::read_to_string(e.path()) {
            out.extend(text.lines().map(str::to_string));
        }
    }
    out
}

/// How a record names kept bytes, as it names a large image's.
const NAMED: &str = "sha256:";

impl Keep {
    pub(crate) fn new(dir: PathBuf, max_mb: u64) -> Keep {
        Keep {
            dir,
            max: max_mb << 20,
            link: true,
        }
    }

    /// The same, always by a copy.
    pub(crate) fn copying(self) -> Keep {
        Keep {
            link: false,
            ..self
        }
    }

    fn blob(&self, hash: &str) -> PathBuf {
        self.dir.join(format!("{hash}.file"))
    }

    /// The bytes a record names, if they are still here and unaltered.
    pub(crate) fn bytes_of(&self, data: &str) -> Option<Vec<u8>> {
        let hash = data.strip_prefix(NAMED)?;
        let bytes = std::fs::read(self.blob(hash)).ok()?;
        (crate::util::hash::sha256_hex(&bytes) == hash).then_some(bytes)
    }

    /// Whether the file at `path` holds the bytes `data` names: hashed a
    /// block at a time, never read whole.
    pub(crate) fn holds(&self, data: &str, path: &Path) -> bool {
        let Some(hash) = data.strip_prefix(NAMED) else {
            return false;
        };
        std::fs::File::open(path)
            .and_then(crate::util::hash::sha256_hex_of)
            .is_ok_and(|h| h == hash)
    }

    /// The blob `data` names, opened once it is found unaltered: a
    /// restore copies from it (the kernel's copy, never in memory).
    pub(crate) fn open(&self, data: &str) -> Result<std::fs::File, String> {
        let gone = || "its kept copy is gone from the blob folder".to_string();
        let hash = data.strip_prefix(NAMED).ok_or_else(gone)?;
        let blob = self.blob(hash);
        if !self.holds(data, &blob) {
            return Err(if blob.exists() {
                "its kept copy in the blob folder was altered".into()
            } else {
                gone()
            });
        }
        std::fs::File::open(&blob).map_err(|e| e.to_string())
    }

    /// `bytes` (a file of `mode`) kept: what tests start from.
    #[cfg(test)]
    pub(crate) fn bytes(&self, bytes: &[u8], mode: u32) -> std::io::Result<Before> {
        let hash = crate::util::hash::sha256_hex(bytes);
        let blob = self.blob(&hash);
        if !blob.is_file() {
            take(self.max, bytes.len() as u64)?;
            crate::util::private::create_dir_all(&self.dir)?;
            let tmp = self.dir.join(format!(".{hash}.{}.tmp", std::process::id()));
            let written = (|| {
                let mut f = crate::util::private::options()
                    .create(true)
                    .truncate(true)
                    .write(true)
                    .open(&tmp)?;
                std::io::Write::write_all(&mut f, bytes)?;
                std::fs::rename(&tmp, &blob)
            })();
            if written.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            written?;
        }
        Ok(Before::File {
            data: format!("{NAMED}{hash}"),
            mode: mode & 0o7777,
        })
    }

    /// What stands at `path` (of metadata `meta`, not followed) kept,
    /// just before it is replaced or removed. A file that is its only
    /// name is kept by a second name (no copy); one with others, which
    /// could change it later, by a copy.
    pub(crate) fn path(&self, path: &Path, meta: &std::fs::Metadata) -> std::io::Result<Before> {
        let t = meta.file_type();
        if t.is_symlink() {
            return Ok(Before::Link {
                target: std::fs::read_link(path)?,
            });
        }
        if !t.is_file() {
            return Ok(Before::Absent);
        }
        // Larger than a whole turn may keep: not even read.
        if self.max > 0 && meta.len() > self.max {
            return Err(over(self.max));
        }
        // Hashed a block at a time: never the whole file in memory.
        let hash = crate::util::hash::sha256_hex_of(std::fs::File::open(path)?)?;
        let kept = Before::File {
            data: format!("{NAMED}{hash}"),
            mode: meta.permissions().mode() & 0o7777,
        };
        let blob = self.blob(&hash);
        mark_in_use(&self.dir, &hash);
        if blob.is_file() {
            return Ok(kept);
        }
        take(self.max, meta.len())?;
        crate::util::private::create_dir_all(&self.dir)?;
        if self.link && meta.nlink() == 1 && std::fs::hard_link(path, &blob).is_ok() {
            return Ok(kept);
        }
        let tmp = self.dir.join(format!(".{hash}.{}.tmp", std::process::id()));
        let copied = std::fs::copy(path, &tmp).and_then(|_| std::fs::rename(&tmp, &blob));
        if let Err(e) = copied {
            let _ = std::fs::remove_file(&tmp);
            THIS_TURN.fetch_sub(meta.len(), Ordering::Relaxed);
            return Err(e);
        }
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within the turn's bound a file is kept by a second name; past it,
    /// not at all (and said by the caller); the next turn starts again. A
    /// file kept twice unchanged is kept once.
    #[test]
    fn a_turn_keeps_up_to_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let keep = Keep::new(dir.path().join("blobs"), 1);
        let file = |name: &str, fill: u8| {
            let p = dir.path().join(name);
            std::fs::write(&p, vec![fill; 700 << 10]).unwrap();
            let m = std::fs::symlink_metadata(&p).unwrap();
            (p, m)
        };
        new_turn();
        let (a, ma) = file("a", b'a');
        let kept = keep.path(&a, &ma).unwrap();
        let Before::File { data, .. } = &kept else {
            panic!("{kept:?}")
        };
        assert_eq!(keep.bytes_of(data).unwrap(), vec![b'a'; 700 << 10]);
        assert_eq!(
            std::fs::metadata(&a).unwrap().nlink(),
            2,
            "a second name, no copy"
        );
        // Unchanged, it is the same blob, and costs nothing more.
        assert_eq!(
            keep.path(&a, &std::fs::symlink_metadata(&a).unwrap())
                .unwrap(),
            kept
        );
        let (b, mb) = file("b", b'b');
        let err = keep.path(&b, &mb).unwrap_err();
        assert!(err.to_string().contains("max_mb (1 MB)"), "{err}");
        new_turn();
        assert!(keep.path(&b, &mb).is_ok());
    }
}
