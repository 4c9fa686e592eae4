//! Provider failures, each naming the provider and the URL, with the fix as a hint.
//! Whether a failure is worth another attempt is decided here, in one match.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("provider `{provider}` needs an API key: {env} is not set")]
    MissingKey { provider: String, env: String },
    #[error("provider `{provider}` refused the {credential} (HTTP {status}) at {url}: {message}")]
    Auth {
        provider: String,
        /// What was refused: "API key", "AWS credentials".
        credential: &'static str,
        url: String,
        status: u16,
        key_env: Option<String>,
        message: String,
    },
    #[error("provider `{provider}` answered HTTP {status} at {url}: {message}")]
    Http {
        provider: String,
        url: String,
        status: u16,
        message: String,
        /// From `Retry-After`, when the server sent one.
        retry_after: Option<Duration>,
    },
    #[error("cannot reach provider `{provider}` at {url}: {message}")]
    Connect {
        provider: String,
        url: String,
        message: String,
        /// A dropped or reset connection is worth another try; a refused one is not.
        transient: bool,
    },
    #[error("provider `{provider}` at {url} sent a reply that is not JSON: {excerpt}")]
    NotJson {
        provider: String,
        url: String,
        excerpt: String,
        /// What `base_url` must point at, for the hint.
        expected: &'static str,
    },
    /// Credentials a provider needs and could not find (Bedrock: AWS keys).
    #[error("provider `{provider}` has no credentials: {detail}")]
    NoCredentials { provider: String, detail: String },
    #[error("provider `{provider}` (bedrock) has no AWS region")]
    NoRegion { provider: String },
    #[error("provider `{provider}`: cannot sign the request: {detail}")]
    Signing { provider: String, detail: String },
    #[error("provider `{provider}` at {url} cut the reply off before it was complete{detail}")]
    Truncated {
        provider: String,
        url: String,
        detail: String,
    },
    #[error("provider `{provider}` at {url} reported an error: {message}")]
    Remote {
        provider: String,
        url: String,
        message: String,
    },
    #[error("provider `{provider}` at {url} sent nothing for {} s", after.as_secs())]
    Idle {
        provider: String,
        url: String,
        after: Duration,
    },
    #[error("provider `{provider}` at {url} sent a reply larger than {limit} bytes")]
    TooLarge {
        provider: String,
        url: String,
        limit: u64,
    },
    #[error("provider `{provider}` at {url} did not finish its reply within {} s", after.as_secs_f64())]
    Deadline {
        provider: String,
        url: String,
        after: Duration,
    },
    #[error("{last} (gave up after {attempts} attempts)")]
    GaveUp {
        attempts: u32,
        last: Box<ProviderError>,
    },
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
    #[error("interrupted")]
    Cancelled,
}

/// What a refusal for length says: the model's window and the request's
/// size, in tokens, where its words give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow {
    pub window: Option<u64>,
    pub tokens: Option<u64>,
}

impl ProviderError {
    /// The key of a provider that cannot go without one; `MissingKey`
    /// naming the variable the config gives, else `env`.
    pub(crate) fn needs_key(
        s: &crate::config::ProviderSettings,
        env: &str,
    ) -> Result<String, ProviderError> {
        s.api_key.clone().ok_or_else(|| ProviderError::MissingKey {
            provider: s.name.clone(),
            env: s.api_key_env.clone().unwrap_or_else(|| env.into()),
        })
    }

    /// The key of a provider that may go without one (a local server),
    /// unless the config names a variable for it that is not set.
    pub(crate) fn maybe_key(
        s: &crate::config::ProviderSettings,
    ) -> Result<Option<String>, ProviderError> {
        match (&s.api_key, &s.api_key_env) {
            (None, Some(env)) => Err(ProviderError::MissingKey {
                provider: s.name.clone(),
                env: env.clone(),
            }),
            (key, _) => Ok(key.clone()),
        }
    }

