//! `hermes mcp`'s subcommands and where each goes.

use clap::Subcommand;

use super::super::Context;
use crate::app::CommandError;

#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// List configured servers with their state and tool count (from the cache; starts nothing).
    List,
    /// List a server's tools (from the cache; starts the server if it has none).
    Tools(super::tools::ToolsArgs),
    /// Add a server to the user config: hermes mcp add NAME -- COMMAND ARGS…
    Add(super::add::AddArgs),
    /// Remove a server from the user config.
    Remove(super::remove::RemoveArgs),
    /// Start a server, do the handshake, list its tools, and report timings.
    Test(super::test::TestArgs),
    /// Add the servers of an `mcpServers` JSON file (Claude Desktop, .mcp.json, Cursor).
    Import(super::import::ImportArgs),
    /// Run one tool of a server: hermes mcp call NAME TOOL '{"arg": 1}'
    Call(super::call::CallArgs),
    /// Log in to a remote server (OAuth), ahead of its first call.
    Login(super::login::LoginArgs),
    /// Forget a remote server's tokens.
    Logout(super::login::LoginArgs),
    /// Serve hermes to an MCP client on stdin and stdout: tool_search,
    /// tool_describe and tool_call over the configured servers, and the
    /// built-in file and shell tools on this folder, sandboxed.
    Serve(super::serve::ServeArgs),
}

pub(crate) async fn run(
    cmd: &McpCommand,
    json: bool,
    ctx: &Context<'_>,
) -> Result<(), CommandError> {
    match cmd {
        McpCommand::Call(a) => super::call::run(a, json, ctx).await,
        McpCommand::Login(a) => super::login::login(a, ctx).await,
        McpCommand::Logout(a) => super::login::logout(a, ctx),
        McpCommand::List => super::list::run(ctx),
        McpCommand::Tools(a) => super::tools::run(a, ctx).await,
        McpCommand::Add(a) => super::add::run(a, ctx),
        McpCommand::Remove(a) => super::remove::run(a, ctx),
        McpCommand::Test(a) => super::test::run(a, ctx).await,
        McpCommand::Import(a) => super::import::run(a, ctx),
        McpCommand::Serve(a) => super::serve::run(a, ctx).await,
    }
}
