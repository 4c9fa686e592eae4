//! A conversation in one of hermes' worktrees (`--worktree`, `/worktree`):
//! entered before anything reads the folder, recorded in the session
//! file, said on leaving (what changed, and how to look, merge or
//! remove), and `/worktree`'s start again there.

use std::sync::Arc;

use super::cli::Cli;
use super::commands::Context;
use super::CommandError;
use crate::agent::Agent;
use crate::config::{Overrides, Paths};

/// `--worktree NAME`: the worktree made or found, and hermes moved into
/// it before anything else reads the folder. Any failure is exit 2 with
/// nothing run — never the main checkout instead.
pub(super) async fn enter(
    cli: &Cli,
    name: &str,
    paths: &Paths,
    cwd: &std::path::Path,
    overrides: &Overrides,
) -> Result<crate::worktree::Opened, CommandError> {
    let settings = crate::config::resolve(paths.clone(), cwd, overrides)?;
    let opened = crate::worktree::open(&crate::worktree::Spec {
        name,
        base: cli.worktree_base.as_deref(),
        from: cwd,
        dir: &settings.worktree.dir,
        include: &settings.worktree.include,
    })
    .await?;
    std::env::set_current_dir(&opened.cwd).map_err(|e| {
        CommandError::usage(
            format!(
                "--worktree {name}: cannot enter {}: {e}",
                opened.cwd.display()
            ),
            "see that the worktree's folder can be entered",
        )
    })?;
    Ok(opened)
}

/// The session file says which worktree this run of it works in.
pub(crate) async fn record(
    agent: &Agent,
    w: &crate::worktree::Worktree,
) -> Result<(), CommandError> {
    let event = crate::session::SessionEvent::Worktree {
        name: w.name.clone(),
        branch: w.branch.clone(),
        path: w.path.to_string_lossy().into_owned(),
        repo: w.repo.to_string_lossy().into_owned(),
    };
    agent
        .session()
        .append(&crate::session::Record::Event {
            ts: crate::util::time::Utc::now().rfc3339(),
            event,
        })
        .await?;
    Ok(())
}

/// Leaving a worktree: what changed in it, and the commands to look at
/// it, merge it or remove it.
pub(super) async fn leave(w: &crate::worktree::Worktree) {
    use crate::util::sanitize::clean;
    let name = &w.name;
    let at = clean(&w.path.display().to_string());
    match crate::worktree::diffstat(w).await {
        Ok(stat) if stat.trim().is_empty() => {
            errln!(
                "worktree {name} ({}, {at}): nothing changed — hermes worktree remove {name} removes it",
                w.branch
            );
        }
        Ok(stat) => {
            errln!("worktree {name} ({}, {at}) changed:", w.branch);
            for line in stat.lines() {
                errln!("{}", clean(line));
            }
            errln!("  look:   hermes worktree diff {name}");
            errln!("  merge:  hermes worktree merge {name}");
            errln!("  remove: hermes worktree remove {name}");
        }
        Err(why) => errln!("worktree {name} ({at}): {why}"),
    }
}

/// `/worktree NAME`: hermes started again in place of this process —
/// `--worktree NAME --resume ID` with this run's flags — so the session
/// goes on in the worktree with everything (sandbox, servers, hooks) set
/// up for that folder. Returns only when it could not.
pub(super) fn relaunch(cli: &Cli, ctx: &Context<'_>, name: &str, id: &str) -> CommandError {
    use std::os::unix::process::CommandExt;
    let mut args: Vec<std::ffi::OsString> = vec![
        "--worktree".into(),
        name.into(),
        "--resume".into(),
        id.into(),
    ];
    let mut flag = |f: &str, v: Option<std::ffi::OsString>| {
        if let Some(v) = v {
            args.push(f.into());
            args.push(v);
        }
    };
    flag("--model", cli.model.clone().map(Into::into));
    flag("--provider", cli.provider.clone().map(Into::into));
    flag("--config", cli.config.config_path.clone().map(Into::into));
    flag("--mode", cli.mode.clone().map(Into::into));
    flag("--max-turns", cli.max_turns.map(|n| n.to_string().into()));
    flag(
        "--max-budget-tokens",
        cli.max_budget_tokens.map(|n| n.to_string().into()),
    );
    for s in &cli.config.sets {
        flag("-c", Some(s.into()));
    }
    for g in &cli.approve {
        flag("--approve", Some(g.into()));
    }
    for d in &ctx.overrides.add_dirs {
        flag("--add-dir", Some(d.into()));
    }
    if cli.yolo {
        args.push("--yolo".into());
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            return CommandError::runtime(
                format!("/worktree: cannot find hermes' own binary: {e}"),
                None,
            )
        }
    };
    let e = std::process::Command::new(exe).args(args).exec();
    CommandError::runtime(
        format!("/worktree {name}: hermes could not start again there: {e}"),
        Some(format!("run: hermes --worktree {name} --resume {id}")),
    )
}

/// `/worktree NAME`'s slot: the worktree and the session to go on in it.
pub(super) type Moving = Arc<std::sync::Mutex<Option<(String, String)>>>;
