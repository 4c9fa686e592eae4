//! Anthropic Messages as an `Api`: its URL, headers and body.

use super::super::error::ProviderError;
use super::super::fold::{Fold, FoldError};
use super::super::http::{Api, Endpoint, Framing};
use super::super::{ChatRequest, Completion};
use crate::config::{ProviderSettings, Thinking};
use crate::model::BlockApi;

/// The API version every request names.
const VERSION: &str = "2023-06-01";
/// Thinking between tool calls of one turn, for budgeted thinking (adaptive
/// thinking interleaves without it).
const INTERLEAVED: &str = "interleaved-thinking-2025-05-14";

pub(crate) struct AnthropicProvider {
    endpoint: Endpoint,
    api_key: String,
    max_tokens: u32,
    thinking: Thinking,
    /// Its `web_search` server tool offered, with this many uses.
    web_search: Option<u32>,
}

impl AnthropicProvider {
    pub(crate) fn new(s: &ProviderSettings) -> Result<Self, ProviderError> {
        let api_key = ProviderError::needs_key(s, "ANTHROPIC_API_KEY")?;
        Ok(AnthropicProvider {
            endpoint: Endpoint::new(s, format!("{}/v1/messages", s.base_url))?,
            api_key,
            max_tokens: s.max_tokens,
            thinking: s.thinking,
            web_search: s.web_search,
        })
    }
}

/// A fresh stream fold, for the fuzz targets.
#[cfg(test)]
pub(in crate::provider) fn new_fold() -> Box<dyn Fold> {
    Box::new(super::stream::MessageFold::default())
}

impl Api for AnthropicProvider {
    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn body(&self, req: &ChatRequest<'_>) -> Vec<u8> {
        super::wire::body(req, self.max_tokens, self.thinking, self.web_search)
    }

    fn blocks(&self) -> Option<BlockApi> {
        Some(BlockApi::Anthropic)
    }

    fn dialect(&self) -> super::super::schema::Dialect {
        super::super::schema::ANTHROPIC
    }

    fn headers(&self, _url: &str, _body: &[u8]) -> Result<Vec<(String, String)>, ProviderError> {
        let mut h = vec![
            ("x-api-key".to_string(), self.api_key.clone()),
            ("anthropic-version".to_string(), VERSION.to_string()),
        ];
        if matches!(self.thinking, Thinking::Budget(_)) {
            h.push(("anthropic-beta".to_string(), INTERLEAVED.to_string()));
        }
        Ok(h)
    }

    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(super::stream::MessageFold::default())
    }

    fn whole(&self, body: &str) -> Option<Result<Completion, FoldError>> {
        super::stream::whole(body)
    }

    fn expected(&self) -> &'static str {
        "the Anthropic API root (https://api.anthropic.com, without /v1)"
    }

    fn models_url(&self) -> Option<String> {
        let base = self.endpoint.url.strip_suffix("/messages")?;
        Some(format!("{base}/models"))
    }
}
