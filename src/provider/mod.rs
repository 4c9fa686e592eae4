//! Model providers. A provider takes the conversation and the tool list, streams
//! text deltas out as they arrive, and returns the whole assistant message once it
//! is complete — never a partial one, so nothing half-received is ever persisted.

mod anthropic;
mod bedrock;
mod blocks;
mod error;
mod event_stream;
mod fold;
mod gemini;
mod http;
pub(crate) mod openai;
mod output;
mod responses;
mod retry;
pub(crate) mod schema;

mod windows;

use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub(crate) use blocks::foreign_messages;
pub(crate) use error::{Overflow, ProviderError};
pub(crate) use openai::OpenAiProvider;
pub(crate) use output::OutputFormat;
pub(crate) use windows::known_window;

use crate::config::{ProviderKind, ProviderSettings};
use crate::model::{BlockApi, Message, NativeBlocks, ToolCall, ToolSpec};

pub(crate) struct ChatRequest<'a> {
    pub model: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    /// The shape the answer must have (`--output-schema`), for an API
    /// that can hold the model to it.
    pub output: Option<&'a OutputFormat>,
}

/// Token counts of one request. `prompt_tokens` is the whole input, cached
/// parts included; the cache fields say how much of it was read from the
/// prompt cache and how much was written to it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub(crate) struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
}

/// Why the model stopped, in one vocabulary for every provider.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Finish {
    /// A final answer (or tool calls: the calls decide what happens next).
    #[default]
    Done,
    /// Cut at the output limit (`length`, `max_tokens`).
    Length,
    /// The provider paused a long turn and wants it sent back to go on
    /// (Anthropic `pause_turn`).
    Pause,
    /// The model declined (`refusal`, `content_filter`, `content_filtered`).
    Refusal,
    /// A guardrail stopped the answer (Bedrock `guardrail_intervened`).
    Guardrail,
}

/// The complete assistant message of one model request.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Completion {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    /// The provider's own block list, when it has one.
    pub native: Option<NativeBlocks>,
    pub usage: Option<Usage>,
    pub finish: Finish,
    /// Tool uses of the block list whose streamed input was not a JSON
    /// object (cut at the output limit, say), by id, with the text that came:
    /// the block replays `{}`, the call itself gets this text, so it fails
    /// as invalid arguments instead of running with none.
    pub unparsed_inputs: Vec<(String, String)>,
}

impl Completion {
    /// A block-list reply: its text and calls are read from the blocks.
    fn from_native(
        native: NativeBlocks,
        usage: Option<Usage>,
        finish: Finish,
        unparsed_inputs: Vec<(String, String)>,
    ) -> Completion {
        Completion {
            content: native.text(),
            tool_calls: native.tool_calls(),
            native: Some(native),
            usage,
            finish,
            unparsed_inputs,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ProviderEvent {
    TextDelta(String),
    ThinkingDelta(String),
    /// A failed attempt that will be retried after `delay`.
    Retrying {
        attempt: u32,
        delay: Duration,
        reason: String,
    },
}

pub(crate) type EventFn<'a> = &'a (dyn Fn(ProviderEvent) + Send + Sync);

pub(crate) trait Provider: Send + Sync {
    /// The native block format this provider replays, if it has one.
    fn blocks(&self) -> Option<BlockApi> {
        None
    }

    /// The most tools one request may define, and the API that says so.
    fn tool_limit(&self) -> Option<(usize, &'static str)> {
        None
    }

    fn complete<'a>(
        &'a self,
        req: ChatRequest<'a>,
        on_event: EventFn<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>>;

    /// The window of `model` as the provider's model listing says, where it
    /// says one.
    fn reported_window<'a>(&'a self, _model: &'a str) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async { None })
    }

    /// The models the provider lists, where it lists them.
    fn models(&self) -> BoxFuture<'_, Option<Vec<String>>> {
        Box::pin(async { None })
    }
}

/// Every HTTP provider is its `Api`: the body, then the one request loop.
impl<T: http::Api> Provider for T {
    fn blocks(&self) -> Option<BlockApi> {
        http::Api::blocks(self)
    }

