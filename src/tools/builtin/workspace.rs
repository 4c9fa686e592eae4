//! The folder hermes works in, as the built-in tools see it: paths the
//! model gives are relative to it, and whether a path is inside it is
//! decided on the real path — symlinks resolved — so a link in the folder
//! that points out of it is outside.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub(crate) struct Workspace {
    /// The working folder as hermes was started in it.
    root: PathBuf,
    /// The same, symlinks resolved.
    real: PathBuf,
    /// More folders that count as inside (an editor's
    /// `additionalDirectories`), symlinks resolved.
    others: Vec<PathBuf>,
}

impl Workspace {
    pub(crate) fn new(root: &Path) -> Workspace {
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        let real = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
        Workspace {
            root,
            real,
            others: Vec::new(),
        }
    }

    /// With `roots` inside too: paths in them are written as the working
    /// folder's are (still relative to the working folder).
    pub(crate) fn with_roots(mut self, roots: &[PathBuf]) -> Workspace {
        self.others = roots
            .iter()
            .map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone()))
            .collect();
        self
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The other folders that count as inside (`--add-dir`, an editor's
    /// `additionalDirectories`).
    pub(crate) fn others(&self) -> &[PathBuf] {
        &self.others
    }

    /// The path a tool argument names: relative to the working folder,
    /// `.` and `..` resolved by their text; `~/` is the home folder.
    pub(crate) fn resolve(&self, path: &str) -> PathBuf {
        let p = match path.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default()
                .join(rest),
            None => PathBuf::from(path),
        };
        let joined = if p.is_absolute() {
            p
        } else {
            self.root.join(p)
        };
        crate::util::path::normalize(&joined)
    }

    /// Whether `path` (as [`Workspace::resolve`] gave it) is inside the
    /// working folder once every symlink on the way is followed — for a
    /// path that does not exist yet, its nearest existing ancestor's.
    pub(crate) fn contains(&self, path: &Path) -> bool {
        let roots = std::iter::once(&self.real).chain(&self.others);
        crate::util::inside::is_inside(path, roots)
    }

    /// `path` as the model and the user read it: relative when inside
    /// (as given, or resolved).
    pub(crate) fn shown(&self, path: &Path) -> String {
        let rel = path
            .strip_prefix(&self.root)
            .or_else(|_| path.strip_prefix(&self.real));
        match rel {
            Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_the_folders_and_links_out_of_it_are_outside() {
        let dir = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(out.path(), dir.path().join("link")).unwrap();
        let w = Workspace::new(dir.path());
        let inside = w.resolve("src/../notes.md");
        assert_eq!(inside, w.root().join("notes.md"));
        assert!(w.contains(&inside));
        assert!(w.contains(&w.resolve("new/dir/file.txt")), "not there yet");
        assert!(!w.contains(&w.resolve("../elsewhere")));
        assert!(!w.contains(&w.resolve("link/secret")), "a link out of it");
        assert!(!w.contains(&w.resolve("/etc/passwd")));
        assert_eq!(w.shown(&inside), "notes.md");
        // A folder added (an editor's additionalDirectories) is inside too,
        // and a link into it from the working folder with it.
        let w = w.with_roots(&[out.path().to_path_buf()]);
        assert!(w.contains(&w.resolve("link/secret")));
        assert!(w.contains(&out.path().join("new.txt")));
        assert!(!w.contains(&w.resolve("/etc/passwd")));
    }
}
