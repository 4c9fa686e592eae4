//! `hermes sessions list|show`: recorded sessions, read-only.

use clap::Subcommand;

use super::Context;
use crate::app::CommandError;
use crate::session::{self, Message};
use crate::util::sanitize::clean;
use crate::util::text::excerpt;

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List sessions, newest first.
    List {
        /// Only sessions started in this directory.
        #[arg(long)]
        here: bool,
    },
    /// Print a session's conversation.
    Show { id: String },
}

pub fn run(cmd: &SessionsCommand, ctx: &Context<'_>) -> Result<(), CommandError> {
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
        SessionsCommand::Show { id } => {
            let s = session::load(&session::find(&dir, id)?)?;
            for w in &s.warnings {
                errln!("warning: {w}");
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
        }
    }
    Ok(())
}

fn print_message(m: &Message) {
    match m {
        Message::System { .. } => {}
        Message::User { content } => outln!("\n› {}", clean(content)),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            if !content.is_empty() {
                outln!("\n{}", clean(content));
            }
            for c in tool_calls {
                outln!(
                    "⏺ {} {}",
                    clean(&c.name),
                    clean(&excerpt(&c.arguments, 200))
                );
            }
        }
        Message::Tool(r) => {
            let mark = if r.is_error { "✗" } else { "✓" };
            outln!("  {mark} {}", clean(&excerpt(&r.content, 200)));
        }
    }
}
