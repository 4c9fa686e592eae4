//! `hermes mcp …`: list, inspect, test, add, remove and import MCP servers,
//! one file each. `list` reads only config and cached catalogs; `add`,
//! `remove` and `import` edit the user config in place (comments and layout
//! kept) and validate the result before writing it.

mod add;
mod call;
mod command;
mod entry;
mod import;
mod list;
mod login;
mod remove;
mod serve;
mod server;
mod test;
mod tools;

pub(crate) use command::{run, McpCommand};
