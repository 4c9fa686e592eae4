//! `hermes config path|show`: read-only views that need no provider key.

use clap::Subcommand;

use super::Context;
use crate::app::CommandError;
use crate::config;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print where the config files are.
    Path,
    /// Print the merged configuration, secrets masked.
    Show,
}

pub fn run(cmd: &ConfigCommand, ctx: &Context<'_>) -> Result<(), CommandError> {
    match cmd {
        ConfigCommand::Path => {
            outln!("{}", ctx.user_config().display());
            if let Some(p) = config::project_config(ctx.cwd) {
                outln!("{}", p.display());
            }
        }
        ConfigCommand::Show => {
            let merged = config::load_merged(ctx.paths, ctx.cwd, ctx.overrides)?;
            if merged.sources.is_empty() {
                outln!("# no config files; built-in defaults");
            }
            for s in &merged.sources {
                outln!("# from {}", s.display());
            }
            if let Some(held) = &merged.held {
                outln!("# {held}");
            }
            outp!("{}", config::show_masked(&merged.file));
        }
    }
    Ok(())
}
