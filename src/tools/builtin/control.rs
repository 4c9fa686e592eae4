//! The control paths: files that decide what runs later, or what is
//! approved — hermes' own folders (config, sessions, trust, tokens), the
//! config files read, the scripts hooks and servers run, a project's
//! `.hermes/`, git's config and hooks, and the user's git and shell start-up
//! files. A model that could change them could approve itself, or run
//! something outside the sandbox next time. So inside a writable folder they
//! stay read-only to `shell` (the sandbox binds them so), and a built-in
//! write to one is always asked, saying why.

use std::path::{Component, Path, PathBuf};

/// Start-up files in the home folder that run things or say what git runs.
const HOME_FILES: &[&str] = &[
    ".gitconfig",
    ".config/git",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".ssh",
    ".claude",
];

/// Why a write is always asked, by the kind of control path it touches.
const OWN: &str = "a write to hermes' own files (config, sessions, trust, tokens)";
const PROJECT: &str = "a write to the project's .hermes folder, which configures hermes";
const CLAUDE: &str =
    "a write to the project's .claude folder, whose settings and hooks hermes runs";
const SERVERS: &str = "a write to the project's MCP server list, whose servers hermes starts";
const GIT: &str = "a write to git's config or hooks, which decide what git runs";
const RUNS: &str = "a write to a file a hook, a server or your shell runs";

#[derive(Debug, Clone, Default)]
pub(crate) struct ControlPaths {
    /// hermes' own folders: created owner-only before a command may write
    /// where they would be, so they exist to be protected.
    own: Vec<PathBuf>,
    /// The config files read and the scripts their hooks and servers run.
    runs: Vec<PathBuf>,
    /// The home folder's start-up files.
    home: Vec<PathBuf>,
    /// Working folders inside hermes' own (a worktree hermes made): not
    /// control paths, though the folders around them are.
    open: Vec<PathBuf>,
}

impl ControlPaths {
    pub(crate) fn new(own: Vec<PathBuf>, runs: Vec<PathBuf>) -> ControlPaths {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .map(|h| {
                let mut files: Vec<PathBuf> = HOME_FILES.iter().map(|f| h.join(f)).collect();
                if let Some(x) = std::env::var_os("XDG_CONFIG_HOME") {
                    files.push(PathBuf::from(x).join("git"));
                }
                files
            })
            .unwrap_or_default();
        let plain = |list: Vec<PathBuf>| {
            list.into_iter()
                .map(|p| crate::util::path::plain(&p).into_owned())
                .collect()
        };
        ControlPaths {
            own: plain(own),
            runs: plain(runs),
            home: plain(home),
            open: Vec::new(),
        }
    }

    /// With the working folders among `working` that lie in hermes'
    /// worktrees folder `worktrees` (one of its own) open to the session.
    pub(crate) fn opening<'a>(
        mut self,
        worktrees: Option<&Path>,
        working: impl Iterator<Item = &'a Path>,
    ) -> ControlPaths {
        let Some(dir) = worktrees.map(crate::util::path::plain) else {
            return self;
        };
        for w in working {
            let w = crate::util::path::plain(w).into_owned();
            if crate::util::path::plain_under(&w, &dir) && w != *dir {
                self.open.push(w);
            }
        }
        self
    }

    /// hermes' own folders that lie under one of `writable` and do not
    /// exist yet, created owner-only so the sandbox can bind them.
    pub(crate) fn create_own_under(&self, writable: &[PathBuf]) {
        for dir in &self.own {
            if !dir.exists() && writable.iter().any(|w| dir.starts_with(w)) {
                let _ = crate::util::private::create_dir_all(dir);
            }
        }
    }

    /// Every control path for a command working in `root` (those that do
    /// not exist are left to the caller to skip).
    pub(crate) fn for_folder(&self, root: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for own in &self.own {
            match self.open.iter().find(|o| o.starts_with(own)) {
                Some(open) => around(own, open, &mut out),
                None => out.push(own.clone()),
            }
        }
        out.extend(self.runs.iter().chain(&self.home).cloned());
        out.extend(project(root));
        out
    }

    /// Why a built-in write to `path` (normalised, absolute) must be asked,
    /// when it is a control path or under one.
    pub(crate) fn why(&self, path: &Path) -> Option<&'static str> {
        // The lists are plain (see `new`): the path made so once, then
        // compared as text.
        let path = &*crate::util::path::plain(path);
        let under = |list: &[PathBuf]| list.iter().any(|p| crate::util::path::plain_under(path, p));
        if under(&self.own) && !under(&self.open) {
            return Some(OWN);
        }
        if under(&self.runs) || under(&self.home) {
            return Some(RUNS);
        }
        let names: Vec<&std::ffi::OsStr> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n),
                _ => None,
            })
            .collect();
        if names.iter().any(|n| *n == ".hermes") {
            return Some(PROJECT);
        }
        if names.iter().any(|n| *n == ".claude") {
            return Some(CLAUDE);
        }
        let server_list = match names.as_slice() {
            [.., last] if *last == ".mcp.json" => true,
            [.., dir, last] => *last == "mcp.json" && (*dir == ".cursor" || *dir == ".vscode"),
            _ => false,
        };
        if server_list {
            return Some(SERVERS);
        }
        if let Some(i) = names.iter().position(|n| *n == ".git") {
            // `.git` itself (a worktree's `gitdir:` file), its config and
            // hooks, and a submodule's under `.git/modules`.
            let rest = &names[i + 1..];
            let governs =
                |n: &std::ffi::OsStr| n == "config" || n == "config.worktree" || n == "hooks";
            if rest.is_empty() || rest.first().is_some_and(|n| governs(n)) {
                return Some(GIT);
            }
            if rest.first().is_some_and(|n| *n == "modules") && rest.iter().any(|n| governs(n)) {
                return Some(GIT);
            }
        }
        None
    }
}

