//! Git as git sees it, for the review: which folders git would use as a
//! git directory once a command's changes land (the real folder and the
//! command's layer together — a directory shaped over several commands,
//! the working folder itself, a bare repository, a worktree's or a
//! submodule's), what may land in one (an allowlist of what git only
//! reads as data), and what its config makes git read or run elsewhere
//! ([`super::git_config`]). Everything else in a git directory is held:
//! a list of dangerous places is always one place short.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::util::git_config::{self, gitfile_target, global_configs, Named};

pub(crate) const GIT: &str =
    "in a git directory, and not one of the objects, refs or HEAD-like files git only reads as data";
pub(crate) const BECOMING: &str =
    "would make a folder that already holds other files (a config, hooks) a git directory";
pub(crate) const RUNS: &str =
    "a file git's config makes git read as config or run (hooks folder, include, attributes, a program)";

/// The top-level files of a git directory that git reads as data only.
const DATA_FILES: &[&str] = &[
    "HEAD",
    "index",
    "packed-refs",
    "shallow",
    "description",
    "COMMIT_EDITMSG",
    "TAG_EDITMSG",
    "NOTES_EDITMSG",
    "MERGE_MSG",
    "MERGE_MODE",
    "SQUASH_MSG",
    "AUTO_MERGE",
    "gc.log",
    "gc.pid",
    "FETCH_HEAD",
];

/// Folders of a git directory whose every file is data.
const DATA_FOLDERS: &[&str] = &["objects", "refs", "logs", "rr-cache", "lfs"];

/// Whether `rest` (a path inside a git directory) may land.
pub(crate) fn is_data(rest: &[&OsStr]) -> bool {
    let Some(first) = rest.first().and_then(|f| f.to_str()) else {
        return false;
    };
    if DATA_FOLDERS.contains(&first) {
        // Other object stores git would read as its own.
        let alternates = first == "objects"
            && rest.get(1).is_some_and(|n| *n == "info")
            && rest
                .get(2)
                .is_some_and(|n| *n == "alternates" || *n == "http-alternates");
        return !alternates;
    }
    rest.len() == 1
        && (DATA_FILES.contains(&first)
            || (first.ends_with("_HEAD")
                && first.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
            || first.starts_with("sharedindex.")
            || (first.ends_with(".lock") && !first.starts_with("config")))
}

/// One review's view: the root landed into, the command's layer over it.
pub(crate) struct Layers<'a> {
    pub root: &'a Path,
    pub upper: &'a Path,
}

impl Layers<'_> {
    /// `p` in the command's layer, when `p` lies in the root.
    fn upper_of(&self, p: &Path) -> Option<PathBuf> {
        p.strip_prefix(self.root).ok().map(|r| self.upper.join(r))
    }

    /// Whether something stands at `p` once the change lands (a deletion
    /// counted as standing: the safe side).
    fn after(&self, p: &Path) -> bool {
        std::fs::symlink_metadata(p).is_ok()
            || self
                .upper_of(p)
                .is_some_and(|u| std::fs::symlink_metadata(u).is_ok())
    }

    fn is_folder_after(&self, p: &Path) -> bool {
        let folder = |q: &Path| std::fs::symlink_metadata(q).is_ok_and(|m| m.is_dir());
        folder(p) || self.upper_of(p).is_some_and(|u| folder(&u))
    }

    /// A file's texts as it stands and as the command left it.
    fn texts(&self, p: &Path) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_to_string(p).into_iter().collect();
        if let Some(u) = self.upper_of(p) {
            if std::fs::symlink_metadata(&u).is_ok_and(|m| m.is_file()) {
                out.extend(std::fs::read_to_string(u));
            }
        }
        out
    }
}

/// What git would find at a folder.
#[derive(Debug, Clone, Copy)]
struct Found {
    /// A git directory once the change lands.
    git: bool,
    /// ... that was not one before, though other files stood in it.
    becoming: bool,
}

/// One review's memo of git directories and what their configs name.
#[derive(Default)]
pub(crate) struct GitView {
    found: HashMap<PathBuf, Found>,
    repos: HashMap<PathBuf, Vec<(PathBuf, PathBuf)>>,
    named: HashMap<PathBuf, Named>,
}

fn shaped(has: impl Fn(&str) -> bool) -> bool {
    has("HEAD") && (has("objects") || has("refs") || has("commondir"))
}

