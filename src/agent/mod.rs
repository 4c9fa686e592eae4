//! The agent core: the turn loop and the events it emits. Front ends (REPL,
//! one-shot text, `--json`) are consumers of the same [`Event`] stream.

mod compact;
mod context;
mod protocol;
mod session_setup;
mod tool_call_batches;
mod tool_round;
mod turn;

pub use context::Meter;
pub use protocol::{Event, EventTx, ShownArguments};
pub use session_setup::{open_session, SessionStart};
pub use tool_call_batches::{assign_missing_ids, expand_block_list, expand_local_tool_batches};
pub use turn::{Agent, AgentError, TurnOutcome};
