mod bridge;
mod config;
mod errors;
mod mcp;
mod mcp_policy;
mod oneshot;
mod repl;
mod sessions;
