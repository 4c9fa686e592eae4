//! Tools behind one trait, collected in a registry, and the deferred-tools
//! bridge: built-ins, MCP tools, connector tools and the bridge plug in
//! here. The agent's tool round is the one dispatcher: it asks
//! `Registry::resolve_and_check` (the name resolved once into a
//! `ToolRef` — the scope check — and the arguments against the schema),
//! runs hooks and approval, and then `dispatch` runs the entry or the
//! connectors batch. Which calls are entries, batches or errors is decided
//! by `call::classify`, nowhere else.

pub mod bridge;
mod builtin;
pub(crate) mod catalog;
mod change;
mod deferral;
mod dispatch;
mod offered;
mod query;
mod registry;
mod resolution;
pub mod search;
mod tool;
pub(crate) mod validation;
mod warm;

pub use crate::call::ToolOutput;
pub(crate) use builtin::background::{ended_how, Background, Notice, NoticeSink};
pub use builtin::UnknownBuiltin;
pub(crate) use builtin::{new_turn, read_attached};
pub use catalog::{CatalogTool, ToolCatalog};
pub(crate) use change::{diff, Change, Earlier, Expect, Planned};
pub use registry::Registry;
pub(crate) use resolution::subject_by_any_name;
pub(crate) use tool::Tool;
pub use tool::{use_sandbox_helper, OnStart};
