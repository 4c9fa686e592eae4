//! One configured server: its catalog, its process (started on first need,
//! restarted after a crash with backoff, given up on after repeated crashes),
//! and its concurrency gate. Every failure of a call becomes a tool result.

mod call;
mod fetch;
mod lifecycle;

pub(in crate::mcp) use lifecycle::Shared;
pub use lifecycle::{McpServer, StartReport};
