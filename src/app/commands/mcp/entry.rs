//! A server's entry written into a config file: its table, put under
//! `[mcp_servers]`, the file edited only when the result is a valid config.

use std::path::Path;

use crate::app::CommandError;
use crate::config;
use crate::mcp;

/// A `[mcp_servers.NAME]` table for `command` (program first) and `env`.
pub(super) fn toml_entry(command: &[String], env: &[(String, String)]) -> toml_edit::Table {
    let mut t = toml_edit::Table::new();
    if let Some(program) = command.first() {
        t["command"] = toml_edit::value(program.clone());
    }
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

/// `entry` added to the config as `[mcp_servers.NAME]`: a name already
/// taken is refused.
pub(super) fn insert_server(
    doc: &mut toml_edit::DocumentMut,
    name: &str,
    entry: toml_edit::Table,
) -> Result<(), CommandError> {
    mcp::check_name(name)?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or_else(|| {
            CommandError::usage(
                "mcp_servers in the config is not a table",
                "make it a [mcp_servers.NAME] table per server",
            )
        })?;
    if servers.contains_key(name) {
        return Err(CommandError::usage(
            format!("an MCP server named `{name}` is already configured"),
            format!("remove it first with `hermes mcp remove {name}`, or pick another name"),
        ));
    }
    servers.insert(name, toml_edit::Item::Table(entry));
    Ok(())
}

/// Reads the file (or starts empty), applies `f`, checks the result is a valid
/// config, and only then writes it.
pub(super) fn edit_config(
    path: &Path,
    f: impl FnOnce(&mut toml_edit::DocumentMut) -> Result<(), CommandError>,
) -> Result<(), CommandError> {
    config::edit::edit_document(path, f)
}
