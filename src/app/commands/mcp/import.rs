//! `hermes mcp import FILE`: the servers of an `mcpServers` JSON file
//! (Claude Desktop, `.mcp.json`, Cursor) added to the user config — local
//! ones (`command`) and remote ones (`url`, `type: "http"` / `"sse"`, with
//! `headers`). `${VAR}` and `${VAR:-default}` are expanded from the
//! environment as Claude Code does.

use std::path::{Path, PathBuf};

use serde_json::Value;

use clap::Args;

use super::{edit_config, insert_server, toml_entry};
use crate::app::commands::Context;
use crate::app::CommandError;

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    file: PathBuf,
}

pub(super) fn run(a: &ImportArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let user_file = &ctx.user_config();
    let json = read_json(&a.file)?;
    let servers = json
        .get("mcpServers")
        .or_else(|| json.get("servers"))
        .and_then(|s| s.as_object())
        .ok_or_else(|| {
            CommandError::usage(
                format!("{}: no `mcpServers` object", a.file.display()),
                EXPECTED,
            )
        })?;
    let mut added = Vec::new();
    let mut skipped = Vec::new();
    // The file's relative commands and folders are its own folder's.
    let base = std::path::absolute(&a.file)
        .ok()
        .and_then(|f| f.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| ctx.cwd.to_path_buf());
    edit_config(user_file, |doc| {
        for (raw_name, s) in servers {
            let name = server_name(raw_name);
            let entry = match server_entry(s, &base) {
                Ok(e) => e,
                Err(why) => {
                    skipped.push(format!("{raw_name}: {why}"));
                    continue;
                }
            };
            match insert_server(doc, &name, entry) {
                Ok(()) => added.push(name),
                Err(e) => skipped.push(format!("{raw_name}: {e}")),
            }
        }
        Ok(())
    })?;
    for a in &added {
        outln!("added MCP server `{a}`");
    }
    for s in &skipped {
        errln!("skipped {s}");
    }
    outln!(
        "{} added, {} skipped, into {}",
        added.len(),
        skipped.len(),
        user_file.display()
    );
    for w in crate::config::file_warnings(std::slice::from_ref(user_file)) {
        errln!("warning: {w}");
    }
    Ok(())
}

const EXPECTED: &str = "expected {\"mcpServers\": {\"name\": {\"command\": …}}}";

fn read_json(file: &Path) -> Result<Value, CommandError> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        CommandError::usage(
            format!("cannot read {}: {e}", file.display()),
            "give the path of an mcpServers JSON file",
        )
    })?;
    serde_json::from_str(&text).map_err(|e| {
        CommandError::usage(
            format!("{}: not valid JSON ({e})", file.display()),
            EXPECTED,
        )
    })
}

/// A server name hermes accepts, from the file's key.
fn server_name(raw: &str) -> String {
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .replace("__", "_")
}

/// The `[mcp_servers.NAME]` table of one `mcpServers` entry, or why it is
/// skipped.
fn server_entry(s: &Value, base: &Path) -> Result<toml_edit::Table, String> {
    let map = |v: Option<&Value>| -> Vec<(String, String)> {
        v.and_then(|e| e.as_object())
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), expand(v))))
            .collect()
    };
    if let Some(url) = s.get("url").and_then(|u| u.as_str()) {
        let kind = s.get("type").and_then(|t| t.as_str()).unwrap_or("http");
        if !matches!(kind, "http" | "sse" | "streamable-http") {
            return Err(format!("unknown server type `{kind}`"));
        }
        let mut t = toml_edit::Table::new();
        t["url"] = toml_edit::value(expand(url));
        // `Authorization: Bearer ${VAR}` stays a reference to the variable:
        // the token itself is not written into config.toml.
        let raw = s.get("headers").and_then(Value::as_object);
        let bearer = raw.into_iter().flatten().find_map(|(k, v)| {
            let var = v.as_str()?.strip_prefix("Bearer ${")?.strip_suffix('}')?;
            let plain =
                !var.is_empty() && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (k.eq_ignore_ascii_case("authorization") && plain).then(|| (k.clone(), var.to_string()))
        });
        if let Some((_, var)) = &bearer {
            t["bearer_token_env"] = toml_edit::value(var.as_str());
        }
        let headers: Vec<_> = map(s.get("headers"))
            .into_iter()
            .filter(|(k, _)| bearer.as_ref().is_none_or(|(b, _)| b != k))
            .collect();
        if !headers.is_empty() {
            let mut h = toml_edit::InlineTable::new();
            for (k, v) in &headers {
                h.insert(k, v.as_str().into());
            }
            t["headers"] = toml_edit::value(h);
        }
        return Ok(t);
    }
    let Some(command) = s.get("command").and_then(|c| c.as_str()) else {
        return Err("no command and no url".into());
    };
    let command = &expand(command);
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(|a| a.as_array())
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(expand))
            .collect()
    };
    let relative = |p: &str| p.contains('/') && !Path::new(p).is_absolute() && !p.starts_with('~');
    let command = if relative(command) {
        base.join(command).display().to_string()
    } else {
        command.to_string()
    };
    let mut cmd = vec![command];
    cmd.extend(strings(s.get("args")));
    let env = map(s.get("env"));
    let mut entry = toml_entry(&cmd, &env);
    if let Some(cwd) = s.get("cwd").and_then(|c| c.as_str()).map(expand) {
        let cwd = cwd.as_str();
        let cwd = match Path::new(cwd).is_absolute() || cwd.starts_with('~') {
            true => cwd.to_string(),
            false => base.join(cwd).display().to_string(),
        };
        entry["cwd"] = toml_edit::value(cwd);
    }
    Ok(entry)
}

/// `${VAR}` and `${VAR:-default}` replaced from the environment, as Claude
/// Code reads `.mcp.json`; an unset variable without a default is left as
/// written (the server then says what it misses).
fn expand(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return out;
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        match (std::env::var(name).ok().filter(|v| !v.is_empty()), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => out.push_str(&rest[at..at + 3 + end]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_expand_as_claude_code_does() {
        std::env::set_var("HERMES_IMPORT_TEST_TOKEN", "t0k");
        assert_eq!(expand("Bearer ${HERMES_IMPORT_TEST_TOKEN}"), "Bearer t0k");
        assert_eq!(
            expand("${HERMES_IMPORT_UNSET:-http://localhost:3000}/mcp"),
            "http://localhost:3000/mcp"
        );
        assert_eq!(expand("${HERMES_IMPORT_UNSET}"), "${HERMES_IMPORT_UNSET}");
        assert_eq!(expand("plain ${unclosed"), "plain ${unclosed");
    }
}
