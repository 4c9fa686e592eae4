//! `hermes trust [--forget]`: lets the project folder's
//! `.hermes/config.toml`, as it is now, set servers, hooks, providers,
//! approvals, connectors and the system prompt, or takes that back
//! (`config::trust`).

use clap::Args;

use super::Context;
use crate::app::CommandError;
use crate::config::trust::{self, TrustError};

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// Stop trusting the folder: its project config may again only choose
    /// the provider, model, tool search and limits.
    #[arg(long)]
    forget: bool,
}

pub fn run(args: &TrustArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let keys = trust::HELD.join(", ");
    if args.forget {
        let (folder, was) = trust::forget(ctx.paths, ctx.cwd).map_err(error)?;
        if was {
            eprintln!(
                "{} is no longer trusted: its .hermes/config.toml no longer sets {keys}",
                folder.display()
            );
        } else {
            eprintln!("{} was not trusted", folder.display());
        }
        return Ok(());
    }
    let (folder, already) = trust::trust(ctx.paths, ctx.cwd).map_err(error)?;
    if already {
        eprintln!("{} is trusted already", folder.display());
    } else {
        eprintln!(
            "trusted {}: its .hermes/config.toml may now set {keys} (undo with `hermes trust --forget`)",
            folder.display()
        );
    }
    for line in what_it_sets(&folder.join(".hermes").join("config.toml")) {
        eprintln!("  {line}");
    }
    Ok(())
}

/// What the trusted file now does: the commands it runs and where it sends
/// requests, so the choice can be checked.
fn what_it_sets(config: &std::path::Path) -> Vec<String> {
    let Some(t) = std::fs::read_to_string(config)
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
    else {
        return Vec::new();
    };
    let text = |v: Option<&toml::Value>| v.and_then(|v| v.as_str()).unwrap_or("?").to_string();
    let mut out = Vec::new();
    let tables = |key: &str| {
        t.get(key)
            .and_then(|v| v.as_table())
            .cloned()
            .unwrap_or_default()
    };
    for (name, s) in tables("mcp_servers") {
        let args: Vec<String> = s
            .get("args")
            .and_then(|a| a.as_array())
            .map(|a| a.iter().map(|x| text(Some(x))).collect())
            .unwrap_or_default();
        out.push(
            format!(
                "server {name}: {} {}",
                text(s.get("command")),
                args.join(" ")
            )
            .trim_end()
            .to_string(),
        );
    }
    for (when, hooks) in tables("hooks") {
        for h in hooks.as_array().into_iter().flatten() {
            out.push(format!("hook {when}: {}", text(h.get("command"))));
        }
    }
    for (name, p) in tables("providers") {
        if let Some(url) = p.get("base_url") {
            out.push(format!("provider {name}: {}", text(Some(url))));
        }
    }
    if let Some(mode) = tables("approvals").get("mode") {
        out.push(format!("approvals: mode = {}", text(Some(mode))));
    }
    if let Some(url) = tables("connectors").get("url") {
        out.push(format!("connectors: {}", text(Some(url))));
    }
    if t.contains_key("system_prompt") {
        out.push("its own system prompt".into());
    }
    out
}

fn error(e: TrustError) -> CommandError {
    match e {
        TrustError::NoProject { .. } => CommandError::usage(
            e.to_string(),
            "run it in the project folder (the one holding .hermes/config.toml)",
        ),
        TrustError::Unlisted { .. } => CommandError::usage(
            e.to_string(),
            "move the project to a path without a line break",
        ),
        TrustError::Read { .. } => {
            CommandError::runtime(e.to_string(), Some("check the file's permissions".into()))
        }
        TrustError::Store { .. } => CommandError::runtime(
            e.to_string(),
            Some("check that hermes may write to its data folder (HERMES_HOME)".into()),
        ),
    }
}
