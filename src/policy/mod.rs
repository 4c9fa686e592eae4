//! What may run: `pre_tool_call` hooks (guardrails), approval, and
//! `post_tool_call` hooks, each applied once per entry with the underlying
//! tool's name and that entry's call id.

mod approval;
mod ask;
mod checks;
pub(crate) mod claude_tools;
mod events;
mod hook_code;
mod hooks;
mod matcher;
mod permission_request;

pub use approval::{By, UserAnswer};
pub(crate) use approval::{Hints, Outcome, Subject};
pub(crate) use ask::Gate;
pub(crate) use ask::{Answer, Answers, FormAnswer};
pub(crate) use ask::{Grant, Question};
pub(crate) use checks::Policy;
pub(crate) use events::EventOutcome;
pub(crate) use hooks::{Hook, HookCall, HookContext, HookEvent, HookVerdict};
