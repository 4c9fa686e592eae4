//! `hermes mcp add NAME [--env K=V]… -- COMMAND ARGS…`

use clap::Args;

use super::{edit_config, insert_server, toml_entry};
use crate::app::commands::Context;
use crate::app::CommandError;

#[derive(Debug, Args)]
pub struct AddArgs {
    name: String,
    /// Environment variable for the server (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub(super) fn run(a: &AddArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let user_file = ctx.user_config();
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
