//! One file per subcommand (jj's `cli/src/commands/`): each holds its own
//! clap arguments and a `run` that returns `Result<(), CommandError>`. The
//! conversation itself (no subcommand) is `app::chat`.

pub mod completions;
pub mod config;
pub mod hooks;
pub mod mcp;
pub mod sessions;
pub mod trust;
pub mod update;

use std::path::{Path, PathBuf};

use crate::config::{Overrides, Paths};

/// What every subcommand may need: where hermes keeps its files, the working
/// directory, and the config flags of this invocation.
pub struct Context<'a> {
    pub paths: &'a Paths,
    pub cwd: &'a Path,
    pub overrides: &'a Overrides,
}

impl Context<'_> {
    /// The user config file: `--config PATH`, or the one in the hermes home.
    pub fn user_config(&self) -> PathBuf {
        self.overrides
            .config_path
            .clone()
            .unwrap_or_else(|| self.paths.config_file())
    }
}
