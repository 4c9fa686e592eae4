//! The agent core: the turn loop and the events it emits. Front ends (REPL,
//! one-shot text, `--json`) are consumers of the same [`Event`] stream.

mod answer_schema;
mod attach;
mod compaction;
mod core;
mod protocol;
mod reach;
mod run_budget;
mod session;
mod session_setup;
pub(crate) mod subagents;
mod told;
mod tool_call_batches;
mod tool_round;
mod turn;
mod window;

pub use self::core::Agent;
pub(crate) use self::core::Parts;
pub use crate::policy::{By, UserAnswer};
pub use answer_schema::AnswerSchema;
pub(crate) use attach::{bind_arguments, Offers};
pub(crate) use protocol::EVENTS_SCHEMA;
pub use protocol::{
    with_resolved, ChangedFile, CompactionReason, Event, RunCalls, RunProcesses, RunSummary,
    RunTokens, RunWeb, RunWorktree, Settled, SettledBy, ShownArguments, TurnStop,
};
pub use reach::project_warnings as reach_warnings;
pub(crate) use reach::reach_prompt;
pub(crate) use run_budget::RunBudget;
pub(crate) use session::SessionStart;
pub(crate) use session_setup::open_session;
pub use session_setup::Opening;
pub use tool_call_batches::split_local_tool_batches;
pub use tool_round::run_tool_call;
pub(crate) use tool_round::serve_call;
pub use turn::{AgentError, EndReason, Left, TurnOutcome};
pub(crate) use window::Meter;

pub(crate) use attach::outside_mentions;
