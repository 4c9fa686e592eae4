//! How an `agent` entry starts a subagent: a trait the subagents module
//! implements, so the round — and the turn that holds one — need not know
//! how a subagent is made, and a subagent's own agent can be built from
//! them without a circle.

use super::Round;

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
