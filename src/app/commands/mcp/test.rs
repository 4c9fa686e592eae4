//! `hermes mcp test NAME`: start the server, do the handshake, list its
//! tools (filling the catalog cache) and report the timings.

use clap::Args;

use super::server::{log_hint, one_server};
use crate::app::commands::Context;
use crate::app::CommandError;

#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    name: String,
}

pub(super) async fn run(a: &TestArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let (registry, server) = one_server(ctx, &a.name)?;
    let r = server.refresh().await;
    registry.shutdown().await;
    // A server that fails is a runtime failure, not a wrong invocation.
    let rep =
        r.map_err(|why| CommandError::runtime(why.to_string(), Some(log_hint(&server, &why))))?;
    let info = if rep.server_info.is_empty() {
        "(no server info)"
    } else {
        &rep.server_info
    };
    outln!("server `{}`: {info}", a.name);
    outln!(
        "  start + handshake  {:>8.1} ms",
        rep.spawn_and_handshake.as_secs_f64() * 1e3
    );
    outln!(
        "  tools/list         {:>8.1} ms  ({} tools)",
        rep.list.as_secs_f64() * 1e3,
        rep.tools
    );
    match &server.entry.remote {
        Some(r) => outln!("  url                {}", r.url),
        None => outln!("  stderr log         {}", server.log_path().display()),
    }
    Ok(())
}
