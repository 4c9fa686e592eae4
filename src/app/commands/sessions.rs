//! `hermes sessions list|show|rm|prune`: recorded sessions. Only `rm` and
//! `prune` change anything, and never a session another hermes has open.

use clap::Subcommand;

use super::Context;
use crate::app::CommandError;
use crate::model::Message;
use crate::session;
use crate::util::sanitize::clean;
use crate::util::text::excerpt;

#[derive(Debug, Subcommand)]
pub(crate) enum SessionsCommand {
    /// List sessions, newest first.
    List {
        /// Only sessions started in this directory.
        #[arg(long)]
        here: bool,
    },
    /// Print a session's conversation (and list its subagents').
    Show {
        id: String,
        /// Print the conversation of this subagent of the session (the id
        /// of the `agent` call that started it).
        #[arg(long, value_name = "CALL_ID")]
        agent: Option<String>,
    },
    /// Remove sessions by id (a unique prefix is enough).
    Rm {
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Remove the sessions last written longer ago than AGE (30d, 12h, 2w, 90m).
    Prune {
        #[arg(long, value_name = "AGE")]
        older_than: String,
        /// Only list what would be removed.
        #[arg(long)]
        dry_run: bool,
    },
}

pub(crate) fn run(cmd: &SessionsCommand, ctx: &Context<'_>) -> Result<(), CommandError> {
    let dir = ctx.paths.sessions_dir();
    if let Some(repaired) = session::guard_folder(&dir)? {
        errln!("warning: {repaired}");
    }
    match cmd {
        SessionsCommand::List { here } => {
            let cwd = ctx.cwd.to_string_lossy();
            let rows: Vec<_> = session::list(&dir)
                .into_iter()
                .filter(|s| !here || s.meta.cwd == cwd)
                .collect();
            if rows.is_empty() {
                errln!("no sessions yet");
            }
            for s in rows {
                outln!(
                    "{}  {}  {}  {}",
                    s.meta.id,
                    s.meta.model,
                    s.meta.cwd,
                    excerpt(&s.title, 60)
                );
            }
        }
        SessionsCommand::Show { id, agent } => {
            let path = session::find(&dir, id)?;
            let s = session::load(&path)?;
            for w in &s.warnings {
                errln!("warning: {w}");
            }
            let agents = session::agent_conversations(&path)?;
            if let Some(wanted) = agent {
                let Some(c) = agents.iter().find(|c| c.id == *wanted) else {
                    let known: Vec<&str> = agents.iter().map(|c| c.id.as_str()).collect();
                    return Err(CommandError::usage(
                        format!("session {} has no subagent `{wanted}`", s.meta.id),
                        if known.is_empty() {
                            "it started none".to_string()
                        } else {
                            format!("its subagents: {}", known.join(", "))
                        },
                    ));
                };
                outln!(
                    "subagent {} of session {} · {}{} · {}",
                    c.id,
                    s.meta.id,
                    clean(&c.description),
                    c.agent_type
                        .as_deref()
                        .map(|t| format!(" (type {t})"))
                        .unwrap_or_default(),
                    c.model
                );
                for m in &c.messages {
                    print_message(m);
                }
                return Ok(());
            }
            outln!(
                "session {} · {} · {} · {}",
                s.meta.id,
                s.meta.created,
                s.meta.model,
                s.meta.cwd
            );
            for m in &s.messages {
                print_message(m);
            }
            for c in &agents {
                outln!(
                    "subagent {} · {} · {} messages — hermes sessions show {} --agent {}",
                    c.id,
                    clean(&c.description),
                    c.messages.len(),
                    s.meta.id,
                    c.id
                );
            }
        }
        SessionsCommand::Rm { ids } => {
            let mut failed = None;
            for id in ids {
                let removed = session::find(&dir, id).and_then(|path| {
                    let stem = stem(&path);
                    session::remove(&path, &stem).map(|()| stem)
                });
                match removed {
                    Ok(stem) => outln!("removed {stem}"),
                    Err(e) => {
                        errln!("error: {e}");
                        failed = Some(e);
                    }
                }
            }
            session::sweep_blobs(&dir);
            if let Some(e) = failed {
                return Err(e.into());
            }
        }
        SessionsCommand::Prune {
            older_than,
            dry_run,
        } => {
            let age = session::parse_age(older_than).map_err(|why| {
                CommandError::usage(&why, "e.g. hermes sessions prune --older-than 30d")
            })?;
            let old = session::older_than(&dir, age);
            let mut removed = 0;
            for s in &old {
                if *dry_run {
                    outln!("would remove {}  {}", s.meta.id, excerpt(&s.title, 60));
                    continue;
                }
                match session::remove(&s.path, &s.meta.id) {
                    Ok(()) => {
                        removed += 1;
                        outln!("removed {}  {}", s.meta.id, excerpt(&s.title, 60));
                    }
                    // One in use (or not ours) is left, and said so.
                    Err(e) => errln!("warning: {e}; left as it is"),
                }
            }
            if !*dry_run {
                session::sweep_blobs(&dir);
                errln!(
                    "{removed} session{} removed, last written over {older_than} ago",
                    if removed == 1 { "" } else { "s" }
                );
            }
        }
    }
    Ok(())
}

fn stem(path: &std::path::Path) -> String {
    session::id_of(path)
}

fn print_message(m: &Message) {
    match m {
        Message::System { .. } => {}
        Message::User { content, .. } => outln!("\n› {}", clean(content)),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            if !content.is_empty() {
                outln!("\n{}", clean(content));
            }
            for c in tool_calls {
                for (tool, args) in crate::call::shown(&c.name, &c.arguments) {
                    outln!("⏺ {} {}", clean(&tool), clean(&excerpt(&args, 200)));
                }
            }
        }
        Message::Tool(r) => {
            let mark = if r.is_error { "✗" } else { "✓" };
            outln!("  {mark} {}", clean(&excerpt(&r.content, 200)));
        }
    }
}
