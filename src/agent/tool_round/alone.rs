//! A call run on its own, outside a conversation: one entry down the same
//! path a round's entries take, recorded nowhere.

use tokio_util::sync::CancellationToken;

use super::round::Round;
use crate::agent::protocol::EventTx;
use crate::call::{classify, ToolOutput};
use crate::model::ToolCall;
use crate::policy::{HookContext, Policy};
use crate::tools::Registry;

/// One call down the path every call of a round takes — classification,
/// scope, schema, approval (here everything is allowed, as with `--yolo`),
/// then its tool — for tests and benchmarks that run tools without a
/// conversation: no hooks, no session file, no one reading the events. A
/// multi-entry local batch that was not split gets the dispatcher's answer.
pub async fn run_tool_call(
    tools: &Registry,
    call: &ToolCall,
    cancel: &CancellationToken,
) -> ToolOutput {
    let policy = Policy::from_settings(
        &crate::config::HooksSettings::default(),
        &crate::config::ApprovalSettings {
            yolo: true,
            max_tool_calls_per_turn: u32::MAX,
            ..Default::default()
        },
    );
    let (events, _) = tokio::sync::mpsc::unbounded_channel();
    run_alone(
        tools,
        &policy,
        &events,
        HookContext::default(),
        call,
        cancel,
    )
    .await
}

/// A call an MCP client makes of `hermes mcp serve`: down the whole tool
/// path — scope, schema, hooks of the folder `cwd`, approval (asked where
/// `policy` has someone to ask: the client, through elicitation), the
/// tool, its sandbox and review — recorded nowhere. Its events (the
/// question, progress) go to `events`.
pub(crate) async fn serve_call(
    tools: &Registry,
    policy: &Policy,
    events: &EventTx,
    cwd: &std::path::Path,
    call: &ToolCall,
    cancel: &CancellationToken,
) -> ToolOutput {
    let hook_ctx = HookContext {
        cwd: cwd.to_path_buf(),
        ..HookContext::default()
    };
    run_alone(tools, policy, events, hook_ctx, call, cancel).await
}

/// One call down the whole tool path — scope, schema, hooks, approval
/// (asked of the person where `policy` has someone to ask), the tool —
/// recorded nowhere: for a call hermes makes itself.
pub(in crate::agent) async fn run_alone(
    tools: &Registry,
    policy: &Policy,
    events: &EventTx,
    hook_ctx: HookContext,
    call: &ToolCall,
    cancel: &CancellationToken,
) -> ToolOutput {
    let round = Round {
        tools,
        policy,
        session: None,
        events,
        cancel,
        allowed: usize::MAX,
        hook_ctx,
        gate: crate::policy::Gate::new(1),
        subagents: None,
        open_question: std::sync::Mutex::new(None),
        earlier: Default::default(),
        first_command: std::sync::atomic::AtomicUsize::new(usize::MAX),
        given: Default::default(),
    };
    let plan = round
        .check(call, classify(&call.name, &call.arguments), 0)
        .await;
    round.gate.done(0);
    let (shown, out) = round.run_plan(call, plan).await;
    // Whoever drew its start draws its end (a custom command's `!` line
    // in the REPL's live block).
    if let Some(shown) = shown {
        round.emit(crate::agent::Event::ToolCallFinished {
            id: call.id.clone(),
            name: shown.tool,
            arguments: shown.arguments,
            is_error: out.is_error,
            content: crate::util::secrets::mask_known(&out.content).into_owned(),
            diff: out.diff.clone(),
            changed: crate::agent::ChangedFile::landed(out.changes.as_deref()),
        });
    }
    out
}
