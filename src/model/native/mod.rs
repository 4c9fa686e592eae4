//! An assistant turn as the provider's own ordered list of content blocks
//! (Anthropic Messages `content`, Bedrock Converse `content`, Gemini
//! `parts`, the OpenAI Responses output items). The provider that produced
//! it replays these blocks, not a rebuild from the neutral view: a signed
//! `thinking` block, a `thoughtSignature` or an encrypted reasoning item
//! that changes by one byte, or moves, makes the provider reject the whole
//! history (docs/tool-call-contract.md, "Splitting before persistence"). Where each format keeps text, tool
//! uses and what is signed is in `formats.rs`.
//!
//! Blocks are kept as parsed JSON. Their text in the session file and on the
//! wire is serde_json's compact rendering with keys sorted, which is a fixed
//! point: read back and written again, a block gives the same bytes, so every
//! replay — in this process or after `--continue` — sends what the first did.
//! Signed strings (thinking text, signatures, redacted data, encrypted
//! reasoning) are kept exactly.

mod blocks;
mod formats;

pub use blocks::{BlockApi, Input, NativeBlocks, ToolUse};
