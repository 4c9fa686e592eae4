//! Which of a command's changes never land unseen: those that something
//! outside the sandbox runs later — git (any repository's git folder,
//! nested or newly made, and the `.git` files and links that point git
//! elsewhere), the start-up files of a home a writable root holds,
//! executables on the person's PATH, hermes' own install folder, and the
//! control paths (hermes' config and state, a project's `.hermes`,
//! `.claude`, server lists, the scripts hooks run). Decided on the change
//! itself, not on what existed when the command started: a repository the
//! command creates is as held as the person's.

use std::path::{Path, PathBuf};

use super::git_view::{self, GitView};
use super::homes;

const GITFILE: &str = "a `.git` file or link, which points git at another folder";
const HOME: &str = "a start-up file in your home folder";
const PATH: &str = "an executable in a folder on your PATH";
const INSTALL: &str = "hermes' own install folder";
const ODD: &str = "not a file, folder or link";

/// The rules for one command.
pub(crate) struct Held<'a> {
    /// The control paths' check (`tools::builtin::control`).
    pub control: &'a (dyn Fn(&Path) -> Option<&'static str> + Sync),
    /// The home folder, real path.
    pub home: Option<PathBuf>,
    /// The person's PATH folders outside the project, real paths. One
    /// inside it (`.venv/bin`, `node_modules/.bin`) is the project's own:
    /// what lands there runs only through the project, and hooks that
    /// find their program there run in the sandbox.
    pub path_dirs: Vec<PathBuf>,
    /// The folder hermes' binary lives in, real path.
    pub install: Option<PathBuf>,
}

/// What a change is, for the rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Shape {
    File { executable: bool },
    Link,
    Folder,
    Other,
}

impl Held<'_> {
    /// The rules for a command run by this process: its HOME, PATH and
    /// binary (found once: they do not change while it runs).
    pub(crate) fn for_this_process<'a>(
        control: &'a (dyn Fn(&Path) -> Option<&'static str> + Sync),
        project: &Path,
    ) -> Held<'a> {
        let ours = ours();
        let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        Held {
            control,
            home: ours.home.clone(),
            path_dirs: ours
                .path_dirs
                .iter()
                .filter(|d| !d.starts_with(&project))
                .cloned()
                .collect(),
            install: ours.install.clone(),
        }
    }
}

/// This process' home, PATH folders and install folder, real paths.
struct Ours {
    home: Option<PathBuf>,
    path_dirs: Vec<PathBuf>,
    install: Option<PathBuf>,
}

fn ours() -> &'static Ours {
    static OURS: std::sync::OnceLock<Ours> = std::sync::OnceLock::new();
    OURS.get_or_init(|| {
        let real = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
        Ours {
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| real(PathBuf::from(h))),
            path_dirs: std::env::var_os("PATH")
                .map(|p| {
                    std::env::split_paths(&p)
                        .filter(|d| d.is_absolute())
                        .map(real)
                        .collect()
                })
                .unwrap_or_default(),
            install: install_dir().map(Path::to_path_buf),
        }
    })
}

/// The folder hermes' binary lives in, real path.
pub(crate) fn install_dir() -> Option<&'static Path> {
    static DIR: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        std::env::current_exe()
            .ok()
            .and_then(|e| std::fs::canonicalize(e).ok())
            .and_then(|e| e.parent().map(Path::to_path_buf))
    })
    .as_deref()
}

/// Asks of one review: memoises what git and the home make of folders.
pub(crate) struct Judge<'a> {
    rules: &'a Held<'a>,
    git: GitView,
    /// Where the home's start-up links lead, found at the first change.
    linked: Option<Vec<PathBuf>>,
}

