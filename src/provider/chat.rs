//! A chat request, what comes back (the message, its usage, how it
//! finished, the events on the way), and the `Provider` that sends one —
//! every wire API through the same `http::Api` seam.

use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::{OutputFormat, ProviderError};
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
    pub(super) fn from_native(
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
