//! `hermes trust [--forget]`: lets the project folder's
//! `.hermes/config.toml`, as it is now — with the scripts its hooks and
//! servers run — set everything it says (servers, hooks, providers,
//! approvals, the shell's sandbox, …), or takes that back (`config::trust`).

use clap::Args;

use super::Context;
use crate::app::CommandError;
use crate::config::trust::{self, TrustError};

#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// Stop trusting the folder: its project config may again only choose
    /// the model, tool search, the shell's timeout and compaction.
    #[arg(long)]
    forget: bool,
}

pub(crate) fn run(args: &TrustArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let keys = trust::HELD_KINDS;
    if args.forget {
        let (folder, was) = trust::forget(ctx.paths, ctx.cwd).map_err(error)?;
        if was {
            errln!(
                "{} is no longer trusted: its project files no longer set {keys}",
                folder.display()
            );
        } else {
            errln!("{} was not trusted", folder.display());
        }
        return Ok(());
    }
    let (folder, already, files) = trust::trust(ctx.paths, ctx.cwd).map_err(error)?;
    let names: Vec<String> = files
        .iter()
        .map(|(p, _)| p.strip_prefix(&folder).unwrap_or(p).display().to_string())
        .collect();
    let names = names.join(", ");
    if already {
        errln!("{} is trusted already", folder.display());
    } else {
        errln!(
            "trusted {}: its {names} may now set {keys} (undo with `hermes trust --forget`)",
            folder.display()
        );
    }
    // Agent types are prompts, not settings: listed by path below.
    let (agents, files): (Vec<_>, Vec<_>) = files
        .iter()
        .partition(|(p, _)| p.extension().is_some_and(|e| e == "md"));
    // Everything the trusted bytes now do, as the run applies them: the
    // commands (resolved), environments, rules, URLs and headers.
    for (path, text) in &files {
        let shown = match trust::what_it_allows(path, &String::from_utf8_lossy(text)) {
            Ok(s) => s,
            Err(e) => format!("# cannot show it: {e}"),
        };
        if files.len() > 1 {
            errln!(
                "  {}:",
                path.strip_prefix(&folder).unwrap_or(path).display()
            );
        }
        if shown.trim().is_empty() {
            errln!("  (it sets none of them now)");
        }
        for line in shown.lines() {
            errln!("  {line}");
        }
    }
    let mut scripts: Vec<_> = files
        .iter()
        .flat_map(|(p, t)| trust::scripts_of(p, t, ctx.cwd))
        .collect();
    scripts.sort();
    scripts.dedup();
    if !scripts.is_empty() {
        errln!("  and the scripts it runs, as they are now (a change asks again):");
        for s in scripts {
            errln!("    {}", s.display());
        }
    }
    if !agents.is_empty() {
        errln!("  and its agent types, as they are now (a change asks again):");
        for (p, _) in agents {
            errln!("    {}", p.strip_prefix(&folder).unwrap_or(p).display());
        }
    }
    Ok(())
}

fn error(e: TrustError) -> CommandError {
    match e {
        TrustError::NoProject { .. } => CommandError::usage(
            e.to_string(),
            "run it in the project folder (the one holding .hermes/config.toml, .claude/settings.json or .claude/agents/)",
        ),
        TrustError::Unlisted { .. } => CommandError::usage(
            e.to_string(),
            "move the project to a path without a line break",
        ),
        TrustError::Read { .. } => {
            CommandError::runtime(e.to_string(), Some("check the file's permissions".into()))
        }
        TrustError::Store { .. } => CommandError::runtime(
            e.to_string(),
            Some("check that hermes may write to its data folder (HERMES_HOME)".into()),
        ),
    }
}
