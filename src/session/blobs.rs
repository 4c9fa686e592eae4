//! Large images kept beside the session, not in its lines. A screenshot is
//! megabytes of base64; in the line it would make every later read of the
//! file (listing, `--continue`, a fork) read it again, and each copy (a
//! fork, a compaction keeping the newest messages) hold it again. So an
//! image over [`INLINE_MAX`] is written once, as its decoded bytes, to
//! `<sessions>/blobs/<sha256>.<ext>`, and the record holds
//! `"data":"sha256:<hex>"` — never base64, whose alphabet has no `:`.
//! Loading puts the bytes back, so every request is what it was. The blob
//! is written before the line that names it, so a crash never leaves a
//! name without its bytes; `sessions rm` and `prune` remove the blobs no
//! session names any more.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use base64::Engine;

use super::record::Record;
use super::SessionError;
use crate::model::{Image, Message};

/// The most base64 an image keeps in its line (48 KiB of image).
pub(super) const INLINE_MAX: usize = 64 * 1024;

/// How a record names a blob in place of the base64.
const NAMED: &str = "sha256:";

/// A blob no session names is removed only once it is this old: a running
/// hermes writes the blob a moment before the line that names it.
const SWEEP_AFTER: Duration = Duration::from_secs(10 * 60);

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The blob folder of the sessions folder `sessions_dir`.
pub(crate) fn folder(sessions_dir: &Path) -> PathBuf {
    sessions_dir.join("blobs")
}

fn file_of(dir: &Path, hash: &str, image: &Image) -> PathBuf {
    // The extension is for a person opening the folder; the hash is the name.
    dir.join(format!("{hash}.{}", image.format()))
}

fn stowable(image: &Image) -> bool {
    image.data.len() > INLINE_MAX && !image.data.starts_with(NAMED)
}

fn record_images(record: &Record) -> Vec<&Image> {
    match record {
        Record::Message { message, .. } => message.images().iter().collect(),
        Record::ToolResult { result, .. } => result.images.iter().collect(),
        Record::Compaction { messages, .. } => messages.iter().flat_map(|m| m.images()).collect(),
        _ => Vec::new(),
    }
}

