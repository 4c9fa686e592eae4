//! The binary's edge: parse flags, resolve settings once, run the
//! conversation or a subcommand, and map the outcome to an exit code (0 ok,
//! 1 runtime failure, 2 usage or config error, 3 a limit reached, 4 blocked
//! for want of an approver, 130 interrupted) with `error:` and `hint:`
//! lines on stderr — and, for a one-shot `--json` run, `run_summary` last.

mod chat;
pub(crate) mod cli;
pub(crate) mod commands;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod in_worktree;
mod json_answers;
mod signals;
mod start;
mod summary;

pub use chat::{assemble, Conversation};
pub use error::{CommandError, Exit};
pub use start::main;
