//! The binary's edge: resolve flags and config once, pick the front end, and map
//! every outcome to an exit code (0 ok, 1 runtime failure, 2 usage or config
//! error, 130 interrupted) with `error:` and `hint:` lines on stderr.

mod chat;
mod commands;
mod failure;
mod mcp_commands;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::config::{Overrides, Paths};
pub use chat::{assemble, Conversation};
pub use failure::{Failure, RuntimeError, UsageError};

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return failure::report(&anyhow::Error::from(e), json),
    };
    let result = runtime.block_on(run(cli));
    // Don't wait for a line editor blocked on the terminal.
    runtime.shutdown_background();
    match result {
        Ok(code) => code,
        Err(e) => failure::report(&e, json),
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let paths = Paths::discover()?;
    let overrides = Overrides {
        config_path: cli.config.config_path.clone(),
        sets: cli.config.sets.clone(),
        provider: cli.provider.clone(),
        model: cli.model.clone(),
        max_turns: cli.max_turns,
    };
    match &cli.command {
        Some(Command::Config { action }) => commands::config(action, &paths, &cwd, &overrides),
        Some(Command::Sessions { action }) => commands::sessions(action, &paths, &cwd),
        Some(Command::Mcp { action }) => mcp_commands::run(action, &paths, &cwd, &overrides).await,
        Some(Command::Update { check, channel }) => commands::update(&paths, *check, *channel),
        None => chat::run(&cli, paths, &cwd, &overrides).await,
    }
}
