//! Session files and their folder as this user's own: a file is read only
//! when it is ours and no link, the folder made owner-only before use.

use std::path::Path;

use super::error::SessionError;

/// A session's id: its file's name without `.jsonl`.
pub(crate) fn id_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A session file's bytes — only this user's own file, never through a
/// symlink: in a folder others could write to, a planted file must not be
/// loaded as a conversation and continued.
pub(crate) fn read_own(path: &Path) -> Result<Vec<u8>, SessionError> {
    use std::io::Read;
    if !crate::util::private::own_file(path) {
        return Err(SessionError::NotOurs {
            path: path.to_path_buf(),
        });
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    let mut bytes = Vec::new();
    crate::util::private::no_follow(&mut opts)
        .open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| SessionError::io(path, e))?;
    Ok(bytes)
}

/// Makes the sessions folder safe before any session in it is read or
/// written: another user's folder is refused; ours, if others may read or
/// write it, is made owner-only — the repair is returned as a warning.
pub fn guard_folder(dir: &Path) -> Result<Option<String>, SessionError> {
    crate::util::private::own_folder(dir).map_err(|e| SessionError::UnsafeFolder {
        dir: dir.to_path_buf(),
        why: e.to_string(),
    })
}
