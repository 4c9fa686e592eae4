//! `hermes` from flags to exit code: settings resolved once, then the
//! conversation or a subcommand, the outcome mapped to an exit code.

use super::error::CommandError;

use std::process::ExitCode;

use super::cli::{Cli, Command};

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
    #[cfg(target_os = "linux")]
    if first.as_deref() == Some(std::ffi::OsStr::new(crate::sandbox::netns::KEEPER_ARG)) {
        return crate::sandbox::netns::keeper_main();
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
    let cli = super::cli::parse();
    // `hermes acp`'s stdout is the protocol's: its errors go to stderr.
    let json = cli.json && !matches!(cli.command, Some(Command::Acp));
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return ExitCode::from(super::error::report(&e.into(), json)),
    };
    let (result, summary) = runtime.block_on(run(cli));
    // Don't wait for a line editor blocked on the terminal.
    runtime.shutdown_background();
    let code = match result {
        Ok(()) => 0,
        Err(e) => super::error::report(&e, json),
    };
    if let (Some(mut s), true) = (summary, json) {
        s.exit_code = code;
        if let Ok(line) = serde_json::to_string(&crate::agent::Event::RunSummary(Box::new(s))) {
            crate::frontend::out(format!("{line}\n").as_bytes());
        }
    }
    ExitCode::from(code)
}

/// The run's outcome, and a one-shot conversation's summary (its exit
/// code still to be set from the outcome).
async fn run(cli: Cli) -> (Result<(), CommandError>, Option<crate::agent::RunSummary>) {
    let ctx = match prepare(&cli) {
        Ok(ctx) => ctx,
        Err(e) => return (Err(e), None),
    };
    let (paths, cwd, overrides) = (&ctx.0, &ctx.1, &ctx.2);
    if cli.command.is_none() {
        let opened = match &cli.worktree {
            Some(name) => {
                match super::in_worktree::enter(&cli, name, paths, cwd, overrides).await {
                    Ok(o) => Some(o),
                    Err(e) => return (Err(e), None),
                }
            }
            None => None,
        };
        let cwd = opened.as_ref().map_or(cwd.as_path(), |o| o.cwd.as_path());
        let ctx = super::commands::Context {
            paths,
            cwd,
            overrides,
            worktree: opened.as_ref(),
        };
        return super::chat::run(&cli, &ctx).await;
    }
    let ctx = super::commands::Context {
        paths,
        cwd,
        overrides,
        worktree: None,
    };
    (subcommand(&cli, &ctx).await, None)
}

/// Where hermes runs (`-C DIR` entered first), its folders, and what the
/// flags override.
fn prepare(cli: &Cli) -> Result<(Paths, std::path::PathBuf, Overrides), CommandError> {
    if let Some(dir) = &cli.directory {
        std::env::set_current_dir(dir).map_err(|e| {
            CommandError::usage(
                format!("-C {}: {e}", dir.display()),
                "give -C a folder that exists and you may enter",
            )
        })?;
    }
    let cwd = std::env::current_dir()?;
    let paths = Paths::discover()?;
    let add_dirs = cli
        .add_dirs
        .iter()
        .map(|d| match std::fs::canonicalize(d) {
            Ok(p) if p.is_dir() => Ok(p),
            Ok(_) => Err(CommandError::usage(
                format!("--add-dir {}: not a folder", d.display()),
                "give --add-dir a folder",
            )),
            Err(e) => Err(CommandError::usage(
                format!("--add-dir {}: {e}", d.display()),
                "give --add-dir a folder that exists",
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let overrides = Overrides {
        config_path: cli.config.config_path.clone(),
        sets: cli.config.sets.clone(),
        provider: cli.provider.clone(),
        model: cli.model.clone(),
        max_turns: cli.max_turns,
        max_budget_tokens: cli.max_budget_tokens,
        add_dirs,
        approve: cli.approve.clone(),
        yolo: cli.yolo,
        mode: cli.mode.as_deref().map(|m| match m {
            "auto" => crate::config::ApprovalMode::Auto,
            "deny" => crate::config::ApprovalMode::Deny,
            "plan" => crate::config::ApprovalMode::Plan,
            _ => crate::config::ApprovalMode::Ask,
        }),
    };
    Ok((paths, cwd, overrides))
}

async fn subcommand(cli: &Cli, ctx: &super::commands::Context<'_>) -> Result<(), CommandError> {
    match &cli.command {
        Some(Command::Config { action }) => super::commands::config::run(action, ctx),
        Some(Command::Sessions { action }) => super::commands::sessions::run(action, ctx),
        Some(Command::Mcp { action }) => super::commands::mcp::run(action, cli.json, ctx).await,
        Some(Command::Hooks { action }) => super::commands::hooks::run(action, ctx).await,
        Some(Command::Completions { shell }) => {
            super::commands::completions::run(*shell);
            Ok(())
        }
        Some(Command::Update(args)) => super::commands::update::run(args, ctx),
        Some(Command::Trust(args)) => super::commands::trust::run(args, ctx),
        Some(Command::Rewind(args)) => super::commands::rewind::run(args, ctx).await,
        Some(Command::Acp) => super::commands::acp::run(ctx).await,
        Some(Command::Worktree { action }) => {
            super::commands::worktree::run(action, cli.json, ctx).await
        }
        None => Ok(()),
    }
}
