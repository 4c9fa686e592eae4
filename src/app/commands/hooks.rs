//! `hermes hooks test NAME --tool T --args JSON`: runs one configured hook
//! as a tool call would, and prints its verdict — to try a guardrail
//! without a model.

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
    /// Run one hook (its `name`, or `pre_tool_call[0]`) on a made-up call.
    Test {
        name: String,
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
    let Some((event, hook)) = policy.hook(name) else {
        return Err(CommandError::usage(
            format!("no hook named `{name}`"),
            "give a hook's `name`, or its place: pre_tool_call[0], post_tool_call[1] …",
        ));
    };
    let hook_ctx = HookContext {
        session_id: "hooks-test".into(),
        transcript_path: Default::default(),
        cwd: ctx.cwd.to_path_buf(),
        project_dir: config::project_dir(ctx.cwd),
    };
    let output = ToolOutput::ok(output.clone());
    let subject = crate::policy::Subject::named(tool);
    // A call its matcher does not name never reaches it: say so, and why,
    // rather than report a verdict it would never give.
    let seen_as = crate::policy::claude_tools::claude_name(tool);
    let seen = if seen_as == tool {
        format!("`{tool}`")
    } else {
        format!("`{tool}` (`{seen_as}` to Claude Code's hooks)")
    };
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
        output: (event == HookEvent::Post).then_some(&output),
    };
    let answer = hook.run(&hook_ctx, &call, &CancellationToken::new()).await;
    let verdict = match &answer.verdict {
        HookVerdict::Pass => "no opinion (the approval rules decide)".to_string(),
        HookVerdict::Allow => "allow".into(),
        HookVerdict::Ask(r) if r.is_empty() => "ask".into(),
        HookVerdict::Ask(r) => format!("ask: {r}"),
        HookVerdict::Block(r) => format!("deny: {r}"),
    };
    out(format!("{verdict}\n").as_bytes());
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
