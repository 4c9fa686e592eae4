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

/// `p` as its components read it: no `//`, no `.` after the first
/// component, no trailing `/` — borrowed when it already is.
pub(crate) fn plain(p: &Path) -> std::borrow::Cow<'_, Path> {
    use std::os::unix::ffi::OsStrExt;
    let b = p.as_os_str().as_bytes();
    let odd = b.windows(2).any(|w| w == b"//")
        || b.windows(3).any(|w| w == b"/./")
        || b.ends_with(b"/.")
        || (b.len() > 1 && b.ends_with(b"/"));
    if odd {
        std::borrow::Cow::Owned(p.components().collect())
    } else {
        std::borrow::Cow::Borrowed(p)
    }
}

/// Whether `path` is `prefix` or lies beneath it, both as [`plain`] leaves
/// them: as `Path::starts_with` answers, compared as text — the review
/// asks this a few dozen times for each file a command made, and walking
/// both paths' components each time was most of its time.
pub(crate) fn plain_under(path: &Path, prefix: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (p, q) = (path.as_os_str().as_bytes(), prefix.as_os_str().as_bytes());
    p.starts_with(q) && (p.len() == q.len() || p[q.len()] == b'/' || q.is_empty() || q == b"/")
}

/// Whether `path` is `prefix` or lies beneath it, as `Path::starts_with`.
pub(crate) fn is_under(path: &Path, prefix: &Path) -> bool {
    plain_under(&plain(path), &plain(prefix))
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
    match std::env::current_dir() {
        Ok(cwd) => shown_from(Path::new(p), &cwd),
        Err(_) => p.to_string(),
    }
}

/// `p` relative to `cwd` when it is inside it (as given or resolved), as
/// it is otherwise.
pub(crate) fn shown_from(path: &Path, cwd: &Path) -> String {
    let p = path.display().to_string();
    if !path.is_absolute() {
        return p;
    }
    let real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    for base in [cwd, real.as_path()] {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the text, the answer is `Path::starts_with`'s.
    #[test]
    fn is_under_answers_as_components_do() {
        let paths = [
            "", "/", "/a", "/a/", "/ab", "/a/b", "/a/b/", "/a//b", "/a/./b", "/a/.b", "/a/b/c",
            "a", "a/b", "./a", "/a/..", "/a/../b", "//a", "/.a", "/a/b/.", ".", "/a/.b/c",
            "/a/./.b", "./a/b", "/a/b//",
        ];
        for p in paths {
            for q in paths {
                assert_eq!(
                    is_under(Path::new(p), Path::new(q)),
                    Path::new(p).starts_with(q),
                    "{p:?} under {q:?}"
                );
            }
        }
    }
}
