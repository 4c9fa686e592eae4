//! The interactive session: a rustyline prompt with a history file, streamed
//! replies, and slash commands. The line editor blocks, so each read runs on the
//! blocking pool; Ctrl-C or `/stop` during a turn stops the turn, not the
//! program, and other lines typed during a turn are sent after it.

mod commands;
mod context;
mod diff;
mod editor;
mod input;
mod pickers;
mod plan;
mod processes;
mod read;
mod rewind;
mod run;
mod send;
mod setup;
mod turn;
mod view;

pub(crate) use context::{ReplContext, ReplError};
pub(crate) use run::run;
