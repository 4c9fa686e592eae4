//! `hermes rewind`: back to before a turn — its files (and every later
//! turn's) put back as they were, its conversation and the rest dropped
//! from what the next request sends — or only one of the two. A file
//! someone changed since is left as it is and named, unless `--force`.

use std::io::{IsTerminal, Write};

use clap::Args;

use super::Context;
use crate::app::CommandError;
use crate::checkpoint::turns::{self, Turn};
use crate::checkpoint::{rewind, Keep};
use crate::sandbox::ChangeKind;
use crate::session;
use crate::util::sanitize::clean;
use crate::util::text::excerpt;

#[derive(Debug, Args)]
pub(crate) struct RewindArgs {
    /// Go back to just before this turn (see `--list`).
    #[arg(value_name = "N")]
    turn: Option<usize>,
    /// List the session's turns and the files each changed.
    #[arg(long)]
    list: bool,
    /// Put the files back only; the conversation goes on as it is.
    #[arg(long, conflicts_with = "conversation_only")]
    code_only: bool,
    /// Drop the turns from the conversation only; the files stay as they are.
    #[arg(long)]
    conversation_only: bool,
    /// Do not ask first.
    #[arg(long, short = 'y')]
    yes: bool,
    /// Put back files changed since the turn too, losing those changes.
    #[arg(long)]
    force: bool,
    /// The session (an id or a unique prefix); the latest one started in
    /// this folder when not given.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
}

pub(crate) async fn run(args: &RewindArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let dir = ctx.paths.sessions_dir();
    let path = match &args.session {
        Some(id) => session::find(&dir, id)?,
        None => {
            session::latest_in(&dir, ctx.cwd)
                .ok_or_else(|| {
                    CommandError::usage(
                        format!("no session was started in {}", ctx.cwd.display()),
                        "name one with --session ID (hermes sessions list)",
                    )
                })?
                .path
        }
    };
    let id = session::id_of(&path);
    let all = turns::of_session(&path)?;
    let Some(n) = args.turn.filter(|_| !args.list) else {
        list(&id, &all, ctx);
        return Ok(());
    };
    let plan =
        rewind::Plan::new(&all, n, !args.conversation_only, !args.code_only).map_err(|e| {
            CommandError::usage(
                format!("session {id}: {e}"),
                "hermes rewind --list shows its turns",
            )
        })?;
    if !args.yes {
        let what = plan.describe();
        if !std::io::stdin().is_terminal() {
            return Err(CommandError::usage(
                format!("rewinding would {what}"),
                "add --yes to do it without a question",
            ));
        }
        eprint!("Rewind session {id}: {what}? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            errln!("nothing rewound");
            return Ok(());
        }
    }
    // The session's writer first: a session another hermes has open is
    // refused before any file is touched.
    let writer = session::SessionHandle::append_to(&path, &id)?;
    let keep = Keep::new(session::blob_folder(&dir), 0);
    let restored = plan.restore(&keep, args.force);
    // Appended, never rewritten: the lines before stay as they were.
    writer.append(&plan.record(&restored)).await?;
    writer.close().await?;
    let shown = |p: &std::path::Path| clean(&crate::util::path::shown_from(p, ctx.cwd));
    for line in plan.report(&restored, shown) {
        outln!("{line}");
    }
    if restored.failed.is_empty() {
        Ok(())
    } else {
        Err(CommandError::runtime(
            format!("{} file(s) could not be put back", restored.failed.len()),
            None,
        ))
    }
}

fn list(id: &str, all: &[Turn], ctx: &Context<'_>) {
    if all.is_empty() {
        errln!("session {id} has no turns yet");
        return;
    }
    outln!("session {id}");
    for t in all {
        let mut marks = Vec::new();
        if t.code_rewound {
            marks.push("files rewound");
        }
        if t.conversation_rewound {
            marks.push("conversation rewound");
        }
        if t.compacted {
            marks.push("compacted");
        }
        let marks = if marks.is_empty() {
            String::new()
        } else {
            format!(" ({})", marks.join(", "))
        };
        outln!(
            "{:>3}  {}{marks}",
            t.number,
            clean(&excerpt(&t.prompt.replace('\n', " "), 70))
        );
        for c in &t.changes {
            let kind = match c.kind {
                ChangeKind::Created => "created",
                ChangeKind::Modified => "modified",
                ChangeKind::Deleted => "deleted",
            };
            outln!(
                "       {kind} {}",
                clean(&crate::util::path::shown_from(&c.path, ctx.cwd))
            );
        }
    }
}
