//! `hermes mcp call NAME TOOL [JSON]`: runs one tool of a server directly —
//! for scripts, and to check a server — with the server's own name for the
//! tool. The result goes to stdout (its text; `--json` the whole MCP
//! result); a tool error exits 1.

use clap::Args;
use tokio_util::sync::CancellationToken;

use super::server::one_server;
use crate::app::commands::Context;
use crate::app::CommandError;

#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    name: String,
    /// The tool, by the server's own name for it.
    tool: String,
    /// Its arguments, a JSON object (default `{}`).
    arguments: Option<String>,
}

pub(super) async fn run(a: &CallArgs, json: bool, ctx: &Context<'_>) -> Result<(), CommandError> {
    let args: serde_json::Value = match &a.arguments {
        None => serde_json::json!({}),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            CommandError::usage(
                format!("the arguments are not JSON: {e}"),
                "give a JSON object, e.g. '{\"path\": \"README.md\"}'",
            )
        })?,
    };
    if !args.is_object() {
        return Err(CommandError::usage(
            "the arguments must be a JSON object",
            "e.g. '{\"path\": \"README.md\"}'",
        ));
    }
    let (registry, server) = one_server(ctx, &a.name)?;
    // The tool is looked up in the server's catalog first (listed now when
    // it is not cached, or does not have it): a server may register tools
    // once the session is set up, and a wrong name gets the real ones.
    // The server's own name for the tool, or the name a model sees
    // (`mcp__ev__get_sum`, or its last part).
    let own_name = || -> Option<String> {
        let c = server.catalog()?;
        if c.tools.iter().any(|t| t.name == a.tool) {
            return Some(a.tool.clone());
        }
        let exposed = format!("{}{}__{}", crate::mcp::naming::PREFIX, a.name, a.tool);
        registry
            .index()
            .tools
            .iter()
            .find(|t| {
                registry.servers()[t.server].name == a.name
                    && (t.name == a.tool || t.name == exposed)
            })
            .map(|t| t.tool.name.clone())
    };
    if own_name().is_none() {
        if let Err(why) = server.refresh().await {
            registry.shutdown().await;
            return Err(CommandError::runtime(why.to_string(), None));
        }
    }
    let Some(tool) = own_name() else {
        let names: Vec<String> = server
            .catalog()
            .map(|c| c.tools.into_iter().map(|t| t.name).collect())
            .unwrap_or_default();
        registry.shutdown().await;
        return Err(CommandError::usage(
            format!("server `{}` has no tool `{}`", a.name, a.tool),
            format!("its tools: {}", names.join(", ")),
        ));
    };
    let out = server
        .call("", &tool, args, &CancellationToken::new(), &|| {})
        .await;
    registry.shutdown().await;
    if json {
        outln!(
            "{}",
            serde_json::json!({"content": out.content, "is_error": out.is_error})
        );
    } else {
        outln!("{}", out.content);
    }
    if out.is_error {
        return Err(CommandError::runtime(
            format!("`{}` on server `{}` answered with an error", a.tool, a.name),
            None,
        ));
    }
    Ok(())
}
