//! `hermes mcp …`: list, inspect, test, add, remove and import MCP servers,
//! one file each. `list` reads only config and cached catalogs; `add`,
//! `remove` and `import` edit the user config in place (comments and layout
//! kept) and validate the result before writing it.

mod add;
mod call;
mod import;
mod list;
mod login;
mod remove;
mod test;
mod tools;

use std::path::Path;
use std::sync::Arc;

use clap::Subcommand;

use super::Context;
use crate::app::CommandError;
use crate::config;
use crate::mcp::{self, McpRegistry, McpServer};

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

/// What to look at after `why`: a command that never started has no
/// stderr to read — its `command` is what to check; otherwise where the
/// server's stderr went (a remote server has none).
fn log_hint(server: &McpServer, why: &crate::mcp::ServerError) -> String {
    match (&server.entry.remote, why) {
        (Some(_), _) => format!("check its url, or `hermes mcp login {}`", server.name),
        (None, crate::mcp::ServerError::Spawn(_)) => format!(
            "check `command` of [mcp_servers.{}] in the config: is it installed, and on PATH or given by its full path?",
            server.name
        ),
        (None, _) => format!("its stderr is in {}", server.log_path().display()),
    }
}

/// The registry of this config and the one server `name` of it.
fn one_server(
    ctx: &Context<'_>,
    name: &str,
) -> Result<(Arc<McpRegistry>, Arc<McpServer>), CommandError> {
    let merged = config::load_merged(ctx.paths, ctx.cwd, ctx.overrides)?;
    if let Some(held) = &merged.held {
        errln!("warning: {held}");
    }
    let servers = config::mcp_servers(&merged.file);
    let registry = Arc::new(McpRegistry::new(&servers, ctx.paths)?);
    let server = registry.server(name).cloned().ok_or_else(|| {
        let why = if servers.contains_key(name) {
            "is disabled"
        } else {
            "is not configured"
        };
        CommandError::usage(
            format!("MCP server `{name}` {why}"),
            "`hermes mcp list` shows the configured servers",
        )
    })?;
    Ok((registry, server))
}

/// A `[mcp_servers.NAME]` table for `command` (program first) and `env`.
fn toml_entry(command: &[String], env: &[(String, String)]) -> toml_edit::Table {
    let mut t = toml_edit::Table::new();
    if let Some(program) = command.first() {
        t["command"] = toml_edit::value(program.clone());
    }
    if command.len() > 1 {
        let mut args = toml_edit::Array::new();
        for a in &command[1..] {
            args.push(a.as_str());
        }
        t["args"] = toml_edit::value(args);
    }
    if !env.is_empty() {
        let mut e = toml_edit::InlineTable::new();
        for (k, v) in env {
            e.insert(k, v.as_str().into());
        }
        t["env"] = toml_edit::value(e);
    }
    t
}

fn insert_server(
    doc: &mut toml_edit::DocumentMut,
    name: &str,
    entry: toml_edit::Table,
) -> Result<(), CommandError> {
    mcp::check_name(name)?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or_else(|| {
            CommandError::usage(
                "mcp_servers in the config is not a table",
                "make it a [mcp_servers.NAME] table per server",
            )
        })?;
    if servers.contains_key(name) {
        return Err(CommandError::usage(
            format!("an MCP server named `{name}` is already configured"),
            format!("remove it first with `hermes mcp remove {name}`, or pick another name"),
        ));
    }
    servers.insert(name, toml_edit::Item::Table(entry));
    Ok(())
}

/// Reads the file (or starts empty), applies `f`, checks the result is a valid
/// config, and only then writes it.
fn edit_config(
    path: &Path,
    f: impl FnOnce(&mut toml_edit::DocumentMut) -> Result<(), CommandError>,
) -> Result<(), CommandError> {
    config::edit::edit_document(path, f)
}
