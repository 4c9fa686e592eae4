//! Which provider a config names: the one a run uses, and (for the fuzz
//! targets) the stream fold of each native API.

#[cfg(test)]
use super::Completion;
use super::{anthropic, bedrock, gemini, responses, OpenAiProvider, Provider, ProviderError};
use crate::config::{ProviderKind, ProviderSettings};

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
