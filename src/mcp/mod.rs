//! MCP servers: local ones hermes starts itself over stdio and remote ones
//! over HTTP; their config-driven registry, cached tool catalogs, processes
//! and connections, client sessions, tool naming, and the mapping of their
//! results to tool output.

mod catalog_cache;
mod client;
mod elicit;
mod error;
mod form_fields;
mod legacy_sse;
pub mod naming;
mod notices;
pub(crate) mod oauth;
mod pipes;
mod process;
mod registry;
mod remote;
mod result;
mod server;
mod stale_session;

pub(crate) use crate::util::groups::kill_all_now;
pub(crate) use catalog_cache::{About, CachedPrompt, CachedResource, PromptArgument};
pub(crate) use elicit::{Asker, FormAsked};
pub(crate) use error::FetchError;
pub use error::ServerError;
pub use form_fields::Field;
pub(crate) use notices::NoticeFn;
pub use registry::McpRegistry;
pub(crate) use registry::{check_name, Index, ServerStatus, FILL_DELAY};
pub use server::{McpServer, StartReport};

#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("cannot start MCP server `{server}` ({command}): {reason}")]
    Spawn {
        server: String,
        command: String,
        reason: String,
    },
    #[error(
        "mcp_servers.{0}: a server name may use only letters, digits, `-` and `_` (and no `__`)"
    )]
    BadName(String),
}
