//! `hermes mcp serve`: hermes as an MCP server on stdin and stdout — its
//! deferred gateway (`tool_search`, `tool_describe`, `tool_call` over the
//! configured servers, started lazily) and its sandboxed built-ins for any
//! MCP client. `handler`: the server (what it offers, each call down the
//! session's tool path); `asking`: a call's questions put to the client as
//! elicitation forms; `http`: `--http ADDR`, streamable HTTP at `/mcp`.

mod asking;
mod handler;
mod http;

pub(crate) use handler::{serve_stdio, Served, TaskRunner};
pub(crate) use http::serve_http;
