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
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdin and
    /// stdout (127.0.0.1:PORT; port 0 picks one, printed on stderr).
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// With --http: every request must carry `Authorization: Bearer` and
    /// the token this variable holds.
    #[arg(long, value_name = "NAME", requires = "http")]
    token_env: Option<String>,
    /// List every server's tools too, by their `mcp__SERVER__TOOL` names
    /// (which starts the servers with no cached catalog at `tools/list`).
    #[arg(long)]
    expose_all: bool,
}

pub(super) async fn run(a: &ServeArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let token = match &a.token_env {
        None => None,
        Some(name) => match std::env::var(name) {
            Ok(t) if !t.trim().is_empty() => {
                crate::util::secrets::remember(t.trim());
                Some(t.trim().to_string())
            }
            _ => {
                return Err(CommandError::usage(
                    format!("--token-env {name}: the variable is not set"),
                    format!("export {name}=… (the token clients send as Authorization: Bearer)"),
                ))
            }
        },
    };
    let mut settings = crate::config::resolve(ctx.paths.clone(), ctx.cwd, ctx.overrides)?;
    settings.approvals.rules.extend(
        a.approve
            .iter()
            .map(|g| ApprovalRule::glob(g, Decision::Allow, RuleOrigin::Flag)),
    );
    leave_out_itself(&mut settings);
    // A task (`agent`) is a whole hermes run: every built-in the config
    // names.
    let task = task_runner(settings.clone(), ctx.cwd.to_path_buf());
    settings.builtin.names = crate::config::defaults::BUILTIN_TOOLS[BUILTINS]
        .iter()
        .map(|n| n.to_string())
        .collect();
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
    let mut served = crate::frontend::mcp_serve::Served::new(
        tools,
        (asking, refusing),
        answers,
        ctx.cwd.to_path_buf(),
        mcp,
        Some(task),
    );
    served.expose_all = a.expose_all;
    let served = match a.http {
        None => crate::frontend::mcp_serve::serve_stdio(served).await,
        Some(addr) => {
            let stop = tokio_util::sync::CancellationToken::new();
            let on_signal = stop.clone();
            tokio::spawn(async move {
                use tokio::signal::unix::{signal, SignalKind};
                let (Ok(mut term), Ok(mut int)) = (
                    signal(SignalKind::terminate()),
                    signal(SignalKind::interrupt()),
                ) else {
                    return;
                };
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
                on_signal.cancel();
            });
            crate::frontend::mcp_serve::serve_http(served, addr, token, stop).await
        }
    };
    served.map_err(|why| CommandError::runtime(format!("hermes mcp serve: {why}"), None))
}

/// A configured server that is this very command would serve itself for
/// ever: left out.
fn leave_out_itself(settings: &mut crate::config::Settings) {
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
}

/// What runs `agent`'s tasks: each a hermes run of its own in `cwd` — a
/// new session, or the one it names — as `hermes -q` would make it.
fn task_runner(
    settings: crate::config::Settings,
    cwd: std::path::PathBuf,
) -> crate::frontend::mcp_serve::TaskRunner {
    let settings = Arc::new(settings);
    Arc::new(move |prompt, session, answers, out, cancel| {
        let (settings, cwd) = (settings.clone(), cwd.clone());
        Box::pin(async move { task(&settings, &cwd, prompt, session, answers, out, cancel).await })
    })
}

/// One task: the conversation assembled, its events passed on, one turn
/// run; then its servers and processes ended. The answer and session id.
async fn task(
    settings: &crate::config::Settings,
    cwd: &std::path::Path,
    prompt: String,
    session: Option<String>,
    answers: Option<crate::policy::Answers>,
    out: tokio::sync::mpsc::UnboundedSender<crate::agent::Event>,
    cancel: tokio_util::sync::CancellationToken,
) -> Result<(String, String), String> {
    let resume = match &session {
        Some(id) => Some(
            crate::session::find(&settings.paths.sessions_dir(), id).map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    let c = crate::app::assemble(settings, cwd, resume.as_deref().into(), false)
        .await
        .map_err(|e| e.message)?;
    let crate::app::Conversation {
        mut agent,
        mut events,
        mcp,
    } = c;
    if let Some(a) = answers {
        agent
            .policy_mut()
            .answered_on(a, settings.paths.config_file());
    }
    let forward = tokio::spawn(async move {
        while let Some(e) = events.recv().await {
            let _ = out.send(e);
        }
    });
    let id = agent.session().id().to_string();
    let background = agent.background();
    let outcome = agent.run_turn(&prompt, &cancel).await;
    drop(agent);
    background.end_session();
    mcp.shutdown().await;
    // Its events are all sent once the agent is gone; a sender a server's
    // callback still holds does not hold the answer back.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), forward).await;
    outcome.map(|o| (o.text, id)).map_err(|e| e.to_string())
}
