//! OpenAI-compatible Chat Completions over streaming SSE: OpenAI, OpenRouter,
//! Ollama, vLLM and any `custom` endpoint that speaks the same wire format.
//! The request body is `wire`'s, the stream folded by `stream`'s.

mod api;
pub(crate) mod stream;
mod wire;

pub(crate) use api::OpenAiProvider;
