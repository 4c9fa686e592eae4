//! Amazon Bedrock Runtime ConverseStream (`POST
//! {base_url}/model/{model}/converse-stream`): SigV4-signed JSON in, AWS
//! event-stream frames out. Like Anthropic's, an assistant turn is a block
//! list (`text`, `toolUse`, `reasoningContent` with its signature) kept and
//! replayed as it came.

mod api;
mod credentials;
mod sign;
mod stream;
mod wire;

pub(crate) use api::BedrockProvider;

#[cfg(test)]
pub(in crate::provider) use api::new_fold;
