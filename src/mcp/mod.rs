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
pub use error::{McpError, ServerError};
pub use form_fields::Field;
pub(crate) use notices::NoticeFn;
pub use registry::McpRegistry;
pub(crate) use registry::{check_name, Index, ServerStatus, FILL_DELAY};
pub use server::{McpServer, StartReport};
