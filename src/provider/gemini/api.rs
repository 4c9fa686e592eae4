//! Gemini `streamGenerateContent` as an `Api`: its URL by model, headers
//! and body.

use super::super::error::ProviderError;
use super::super::fold::{Fold, FoldError};
use super::super::http::{path_segment, Api, Endpoint, Framing};
use super::super::{ChatRequest, Completion};
use crate::config::{Effort, ProviderSettings, Thinking};
use crate::model::BlockApi;

pub(crate) struct GeminiProvider {
    /// The endpoint of the configured model; `/model` gets one beside it.
    endpoint: Endpoint,
    base: String,
    model: String,
    api_key: String,
    max_tokens: u32,
    thinking: Thinking,
    effort: Option<Effort>,
    /// Google Search grounding offered.
    web_search: bool,
}

impl GeminiProvider {
    pub(crate) fn new(s: &ProviderSettings) -> Result<Self, ProviderError> {
        let api_key = ProviderError::needs_key(s, "GEMINI_API_KEY")?;
        Ok(GeminiProvider {
            endpoint: Endpoint::new(s, model_url(&s.base_url, &s.model))?,
            base: s.base_url.clone(),
            model: s.model.clone(),
            api_key,
            max_tokens: s.max_tokens,
            thinking: s.thinking,
            effort: s.effort,
            web_search: s.web_search.is_some(),
        })
    }
}

/// Gemini names the model in the URL (`models/` before it is the
/// resource's name, and may be given or not).
fn model_url(base: &str, model: &str) -> String {
    let bare = model.strip_prefix("models/").unwrap_or(model);
    format!(
        "{base}/models/{}:streamGenerateContent?alt=sse",
        path_segment(bare)
    )
}

/// A fresh stream fold, for the fuzz targets.
#[cfg(test)]
pub(in crate::provider) fn new_fold() -> Box<dyn Fold> {
    Box::new(super::stream::GeminiFold::default())
}

impl Api for GeminiProvider {
    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn endpoint_for(&self, model: &str) -> std::borrow::Cow<'_, Endpoint> {
        self.endpoint
            .for_model(&self.model, model, |m| model_url(&self.base, m))
    }

    fn body(&self, req: &ChatRequest<'_>) -> Vec<u8> {
        super::wire::body(
            req,
            self.max_tokens,
            self.thinking,
            self.effort,
            self.web_search,
        )
    }

    fn blocks(&self) -> Option<BlockApi> {
        Some(BlockApi::Gemini)
    }

    fn dialect(&self) -> super::super::schema::Dialect {
        super::super::schema::GEMINI
    }

    fn headers(&self, _url: &str, _body: &[u8]) -> Result<Vec<(String, String)>, ProviderError> {
        Ok(vec![("x-goog-api-key".to_string(), self.api_key.clone())])
    }

    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(super::stream::GeminiFold::default())
    }

    fn whole(&self, body: &str) -> Option<Result<Completion, FoldError>> {
        Some(super::stream::whole(body))
    }

    fn expected(&self) -> &'static str {
        "the Gemini API root (https://generativelanguage.googleapis.com/v1beta)"
    }

    /// Gemini answers a key it does not know with 400 `API_KEY_INVALID`.
    fn refused_credential(&self, status: u16, body: &str) -> bool {
        status == 401 || status == 403 || (status == 400 && body.contains("API_KEY_INVALID"))
    }

    fn models_url(&self) -> Option<String> {
        Some(format!("{}/models?pageSize=1000", self.base))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_is_one_segment_of_the_url_with_or_without_its_resource_prefix() {
        let base = "https://generativelanguage.googleapis.com/v1beta";
        for m in ["gemini-2.5-flash", "models/gemini-2.5-flash"] {
            assert_eq!(
                model_url(base, m),
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
            );
        }
        assert!(model_url(base, "tuned/x:y").contains("/models/tuned%2Fx%3Ay:stream"));
    }
}
