//! A round of tool calls — what its entries share — and how an `agent`
//! entry of it starts a subagent: a trait the subagents module implements,
//! so the round, and the turn that holds one, need not know how a subagent
//! is made, and a subagent's own agent can be built from them without a
//! circle.

use tokio_util::sync::CancellationToken;

use super::super::protocol::EventTx;
use crate::policy::{Gate, HookContext, Policy};
use crate::session::SessionHandle;
use crate::tools::Registry;

/// What starts a subagent for an `agent` call.
pub(in crate::agent) trait Spawner: Send + Sync {
    /// The agent types a subagent may be started as.
    fn types(&self) -> &crate::agent::subagents::types::Types;

    /// Runs the subagent `args` asks for, as call `id` of `round`, on the
    /// parent's provider and model in `parent`; its answer, bounded, as
    /// the call's output.
    fn run<'r>(
        &'r self,
        parent: &'r Spawn<'_>,
        round: &'r Round<'_>,
        id: &'r str,
        args: &'r serde_json::Value,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = crate::call::ToolOutput> + Send + 'r>>;
}

/// What a round needs to start a subagent beside what it has: the
/// spawner, and the parent's provider and model.
pub(in crate::agent) struct Spawn<'a> {
    pub spawner: &'a dyn Spawner,
    pub provider: &'a std::sync::Arc<dyn crate::provider::Provider>,
    pub model: &'a str,
    /// The run's `--max-budget-tokens`, which the subagent spends from too.
    pub run_budget: Option<&'a crate::agent::RunBudget>,
}

pub(in crate::agent) struct Round<'a> {
    pub tools: &'a Registry,
    pub policy: &'a Policy,
    /// Where results and approvals are recorded; none for a call run on
    /// its own ([`run_tool_call`]).
    pub session: Option<&'a SessionHandle>,
    pub events: &'a EventTx,
    pub cancel: &'a CancellationToken,
    /// How many of the round's calls the turn's cap still allows; the
    /// rest fail unrun.
    pub allowed: usize,
    /// The session and folder, for hooks.
    pub hook_ctx: HookContext,
    /// Entry order for questions to the user.
    pub gate: Gate,
    /// What starts a subagent for an `agent` call; none where subagents
    /// may not start (past the depth, or a call run on its own).
    pub subagents: Option<Spawn<'a>>,
    /// The entry a question is open for (id, tool): a stop meanwhile is
    /// the user's denial of it, recorded as such.
    pub open_question: std::sync::Mutex<Option<(String, String)>>,
    /// What the round's allowed file changes will have left, path by path:
    /// a later entry's change is planned (and shown) on that.
    pub earlier: std::sync::Mutex<crate::tools::Earlier>,
    /// The slot of the round's first command (`shell`), once `run` has
    /// looked (`usize::MAX`: none): a change after it is planned on what
    /// the command leaves, at its turn.
    pub first_command: std::sync::atomic::AtomicUsize,
    /// An entry's arguments as the model sent them (or a hook replaced
    /// them), by call id, where hermes resolved a path in them: what events
    /// show, the resolved path beside them ([`Round::as_sent`]).
    pub given: std::sync::Mutex<std::collections::HashMap<String, serde_json::Value>>,
}

impl Round<'_> {
    /// What the events about entry `id` show of `args` (the arguments as
    /// resolved, which rules, hooks and the tool see): the entry's own,
    /// and the path as resolved where it is not the one given.
    pub(super) fn as_sent(
        &self,
        id: &str,
        args: &serde_json::Value,
    ) -> (serde_json::Value, Option<String>) {
        let given = self.given.lock().ok().and_then(|g| g.get(id).cloned());
        let Some(given) = given else {
            return (args.clone(), None);
        };
        let path =
            |v: &serde_json::Value| v.get("path").and_then(|p| p.as_str()).map(str::to_string);
        let resolved = path(args).filter(|p| path(&given).as_deref() != Some(p));
        (given, resolved)
    }
}
