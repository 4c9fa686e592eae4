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

/// A path as a person reads it on the screen: relative when it is inside
/// the working folder (as given or resolved), as it is otherwise. Rules and
/// hooks see built-ins' paths absolute; the screen need not.
pub(crate) fn shown_from_cwd(p: &str) -> String {
    let path = Path::new(p);
    if !path.is_absolute() {
        return p.to_string();
    }
    let Ok(cwd) = std::env::current_dir() else {
        return p.to_string();
    };
    let real = std::fs::canonicalize(&cwd).unwrap_or_else(|_| cwd.clone());
    for base in [&cwd, &real] {
        if let Ok(rel) = path.strip_prefix(base) {
            return if rel.as_os_str().is_empty() {
                ".".into()
            } else {
                rel.display().to_string()
            };
        }
    }
    p.to_string()
}
