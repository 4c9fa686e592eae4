//! Bedrock ConverseStream as an `Api`: its URL by model, signed headers
//! and body.

use std::time::SystemTime;

use super::super::error::ProviderError;
use super::super::fold::{Fold, FoldError};
use super::super::http::{Api, Endpoint, Framing};
use super::super::{ChatRequest, Completion};
use super::credentials::{Auth, Sources};
use crate::config::{ProviderSettings, Thinking};
use crate::model::BlockApi;

/// The SigV4 signing name of Bedrock Runtime.
const SERVICE: &str = "bedrock";

pub(crate) struct BedrockProvider {
    /// The endpoint of the configured model; `/model` gets one beside it.
    endpoint: Endpoint,
    base: String,
    model: String,
    auth: Auth,
    region: String,
    max_tokens: u32,
    thinking: Thinking,
}

impl BedrockProvider {
    pub(crate) fn new(s: &ProviderSettings) -> Result<Self, ProviderError> {
        let env = |k: &str| std::env::var(k).ok();
        let sources = Sources {
            env: &env,
            home: std::env::var_os("HOME").map(Into::into),
            profile: s.profile.as_deref(),
        };
        let auth =
            super::credentials::find(&sources).map_err(|detail| ProviderError::NoCredentials {
                provider: s.name.clone(),
                detail,
            })?;
        let region = s
            .region
            .clone()
            .or_else(|| super::credentials::profile_region(&sources))
            .ok_or_else(|| ProviderError::NoRegion {
                provider: s.name.clone(),
            })?;
        let base = if s.base_url.is_empty() {
            format!("https://bedrock-runtime.{region}.amazonaws.com")
        } else {
            s.base_url.clone()
        };
        Ok(BedrockProvider {
            endpoint: Endpoint::new(s, model_url(&base, &s.model))?,
            base,
            model: s.model.clone(),
            auth,
            region,
            max_tokens: s.max_tokens,
            thinking: s.thinking,
        })
    }
}

/// Bedrock names the model in the URL, not the body.
fn model_url(base: &str, model: &str) -> String {
    format!(
        "{base}/model/{}/converse-stream",
        super::super::http::path_segment(model)
    )
}

/// A fresh stream fold, for the fuzz targets.
#[cfg(test)]
pub(in crate::provider) fn new_fold() -> Box<dyn Fold> {
    Box::new(super::stream::ConverseFold::default())
}

impl Api for BedrockProvider {
    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn endpoint_for(&self, model: &str) -> std::borrow::Cow<'_, Endpoint> {
        self.endpoint
            .for_model(&self.model, model, |m| model_url(&self.base, m))
    }

    fn body(&self, req: &ChatRequest<'_>) -> Vec<u8> {
        super::wire::body(req, self.max_tokens, self.thinking)
    }

    fn blocks(&self) -> Option<BlockApi> {
        Some(BlockApi::Bedrock)
    }

    fn dialect(&self) -> super::super::schema::Dialect {
        super::super::schema::BEDROCK
    }

    fn headers(&self, url: &str, body: &[u8]) -> Result<Vec<(String, String)>, ProviderError> {
        match &self.auth {
            Auth::Bearer(token) => Ok(vec![("authorization".into(), format!("Bearer {token}"))]),
            Auth::Keys(keys) => {
                super::sign::sign_post(keys, &self.region, SERVICE, SystemTime::now(), url, body)
                    .map_err(|detail| ProviderError::Signing {
                        provider: self.endpoint.name.clone(),
                        detail,
                    })
            }
        }
    }

    fn framing(&self) -> Framing {
        Framing::AwsEventStream
    }

    fn fold(&self) -> Box<dyn Fold> {
        Box::new(super::stream::ConverseFold::default())
    }

    fn whole(&self, body: &str) -> Option<Result<Completion, FoldError>> {
        super::stream::whole(body)
    }

    fn credential(&self) -> &'static str {
        match self.auth {
            Auth::Bearer(_) => "Bedrock API key",
            Auth::Keys(_) => "AWS credentials",
        }
    }

    fn expected(&self) -> &'static str {
        "a Bedrock Runtime endpoint (https://bedrock-runtime.REGION.amazonaws.com)"
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::http::path_segment;

    #[test]
    fn model_ids_and_arns_become_one_path_segment() {
        assert_eq!(
            path_segment("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            "us.anthropic.claude-sonnet-4-5-20250929-v1%3A0"
        );
        assert_eq!(
            path_segment("arn:aws:bedrock:us-east-1:123:inference-profile/x"),
            "arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Ainference-profile%2Fx"
        );
    }
}
