//! `hermes mcp serve`: hermes as an MCP server on stdin and stdout, for
//! any MCP client — its gateway over the configured servers (started as
//! in a session: none at start, a search warms what it needs, a call
//! starts its server) and its built-ins on the folder it starts in,
//! sandboxed and reviewed as in a session.

use std::sync::Arc;

use clap::Args;

use crate::app::commands::Context;
use crate::app::CommandError;
use crate::config::{ApprovalRule, Decision, DeferMode, DeferPolicy, RuleOrigin};

/// The built-ins a client gets: a run's first six — the file tools and
/// `shell` — not `web_fetch`, `update_plan` or `agent`, which are a
/// conversation's.
const BUILTINS: std::ops::Range<usize> = 0..6;

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Let tools matching GLOB run without asking (repeatable): what a
    /// client that takes no forms may run beyond what config allows.
    #[arg(long, value_name = "GLOB")]
    approve: Vec<String>,
}

pub(super) async fn run(a: &ServeArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let mut settings = crate::config::resolve(ctx.paths.clone(), ctx.cwd, ctx.overrides)?;
    settings.builtin.names = crate::config::defaults::BUILTIN_TOOLS[BUILTINS]
        .iter()
        .map(|n| n.to_string())
        .collect();
    settings.approvals.rules.extend(
        a.approve
            .iter()
            .map(|g| ApprovalRule::glob(g, Decision::Allow, RuleOrigin::Flag)),
    );
    // A configured server that is this very command would serve itself
    // for ever: left out.
    let me = std::env::current_exe().ok();
    settings.mcp_servers.retain(|name, s| {
        let itself = s.args.windows(2).any(|w| w == ["mcp", "serve"])
            && (me
                .as_ref()
                .is_some_and(|m| std::path::Path::new(&s.command) == m)
                || s.command.ends_with("hermes"));
        if itself {
            errln!("hermes mcp serve: server `{name}` is hermes mcp serve itself; left out");
        }
        !itself
    });
    for w in &settings.warnings {
        errln!("warning: {w}");
    }
    let mcp = Arc::new(crate::mcp::McpRegistry::new(
        &settings.mcp_servers,
        &settings.paths,
    )?);
    let tools = crate::tools::Registry::with_builtins(
        &settings.builtin,
        ctx.cwd,
        settings.limits.tool_output_bytes,
    )?
    .with_mcp(mcp.clone())
    .with_policy(DeferPolicy {
        mode: DeferMode::Always,
        ..settings.defer.clone()
    });
    tools.keep_deferral(true);
    let answers = crate::policy::Answers::default();
    let mut asking = crate::policy::Policy::from_settings(&settings.hooks, &settings.approvals);
    asking.answered_on(answers.clone(), settings.paths.config_file());
    let refusing = crate::policy::Policy::from_settings(&settings.hooks, &settings.approvals);
    let served = crate::frontend::mcp_serve::Served::new(
        tools,
        (asking, refusing),
        answers,
        ctx.cwd.to_path_buf(),
        mcp,
    );
    crate::frontend::mcp_serve::serve_stdio(served)
        .await
        .map_err(|why| CommandError::runtime(format!("hermes mcp serve: {why}"), None))
}
