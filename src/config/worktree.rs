//! `[worktree]`: where `--worktree` and subagents' worktrees are kept, and
//! which ignored files are copied into a new one.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorktreeSection {
    /// The folder worktrees are kept in, each repository's in a folder of
    /// its own: absolute, `~/…`, or relative to the repository's top
    /// (default: `worktrees` in hermes' data folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// Globs of files git ignores that a new worktree gets a copy of
    /// (`.env`, `config/local.*`): a glob without `/` names a file
    /// anywhere by its name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<String>,
}

impl WorktreeSection {
    pub fn is_empty(&self) -> bool {
        self == &WorktreeSection::default()
    }
}

/// `[worktree]` resolved.
#[derive(Debug, Clone, Default)]
pub struct WorktreeSettings {
    /// Where worktrees are kept; relative: to the repository's top.
    pub dir: PathBuf,
    pub include: Vec<String>,
}

impl WorktreeSettings {
    /// `default_dir`: hermes' own worktrees folder.
    pub(super) fn from_section(s: &WorktreeSection, default_dir: PathBuf) -> WorktreeSettings {
        let dir = match s.dir.as_deref() {
            None | Some("") => default_dir,
            Some(d) => match d.strip_prefix("~/") {
                Some(rest) => std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .unwrap_or_default()
                    .join(rest),
                None => PathBuf::from(d),
            },
        };
        WorktreeSettings {
            dir,
            include: s.include.clone(),
        }
    }
}
