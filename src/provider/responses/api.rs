//! OpenAI Responses as an `Api`: its URL, headers and body.

use super::super::error::ProviderError;
use super::super::fold::{Fold, FoldError};
use super::super::http::{Api, Endpoint, Framing};
use super::super::{ChatRequest, Completion};
use crate::config::{Effort, ProviderSettings};
use crate::model::BlockApi;

pub(crate) struct ResponsesProvider {
    endpoint: Endpoint,
    api_key: Option<String>,
    effort: Option<Effort>,
    /// The output limit the config names (`max_output_tokens`).
    limit: Option<u32>,
    /// Its `web_search` tool offered.
    web_search: bool,
}

impl ResponsesProvider {
    pub(crate) fn new(s: &ProviderSettings) -> Result<Self, ProviderError> {
        let api_key = ProviderError::maybe_key(s)?;
        Ok(ResponsesProvider {
            endpoint: Endpoint::new(s, format!("{}/responses", s.base_url))?,
            api_key,
            effort: s.effort,
            limit: s.max_tokens_given.then_some(s.max_tokens),
            web_search: s.web_search.is_some(),
        })
    }
}

/// A fresh stream fold, for the fuzz targets.
#[cfg(test)]
pub(in crate::provider) fn new_fold() -> Box<dyn Fold> {
    Box::new(super::stream::ResponsesFold::default())
}

impl Api for ResponsesProvider {
    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn body(&self, req: &ChatRequest<'_>) -> Vec<u8> {
        super::wire::body(req, self.effort, self.limit, self.web_search)
    }

    fn blocks(&self) -> Option<BlockApi> {
        Some(BlockApi::Responses)
    }

    fn dialect(&self) -> super::super::schema::Dialect {
        super::super::schema::OPENAI_RESPONSES
    }

    fn headers(&self, _url: &str, _body: &[u8]) -> Result<Vec<(String, String)>, ProviderError> {
        Ok(super::super::http::bearer(self.api_key.as_deref()))
    }

    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(super::stream::ResponsesFold::default())
    }

    fn whole(&self, body: &str) -> Option<Result<Completion, FoldError>> {
        Some(super::stream::whole(body))
    }

    fn expected(&self) -> &'static str {
        "an OpenAI Responses API (usually ending in /v1)"
    }

    fn models_url(&self) -> Option<String> {
        let base = self.endpoint.url.strip_suffix("/responses")?;
        Some(format!("{base}/models"))
    }
}
