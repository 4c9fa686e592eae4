//! OpenAI Chat Completions as an `Api`: its URL, headers and body.

use super::super::error::ProviderError;
use super::super::fold::{Fold, FoldError};
use super::super::http::{Api, Endpoint, Framing};
use super::super::schema::OPENAI_CHAT;

use super::super::{ChatRequest, Completion};
use super::stream::ChunkFold;
use super::wire::Limit;
use crate::config::ProviderSettings;

pub(crate) struct OpenAiProvider {
    endpoint: Endpoint,
    api_key: Option<String>,
    /// The output limit the config names.
    limit: Option<u32>,
    base_url: String,
}

impl OpenAiProvider {
    pub(crate) fn new(s: &ProviderSettings) -> Result<Self, ProviderError> {
        let api_key = ProviderError::maybe_key(s)?;
        Ok(OpenAiProvider {
            endpoint: Endpoint::new(s, format!("{}/chat/completions", s.base_url))?,
            api_key,
            limit: s.max_tokens_given.then_some(s.max_tokens),
            base_url: s.base_url.clone(),
        })
    }
}

impl Api for OpenAiProvider {
    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn body(&self, req: &ChatRequest<'_>) -> Vec<u8> {
        let limit = self
            .limit
            .map(|n| Limit::for_server(&self.base_url, req.model, n));
        super::wire::body(req, limit)
    }

    fn dialect(&self) -> super::super::schema::Dialect {
        OPENAI_CHAT
    }

    fn headers(&self, _url: &str, _body: &[u8]) -> Result<Vec<(String, String)>, ProviderError> {
        Ok(super::super::http::bearer(self.api_key.as_deref()))
    }

    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(ChunkFold::default())
    }

    fn whole(&self, body: &str) -> Option<Result<Completion, FoldError>> {
        let mut fold = ChunkFold::default();
        Some(fold.push("", body).map(|_| Box::new(fold).finish()))
    }

    fn expected(&self) -> &'static str {
        "an OpenAI-compatible API (usually ending in /v1)"
    }

    fn models_url(&self) -> Option<String> {
        let base = self.endpoint.url.strip_suffix("/chat/completions")?;
        Some(format!("{base}/models"))
    }
}
