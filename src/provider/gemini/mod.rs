//! Google's Gemini API (`POST {base_url}/models/{model}:streamGenerateContent
//! ?alt=sse`, the key in `x-goog-api-key`). A model turn is a list of
//! `parts` — text, `functionCall` — and Gemini 3 signs it: an encrypted
//! `thoughtSignature` beside the first function call of each step, or on
//! the last part of a text answer. The parts are kept as they came and
//! replayed in place; a function call's signature must come back
//! unchanged, in its part, or the request is refused.

mod api;
mod stream;
mod wire;

pub(crate) use api::GeminiProvider;

#[cfg(test)]
pub(in crate::provider) use api::new_fold;
