//! `hermes mcp import FILE`: the servers of an `mcpServers` JSON file
//! (Claude Desktop, `.mcp.json`, Cursor, VS Code) or of Codex's
//! `config.toml` (`[mcp_servers.NAME]`, `config::codex_toml`) added to the
//! user config —
//! local ones (`command`) and remote ones (`url`, `type: "http"` / `"sse"`,
//! with `headers`). `${VAR}` and `${VAR:-default}` are kept as written and
//! expanded at each start, as Claude Code does: a variable set later is
//! used, and no value is copied into config.toml. What does not map is
//! named, field by field (`config::mcp_json`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use clap::Args;

use super::entry::{edit_config, insert_server};
use crate::app::commands::Context;
use crate::app::CommandError;
use crate::config::mcp_json;

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    file: PathBuf,
}

pub(super) fn run(a: &ImportArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let user_file = &ctx.user_config();
    // The file's relative commands and folders are its own folder's.
    let base = std::path::absolute(&a.file)
        .ok()
        .and_then(|f| f.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| ctx.cwd.to_path_buf());
    // Codex's config.toml, or an `mcpServers` JSON file.
    let servers = if a.file.extension().is_some_and(|e| e == "toml") {
        let text = read(&a.file)?;
        crate::config::codex_toml::servers(&text, &base).map_err(|e| {
            CommandError::usage(format!("{}: {e}", a.file.display()), EXPECTED_CODEX)
        })?
    } else {
        let json = read_json(&a.file)?;
        mcp_json::servers(&json, &base)
            .map_err(|e| CommandError::usage(format!("{}: {e}", a.file.display()), EXPECTED))?
    };
    let mut added = Vec::new();
    let mut skipped = Vec::new();
    let mut notes = Vec::new();
    edit_config(user_file, |doc| {
        for s in &servers {
            let entry = match &s.entry {
                Ok(e) => edit_table(e),
                Err(why) => {
                    skipped.push(format!("{}: {why}", s.raw_name));
                    continue;
                }
            };
            match insert_server(doc, &s.name, entry) {
                Ok(()) => {
                    added.push(s.name.clone());
                    notes.extend(s.dropped.iter().map(|d| format!("`{}`: {d}", s.name)));
                }
                Err(e) => skipped.push(format!("{}: {e}", s.raw_name)),
            }
        }
        Ok(())
    })?;
    for a in &added {
        outln!("added MCP server `{a}`");
    }
    for n in &notes {
        errln!("note: {n}");
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
const EXPECTED_CODEX: &str =
    "expected Codex's config.toml, with [mcp_servers.NAME] tables (command = …, or url = …)";

fn read(file: &Path) -> Result<String, CommandError> {
    std::fs::read_to_string(file).map_err(|e| {
        CommandError::usage(
            format!("cannot read {}: {e}", file.display()),
            "give the path of an mcpServers JSON file or of Codex's config.toml",
        )
    })
}

fn read_json(file: &Path) -> Result<Value, CommandError> {
    let text = read(file)?;
    serde_json::from_str(&text).map_err(|e| {
        CommandError::usage(
            format!("{}: not valid JSON ({e})", file.display()),
            EXPECTED,
        )
    })
}

/// A server's table as config.toml writes it: its maps (`env`, `headers`)
/// inline.
fn edit_table(t: &toml::Table) -> toml_edit::Table {
    fn value(v: &toml::Value) -> toml_edit::Value {
        match v {
            toml::Value::String(s) => s.as_str().into(),
            toml::Value::Integer(i) => (*i).into(),
            toml::Value::Float(f) => (*f).into(),
            toml::Value::Boolean(b) => (*b).into(),
            toml::Value::Array(a) => {
                let mut out = toml_edit::Array::new();
                for x in a {
                    out.push(value(x));
                }
                out.into()
            }
            toml::Value::Table(t) => {
                let mut out = toml_edit::InlineTable::new();
                for (k, x) in t {
                    out.insert(k, value(x));
                }
                out.into()
            }
            toml::Value::Datetime(d) => d.to_string().into(),
        }
    }
    let mut out = toml_edit::Table::new();
    for (k, v) in t {
        out[k.as_str()] = toml_edit::value(value(v));
    }
    out
}
