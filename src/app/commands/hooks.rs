//! `hermes hooks test [NAME] --tool T --args JSON`: runs one configured
//! hook as a tool call would, and prints its verdict — to try a guardrail
//! without a model. Without a NAME: which tool hooks would run for the call
//! and why, and what the pre hooks decide together.

use clap::Subcommand;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::Context;
use crate::app::CommandError;
use crate::call::ToolOutput;
use crate::config;
use crate::frontend::out;
use crate::policy::{HookCall, HookContext, HookEvent, HookVerdict, Policy};

#[derive(Debug, Subcommand)]
pub(crate) enum HooksCommand {
    /// Run one hook (its `name`, or `pre_tool_call[0]`) on a made-up call;
    /// without a name, every tool hook that would run for it.
    Test {
        name: Option<String>,
        /// The underlying tool's name, e.g. mcp__files__write_file.
        #[arg(long)]
        tool: String,
        /// The call's arguments, a JSON object.
        #[arg(long, default_value = "{}")]
        args: String,
        /// For a post hook: the tool's output.
        #[arg(long, default_value = "")]
        output: String,
    },
}

pub(crate) async fn run(cmd: &HooksCommand, ctx: &Context<'_>) -> Result<(), CommandError> {
    let HooksCommand::Test {
        name,
        tool,
        args,
        output,
    } = cmd;
    let settings = config::resolve(ctx.paths.clone(), ctx.cwd, ctx.overrides)?;
    for w in &settings.warnings {
        errln!("warning: {w}");
    }
    let args: Value = match serde_json::from_str(args) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Err(CommandError::usage(
                format!("--args {args}: not a JSON object"),
                "pass the call's arguments as an object, e.g. --args '{\"path\": \"/tmp/x\"}'",
            ))
        }
    };
    let policy = Policy::from_settings(&settings.hooks, &settings.approvals);
    let hook_ctx = HookContext {
        session_id: "hooks-test".into(),
        transcript_path: Default::default(),
        cwd: ctx.cwd.to_path_buf(),
        project_dir: config::project_dir(ctx.cwd),
    };
    // The tool as a real turn's hooks see it: an MCP tool by its exposed
    // name and its server's own, from the server's catalog.
    let mcp = crate::mcp::McpRegistry::new(&settings.mcp_servers, &settings.paths)?;
    let subject = crate::tools::subject_by_any_name(&mcp, tool).await;
    mcp.shutdown().await;
    let Some(name) = name else {
        return all_for(&policy, &hook_ctx, &subject, &args).await;
    };
    let Some((event, hook)) = policy.hook(name) else {
        return Err(CommandError::usage(
            format!("no hook named `{name}`"),
            "give a hook's `name`, or its place: pre_tool_call[0], post_tool_call[1] …",
        ));
    };
    let output = match event {
        HookEvent::PostFailure => ToolOutput::error(output.clone()),
        _ => ToolOutput::ok(output.clone()),
    };
    // A call its matcher does not name never reaches it: say so, and why,
    // rather than report a verdict it would never give.
    let seen = seen(tool);
    if !hook.matches(&subject) {
        outln!(
            "not run: its {} does not name {seen}",
            hook.matcher().describe()
        );
        return Ok(());
    }
    errln!("runs: its {} names {seen}", hook.matcher().describe());
    let call = HookCall {
        event,
        tool: &subject,
        call_id: "call_hookstest000000000000000",
        args: &args,
        output: matches!(event, HookEvent::Post | HookEvent::PostFailure).then_some(&output),
    };
    let answer = hook.run(&hook_ctx, &call, &CancellationToken::new()).await;
    out(format!("{}\n", verdict(&answer.verdict)).as_bytes());
    if let Some(u) = &answer.updated_input {
        out(format!("updated input: {u}\n").as_bytes());
    }
    if let Some(c) = &answer.context {
        out(format!("context for the model: {c}\n").as_bytes());
    }
    if let Some(s) = &answer.stop {
        out(format!("ends the turn: {s}\n").as_bytes());
    }
    if let Some(m) = &answer.message {
        out(format!("message: {m}\n").as_bytes());
    }
    Ok(())
}

/// A tool as the hooks know it.
fn seen(tool: &str) -> String {
    let seen_as = crate::policy::claude_tools::claude_name(tool);
    if seen_as == tool {
        format!("`{tool}`")
    } else {
        format!("`{tool}` (`{seen_as}` to Claude Code's hooks)")
    }
}

fn verdict(v: &HookVerdict) -> String {
    match v {
        HookVerdict::Pass => "no opinion (the approval rules decide)".to_string(),
        HookVerdict::Allow => "allow".into(),
        HookVerdict::Ask(r) if r.is_empty() => "ask".into(),
        HookVerdict::Ask(r) => format!("ask: {r}"),
        HookVerdict::Block(r) => format!("deny: {r}"),
    }
}

/// Every tool hook, whether it runs for `tool` and why; then the pre
/// hooks run together, as the call would meet them.
async fn all_for(
    policy: &Policy,
    ctx: &HookContext,
    subject: &crate::policy::Subject,
    args: &Value,
) -> Result<(), CommandError> {
    let tool = &subject.name;
    let hooks = policy.tool_hooks();
    if hooks.is_empty() {
        outln!("no hooks about tool calls are configured");
        return Ok(());
    }
    let seen = seen(tool);
    for (event, label, hook) in &hooks {
        let m = hook.matcher().describe();
        if hook.matches(subject) {
            outln!("{} {label}: runs — its {m} names {seen}", event.key());
        } else {
            outln!(
                "{} {label}: not run — its {m} does not name {seen}",
                event.key()
            );
        }
    }
    let answer = policy
        .pre_tool_call(
            ctx,
            subject,
            "call_hookstest000000000000000",
            args,
            &CancellationToken::new(),
        )
        .await;
    outln!("the pre hooks together: {}", verdict(&answer.verdict));
    if let Some(u) = &answer.updated_input {
        outln!("updated input: {u}");
    }
    Ok(())
}
