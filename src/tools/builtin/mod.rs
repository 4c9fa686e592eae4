//! hermes' own tools, offered directly (never deferred) so a model can work
//! on the folder hermes starts in with no MCP server: `read_file`,
//! `write_file`, `edit_file`, `glob`, `grep` and `shell`, and
//! `update_plan`, its task list. They are tools
//! like any other — each entry of a batch gets its schema check, hooks,
//! approval and result — with a concurrency of their own: entries that
//! touch what an earlier one touches wait for it (`order`), the rest run
//! together; `shell` one at a time unless configured. `echo` is for tests.

pub(crate) mod background;
mod background_tools;
mod changes_told;
mod context;
mod control;
mod echo;
mod files;
mod find;
mod order;
pub(crate) mod plan;
mod process;
mod proxied;
mod reader;
mod refusals;
mod set;
mod shell;
mod web_fetch;
mod workspace;

pub(crate) use order::Touch;
pub(crate) use reader::read_attached;
pub use set::UnknownBuiltin;
pub(crate) use set::{new_turn, tools};
