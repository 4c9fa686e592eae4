//! Subagents: the built-in `agent` tool. A call starts a sub-conversation —
//! its own system prompt (its type's, or hermes' own for a subagent), a
//! fresh history holding only the parent's prompt — on the parent's
//! provider (or its type's model), with the parent's tools less what its
//! type leaves out: the built-ins and every MCP server through the same
//! bridge, one server process and one catalog for the parent and all its
//! subagents.
//!
//! It is an entry like any other: several `agent` calls in one reply, or
//! in one `tool_call` batch (split like any batch), run at once. A
//! subagent's own calls take the same per-entry path — scope, schema,
//! hooks, approvals (asked in the parent's terminal, one question at a
//! time, naming the subagent) — and the same server gates. Its events reach
//! the parent's front end as `subagent` events carrying its id (the call
//! that started it); its records go in the parent's session file under
//! that id, flushed as the parent's are. The parent's result is the
//! subagent's final answer, cut to `[agents] result_bytes`, with the
//! command that shows the whole conversation. A stop stops it with the
//! round that started it, every call of it paired. What it may spend —
//! requests and tokens, its own and all subagents' together — and how
//! deep subagents nest are `[agents]`.

pub(crate) mod budget;
mod runner;
pub(crate) mod types;

pub(crate) use runner::{spec, Runner, NAME};
pub(crate) use types::Types;
