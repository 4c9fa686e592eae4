//! `hermes mcp tools NAME`: a server's tools, from its cached catalog (the
//! server is started only when it has none).

use clap::Args;

use super::server::{log_hint, one_server};
use crate::app::commands::Context;
use crate::app::CommandError;
use crate::util::text::excerpt;

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    name: String,
}

pub(super) async fn run(a: &ToolsArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let (registry, server) = one_server(ctx, &a.name)?;
    if server.catalog().is_none() {
        let r = server.refresh().await;
        registry.shutdown().await;
        r.map_err(|why| CommandError::usage(why.to_string(), log_hint(&server, &why)))?;
    }
    for t in registry
        .index()
        .tools
        .iter()
        .filter(|t| registry.servers()[t.server].name == a.name)
    {
        let first = t.tool.description.lines().next().unwrap_or("");
        let clean = crate::util::sanitize::clean;
        outln!("{}  {}", clean(&t.name), clean(&excerpt(first, 100)));
    }
    Ok(())
}
