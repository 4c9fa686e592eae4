//! `hermes config path|show`: read-only views that need no provider key.

use clap::Subcommand;

use super::Context;
use crate::app::CommandError;
use crate::config;

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Print where the config files are.
    Path,
    /// Print the merged configuration, secrets masked.
    Show,
}

pub(crate) fn run(cmd: &ConfigCommand, ctx: &Context<'_>) -> Result<(), CommandError> {
    match cmd {
        ConfigCommand::Path => {
            outln!("{}", ctx.user_config().display());
            for p in config::project_files(ctx.cwd) {
                outln!("{}", p.display());
            }
        }
        ConfigCommand::Show => {
            let merged = config::load_merged(ctx.paths, ctx.cwd, ctx.overrides)?;
            if merged.sources.is_empty() {
                outln!("# no config files; built-in defaults");
            }
            for s in &merged.sources {
                outln!("# from {}", s.display());
            }
            if let Some(held) = &merged.held {
                outln!("# {held}");
            }
            outln!("# {}", in_use(ctx));
            outp!("{}", config::show_masked(&merged.file));
        }
    }
    Ok(())
}

/// The provider and model a run here would use, and where its key comes
/// from (never the key): what `config show` must say even with no file.
fn in_use(ctx: &Context<'_>) -> String {
    let p = match config::resolve(ctx.paths.clone(), ctx.cwd, ctx.overrides) {
        Ok(s) => s.provider,
        Err(e) => return format!("a run here would fail: {e}"),
    };
    let kind = p.kind.name();
    let key = match (&p.api_key_env, &p.api_key, p.kind) {
        (Some(var), Some(_), _) => format!("key from ${var} (set)"),
        (Some(var), None, _) => format!("key from ${var} (not set)"),
        (None, Some(_), _) => "key in the config file".to_string(),
        (None, None, config::ProviderKind::Bedrock) => {
            "credentials as the AWS tools find them (AWS_* variables, profile, SSO)".to_string()
        }
        (None, None, _) => "no key".to_string(),
    };
    let url = crate::util::secrets::mask(&p.base_url);
    format!(
        "provider {} ({kind}) · model {} · {url} · {key}",
        p.name, p.model
    )
}
