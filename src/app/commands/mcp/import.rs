//! `hermes mcp import FILE`: the servers of an `mcpServers` JSON file
//! (Claude Desktop, `.mcp.json`, Cursor) added to the user config; remote
//! (url) servers are skipped with a note.

use std::path::PathBuf;

use clap::Args;

use super::{edit_config, insert_server, toml_entry};
use crate::app::commands::Context;
use crate::app::CommandError;

#[derive(Debug, Args)]
pub struct ImportArgs {
    file: PathBuf,
}

pub(super) fn run(a: &ImportArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let file = &a.file;
    let user_file = &ctx.user_config();
    let text = std::fs::read_to_string(file).map_err(|e| {
        CommandError::usage(
            format!("cannot read {}: {e}", file.display()),
            "give the path of an mcpServers JSON file",
        )
    })?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        CommandError::usage(
            format!("{}: not valid JSON ({e})", file.display()),
            "expected {\"mcpServers\": {\"name\": {\"command\": …}}}",
        )
    })?;
    let servers = json
        .get("mcpServers")
        .or_else(|| json.get("servers"))
        .and_then(|s| s.as_object())
        .ok_or_else(|| {
            CommandError::usage(
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
    Ok(())
}
