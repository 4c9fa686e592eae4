//! The agent core: the turn loop and the events it emits. Front ends (REPL,
//! one-shot text, `--json`) are consumers of the same [`Event`] stream.

mod answer_schema;
mod attach;
mod compaction;
mod protocol;
mod reach;
mod run_budget;
mod session;
mod session_setup;
pub(crate) mod subagents;
mod tool_call_batches;
mod tool_round;
mod turn;
mod window;

pub use crate::policy::{By, UserAnswer};
pub use answer_schema::AnswerSchema;
pub(crate) use attach::{bind_arguments, Offers};
pub(crate) use protocol::EVENTS_SCHEMA;
pub use protocol::{
    ChangedFile, CompactionReason, Event, RunCalls, RunSummary, RunTokens, Settled, SettledBy,
    ShownArguments, TurnStop,
};
pub(crate) use run_budget::RunBudget;
pub use session_setup::Opening;
pub(crate) use session_setup::{open_session, SessionStart};
pub use tool_call_batches::split_local_tool_batches;
pub use tool_round::run_tool_call;
pub(crate) use turn::Parts;
pub use turn::{Agent, AgentError, EndReason, Left, TurnOutcome};
pub(crate) use window::Meter;

pub(crate) use attach::outside_mentions;

/// What the person is told before a new session's first request about the
/// project's instructions: each AGENTS.md / CLAUDE.md not read because it
/// is a link out of the repository.
pub fn reach_warnings(cwd: &std::path::Path) -> Vec<String> {
    reach::project_warnings(cwd)
}

/// The most of the system prompt the skills' catalog takes.
const SKILLS_BYTES: usize = 4096;
/// The most of it the agent types' list takes.
const AGENT_TYPES_BYTES: usize = 2048;

/// What a new session's system prompt tells the model it can reach: the
/// configured servers (with their tools' names when those are deferred and
/// the servers' instructions) and the project's AGENTS.md files.
pub(crate) fn reach_prompt(
    tools: &crate::tools::Registry,
    cwd: &std::path::Path,
    budgets: &crate::config::PromptSettings,
    agent_types: Option<&subagents::Types>,
) -> String {
    let servers: Vec<reach::ServerReach> = tools
        .mcp_registry()
        .map(|m| m.described())
        .unwrap_or_default()
        .into_iter()
        .map(|(name, about, tools)| reach::ServerReach { name, about, tools })
        .collect();
    // Skills are read with read_file: without it there is nothing to say.
    let skills = if tools.has_builtin("read_file") {
        crate::slash::skills::section(&crate::slash::skills::discover(cwd), SKILLS_BYTES)
    } else {
        String::new()
    };
    // The types the `agent` tool may name, when it is offered.
    let agents = match agent_types {
        Some(t) if tools.offers_subagents() => {
            subagents::types::section(&t.types, AGENT_TYPES_BYTES)
        }
        _ => String::new(),
    };
    let parts = [
        reach::servers_section(&servers, tools.would_defer(), budgets),
        reach::project_section(cwd, budgets.project_instructions_bytes),
        skills,
        agents,
    ];
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| p.trim_end())
        .collect::<Vec<_>>()
        .join("\n\n")
}
