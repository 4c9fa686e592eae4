//! OpenAI's Responses API (`POST {base_url}/responses`), stateless: every
//! request carries the whole conversation as input items, with `store:
//! false`, and asks for `reasoning.encrypted_content` — the only way a
//! reasoning model's reasoning reaches its next turn (Chat Completions
//! drops it). A response is a list of output items — `reasoning` (its
//! encrypted content), `message`, `function_call` — kept as they came,
//! less their `id` and `status`, and replayed in place: each reasoning
//! item before the calls it led to. Codex speaks this API the same way.

mod api;
mod stream;
mod wire;

pub(crate) use api::ResponsesProvider;

#[cfg(test)]
pub(in crate::provider) use api::new_fold;
