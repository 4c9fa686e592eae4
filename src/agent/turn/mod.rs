//! The turn loop: model request → tool round → model request … until the model
//! answers without tool calls, the turn is stopped, or `max_turns` runs out.
//! Each assistant message is persisted whole, only after it was fully received.

mod asked;
mod changes;
mod command_shell;
mod error;
mod hooked;
mod leave;
mod modes;
mod run;

pub use error::AgentError;
pub use leave::{EndReason, Left};
pub use run::TurnOutcome;