    /// Worth another attempt: rate limits, server errors, dropped connections.
    /// A stream cut after text was shown is not retried here: the user saw it.
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Http { status, .. } => *status == 429 || *status >= 500,
            ProviderError::Connect { transient, .. } => *transient,
            ProviderError::MissingKey { .. }
            | ProviderError::Auth { .. }
            | ProviderError::NotJson { .. }
            | ProviderError::Truncated { .. }
            | ProviderError::Remote { .. }
            | ProviderError::Idle { .. }
            | ProviderError::TooLarge { .. }
            | ProviderError::Deadline { .. }
            | ProviderError::GaveUp { .. }
            | ProviderError::NoCredentials { .. }
            | ProviderError::Signing { .. }
            | ProviderError::NoRegion { .. }
            | ProviderError::Client(_)
            | ProviderError::Cancelled => false,
        }
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The provider refused the request as longer than the model's
    /// context window, and what its words say of the window and of the
    /// request's size (OpenAI: "maximum context length is M tokens …
    /// resulted in N tokens"; Anthropic: "N tokens > M maximum"; Bedrock
    /// says neither).
    pub fn context_overflow(&self) -> Option<Overflow> {
        let message = match self {
            ProviderError::Http {
                status: 400 | 413,
                message,
                ..
            } => message,
            ProviderError::GaveUp { last, .. } => return last.context_overflow(),
            _ => return None,
        };
        let m = message.to_ascii_lowercase();
        const SAID: &[&str] = &[
            "maximum context length",
            "context_length_exceeded",
            "context length",
            "context window",
            "prompt is too long",
            "input is too long",
            "too many input tokens",
            "too many tokens",
            // LiteLLM's proxy: "litellm.ContextWindowExceededError: …".
            "contextwindowexceeded",
            // Gemini: "The input token count (1234567) exceeds the maximum
            // number of tokens allowed (1048576)."
            "exceeds the maximum number of tokens",
        ];
        if !SAID.iter().any(|s| m.contains(s)) {
            return None;
        }
        let number_after = |marker: &str| -> Option<u64> {
            let rest = &m[m.find(marker)? + marker.len()..];
            let digits: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .filter(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        };
        let window = number_after("maximum context length is")
            // llama-cpp-python: "Requested tokens (9123) exceed context window of 8192".
            .or_else(|| number_after("context window of"))
            .or_else(|| number_after("tokens allowed ("))
            .or_else(|| {
                // "prompt is too long: 9123 tokens > 8000 maximum"
                m.find(" maximum")
                    .and_then(|end| m[..end].rsplit_once('>'))
                    .and_then(|(_, n)| n.trim().parse().ok())
            });
        let tokens = number_after("resulted in")
            .or_else(|| number_after("requested tokens ("))
            .or_else(|| number_after("you requested"))
            .or_else(|| number_after("prompt is too long:"))
            .or_else(|| number_after("input token count ("));
        Some(Overflow { window, tokens })
    }

    /// A problem of set-up (exit 2) rather than of this run (exit 1).
    pub fn is_config(&self) -> bool {
        matches!(
            self,
            ProviderError::MissingKey { .. }
                | ProviderError::NoCredentials { .. }
                | ProviderError::NoRegion { .. }
        )
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            ProviderError::MissingKey { provider, env } => Some(match crate::config::with_key_set(provider) {
                Some((other, var)) => format!(
                    "{var} is set: run with --provider {other} (or `provider = \"{other}\"` in config.toml), or export {env}=…"
                ),
                // Google's tools read either.
                None if env == "GEMINI_API_KEY" => format!(
                    "export GEMINI_API_KEY=… (or GOOGLE_API_KEY=…), or set providers.{provider}.api_key_env in config.toml to the variable that holds the key"
                ),
                None => format!(
                    "export {env}=…, or set providers.{provider}.api_key_env in config.toml to the variable that holds the key"
                ),
            }),
            ProviderError::Auth { provider, key_env, .. } => Some(match key_env {
                Some(env) => format!("check the key in {env} (providers.{provider}.api_key_env)"),
                None => format!("check the credentials of providers.{provider} (api_key_env, or the AWS keys and profile for bedrock)"),
            }),
            ProviderError::NoRegion { provider } => Some(format!(
                "set providers.{provider}.region, or AWS_REGION, or a region in the AWS profile's config"
            )),
            ProviderError::NoCredentials { provider, .. } => Some(format!(
                "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or set providers.{provider}.profile"
            )),
            ProviderError::Connect { provider, .. } => Some(format!(
                "is the server running? check providers.{provider}.base_url"
            )),
            ProviderError::NotJson { provider, expected, .. } => Some(format!(
                "providers.{provider}.base_url must point at {expected}"
            )),
            ProviderError::Truncated { .. } | ProviderError::Idle { .. } => {
                Some("nothing of this reply was saved; send the message again".into())
            }
            ProviderError::TooLarge { provider, .. } => Some(format!(
                "nothing of this reply was saved; raise providers.{provider}.max_reply_bytes if such replies are expected"
            )),
            ProviderError::Deadline { provider, .. } => Some(format!(
                "nothing of this reply was saved; raise providers.{provider}.request_timeout_ms if the model needs longer"
            )),
            ProviderError::GaveUp { last, .. } => last.hint(),
            ProviderError::Http { status: 404, provider, .. } => Some(format!(
                "check the model name (-m) and providers.{provider}.base_url"
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, message: &str) -> ProviderError {
        ProviderError::Http {
            provider: "p".into(),
            url: "http://x".into(),
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    #[test]
    fn each_apis_context_refusal_is_known_and_its_window_read() {
        let openai = http(
            400,
            "This model's maximum context length is 8,192 tokens. However, your messages \
             resulted in 9123 tokens. Please reduce the length of the messages.",
        );
        let said = |window, tokens| Some(Overflow { window, tokens });
        assert_eq!(openai.context_overflow(), said(Some(8192), Some(9123)));
        let anthropic = http(400, "prompt is too long: 9123 tokens > 8000 maximum");
        assert_eq!(anthropic.context_overflow(), said(Some(8000), Some(9123)));
        let bedrock = http(400, "Input is too long for requested model.");
        assert_eq!(bedrock.context_overflow(), said(None, None));
        let gave_up = ProviderError::GaveUp {
            attempts: 2,
            last: Box::new(anthropic),
        };
        assert_eq!(gave_up.context_overflow(), said(Some(8000), Some(9123)));
        assert_eq!(
            http(400, "messages: roles must alternate").context_overflow(),
            None
        );
        assert_eq!(http(500, "prompt is too long").context_overflow(), None);
        let llama = http(400, "Requested tokens (9123) exceed context window of 8192");
        assert_eq!(llama.context_overflow(), said(Some(8192), Some(9123)));
        let litellm = http(
            400,
            "litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: \
             OpenAIException - input too long for the model",
        );
        assert_eq!(litellm.context_overflow(), said(None, None));
        let gemini = http(
            400,
            "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).",
        );
        assert_eq!(
            gemini.context_overflow(),
            said(Some(1_048_576), Some(1_234_567))
        );
        let responses = http(
            400,
            "context_length_exceeded: Your input exceeds the context window of this model. \
             Please adjust your input and try again.",
        );
        assert_eq!(responses.context_overflow(), said(None, None));
    }
}
