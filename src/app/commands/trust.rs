//! `hermes trust [--forget]`: lets the project folder's
//! `.hermes/config.toml` set servers, hooks, providers, approvals and
//! connectors, or takes that back (`config::trust`).

use clap::Args;

use super::Context;
use crate::app::CommandError;
use crate::config::trust::{self, TrustError};

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// Stop trusting the folder: its project config may again only choose
    /// the model, prompt, tool search and limits.
    #[arg(long)]
    forget: bool,
}

pub fn run(args: &TrustArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let keys = trust::HELD.join(", ");
    if args.forget {
        let (folder, was) = trust::forget(ctx.paths, ctx.cwd).map_err(error)?;
        if was {
            eprintln!(
                "{} is no longer trusted: its .hermes/config.toml no longer sets {keys}",
                folder.display()
            );
        } else {
            eprintln!("{} was not trusted", folder.display());
        }
        return Ok(());
    }
    let (folder, already) = trust::trust(ctx.paths, ctx.cwd).map_err(error)?;
    if already {
        eprintln!("{} is trusted already", folder.display());
    } else {
        eprintln!(
            "trusted {}: its .hermes/config.toml may now set {keys} (undo with `hermes trust --forget`)",
            folder.display()
        );
    }
    Ok(())
}

fn error(e: TrustError) -> CommandError {
    match e {
        TrustError::NoProject { .. } => CommandError::usage(
            e.to_string(),
            "run it in the project folder (the one holding .hermes/config.toml)",
        ),
        TrustError::Unlisted { .. } => CommandError::usage(
            e.to_string(),
            "move the project to a path without a line break",
        ),
        TrustError::Store { .. } => CommandError::runtime(
            e.to_string(),
            Some("check that hermes may write to its data folder (HERMES_HOME)".into()),
        ),
    }
}
