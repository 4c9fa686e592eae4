//! Model providers. A provider takes the conversation and the tool list, streams
//! text deltas out as they arrive, and returns the whole assistant message once it
//! is complete — never a partial one, so nothing half-received is ever persisted.

mod anthropic;
mod bedrock;
mod blocks;
mod chat;
mod error;
mod event_stream;
mod fold;
mod gemini;
mod http;
pub(crate) mod openai;
mod output;
mod over_http;
mod responses;
mod retry;
pub(crate) mod schema;
mod select;
mod windows;

pub(crate) use blocks::foreign_messages;
pub(crate) use chat::{ChatRequest, Completion, EventFn, Finish, Provider, ProviderEvent, Usage};
pub(crate) use error::{Overflow, ProviderError};
pub(crate) use openai::OpenAiProvider;
pub(crate) use output::OutputFormat;
pub(crate) use select::from_settings;
pub(crate) use windows::known_window;
