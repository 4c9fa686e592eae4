//! `hermes mcp login NAME` / `hermes mcp logout NAME`: OAuth for a remote
//! server ahead of its first call, and forgetting its tokens
//! (`mcp::oauth`).

use clap::Args;
use tokio_util::sync::CancellationToken;

use crate::app::commands::Context;
use crate::app::CommandError;
use crate::config;
use crate::mcp::oauth;

#[derive(Debug, Args)]
pub(crate) struct LoginArgs {
    name: String,
}

fn remote(ctx: &Context<'_>, name: &str) -> Result<config::RemoteSettings, CommandError> {
    let merged = config::load_merged(ctx.paths, ctx.cwd, ctx.overrides)?;
    let servers = config::mcp_servers(&merged.file);
    let s = servers.get(name).ok_or_else(|| {
        CommandError::usage(
            format!("MCP server `{name}` is not configured"),
            "`hermes mcp list` shows the configured servers",
        )
    })?;
    s.remote.clone().ok_or_else(|| {
        CommandError::usage(
            format!("MCP server `{name}` is a local server; only remote (url) servers log in"),
            "a local server gets its credentials from its `env`",
        )
    })
}

pub(super) async fn login(a: &LoginArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let r = remote(ctx, &a.name)?;
    let store = oauth::store_path(ctx.paths, &a.name);
    oauth::login(
        &a.name,
        &r.url,
        &r.oauth,
        &store,
        None,
        &CancellationToken::new(),
    )
    .await
    .map_err(|e| CommandError::runtime(e.to_string(), None))?;
    errln!(
        "logged in to server `{}`; {}",
        a.name,
        oauth::standing(&store).unwrap_or_else(|| "authorized".into())
    );
    Ok(())
}

pub(super) fn logout(a: &LoginArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    remote(ctx, &a.name)?;
    let store = oauth::store_path(ctx.paths, &a.name);
    match oauth::logout(&store) {
        Ok(true) => errln!("logged out of server `{}`: its tokens are gone", a.name),
        Ok(false) => errln!("server `{}` had no tokens", a.name),
        Err(e) => {
            return Err(CommandError::runtime(
                format!("cannot remove {}: {e}", store.display()),
                None,
            ))
        }
    }
    Ok(())
}
