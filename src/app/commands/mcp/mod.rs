//! `hermes mcp …`: list, inspect, test, add, remove and import MCP servers,
//! one file each. `list` reads only config and cached catalogs; `add`,
//! `remove` and `import` edit the user config in place (comments and layout
//! kept) and validate the result before writing it.

mod add;
mod call;
mod entry;
mod import;
mod list;
mod login;
mod remove;
mod server;
mod test;
mod tools;

use clap::Subcommand;

use super::Context;
use crate::app::CommandError;

#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// List configured servers with their state and tool count (from the cache; starts nothing).
    List,
    /// List a server's tools (from the cache; starts the server if it has none).
    Tools(tools::ToolsArgs),
    /// Add a server to the user config: hermes mcp add NAME -- COMMAND ARGS…
    Add(add::AddArgs),
    /// Remove a server from the user config.
    Remove(remove::RemoveArgs),
    /// Start a server, do the handshake, list its tools, and report timings.
    Test(test::TestArgs),
    /// Add the servers of an `mcpServers` JSON file (Claude Desktop, .mcp.json, Cursor).
    Import(import::ImportArgs),
    /// Run one tool of a server: hermes mcp call NAME TOOL '{"arg": 1}'
    Call(call::CallArgs),
    /// Log in to a remote server (OAuth), ahead of its first call.
    Login(login::LoginArgs),
    /// Forget a remote server's tokens.
    Logout(login::LoginArgs),
}

pub(crate) async fn run(
    cmd: &McpCommand,
    json: bool,
    ctx: &Context<'_>,
) -> Result<(), CommandError> {
    match cmd {
        McpCommand::Call(a) => call::run(a, json, ctx).await,
        McpCommand::Login(a) => login::login(a, ctx).await,
        McpCommand::Logout(a) => login::logout(a, ctx),
        McpCommand::List => list::run(ctx),
        McpCommand::Tools(a) => tools::run(a, ctx).await,
        McpCommand::Add(a) => add::run(a, ctx),
        McpCommand::Remove(a) => remove::run(a, ctx),
        McpCommand::Test(a) => test::run(a, ctx).await,
        McpCommand::Import(a) => import::run(a, ctx),
    }
}
