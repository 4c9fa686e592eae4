//! `--fork`: continuing a session in a copy of it, for when another hermes
//! holds the original (or to branch a conversation). The copy has its own id
//! and meta record; every other complete line is copied byte for byte, so it
//! replays exactly what the original would, and a `forked` event names the
//! original.

use std::path::{Path, PathBuf};

use super::record::{Meta, Record, SessionEvent};
use super::{index, SessionError};
use crate::util::time::Utc;

/// Copies the session at `src` into a new session under `sessions_dir`;
/// returns the new file. The original is only read.
pub(crate) fn fork(src: &Path, sessions_dir: &Path) -> Result<PathBuf, SessionError> {
    let bytes = super::read_own(src)?;
    let loaded = super::parse(src, &bytes)?;
    let now = Utc::now();
    let id = index::new_id(&now);
    let path = index::path_for(sessions_dir, &id);
    let meta = Record::Meta(Meta {
        id: id.clone(),
        created: now.rfc3339(),
        forked_from: Some(loaded.meta.id.clone()),
        ..loaded.meta.clone()
    });
    let forked = Record::Event {
        ts: now.rfc3339(),
        event: SessionEvent::Forked {
            from: loaded.meta.id.clone(),
        },
    };
    let encode =
        |r: &Record| serde_json::to_vec(r).map_err(|e| SessionError::Encode(e.to_string()));
    let mut out = encode(&meta)?;
    out.push(b'\n');
    // Complete lines only (a torn tail stays behind); the original's meta
    // line is replaced, so line numbers — which `torn_line` events name —
    // are the same in the copy.
    let complete = match bytes.iter().rposition(|b| *b == b'\n') {
        Some(end) => &bytes[..=end],
        None => &[][..],
    };
    let mut lines = complete.split_inclusive(|b| *b == b'\n');
    lines.next();
    for line in lines {
        out.extend_from_slice(line);
    }
    out.extend(encode(&forked)?);
    out.push(b'\n');
    if let Some(dir) = path.parent() {
        crate::util::private::create_dir_all(dir).map_err(|e| SessionError::io(dir, e))?;
    }
    let mut file = crate::util::private::options()
        .create_new(true)
        .write(true)
        .open(&path)
        .map_err(|e| SessionError::io(&path, e))?;
    std::io::Write::write_all(&mut file, &out).map_err(|e| SessionError::io(&path, e))?;
    Ok(path)
}
