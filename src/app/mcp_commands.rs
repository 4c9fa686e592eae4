//! `hermes mcp …`: list, inspect, test, add, remove and import MCP servers.
//! `list` reads only config and cached catalogs; `add`/`remove`/`import` edit
//! the user config in place (comments and layout kept) and validate the result
//! before writing it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use super::{RuntimeError, UsageError};
use crate::cli::McpAction;
use crate::config::{self, Overrides, Paths};
use crate::mcp::{self, McpRegistry};

pub async fn run(
    action: &McpAction,
    paths: &Paths,
    cwd: &Path,
    ov: &Overrides,
) -> anyhow::Result<ExitCode> {
    let user_file = ov
        .config_path
        .clone()
        .unwrap_or_else(|| paths.config_file());
    match action {
        McpAction::Add { name, env, command } => {
            let entry = toml_entry(command, &parse_env(env)?);
            edit_config(&user_file, |doc| insert_server(doc, name, entry))?;
            println!("added MCP server `{name}` to {}", user_file.display());
            Ok(ExitCode::SUCCESS)
        }
        McpAction::Remove { name } => {
            edit_config(&user_file, |doc| {
                let removed = doc
                    .get_mut("mcp_servers")
                    .and_then(|t| t.as_table_like_mut())
                    .and_then(|t| t.remove(name));
                removed.map(|_| ()).ok_or_else(|| {
                    usage(
                        format!("no MCP server `{name}` in {}", user_file.display()),
                        "`hermes mcp list` shows the configured servers",
                    )
                })
            })?;
            println!("removed MCP server `{name}` from {}", user_file.display());
            Ok(ExitCode::SUCCESS)
        }
        McpAction::Import { file } => import(file, &user_file),
        McpAction::List => {
            let (merged, _) = config::load_merged(paths, cwd, ov)?;
            let servers = config::mcp_servers(&merged);
            let registry = McpRegistry::new(&servers, paths)?;
            if servers.is_empty() {
                eprintln!("no MCP servers configured; add one with `hermes mcp add NAME -- COMMAND ARGS…`");
            }
            let index = registry.index();
            for (name, entry) in &servers {
                let state = match registry.server(name) {
                    None => "disabled".to_string(),
                    Some(s) => match s.catalog() {
                        None => "not started yet (no cached catalog)".to_string(),
                        Some(c) => {
                            let exposed = index
                                .tools
                                .iter()
                                .filter(|t| registry.servers()[t.server].name == *name)
                                .count();
                            format!("{exposed} tools (cached {} ago)", age(c.age_secs()))
                        }
                    },
                };
                let cmdline = std::iter::once(entry.command.as_str())
                    .chain(entry.args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                println!("{name:<16} {state:<36} {cmdline}");
            }
            Ok(ExitCode::SUCCESS)
        }
        McpAction::Tools { name } => {
            let (registry, server) = one_server(paths, cwd, ov, name)?;
            if server.catalog().is_none() {
                let r = server.refresh().await;
                registry.shutdown().await;
                r.map_err(|why| usage(why.to_string(), &log_hint(&server)))?;
            }
            for t in registry
                .index()
                .tools
                .iter()
                .filter(|t| registry.servers()[t.server].name == *name)
            {
                let first = t.tool.description.lines().next().unwrap_or("");
                println!("{}  {}", t.name, crate::util::text::excerpt(first, 100));
            }
            Ok(ExitCode::SUCCESS)
        }
        McpAction::Test { name } => {
            let (registry, server) = one_server(paths, cwd, ov, name)?;
            let r = server.refresh().await;
            registry.shutdown().await;
            match r {
                Ok(rep) => {
                    println!(
                        "server `{name}`: {}",
                        if rep.server_info.is_empty() {
                            "(no server info)"
                        } else {
                            &rep.server_info
                        }
                    );
                    println!(
                        "  start + handshake  {:>8.1} ms",
                        rep.spawn_and_handshake.as_secs_f64() * 1e3
                    );
                    println!(
                        "  tools/list         {:>8.1} ms  ({} tools)",
                        rep.list.as_secs_f64() * 1e3,
                        rep.tools
                    );
                    println!("  stderr log         {}", server.log_path().display());
                    Ok(ExitCode::SUCCESS)
                }
                Err(why) => Err(usage_runtime(why.to_string(), &log_hint(&server))),
            }
        }
    }
}

fn log_hint(server: &mcp::McpServer) -> String {
    format!("its stderr is in {}", server.log_path().display())
}

fn one_server(
    paths: &Paths,
    cwd: &Path,
    ov: &Overrides,
    name: &str,
) -> anyhow::Result<(Arc<McpRegistry>, Arc<mcp::McpServer>)> {
    let (merged, _) = config::load_merged(paths, cwd, ov)?;
    let servers = config::mcp_servers(&merged);
    let registry = Arc::new(McpRegistry::new(&servers, paths)?);
    let server = registry.server(name).cloned().ok_or_else(|| {
        let why = if servers.contains_key(name) {
            "is disabled"
        } else {
            "is not configured"
        };
        usage(
            format!("MCP server `{name}` {why}"),
            "`hermes mcp list` shows the configured servers",
        )
    })?;
    Ok((registry, server))
}

fn age(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s if s < 172_800 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}

fn usage(message: String, hint: &str) -> anyhow::Error {
    UsageError {
        message,
        hint: Some(hint.to_string()),
    }
    .into()
}

/// A failure of the server rather than of the invocation: exit 1.
fn usage_runtime(message: String, hint: &str) -> anyhow::Error {
    RuntimeError {
        message,
        hint: Some(hint.to_string()),
    }
    .into()
}

fn parse_env(pairs: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    pairs
        .iter()
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| {
                    usage(
                        format!("--env {p}: expected KEY=VALUE"),
                        "e.g. --env LOG_LEVEL=warn",
                    )
                })
        })
        .collect()
}

