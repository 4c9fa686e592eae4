//! What every subcommand is given: the paths, the folder, the flags'
//! overrides.

use std::path::{Path, PathBuf};

use crate::config::{Overrides, Paths};

/// What every subcommand may need: where hermes keeps its files, the working
/// directory, and the config flags of this invocation.
pub(crate) struct Context<'a> {
    pub paths: &'a Paths,
    pub cwd: &'a Path,
    pub overrides: &'a Overrides,
    /// The worktree `--worktree` opened, `cwd` being in it.
    pub worktree: Option<&'a crate::worktree::Opened>,
}

impl Context<'_> {
    /// The user config file: `--config PATH`, or the one in the hermes home.
    pub(crate) fn user_config(&self) -> PathBuf {
        self.overrides
            .config_path
            .clone()
            .unwrap_or_else(|| self.paths.config_file())
    }
}