fn record_images_mut(record: &mut Record) -> Vec<&mut Image> {
    match record {
        Record::Message { message, .. } => message.images_mut().into_iter().flatten().collect(),
        Record::ToolResult { result, .. } => result.images.iter_mut().collect(),
        Record::Compaction { messages, .. } => messages
            .iter_mut()
            .filter_map(Message::images_mut)
            .flatten()
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `record` holds an image to keep outside its line.
pub(super) fn wanted(record: &Record) -> bool {
    record_images(record).into_iter().any(stowable)
}

/// Writes each large image of `record` to `dir` (once: a blob already
/// there is the same bytes by its name) and names it in the record.
/// An image whose base64 would not come back the same from its bytes
/// (not the canonical form) stays in the line, so the replay is exact.
pub(super) fn stow(mut record: Record, dir: &Path) -> Result<Record, SessionError> {
    for image in record_images_mut(&mut record) {
        if !stowable(image) {
            continue;
        }
        let Ok(bytes) = B64.decode(&image.data) else {
            continue;
        };
        if B64.encode(&bytes) != image.data {
            continue;
        }
        let hash = crate::util::hash::sha256_hex(&bytes);
        let path = file_of(dir, &hash, image);
        if !path.is_file() {
            crate::util::private::replace(&path, &bytes).map_err(|e| SessionError::io(&path, e))?;
        }
        image.data = format!("{NAMED}{hash}");
    }
    Ok(record)
}

/// Puts each named image's bytes back from `dir`. A blob that is gone or
/// altered leaves its image out, with a warning: the conversation goes on
/// without it rather than not at all.
pub(super) fn resolve(messages: &mut [Message], dir: &Path, warnings: &mut Vec<String>) {
    for m in messages {
        let Some(images) = m.images_mut() else {
            continue;
        };
        images.retain_mut(|image| {
            let Some(hash) = image.data.strip_prefix(NAMED) else {
                return true;
            };
            let path = file_of(dir, hash, image);
            match super::read_own(&path) {
                Ok(bytes) if crate::util::hash::sha256_hex(&bytes) == hash => {
                    image.data = B64.encode(&bytes);
                    true
                }
                Ok(_) => {
                    warnings.push(format!(
                        "{}: the image's bytes were changed; it is left out",
                        path.display()
                    ));
                    false
                }
                Err(e) => {
                    warnings.push(format!("{e}; that image is left out"));
                    false
                }
            }
        });
    }
}

/// Removes the blobs no session file in `sessions_dir` names (and that are
/// older than [`SWEEP_AFTER`]); returns how many.
pub(crate) fn sweep(sessions_dir: &Path) -> usize {
    let dir = folder(sessions_dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    // Read first: a blob a running hermes keeps after this look is newer
    // than the cut-off, one it kept before is on its list.
    let in_use = crate::sandbox::kept::in_use(&dir);
    let named: HashSet<String> = super::index::all_files(sessions_dir)
        .iter()
        .filter_map(|p| super::read_own(p).ok())
        .flat_map(|bytes| names_in(&bytes))
        .chain(in_use)
        .collect();
    let cutoff = SystemTime::now().checked_sub(SWEEP_AFTER);
    let mut removed = 0;
    for e in entries.flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        let hash = name.split('.').next().unwrap_or_default();
        // A checkpoint kept as a second hard link has the file's old
        // modification time: the running hermes that kept it lists it
        // (`in_use`) until the record that names it is written.
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| cutoff.is_some_and(|c| t < c));
        if !named.contains(hash) && old && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The blob hashes a session file's bytes name.
fn names_in(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let key = format!("\"data\":\"{NAMED}");
    text.match_indices(&key)
        .filter_map(|(at, _)| {
            let rest = &text[at + key.len()..];
            let hash = rest.get(..64)?;
            hash.bytes()
                .all(|b| b.is_ascii_hexdigit())
                .then(|| hash.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolResult;

    fn big_png() -> Image {
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.extend((0..100_000u32).map(|i| (i * 7 % 251) as u8));
        Image {
            media_type: "image/png".into(),
            data: B64.encode(&bytes),
        }
    }

    fn result(images: Vec<Image>) -> Record {
        Record::ToolResult {
            ts: "t".into(),
            result: ToolResult {
                tool_call_id: "c".into(),
                name: "shot".into(),
                content: "[image]".into(),
                is_error: false,
                images,
            },
        }
    }

    #[test]
    fn a_large_image_leaves_the_line_and_comes_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let small = Image {
            media_type: "image/png".into(),
            data: "iVBORw0KGgo=".into(),
        };
        let record = result(vec![big_png(), small.clone()]);
        assert!(wanted(&record));
        let stowed = stow(record.clone(), dir.path()).unwrap();
        let line = serde_json::to_string(&stowed).unwrap();
        assert!(line.len() < 400, "{line}");
        assert!(!wanted(&stowed), "a named image is not stowed again");
        assert_eq!(names_in(line.as_bytes()).len(), 1, "{line}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let Record::ToolResult { result: r, .. } = stowed else {
            unreachable!()
        };
        let mut messages = vec![Message::Tool(r)];
        let mut warnings = Vec::new();
        resolve(&mut messages, dir.path(), &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        let Record::ToolResult {
            result: original, ..
        } = record
        else {
            unreachable!()
        };
        assert_eq!(messages, [Message::Tool(original)]);
    }

    #[test]
    fn a_blob_gone_or_altered_leaves_its_image_out_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let stowed = stow(result(vec![big_png(), big_png()]), dir.path()).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "once");
        let Record::ToolResult { result: r, .. } = stowed else {
            unreachable!()
        };
        let blob = std::fs::read_dir(dir.path()).unwrap().next().unwrap();
        std::fs::write(blob.unwrap().path(), b"other bytes").unwrap();
        let mut messages = vec![Message::Tool(r)];
        let mut warnings = Vec::new();
        resolve(&mut messages, dir.path(), &mut warnings);
        assert!(messages[0].images().is_empty());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("were changed"), "{warnings:?}");
    }

    /// A checkpoint's bytes are named as an image's are: the sweep keeps
    /// them while a session names them, and removes them with it.
    #[test]
    fn a_checkpoint_is_named_like_an_image() {
        let hash = "ab".repeat(32);
        let record = Record::Event {
            ts: "t".into(),
            event: crate::session::SessionEvent::FilesChanged {
                tool_call_id: "c".into(),
                changes: crate::sandbox::Changes {
                    files: vec![crate::sandbox::FileChange {
                        path: "/p/a.txt".into(),
                        kind: crate::sandbox::ChangeKind::Modified,
                        bytes: Some(3),
                        held: None,
                        before: Some(crate::sandbox::kept::Before::File {
                            data: format!("sha256:{hash}"),
                            mode: 0o644,
                        }),
                        after: None,
                        stripped: None,
                    }],
                    failed: Vec::new(),
                    made_folders: Vec::new(),
                    kept_folders: Vec::new(),
                },
            },
        };
        let line = serde_json::to_string(&record).unwrap();
        assert_eq!(names_in(line.as_bytes()), [hash], "{line}");
    }

    /// A file kept by a second hard link keeps its old modification time,
    /// and no session names it while its question is open: `sessions
    /// prune` in another process spares it all the same; the list of a
    /// hermes that is gone goes.
    #[test]
    fn a_blob_kept_for_an_open_question_is_spared() {
        let sessions = tempfile::tempdir().unwrap();
        let dir = folder(sessions.path());
        let work = tempfile::tempdir().unwrap();
        let file = work.path().join("a.txt");
        std::fs::write(&file, "old bytes\n").unwrap();
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(an_hour_ago)
            .unwrap();
        let keep = crate::sandbox::kept::Keep::new(dir.clone(), 0);
        let meta = std::fs::symlink_metadata(&file).unwrap();
        let kept = keep.path(&file, &meta).unwrap();
        let crate::sandbox::kept::Before::File { data, .. } = kept else {
            panic!("{kept:?}");
        };
        let hash = data.strip_prefix("sha256:").unwrap().to_string();
        assert!(crate::sandbox::kept::in_use(&dir).contains(&hash));
        std::fs::write(dir.join(".in-use/1-1"), "cd".repeat(32)).unwrap();
        assert_eq!(sweep(sessions.path()), 0);
        assert!(dir.join(format!("{hash}.file")).exists());
        assert!(!dir.join(".in-use/1-1").exists(), "a gone hermes' list");
    }

    #[test]
    fn base64_that_would_not_come_back_the_same_stays_in_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut odd = big_png();
        odd.data.push('\n');
        let stowed = stow(result(vec![odd.clone()]), dir.path()).unwrap();
        assert_eq!(record_images(&stowed), [&odd]);
    }
}
