//! Why a server cannot be used. Each message names the server and, where
//! the process said anything, its last stderr lines (`tail`, already
//! formatted by the stderr drain), so one line tells the user what to fix.

use std::path::PathBuf;

/// A server that could not start, list its tools, or stay up. Kept as the
/// server's state once it is marked failed, so every later call gets the
/// same answer without starting it again.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServerError {
    #[error("{0}")]
    Spawn(String),
    #[error("server `{server}` gave no answer to the MCP handshake after {ms} ms{tail}")]
    HandshakeTimeout {
        server: String,
        ms: u128,
        tail: String,
    },
    #[error("server `{server}` ({command}) {exit} before the MCP handshake finished{tail}")]
    ExitedBeforeHandshake {
        server: String,
        command: String,
        exit: String,
        tail: String,
    },
    #[error("server `{server}` failed the MCP handshake: {detail}{tail}")]
    Handshake {
        server: String,
        detail: String,
        tail: String,
    },
    #[error("cannot reach server `{server}` at {url}: {detail}")]
    Remote {
        server: String,
        url: String,
        detail: String,
    },
    /// An OAuth login that is needed, failed or was stopped.
    #[error("{0}")]
    Auth(String),
    #[error("server `{server}` did not list its tools within {ms} ms")]
    ListTimeout { server: String, ms: u128 },
    #[error("server `{server}` failed to list its tools: {detail}")]
    List { server: String, detail: String },
    #[error(
        "server `{server}` crashed {crashes} times in a row and is marked failed for this session; its log is {}",
        log.display()
    )]
    CrashedTooOften {
        server: String,
        crashes: u32,
        log: PathBuf,
    },
    #[error(
        "server `{server}` at {url} lost the connection {times} times in a row and is marked failed for this session"
    )]
    LostTooOften {
        server: String,
        times: u32,
        url: String,
    },
}

/// Why a prompt or resource the user asked for could not be had.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("no MCP server `{0}` is configured (`/mcp` lists them)")]
    NoServer(String),
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error("server `{server}` gave no answer to {method} within {ms} ms")]
    Timeout {
        server: String,
        method: &'static str,
        ms: u128,
    },
    #[error("server `{server}` refused {method}: {detail}")]
    Refused {
        server: String,
        method: &'static str,
        detail: String,
    },
    #[error("stopped before server `{0}` answered")]
    Cancelled(String),
}

/// What keeps a configured server from being one hermes can run.
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
