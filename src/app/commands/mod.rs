//! One file per subcommand (jj's `cli/src/commands/`): each holds its own
//! clap arguments and a `run` that returns `Result<(), CommandError>`. The
//! conversation itself (no subcommand) is `app::chat`.

pub(crate) mod acp;
pub(crate) mod completions;
pub(crate) mod config;
pub(crate) mod hooks;
pub(crate) mod mcp;
pub(crate) mod rewind;
pub(crate) mod sessions;
pub(crate) mod trust;
pub(crate) mod update;

use std::path::{Path, PathBuf};

use crate::config::{Overrides, Paths};

/// What every subcommand may need: where hermes keeps its files, the working
/// directory, and the config flags of this invocation.
pub(crate) struct Context<'a> {
    pub paths: &'a Paths,
    pub cwd: &'a Path,
    pub overrides: &'a Overrides,
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
