//! MCP servers: local ones hermes starts itself over stdio and remote ones
//! over HTTP; their config-driven registry, cached tool catalogs, processes
//! and connections, client sessions, tool naming, and the mapping of their
//! results to tool output.

mod catalog_cache;
mod client;
mod elicit;
mod error;
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

pub use crate::util::groups::kill_all_now;
pub use catalog_cache::{
    About, CachedPrompt, CachedResource, CachedTool, Catalog, PromptArgument, Summary,
};
pub use client::{Progress, ProgressFn};
pub use elicit::{Filled, Form, FormFiller};
pub use error::{FetchError, ServerError};
pub use notices::NoticeFn;
pub use process::SAFE_ENV;
pub use registry::{
    check_name, log_dir, Index, IndexedTool, McpRegistry, ServerStatus, FILL_DELAY,
};
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
