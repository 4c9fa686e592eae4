//! Model providers. A provider takes the conversation and the tool list, streams
//! text deltas out as they arrive, and returns the whole assistant message once it
//! is complete — never a partial one, so nothing half-received is ever persisted.

mod error;
mod openai;
mod retry;
pub(crate) mod stream;

use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub(crate) use error::ProviderError;
pub(crate) use openai::OpenAiProvider;

use crate::config::{ProviderKind, ProviderSettings};
use crate::session::{Message, ToolCall};

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

pub struct ChatRequest<'a> {
    pub model: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
}

/// The complete assistant message of one model request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completion {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
    pub finish_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ProviderEvent {
    TextDelta(String),
    /// A failed attempt that will be retried after `delay`.
    Retrying {
        attempt: u32,
        delay: Duration,
        reason: String,
    },
}

pub(crate) type EventFn<'a> = &'a (dyn Fn(ProviderEvent) + Send + Sync);

pub trait Provider: Send + Sync {
    fn complete<'a>(
        &'a self,
        req: ChatRequest<'a>,
        on_event: EventFn<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>>;
}

/// Builds the provider a run uses.
pub(crate) fn from_settings(s: &ProviderSettings) -> Result<Box<dyn Provider>, ProviderError> {
    match s.kind {
        ProviderKind::Openai => Ok(Box::new(OpenAiProvider::new(s)?)),
        other => Err(ProviderError::Unsupported {
            provider: s.name.clone(),
            kind: format!("{other:?}").to_lowercase(),
        }),
    }
}
