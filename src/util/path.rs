//! Paths resolved by their text.

use std::path::{Component, Path, PathBuf};

/// `p` with `.` and `..` resolved by their text: the path need not exist,
/// and a `..` must not climb out through a symlink.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `~/rest` as the home folder's `rest` (`$HOME`); any other text as it is.
pub(crate) fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(p),
    }
}