impl<'a> Judge<'a> {
    pub(crate) fn new(rules: &'a Held<'a>) -> Judge<'a> {
        Judge {
            rules,
            git: GitView::default(),
            linked: None,
        }
    }

    /// Why removing what stands at `path` does not land, if it does not:
    /// hermes' control paths, and what a tool keeps in its home.
    pub(crate) fn why_removed(&self, root: &Path, path: &Path) -> Option<&'static str> {
        if let Some(why) = (self.rules.control)(path) {
            return Some(why);
        }
        let tool = homes::tool_home(self.rules.home.as_deref()?, root)?;
        homes::in_tool_home(&tool, path, true)
    }

    /// Why the change at `path` (absolute) does not land, if it does not.
    /// `upper`: where the command's version of `root` is, to see folders
    /// as they will be once it lands; `was`: what stood at `path` before.
    pub(crate) fn why(
        &mut self,
        root: &Path,
        upper: &Path,
        path: &Path,
        shape: Shape,
        was: Option<Shape>,
    ) -> Option<&'static str> {
        if shape == Shape::Other {
            return Some(ODD);
        }
        let dot_git = path.file_name().is_some_and(|n| n == ".git");
        // A `.git` file or link made, changed, or standing where one was:
        // it sends git to a folder of the command's choosing. A new `.git`
        // folder is a repository like any other: what in it runs is held
        // below, its objects land.
        let pointer = |s: Shape| s != Shape::Folder;
        if dot_git && (pointer(shape) || was.is_some_and(pointer)) {
            return Some(GITFILE);
        }
        if !dot_git {
            if let Some(why) = (self.rules.control)(path) {
                return Some(why);
            }
        }
        if let Some(i) = &self.rules.install {
            if crate::util::path::is_under(path, i) {
                return Some(INSTALL);
            }
        }
        if let Some(why) = self.home(root, path, shape, was) {
            return Some(why);
        }
        let runnable = matches!(shape, Shape::Link | Shape::File { executable: true });
        if runnable
            && path
                .parent()
                .is_some_and(|p| self.rules.path_dirs.iter().any(|d| d == p))
        {
            return Some(PATH);
        }
        let layers = git_view::Layers { root, upper };
        self.git.why(&layers, self.rules.home.as_deref(), path)
    }

    /// What the home makes of a change: a start-up file of a home the root
    /// holds whole, the target of a start-up link, a tool home's file.
    fn home(
        &mut self,
        root: &Path,
        path: &Path,
        shape: Shape,
        was: Option<Shape>,
    ) -> Option<&'static str> {
        let h = self.rules.home.as_deref()?;
        // A home a root holds whole (hermes started in it, or `writable`
        // naming it): every dot-entry of it is a start-up file to someone.
        if h.starts_with(root) {
            if let Ok(rest) = path.strip_prefix(h) {
                let dot = rest
                    .components()
                    .next()
                    .and_then(|c| c.as_os_str().to_str())
                    .is_some_and(|n| n.starts_with('.'));
                if dot {
                    return Some(HOME);
                }
            }
        }
        let linked = self.linked.get_or_insert_with(|| homes::link_targets(h));
        if linked.iter().any(|t| path.starts_with(t)) {
            return Some(homes::LINKED);
        }
        // A folder gone into is no change; one standing where a file was is.
        let changed = shape != Shape::Folder || was.is_some_and(|w| w != Shape::Folder);
        match homes::tool_home(h, root) {
            Some(tool) if changed => homes::in_tool_home(&tool, path, was.is_some()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::git_view::GIT;

    fn no_control(_: &Path) -> Option<&'static str> {
        None
    }

    #[test]
    fn git_folders_anywhere_start_up_files_and_path_executables_are_held() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("w");
        let upper = dir.path().join("u");
        let home = root.clone();
        std::fs::create_dir_all(root.join("bare.git/objects")).unwrap();
        std::fs::write(root.join("bare.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(upper.join("made/refs")).unwrap();
        std::fs::write(upper.join("made/HEAD"), "x").unwrap();
        let rules = Held {
            control: &no_control,
            home: Some(home.clone()),
            path_dirs: vec![root.join("bin")],
            install: Some(root.join("inst")),
        };
        let mut j = Judge::new(&rules);
        let file = Shape::File { executable: false };
        let exe = Shape::File { executable: true };
        let mut why =
            |p: &str, s: Shape, was: Option<Shape>| j.why(&root, &upper, &root.join(p), s, was);
        assert_eq!(why("a/b/.git/config", file, None), Some(GIT));
        assert_eq!(why("a/.git/hooks/pre-commit", exe, None), Some(GIT));
        assert_eq!(why("a/.git/commondir", file, None), Some(GIT));
        assert_eq!(why("a/.git/objects/info/alternates", file, None), Some(GIT));
        assert_eq!(why("a/.git/modules/m/config", file, None), Some(GIT));
        assert_eq!(why("a/.git/objects/ab/cdef", file, None), None);
        assert_eq!(why("a/.git/index", file, None), None);
        assert_eq!(why("bare.git/hooks/post-update", exe, None), Some(GIT));
        assert_eq!(why("made/config", file, None), Some(GIT));
        assert_eq!(why("sub/.git", file, None), Some(GITFILE));
        assert_eq!(
            why("sub/.git", Shape::Folder, Some(Shape::Link)),
            Some(GITFILE)
        );
        assert_eq!(why("sub/.git", Shape::Folder, None), None);
        assert_eq!(why(".profile", file, None), Some(HOME));
        assert_eq!(why(".config/git/config", file, None), Some(HOME));
        assert_eq!(why("bin/git", exe, None), Some(PATH));
        assert_eq!(why("bin/notes.txt", file, None), None);
        assert_eq!(why("inst/hermes", exe, None), Some(INSTALL));
        assert_eq!(why("fifo", Shape::Other, None), Some(ODD));
        assert_eq!(why("src/main.rs", file, None), None);
    }
}
