//! One file per subcommand (jj's `cli/src/commands/`): each holds its own
//! clap arguments and a `run` that returns `Result<(), CommandError>`. The
//! conversation itself (no subcommand) is `app::chat`.

pub(crate) mod acp;
pub(crate) mod completions;
pub(crate) mod config;
mod context;
pub(crate) mod hooks;
pub(crate) mod mcp;
pub(crate) mod rewind;
pub(crate) mod sessions;
pub(crate) mod trust;
pub(crate) mod update;
pub(crate) mod worktree;

pub(crate) use context::Context;
