//! A tool call as a value, before anything runs it: the names that carry
//! meaning (bridge tools, `mcp__` and `connectors__` prefixes), the entries of a
//! `tool_call`, the ids of split children, the one classification of a call
//! that the split, the tool round and the dispatcher all share, and the
//! [`ToolOutput`] every tool gives back.
//!
//! A leaf: it imports nothing from the modules that run tools (`tools`, `mcp`,
//! `connectors`, `agent`), so each of them can depend on it.

mod classify;
mod entry;
pub(crate) mod ids;
pub(crate) mod names;
mod output;
mod plan;

pub(crate) use classify::{classify, shown, CallClass, ToolRef};
#[cfg(test)]
pub(crate) use entry::parse_calls;
pub(crate) use entry::{parse_arguments, Entry};
pub use output::ToolOutput;
pub(crate) use output::{cut_text, INTERRUPTED, NOT_STARTED};
pub(crate) use plan::{PlanStep, PlanUpdate, StepStatus, UPDATE_PLAN};
