//! Front ends: they consume the core's [`Event`](crate::agent::Event) stream and
//! own the terminal. The one-shot printer and `--json` are in `printer`; the
//! interactive loop is in `repl`.

pub(crate) mod acp;
mod approve;
mod command_table;
mod complete;
mod custom;
mod export;
mod form;
mod live;
mod live_term;
mod markdown;
pub(crate) mod mcp_serve;
mod menu;
mod offers;
mod paste;
mod plan_view;
mod printer;
pub(crate) mod repl;
mod resumed;
mod status;
mod terminal;
mod tool_block;
mod typeahead;
mod usage_report;

pub(crate) use custom::{expand as expand_command, offered as offered_commands};
pub(crate) use printer::{drive, out, out_text, Printer, Sink, Style};
pub(crate) use terminal::{restore_terminal, NOT_UTF8};
