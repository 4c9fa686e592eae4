//! The one configured server a subcommand works on, and where to look when
//! it fails.

use std::sync::Arc;

use super::super::Context;
use crate::app::CommandError;
use crate::config;
use crate::mcp::{McpRegistry, McpServer};

/// What to look at after `why`: a command that never started has no
/// stderr to read — its `command` is what to check; otherwise where the
/// server's stderr went (a remote server has none).
pub(super) fn log_hint(server: &McpServer, why: &crate::mcp::ServerError) -> String {
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
pub(super) fn one_server(
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
