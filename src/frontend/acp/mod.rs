//! `hermes acp`: hermes as an Agent Client Protocol agent on stdio, for
//! editors (Zed, JetBrains, Neovim, Emacs). One JSON-RPC message per line
//! in, one per line out; stdout carries the protocol and nothing else.
//!
//! Each ACP session is an ordinary hermes session — its session file,
//! AGENTS.md, the project's config held by trust — opened by the binary's
//! edge ([`Host`]), since a front end builds no provider or tools itself.
//! A prompt runs as its own task, so the loop keeps reading: a
//! `session/cancel` is the REPL's stop, and the answers to the questions
//! hermes asks (`session/request_permission`) come back while the turn
//! waits for them. End of input cancels what runs, stops every session's
//! servers and returns.

mod commands;
mod host;
mod prompt;
mod replay;
mod serve;
mod session;
mod updates;
mod wire;

pub(crate) use host::{Host, Listed, Open, Opened, Opening, Server};
pub(crate) use serve::serve;
pub(crate) use wire::{RpcError, AUTH_REQUIRED, INTERNAL_ERROR, RESOURCE_NOT_FOUND};