/// What lies in `own` beside the way down to `open`: each entry of each
/// folder on the way but the next one — all of `own` but `open`.
fn around(own: &Path, open: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rest) = open.strip_prefix(own) else {
        return out.push(own.to_path_buf());
    };
    let mut at = own.to_path_buf();
    for next in rest.components() {
        for entry in std::fs::read_dir(&at).into_iter().flatten().flatten() {
            if entry.file_name() != next.as_os_str() {
                out.push(entry.path());
            }
        }
        at.push(next);
    }
}

/// A project's control paths for `root`: each `.hermes` from the
/// repository's root down to `root`, and git's config and hooks — of the
/// repository, a worktree's (`.git` a `gitdir:` file) and its common
/// folder, and each submodule's under `modules/`.
fn project(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let repo = root.ancestors().find(|d| d.join(".git").exists());
    let top = repo.unwrap_or(root);
    for dir in root.ancestors() {
        out.push(dir.join(".hermes"));
        out.push(dir.join(".claude"));
        for f in [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json"] {
            out.push(dir.join(f));
        }
        if dir == top {
            break;
        }
    }
    let Some(repo) = repo else { return out };
    let dot_git = repo.join(".git");
    let gitdir = if dot_git.is_file() {
        out.push(dot_git.clone());
        match gitdir_of(&dot_git) {
            Some(g) => g,
            None => return out,
        }
    } else {
        dot_git
    };
    let mut dirs = vec![gitdir.clone()];
    if let Ok(common) = std::fs::read_to_string(gitdir.join("commondir")) {
        dirs.push(crate::util::path::normalize(&gitdir.join(common.trim())));
    }
    for d in &dirs {
        out.extend(["config", "config.worktree", "hooks"].map(|f| d.join(f)));
        modules(&d.join("modules"), 0, &mut out);
    }
    out
}

/// The folder a `.git` file's `gitdir: PATH` line names.
fn gitdir_of(dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let base = dot_git.parent()?;
    Some(crate::util::path::normalize(&base.join(target)))
}

/// Submodules' config and hooks, a few levels deep.
fn modules(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > 3 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if !p.is_dir() {
            continue;
        }
        if p.join("config").is_file() {
            out.push(p.join("config"));
            out.push(p.join("hooks"));
            modules(&p.join("modules"), depth + 1, out);
        } else {
            // A submodule named with a slash (`libs/a`) nests a level.
            modules(&p, depth + 1, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repositorys_control_paths_and_why_writes_there_are_asked() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        let sub = repo.join("crates/core");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(repo.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(repo.join(".git/modules/vendor/lib")).unwrap();
        std::fs::write(repo.join(".git/config"), "").unwrap();
        std::fs::write(repo.join(".git/modules/vendor/lib/config"), "").unwrap();
        let found = project(&sub);
        for p in [
            sub.join(".hermes"),
            repo.join("crates/.hermes"),
            repo.join(".hermes"),
            repo.join(".claude"),
            repo.join(".git/config"),
            repo.join(".git/hooks"),
            repo.join(".git/modules/vendor/lib/config"),
        ] {
            assert!(found.contains(&p), "{} not in {found:?}", p.display());
        }
        assert!(!found.contains(&dir.path().parent().unwrap().join(".hermes")));

        let c = ControlPaths::new(vec![repo.join("home/.hermes-data")], vec![]);
        assert_eq!(c.why(&repo.join(".git/config")), Some(GIT));
        assert_eq!(
            c.why(&repo.join(".claude/settings.local.json")),
            Some(CLAUDE)
        );
        assert_eq!(c.why(&repo.join(".git/hooks/pre-commit")), Some(GIT));
        assert_eq!(c.why(&repo.join("x/.git")), Some(GIT));
        assert_eq!(
            c.why(&repo.join(".git/modules/a/hooks/post-checkout")),
            Some(GIT)
        );
        assert_eq!(c.why(&repo.join(".git/objects/ab/cd")), None);
        assert_eq!(c.why(&repo.join("sub/.hermes/config.toml")), Some(PROJECT));
        assert_eq!(
            c.why(&repo.join("home/.hermes-data/config.toml")),
            Some(OWN)
        );
        assert_eq!(c.why(&repo.join("src/main.rs")), None);
    }

    #[test]
    fn a_worktrees_gitdir_file_and_common_folder_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main/.git");
        let wt = dir.path().join("wt");
        std::fs::create_dir_all(main.join("worktrees/wt")).unwrap();
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(main.join("worktrees/wt/commondir"), "../..\n").unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join("worktrees/wt").display()),
        )
        .unwrap();
        let found = project(&wt);
        assert!(found.contains(&wt.join(".git")));
        assert!(found.contains(&main.join("worktrees/wt/config.worktree")));
        assert!(found.contains(&main.join("config")));
        assert!(found.contains(&main.join("hooks")));
    }
}