fn toml_entry(command: &[String], env: &[(String, String)]) -> toml_edit::Table {
    let mut t = toml_edit::Table::new();
    t["command"] = toml_edit::value(command[0].clone());
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
) -> anyhow::Result<()> {
    mcp::check_name(name)?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or_else(|| anyhow::anyhow!("mcp_servers in the config is not a table"))?;
    if servers.contains_key(name) {
        return Err(usage(
            format!("an MCP server named `{name}` is already configured"),
            &format!("remove it first with `hermes mcp remove {name}`, or pick another name"),
        ));
    }
    servers.insert(name, toml_edit::Item::Table(entry));
    Ok(())
}

/// Reads the file (or starts empty), applies `f`, checks the result is a valid
/// config, and only then writes it.
fn edit_config(
    path: &Path,
    f: impl FnOnce(&mut toml_edit::DocumentMut) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(config::ConfigError::Read {
                path: path.to_path_buf(),
                source,
            }
            .into())
        }
    };
    config::parse_text(path, &text)?;
    let mut doc: toml_edit::DocumentMut = text.parse()?;
    f(&mut doc)?;
    let out = doc.to_string();
    config::parse_text(path, &out)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, out)?;
    Ok(())
}

fn import(file: &PathBuf, user_file: &Path) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        usage(
            format!("cannot read {}: {e}", file.display()),
            "give the path of an mcpServers JSON file",
        )
    })?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        usage(
            format!("{}: not valid JSON ({e})", file.display()),
            "expected {\"mcpServers\": {\"name\": {\"command\": …}}}",
        )
    })?;
    let servers = json
        .get("mcpServers")
        .or_else(|| json.get("servers"))
        .and_then(|s| s.as_object())
        .ok_or_else(|| {
            usage(
                format!("{}: no `mcpServers` object", file.display()),
                "expected {\"mcpServers\": {\"name\": {\"command\": …}}}",
            )
        })?;
    let mut added = Vec::new();
    let mut skipped = Vec::new();
    edit_config(user_file, |doc| {
        for (raw_name, s) in servers {
            let name: String = raw_name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
                .replace("__", "_");
            let Some(command) = s.get("command").and_then(|c| c.as_str()) else {
                let why = if s.get("url").is_some() {
                    "remote (url) servers are not supported yet"
                } else {
                    "no command"
                };
                skipped.push(format!("{raw_name}: {why}"));
                continue;
            };
            let mut cmd = vec![command.to_string()];
            cmd.extend(
                s.get("args")
                    .and_then(|a| a.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.as_str().map(str::to_string)),
            );
            let env: Vec<(String, String)> = s
                .get("env")
                .and_then(|e| e.as_object())
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect();
            let mut entry = toml_entry(&cmd, &env);
            if let Some(cwd) = s.get("cwd").and_then(|c| c.as_str()) {
                entry["cwd"] = toml_edit::value(cwd);
            }
            match insert_server(doc, &name, entry) {
                Ok(()) => added.push(name),
                Err(e) => skipped.push(format!("{raw_name}: {e}")),
            }
        }
        Ok(())
    })?;
    for a in &added {
        println!("added MCP server `{a}`");
    }
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    println!(
        "{} added, {} skipped, into {}",
        added.len(),
        skipped.len(),
        user_file.display()
    );
    Ok(ExitCode::SUCCESS)
}
