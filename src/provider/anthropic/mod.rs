//! Anthropic Messages over streaming SSE (`POST {base_url}/v1/messages`). An
//! assistant turn arrives as an ordered block list — text, `thinking` with its
//! signature, `redacted_thinking`, `tool_use` — and is kept as that list, so a
//! replay sends every block back as it came, in its place.

mod api;
mod stream;
mod wire;

pub(crate) use api::AnthropicProvider;

#[cfg(test)]
pub(in crate::provider) use api::new_fold;
