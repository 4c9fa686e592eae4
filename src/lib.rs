//! hermes: a terminal AI agent for people who work with MCP tools.
//!
//! The data path of a turn, and the module that owns each step:
//!
//! - [`app`] — the binary's edge: flags (`app::cli`, one file per subcommand
//!   in `app::commands`), settings resolved once, the front end, exit codes.
//! - [`config`] — config files, layers and presets, resolved once into `Settings`.
//! - `frontend` — the REPL, the one-shot / `--json` printers and `hermes acp`
//!   (editors, over the Agent Client Protocol), consumers of the core's
//!   event stream.
//! - [`agent`] — the turn loop and tool rounds; emits [`agent::Event`]s;
//!   `agent::session_setup` is the one way a session begins or resumes.
//! - `provider` — model APIs (OpenAI-compatible Chat Completions, OpenAI
//!   Responses, Anthropic Messages, Bedrock ConverseStream, Gemini), retries
//!   and stream assembly.
//! - `call` — a tool call as a value: names, entries, ids, the one
//!   classification shared by the split, the round and the dispatcher.
//! - [`tools`] — the tool trait and registry the tool round calls into.
//! - [`model`] — the conversation's values: messages, tool calls, a
//!   provider's native blocks, tools as offered (a leaf every module may use).
//! - [`session`] — the append-only JSON Lines session file (single writer),
//!   read back for `--resume`.
//! - [`mcp`] — MCP servers: local ones started over stdio, remote ones over
//!   streamable HTTP (or legacy SSE) with OAuth; registry, catalogs, processes.
//! - `policy` — hooks and approvals around each tool call.
//! - [`connectors`] — the remote connector gateway.
//! - `sandbox` — the OS sandbox the built-in `shell` runs commands in.
//! - `slash` — custom commands and skills a `/` loads besides hermes' own.
//! - `update` — `hermes update` from the git checkout.
//!
//! The questions a newcomer asks first:
//!
//! - **What is an agent made of?** `agent/core.rs` (`Agent`: provider and
//!   model, tools, policy, the session it is in as one `SessionState`, the
//!   window's meter, its place among the run's agents, the run's bounds);
//!   each file of `agent/` adds one thing it does.
//! - **Where is a session opened?** `agent/session_setup.rs`
//!   (`open_session`: a new or resumed session file, its messages and
//!   tools), made the agent's by `Agent::begin`; `Agent::leave`
//!   (`agent/turn/leave.rs`) ends one — its SessionEnd hooks, kept or not.
//! - **Where is a batch split?** `agent/tool_call_batches.rs`
//!   (`split_local_tool_batches`), called by `Agent::message_as_it_will_run`
//!   in `agent/turn/run.rs` before the assistant message is written to the
//!   session file; what splits is decided by `call::classify`, which the
//!   round and the dispatcher ask too.
//! - **Where is a tool call approved?** In the tool round, entry by entry:
//!   `agent/tool_round/entries.rs` (`Round::check_one`: scope and schema, the
//!   `pre_tool_call` hooks, then `policy::Policy::approve` — rules, flags,
//!   annotations, mode), and, when that says "ask",
//!   `agent/tool_round/asking.rs`, which emits `approval_asked` and waits
//!   for the typed answer a front end hands back on `policy::Answers`.
//! - **Where is a request built?** `agent/turn/run.rs` (`Agent::request`)
//!   takes the history and the session's tool list; each API's body is a
//!   pure function of them — `provider/openai/wire.rs`,
//!   `provider/responses/wire.rs`, `provider/anthropic/wire.rs`,
//!   `provider/bedrock/wire.rs`, `provider/gemini/wire.rs` (alternating turns
//!   through `provider/blocks.rs`) — sent, retried and read back by
//!   `provider/http.rs`.

#![warn(unreachable_pub)]

/// `println!` for command output: escape sequences and secrets out (it
/// shows what config files, sessions and servers hold), and no panic on a
/// closed stdout (`hermes sessions show ID | head`): once the reader is
/// gone, output stops and hermes ends normally.
macro_rules! outln {
    () => {
        $crate::frontend::out(b"\n")
    };
    ($($arg:tt)*) => {
        $crate::frontend::out_text(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!`, the same way.
macro_rules! outp {
    ($($arg:tt)*) => {
        $crate::frontend::out_text(&format!($($arg)*))
    };
}

/// `eprintln!` for a line a person reads, the same way: every line hermes
/// writes on stderr goes through `util::stderr`.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::util::stderr::line(&format!($($arg)*))
    };
}

pub mod agent;
pub mod app;
pub(crate) mod build_info;
pub(crate) mod call;
pub(crate) mod checkpoint;
pub mod config;
pub mod connectors;
pub(crate) mod frontend;
pub mod mcp;
pub mod model;
pub(crate) mod net;
pub(crate) mod policy;
pub(crate) mod provider;
pub(crate) mod sandbox;
pub mod session;
pub(crate) mod slash;
pub mod tools;
pub(crate) mod update;
pub(crate) mod util;
pub(crate) mod worktree;
