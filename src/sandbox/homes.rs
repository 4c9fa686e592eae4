//! The home folder as programs run from it, for the review: start-up
//! files judged by what they resolve to (a `~/.vimrc` or `~/.config/nvim`
//! linked into a dotfiles repository in the working folder makes its
//! target a start-up file), and tool homes (`~/.cargo`, `~/.npm`,
//! `~/.cache/pip`, `~/go` …) as caches when a writable root lies in one:
//! a new file lands, a changed or removed one is held (an extracted
//! crate's `build.rs`, a package's scripts run at the next build), and
//! what a tool home holds at its top or in its `bin` (`~/.cargo/env`,
//! config, programs) is a start-up file.

use std::path::{Path, PathBuf};

pub(crate) const LINKED: &str = "what a start-up file or program in your home links to";
pub(crate) const TOOL_START: &str =
    "a tool's own config, start-up script or program in its home folder";
pub(crate) const CACHE: &str =
    "a changed or removed file in a tool's cache (its tool runs what it keeps: a crate's build.rs, a package's scripts)";

/// Folders of the home whose links are start-up files or programs: its
/// dot-entries, and what lies one and two levels into `~/.config`, in
/// `~/.ssh` and in the home's program folders.
fn linking_folders(home: &Path) -> Vec<PathBuf> {
    let mut out = vec![
        home.join(".ssh"),
        home.join(".local/bin"),
        home.join("bin"),
        home.join(".config/systemd/user"),
        home.join(".config/autostart"),
        home.join(".config"),
    ];
    if let Ok(d) = std::fs::read_dir(home.join(".config")) {
        out.extend(
            d.flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path()),
        );
    }
    out
}

/// Where the home's start-up links lead (real paths): a change there is a
/// change to the start-up file.
pub(crate) fn link_targets(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut add = |p: PathBuf| {
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
            if let Ok(t) = std::fs::canonicalize(&p) {
                out.push(t);
            }
        }
    };
    if let Ok(d) = std::fs::read_dir(home) {
        for e in d.flatten() {
            if e.file_name().to_str().is_some_and(|n| n.starts_with('.')) {
                add(e.path());
            }
        }
    }
    for dir in linking_folders(home) {
        if let Ok(d) = std::fs::read_dir(&dir) {
            for e in d.flatten().take(2000) {
                add(e.path());
            }
        }
    }
    out
}

/// The tool home a root lies in: the home's dot-folder (or `~/go`) that
/// holds it, when the root is not the home itself.
pub(crate) fn tool_home(home: &Path, root: &Path) -> Option<PathBuf> {
    let rest = root.strip_prefix(home).ok()?;
    let first = rest.components().next()?.as_os_str().to_str()?;
    (first.starts_with('.') || first == "go").then(|| home.join(first))
}

/// Why a change inside tool home `tool` does not land: `existed`, whether
/// it replaces or removes something that stood there.
pub(crate) fn in_tool_home(tool: &Path, path: &Path, existed: bool) -> Option<&'static str> {
    let rest = path.strip_prefix(tool).ok()?;
    let depth = rest.components().count();
    let in_bin = rest
        .components()
        .next()
        .is_some_and(|c| c.as_os_str() == "bin");
    if depth == 1 || in_bin {
        return Some(TOOL_START);
    }
    existed.then_some(CACHE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linked_start_up_file_makes_its_target_one() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let dots = dir.path().join("work/dotfiles");
        std::fs::create_dir_all(home.join(".config")).unwrap();
        std::fs::create_dir_all(dots.join("nvim")).unwrap();
        std::fs::write(dots.join("vimrc"), "").unwrap();
        std::fs::write(dots.join("notes"), "").unwrap();
        std::os::unix::fs::symlink(dots.join("vimrc"), home.join(".vimrc")).unwrap();
        std::os::unix::fs::symlink(dots.join("nvim"), home.join(".config/nvim")).unwrap();
        std::os::unix::fs::symlink(dots.join("notes"), home.join("notes")).unwrap();
        let t = link_targets(&home);
        let real = |p: PathBuf| std::fs::canonicalize(p).unwrap();
        assert!(t.contains(&real(dots.join("vimrc"))), "{t:?}");
        assert!(t.contains(&real(dots.join("nvim"))), "{t:?}");
        assert!(
            !t.contains(&real(dots.join("notes"))),
            "a plain link in the home is no start-up file"
        );
    }

    #[test]
    fn tool_homes_take_new_files_only() {
        let home = Path::new("/h");
        let tool = tool_home(home, Path::new("/h/.cargo")).unwrap();
        assert_eq!(tool, Path::new("/h/.cargo"));
        assert_eq!(tool_home(home, Path::new("/h/src")), None);
        assert_eq!(tool_home(home, home), None);
        let reg = Path::new("/h/.cargo/registry/src/x/serde-1.0.0/build.rs");
        assert_eq!(in_tool_home(&tool, reg, false), None);
        assert_eq!(in_tool_home(&tool, reg, true), Some(CACHE));
        assert_eq!(
            in_tool_home(&tool, Path::new("/h/.cargo/env"), false),
            Some(TOOL_START)
        );
        assert_eq!(
            in_tool_home(&tool, Path::new("/h/.cargo/bin/cargo-x"), false),
            Some(TOOL_START)
        );
    }
}
