//! One tool round (docs/tool-call-contract.md, "The per-entry path"). Every call of the
//! assistant message — a directly listed tool or a split `tool_call` child —
//! goes down the same per-entry path:
//!
//! classification → the name resolved once (scope; waits for a catalog still
//! loading) → argument schema validation → `pre_tool_call` hooks → approval →
//! `queued` → the server's concurrency gate and start-up → `started`, the
//! call → its result appended to the session file as soon as it exists →
//! `post_tool_call` hooks.
//!
//! The checks run for all entries first; then every approved entry starts at
//! once, in entry order, so a serial server's FIFO gate takes them in that
//! order while a parallel one runs them together. Results go back to the
//! model in entry order whatever order they finished in. A stop cancels the
//! round and wins over every step before a send: entries not yet sent never
//! are, running ones are cancelled, every call id still gets a result, and
//! post-hooks run only for entries that were sent, and not past the stop.

mod alone;
mod asking;
mod connectors;
mod entries;
mod round;

pub(in crate::agent) use alone::run_alone;
pub use alone::run_tool_call;
pub(crate) use alone::serve_call;
pub(in crate::agent) use round::{Round, Spawn, Spawner};
