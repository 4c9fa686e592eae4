//! `hermes mcp add NAME [--env K=V]… -- COMMAND ARGS…` (a local server) or
//! `hermes mcp add NAME --url URL [--header K=V]… [--bearer-token-env VAR]
//! [--client-id ID] [--client-secret-env VAR] [--scope S]…` (a remote one).

use clap::Args;

use super::entry::{edit_config, insert_server, toml_entry};
use crate::app::commands::Context;
use crate::app::CommandError;

#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    name: String,
    /// Environment variable for the server (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// A remote server's endpoint (streamable HTTP), instead of a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// An HTTP header for a remote server (repeatable).
    #[arg(long = "header", value_name = "KEY=VALUE", requires = "url")]
    headers: Vec<String>,
    /// The variable holding a bearer token for a remote server.
    #[arg(long, value_name = "VAR", requires = "url")]
    bearer_token_env: Option<String>,
    /// A client registered with the server's authorization server (OAuth).
    #[arg(long, value_name = "ID", requires = "url")]
    client_id: Option<String>,
    /// The variable holding that client's secret.
    #[arg(long, value_name = "VAR", requires = "client_id")]
    client_secret_env: Option<String>,
    /// A scope to ask for when the server does not say (repeatable).
    #[arg(long = "scope", value_name = "SCOPE", requires = "url")]
    scopes: Vec<String>,
    /// The command and its arguments.
    #[arg(last = true, required_unless_present = "url", value_name = "COMMAND")]
    command: Vec<String>,
}

pub(super) fn run(a: &AddArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let user_file = ctx.user_config();
    if let Some(url) = &a.url {
        let entry = remote_entry(a, url)?;
        edit_config(&user_file, |doc| insert_server(doc, &a.name, entry))?;
        outln!(
            "added remote MCP server `{}` ({url}) to {}",
            a.name,
            user_file.display()
        );
        return Ok(());
    }
    // `./server.sh` is the one in the folder the user typed it in: the
    // config file's relative commands are its own folder's.
    let mut command = a.command.clone();
    if let Some(program) = command.first_mut() {
        if program.contains('/') && !std::path::Path::new(program.as_str()).is_absolute() {
            *program = ctx.cwd.join(&*program).display().to_string();
        }
    }
    let entry = toml_entry(&command, &parse_env(&a.env)?);
    edit_config(&user_file, |doc| insert_server(doc, &a.name, entry))?;
    outln!("added MCP server `{}` to {}", a.name, user_file.display());
    for w in crate::config::file_warnings(std::slice::from_ref(&user_file)) {
        errln!("warning: {w}");
    }
    Ok(())
}

/// The `[mcp_servers.NAME]` table of a remote server.
fn remote_entry(a: &AddArgs, url: &str) -> Result<toml_edit::Table, CommandError> {
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err(CommandError::usage(
            format!("--url {url}: expected an http:// or https:// URL"),
            "e.g. --url https://mcp.example.com/mcp",
        ));
    }
    let mut t = toml_edit::Table::new();
    t["url"] = toml_edit::value(url);
    let headers = parse_env(&a.headers)?;
    if !headers.is_empty() {
        let mut h = toml_edit::InlineTable::new();
        for (k, v) in &headers {
            h.insert(k, v.as_str().into());
        }
        t["headers"] = toml_edit::value(h);
    }
    if let Some(v) = &a.bearer_token_env {
        t["bearer_token_env"] = toml_edit::value(v.as_str());
    }
    if a.client_id.is_some() || !a.scopes.is_empty() {
        let mut o = toml_edit::Table::new();
        if let Some(id) = &a.client_id {
            o["client_id"] = toml_edit::value(id.as_str());
        }
        if let Some(v) = &a.client_secret_env {
            o["client_secret_env"] = toml_edit::value(v.as_str());
        }
        if !a.scopes.is_empty() {
            let mut s = toml_edit::Array::new();
            for scope in &a.scopes {
                s.push(scope.as_str());
            }
            o["scopes"] = toml_edit::value(s);
        }
        t["oauth"] = toml_edit::Item::Table(o);
    }
    Ok(t)
}

fn parse_env(pairs: &[String]) -> Result<Vec<(String, String)>, CommandError> {
    pairs
        .iter()
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| {
                    CommandError::usage(
                        format!("--env {p}: expected KEY=VALUE"),
                        "e.g. --env LOG_LEVEL=warn",
                    )
                })
        })
        .collect()
}
