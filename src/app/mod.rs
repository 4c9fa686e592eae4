//! The binary's edge: parse flags, resolve settings once, run the
//! conversation or a subcommand, and map the outcome to an exit code (0 ok,
//! 1 runtime failure, 2 usage or config error, 130 interrupted) with
//! `error:` and `hint:` lines on stderr.

mod chat;
pub(crate) mod cli;
pub(crate) mod commands;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod json_answers;
mod signals;

use std::process::ExitCode;

use clap::Parser;

pub use chat::{assemble, Conversation};
use cli::{Cli, Command};
pub use error::{CommandError, Exit};

use crate::config::{Overrides, Paths};

pub fn main() -> ExitCode {
    // The guard of the process groups hermes starts, and the shell's
    // sandbox helper: before anything else.
    let first = std::env::args_os().nth(1);
    if first.as_deref() == Some(std::ffi::OsStr::new(crate::util::groups::GUARD_ARG)) {
        return crate::util::groups::guard_main();
    }
    #[cfg(target_os = "linux")]
    if first.as_deref() == Some(std::ffi::OsStr::new(crate::sandbox::helper::HELPER_ARG)) {
        return crate::sandbox::helper::main();
    }
    crate::util::groups::guard_from_here();
    crate::sandbox::serve_from_this_binary();
    // What a sandboxed command left running when an earlier hermes was
    // killed (without a PID namespace): ended, off the way of start-up.
    #[cfg(target_os = "linux")]
    std::thread::spawn(crate::sandbox::orphans::sweep);
    // Out of reach of what hermes runs: no ptrace, no /proc/PID/environ
    // (the provider's key), no core dump — for a command of the same user,
    // and for root's once its capabilities are gone.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    // Past a file size limit (`ulimit -f`) a write fails with EFBIG, which
    // hermes reports, instead of the signal killing it without a word.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition, before any thread starts.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = Cli::parse();
    // `hermes acp`'s stdout is the protocol's: its errors go to stderr.
    let json = cli.json && !matches!(cli.command, Some(Command::Acp));
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return error::report(&e.into(), json),
    };
    let result = runtime.block_on(run(cli));
    // Don't wait for a line editor blocked on the terminal.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => error::report(&e, json),
    }
}

async fn run(cli: Cli) -> Result<(), CommandError> {
    let cwd = std::env::current_dir()?;
    let paths = Paths::discover()?;
    let overrides = Overrides {
        config_path: cli.config.config_path.clone(),
        sets: cli.config.sets.clone(),
        provider: cli.provider.clone(),
        model: cli.model.clone(),
        max_turns: cli.max_turns,
        approve: cli.approve.clone(),
        yolo: cli.yolo,
    };
    let ctx = commands::Context {
        paths: &paths,
        cwd: &cwd,
        overrides: &overrides,
    };
    match &cli.command {
        Some(Command::Config { action }) => commands::config::run(action, &ctx),
        Some(Command::Sessions { action }) => commands::sessions::run(action, &ctx),
        Some(Command::Mcp { action }) => commands::mcp::run(action, cli.json, &ctx).await,
        Some(Command::Hooks { action }) => commands::hooks::run(action, &ctx).await,
        Some(Command::Completions { shell }) => {
            commands::completions::run(*shell);
            Ok(())
        }
        Some(Command::Update(args)) => commands::update::run(args, &ctx),
        Some(Command::Trust(args)) => commands::trust::run(args, &ctx),
        Some(Command::Rewind(args)) => commands::rewind::run(args, &ctx).await,
        Some(Command::Acp) => commands::acp::run(&ctx).await,
        None => chat::run(&cli, &ctx).await,
    }
}
