//! `hermes mcp list`: configured servers, their state and tool counts, from
//! config and the cached catalogs only — it starts nothing.

use crate::app::commands::Context;
use crate::app::CommandError;
use crate::config;
use crate::mcp::McpRegistry;

pub(super) fn run(ctx: &Context<'_>) -> Result<(), CommandError> {
    let merged = config::load_merged(ctx.paths, ctx.cwd, ctx.overrides)?;
    if let Some(held) = &merged.held {
        errln!("warning: {held}");
    }
    let servers = config::mcp_servers(&merged.file);
    let registry = McpRegistry::new(&servers, ctx.paths)?;
    if servers.is_empty() {
        errln!("no MCP servers configured; add one with `hermes mcp add NAME -- COMMAND ARGS…`");
    }
    let counts = registry.exposed_counts();
    for (name, entry) in &servers {
        let at = registry.servers().iter().position(|s| s.name == *name);
        let state = match at.map(|i| (&registry.servers()[i], counts[i])) {
            _ if entry.unset.is_some() => "cannot start: a variable is not set".to_string(),
            None => "disabled".to_string(),
            Some((s, exposed)) => match s.catalog() {
                None => "not started yet (no cached catalog)".to_string(),
                Some(c) => format!("{exposed} tools (cached {} ago)", age(c.age_secs())),
            },
        };
        let cmdline = match &entry.remote {
            // A remote server: its endpoint and whether it is logged in.
            Some(r) => {
                let store = crate::mcp::oauth::store_path(ctx.paths, name);
                match crate::mcp::oauth::standing(&store) {
                    Some(login) => format!("{} ({login})", r.url),
                    None => r.url.clone(),
                }
            }
            None => {
                let argv: Vec<&str> = std::iter::once(entry.command.as_str())
                    .chain(entry.args.iter().map(String::as_str))
                    .collect();
                crate::util::secrets::mask_args(&argv).join(" ")
            }
        };
        outln!("{name:<16} {state:<36} {cmdline}");
        if let Some(why) = &entry.unset {
            outln!("{:<16} {why}", "");
        }
        // Where it comes from, when not the user's own config.
        if let Some(from) = merged
            .origins
            .get(name)
            .filter(|p| **p != ctx.user_config())
        {
            outln!("{:<16} from {}", "", from.display());
        }
    }
    Ok(())
}

fn age(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s if s < 172_800 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}
