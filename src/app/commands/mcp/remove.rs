//! `hermes mcp remove NAME`

use clap::Args;

use super::entry::edit_config;
use crate::app::commands::Context;
use crate::app::CommandError;

#[derive(Debug, Args)]
pub(crate) struct RemoveArgs {
    name: String,
}

pub(super) fn run(a: &RemoveArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let user_file = ctx.user_config();
    let name = &a.name;
    edit_config(&user_file, |doc| {
        let removed = doc
            .get_mut("mcp_servers")
            .and_then(|t| t.as_table_like_mut())
            .and_then(|t| t.remove(name));
        removed.map(|_| ()).ok_or_else(|| {
            CommandError::usage(
                format!("no MCP server `{name}` in {}", user_file.display()),
                "`hermes mcp list` shows the configured servers",
            )
        })
    })?;
    outln!("removed MCP server `{name}` from {}", user_file.display());
    Ok(())
}