impl GitView {
    /// Why the change at `path` does not land, as git sees it.
    pub(crate) fn why(
        &mut self,
        layers: &Layers<'_>,
        home: Option<&Path>,
        path: &Path,
    ) -> Option<&'static str> {
        let names: Vec<&OsStr> = path.iter().collect();
        let mut at = PathBuf::new();
        for (i, n) in names.iter().enumerate().take(names.len().saturating_sub(1)) {
            at.push(n);
            let f = self.found(layers, &at);
            if f.git {
                let rest = &names[i + 1..];
                // The folder the review lands into is a linked worktree's
                // own git directory (`worktrees/NAME`, a `--worktree`
                // session's): what is data there is judged from it — the
                // loop looks at it again as the git directory it is.
                let own_worktree = rest.len() > 2
                    && rest[0] == "worktrees"
                    && layers.root.starts_with(at.join(rest[0]).join(rest[1]));
                if !own_worktree && !is_data(rest) {
                    return Some(GIT);
                }
                if f.becoming {
                    return Some(BECOMING);
                }
            }
        }
        // Every repository this path is in: what its config (and the
        // person's global one) makes git read or run.
        let mut at = PathBuf::new();
        for n in &names[..names.len().saturating_sub(1)] {
            at.push(n);
            for (dir, top) in self.repos_at(layers, &at) {
                if self.named(layers, home, &dir, &top).covers(path) {
                    return Some(RUNS);
                }
            }
        }
        None
    }

    fn found(&mut self, layers: &Layers<'_>, dir: &Path) -> Found {
        if let Some(f) = self.found.get(dir) {
            return *f;
        }
        // A path beneath a `.git` is beneath a folder of that name.
        let named = dir.file_name().is_some_and(|n| n == ".git");
        let git = named || shaped(|n| layers.after(&dir.join(n)));
        let becoming = git && !named && !shaped(|n| dir.join(n).exists()) && {
            std::fs::read_dir(dir).is_ok_and(|d| {
                d.flatten()
                    .any(|e| !is_data(&[e.file_name().as_os_str()]) && !is_marker(&e.file_name()))
            })
        };
        let f = Found { git, becoming };
        self.found.insert(dir.to_path_buf(), f);
        f
    }

    /// The git directories (and the folder their hooks run in) that git
    /// finds at `dir`: its `.git` folder, the target of its `.git` file or
    /// link, or `dir` itself when it is one.
    fn repos_at(&mut self, layers: &Layers<'_>, dir: &Path) -> Vec<(PathBuf, PathBuf)> {
        if let Some(r) = self.repos.get(dir) {
            return r.clone();
        }
        let mut out = Vec::new();
        let dot = dir.join(".git");
        match std::fs::symlink_metadata(&dot) {
            Ok(m) if m.is_dir() => out.push((dot.clone(), dir.to_path_buf())),
            Ok(m) if m.is_symlink() => {
                if let Ok(t) = std::fs::canonicalize(&dot) {
                    out.push((t, dir.to_path_buf()));
                }
            }
            Ok(_) => {
                if let Some(t) = gitfile_target(&dot) {
                    out.push((t, dir.to_path_buf()));
                }
            }
            Err(_) => {
                if layers.is_folder_after(&dot) {
                    out.push((dot, dir.to_path_buf()));
                }
            }
        }
        if self.found(layers, dir).git {
            out.push((dir.to_path_buf(), dir.to_path_buf()));
        }
        self.repos.insert(dir.to_path_buf(), out.clone());
        out
    }

    /// What the config of the git directory `dir` (its own, its common
    /// one's, the person's global ones, and all they include) names,
    /// relative names read from `top` and from any `core.worktree`.
    fn named(
        &mut self,
        layers: &Layers<'_>,
        home: Option<&Path>,
        dir: &Path,
        top: &Path,
    ) -> &Named {
        let key = dir.join("\0").join(top);
        if !self.named.contains_key(&key) {
            let mut files = vec![dir.join("config"), dir.join("config.worktree")];
            for text in layers.texts(&dir.join("commondir")) {
                let common = crate::util::path::normalize(&dir.join(text.trim()));
                files.push(common.join("config"));
                files.push(common.join("config.worktree"));
            }
            files.extend(global_configs(home));
            let read = |p: &Path| layers.texts(p);
            let mut tops = vec![top.to_path_buf()];
            for f in &files {
                for text in read(f) {
                    for e in git_config::entries(&text) {
                        if e.section == "core" && e.key == "worktree" {
                            tops.push(crate::util::path::normalize(&dir.join(&e.value)));
                        }
                    }
                }
            }
            let mut named = Named::default();
            for t in &tops {
                let cx = git_config::Context { home, top: t };
                for f in &files {
                    git_config::collect(f, &cx, &read, &mut named, 0);
                }
            }
            self.named.insert(key.clone(), named);
        }
        &self.named[&key]
    }
}

/// The names that make a folder a git directory.
fn is_marker(n: &OsStr) -> bool {
    ["HEAD", "objects", "refs", "commondir"]
        .iter()
        .any(|m| n == *m)
}

#[cfg(test)]
#[path = "git_view_tests.rs"]
mod tests;