    fn tool_limit(&self) -> Option<(usize, &'static str)> {
        let d = http::Api::dialect(self);
        d.max_tools.map(|n| (n, d.name))
    }

    fn complete<'a>(
        &'a self,
        req: ChatRequest<'a>,
        on_event: EventFn<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move {
            let body = self.body(&req);
            self.endpoint_for(req.model)
                .run(self, &body, on_event, cancel)
                .await
        })
    }

    fn reported_window<'a>(&'a self, model: &'a str) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async move {
            let listing = model_listing(self).await?;
            windows::window_in_listing(&listing, model)
        })
    }

    fn models(&self) -> BoxFuture<'_, Option<Vec<String>>> {
        Box::pin(async move {
            let listing = model_listing(self).await?;
            let ids = windows::models_in_listing(&listing);
            (!ids.is_empty()).then_some(ids)
        })
    }
}

/// The API's model listing, once a run.
async fn model_listing<T: http::Api>(api: &T) -> Option<serde_json::Value> {
    let url = api.models_url()?;
    let headers = api.headers(&url, &[]).ok()?;
    api.endpoint().listing(&url, &headers).await
}

/// Builds the provider a run uses.
pub(crate) fn from_settings(s: &ProviderSettings) -> Result<Box<dyn Provider>, ProviderError> {
    Ok(match s.kind {
        ProviderKind::Openai => Box::new(OpenAiProvider::new(s)?),
        ProviderKind::OpenaiResponses => Box::new(responses::ResponsesProvider::new(s)?),
        ProviderKind::Anthropic => Box::new(anthropic::AnthropicProvider::new(s)?),
        ProviderKind::Bedrock => Box::new(bedrock::BedrockProvider::new(s)?),
        ProviderKind::Gemini => Box::new(gemini::GeminiProvider::new(s)?),
    })
}

/// The stream fold of a native provider, fed `events` (name, payload); the
/// message, or `None` at the first event it refuses. For the fuzz targets.
#[cfg(test)]
pub(crate) fn fold_native(kind: ProviderKind, events: &[(String, String)]) -> Option<Completion> {
    let mut fold = match kind {
        ProviderKind::Anthropic => anthropic::new_fold(),
        ProviderKind::Bedrock => bedrock::new_fold(),
        ProviderKind::Gemini => gemini::new_fold(),
        ProviderKind::OpenaiResponses => responses::new_fold(),
        ProviderKind::Openai => return None,
    };
    for (event, data) in events {
        fold.push(event, data).ok()?;
    }
    Some(fold.finish())
}

#[cfg(test)]
mod properties {
    use super::fold_native;
    use crate::config::ProviderKind;
    use crate::util::arbitrary::{config, text};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn native_stream_events_fold_without_panicking(
            kind in prop_oneof![
                Just(ProviderKind::Anthropic), Just(ProviderKind::Bedrock),
                Just(ProviderKind::Gemini), Just(ProviderKind::OpenaiResponses),
            ],
            events in prop::collection::vec((prop_oneof![
                Just("content_block_start"), Just("content_block_delta"), Just("content_block_stop"),
                Just("message_start"), Just("message_delta"), Just("message_stop"), Just("error"),
                Just("contentBlockStart"), Just("contentBlockDelta"), Just("messageStop"),
                Just("metadata"), Just("!throttlingException"), Just(""),
                Just("response.output_item.done"), Just("response.output_text.delta"),
                Just("response.completed"), Just("response.failed"),
            ], text()), 0..24),
        ) {
            let events: Vec<(String, String)> = events.into_iter().map(|(e, d)| (e.to_string(), d)).collect();
            if let Some(c) = fold_native(kind, &events) {
                let n = c.native.expect("a native fold keeps its blocks");
                prop_assert_eq!(n.tool_calls(), c.tool_calls);
            }
        }
    }
}
