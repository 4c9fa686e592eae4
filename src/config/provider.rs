//! The provider a run talks to, resolved from the file's provider, a
//! preset, `--provider` and `-m`: its URL, key, model, retries, timeouts
//! and thinking.

use std::time::Duration;

use super::context::ConfiguredWindows;
use super::defaults::{self, ms};
use super::file::{ConfigFile, Effort, ProviderEntry, ProviderKind, ThinkingMode};
use super::{presets, ConfigError, Overrides};

#[derive(Debug, Clone)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base: Duration,
    pub max: Duration,
}

#[derive(Debug, Clone)]
pub struct ProviderSettings {
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub api_key_env: Option<String>,
    /// The key's value, read from `api_key_env` (or `api_key`) at resolution.
    pub api_key: Option<String>,
    pub model: String,
    pub headers: Vec<(String, String)>,
    pub retry: RetryPolicy,
    pub connect_timeout: Duration,
    pub idle_timeout: Duration,
    pub request_timeout: Duration,
    pub max_reply_bytes: u64,
    pub max_tokens: u32,
    /// Whether the config names `max_tokens`: Chat Completions sends a
    /// limit only then (the server's own default otherwise).
    pub max_tokens_given: bool,
    pub thinking: Thinking,
    /// How hard a reasoning model thinks, where the API takes it.
    pub effort: Option<Effort>,
    /// AWS region (bedrock), when config or the environment names one.
    pub region: Option<String>,
    /// AWS profile (bedrock) named in config; it wins over the key
    /// variables, as `--profile` does for the AWS CLI.
    pub profile: Option<String>,
    /// Context windows the config gives, in tokens.
    pub windows: ConfiguredWindows,
    /// `[tools.web_search] native`: the most searches of one answer, where
    /// the provider's own search is offered (`None`: not offered).
    pub web_search: Option<u32>,
}

/// Extended thinking as the provider is asked for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Thinking {
    Off,
    /// A token budget per turn, interleaved with tool use.
    Budget(u32),
    /// The model decides how much to think.
    Adaptive,
}

pub(super) fn resolve_provider(
    file: &ConfigFile,
    ov: &Overrides,
) -> Result<ProviderSettings, ConfigError> {
    let (name, entry) = entry_for(file, ov)?;
    let model = model_for(file, ov, &name, &entry)?;
    // The `openai` preset speaks Responses to OpenAI's reasoning models —
    // the one API that keeps their reasoning between turns — and Chat
    // Completions to the others, unless the file names a kind.
    let kind = match entry.kind.unwrap_or(ProviderKind::Openai) {
        ProviderKind::Openai
            if name == "openai"
                && file.providers.get(&name).and_then(|e| e.kind).is_none()
                && openai_reasoning_model(&model) =>
        {
            ProviderKind::OpenaiResponses
        }
        kind => kind,
    };
    let region = entry
        .region
        .clone()
        .or_else(|| env("AWS_REGION"))
        .or_else(|| env("AWS_DEFAULT_REGION"));
    let base_url = base_url_for(&name, &entry, kind, region.as_deref())?;
    let thinking = thinking_for(&name, &entry, kind)?;
    let (api_key_env, api_key) = key_for(&entry, kind);
    Ok(ProviderSettings {
        kind,
        base_url,
        api_key_env,
        api_key,
        model,
        headers: entry.headers.clone().into_iter().collect(),
        retry: RetryPolicy {
            max_retries: entry.max_retries.unwrap_or(defaults::MAX_RETRIES),
            base: ms(entry.retry_base_ms.unwrap_or(defaults::RETRY_BASE_MS)),
            max: ms(entry.retry_max_ms.unwrap_or(defaults::RETRY_MAX_MS)),
        },
        connect_timeout: ms(entry
            .connect_timeout_ms
            .map_or(defaults::CONNECT_TIMEOUT_MS, |n| n.get())),
        idle_timeout: ms(entry
            .idle_timeout_ms
            .map_or(defaults::IDLE_TIMEOUT_MS, |n| n.get())),
        request_timeout: ms(entry
            .request_timeout_ms
            .map_or(defaults::REQUEST_TIMEOUT_MS, |n| n.get())),
        max_reply_bytes: entry
            .max_reply_bytes
            .map_or(defaults::MAX_REPLY_BYTES, |n| n.get()),
        max_tokens: entry.max_tokens.map_or(defaults::MAX_TOKENS, |n| n.get()),
        max_tokens_given: entry.max_tokens.is_some(),
        thinking,
        effort: entry.reasoning_effort,
        region,
        // Only a profile named in config; AWS_PROFILE is read with the
        // other AWS variables, after the key variables, as the AWS tools do.
        profile: entry.profile.clone(),
        windows: ConfiguredWindows {
            provider: entry.context_window.map(|n| n.get()),
            models: entry
                .models
                .iter()
                .filter_map(|(m, e)| Some((m.clone(), e.context_window?.get())))
                .collect(),
        },
        web_search: file
            .tools
            .web_search
            .as_ref()
            .filter(|w| w.native == Some(true))
            .map(|w| {
                w.max_uses
                    .map_or(defaults::WEB_SEARCH_MAX_USES, |n| n.get())
            }),
        name,
    })
}

/// A variable of the environment, when set to more than blanks.
fn env(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|v| !v.trim().is_empty())
}

/// The provider's name and its entry: `--provider`, else the file's, else
/// the default; a preset with the file's entry laid over it.
fn entry_for(file: &ConfigFile, ov: &Overrides) -> Result<(String, ProviderEntry), ConfigError> {
    let name = ov
        .provider
        .clone()
        .or_else(|| file.provider.clone())
        .unwrap_or_else(|| defaults::PROVIDER.to_string());
    let entry = match (presets::preset(&name), file.providers.get(&name)) {
        (Some(p), Some(user)) => presets::overlay(p, user),
        (Some(p), None) => p,
        (None, Some(user)) => user.clone(),
        (None, None) => {
            let mut known: Vec<String> = presets::NAMES.iter().map(|s| s.to_string()).collect();
            known.extend(file.providers.keys().cloned());
            known.sort();
            known.dedup();
            return Err(ConfigError::UnknownProvider { name, known });
        }
    };
    Ok((name, entry))
}

/// `-m`, else the model the file names. `--provider` naming another
/// provider than the file's takes that provider's own model first: the
/// top-level `model` was written for the file's provider, and another
/// server would not know it.
fn model_for(
    file: &ConfigFile,
    ov: &Overrides,
    name: &str,
    entry: &ProviderEntry,
) -> Result<String, ConfigError> {
    let switched = ov.provider.is_some() && ov.provider != file.provider;
    let (first, second) = if switched {
        (&entry.model, &file.model)
    } else {
        (&file.model, &entry.model)
    };
    ov.model
        .clone()
        .or_else(|| first.clone())
        .or_else(|| second.clone())
        .filter(|m| !m.trim().is_empty())
        .ok_or_else(|| ConfigError::NoModel {
            provider: name.to_string(),
        })
}

/// The URL requests go to, without a trailing `/`: the entry's, or for
/// Bedrock the region's (a region only in the AWS profile is read when
/// the provider starts); an http:// or https:// URL or nothing.
fn base_url_for(
    name: &str,
    entry: &ProviderEntry,
    kind: ProviderKind,
    region: Option<&str>,
) -> Result<String, ConfigError> {
    let base_url = match (
        entry.base_url.clone().filter(|u| !u.trim().is_empty()),
        kind,
    ) {
        (Some(url), _) => url,
        (None, ProviderKind::Bedrock) => region
            .map(|r| format!("https://bedrock-runtime.{r}.amazonaws.com"))
            .unwrap_or_default(),
        (None, _) => {
            return Err(ConfigError::NoBaseUrl {
                name: name.to_string(),
            })
        }
    };
    let http = base_url.starts_with("http://") || base_url.starts_with("https://");
    if !(base_url.is_empty() || http) {
        return Err(ConfigError::BadValue {
            what: format!("providers.{name}.base_url"),
            expected: "an http:// or https:// URL",
            got: base_url,
        });
    }
    Ok(base_url.trim_end_matches('/').to_string())
}

/// Extended thinking as the entry asks for it, checked against what the
/// API takes.
fn thinking_for(
    name: &str,
    entry: &ProviderEntry,
    kind: ProviderKind,
) -> Result<Thinking, ConfigError> {
    let thinking = match (entry.thinking, entry.thinking_budget) {
        (Some(ThinkingMode::Off), _) => Thinking::Off,
        (Some(ThinkingMode::Adaptive), _) => Thinking::Adaptive,
        (Some(ThinkingMode::Enabled) | None, Some(b)) => Thinking::Budget(b.get()),
        (None, None) => Thinking::Off,
        (Some(ThinkingMode::Enabled), None) => {
            return Err(ConfigError::BadValue {
                what: format!("providers.{name}.thinking_budget"),
                expected: "set (at least 1024 tokens) when thinking = \"enabled\"",
                got: "nothing".into(),
            })
        }
    };
    if kind == ProviderKind::Gemini
        && entry.thinking_budget.is_some()
        && entry.reasoning_effort.is_some()
    {
        return Err(ConfigError::BadValue {
            what: format!("providers.{name}.reasoning_effort"),
            expected: "left out when thinking_budget is set: Gemini refuses a request with both \
                       (thinking_budget is for Gemini 2.5, reasoning_effort for Gemini 3)",
            got: "both".into(),
        });
    }
    if let Thinking::Budget(b) = thinking {
        // Gemini 2.5 takes any budget; Anthropic's and Bedrock's start at 1024.
        if b < defaults::MIN_THINKING_BUDGET && kind != ProviderKind::Gemini {
            return Err(ConfigError::BadValue {
                what: format!("providers.{name}.thinking_budget"),
                expected: "at least 1024 tokens",
                got: b.to_string(),
            });
        }
    }
    Ok(thinking)
}

/// The variable the key is read from and the key: remembered as secrets,
/// with the headers that look like them, so no error, warning or note
/// shows them from here on.
fn key_for(entry: &ProviderEntry, kind: ProviderKind) -> (Option<String>, Option<String>) {
    // Anthropic always needs a key: a custom `kind = "anthropic"` provider
    // without `api_key_env` reads the usual variable.
    // `api_key_env = ""` is no variable: the provider takes no key.
    let api_key_env = entry.api_key_env.clone().filter(|e| !e.trim().is_empty());
    let api_key_env = api_key_env.or_else(|| {
        let usual = match kind {
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
            ProviderKind::Gemini => "GEMINI_API_KEY",
            _ => return None,
        };
        entry.api_key.is_none().then(|| usual.to_string())
    });
    // Gemini's key is GEMINI_API_KEY, or GOOGLE_API_KEY as Google's own
    // tools read it.
    let api_key_env = match api_key_env {
        Some(v) if kind == ProviderKind::Gemini && v == "GEMINI_API_KEY" && env(&v).is_none() => {
            Some(if env("GOOGLE_API_KEY").is_some() {
                "GOOGLE_API_KEY".into()
            } else {
                v
            })
        }
        other => other,
    };
    let api_key = entry.api_key.clone().or_else(|| {
        api_key_env
            .as_deref()
            .and_then(|v| std::env::var(v).ok())
            .filter(|k| !k.trim().is_empty())
    });
    for secret in api_key.iter().chain(
        entry
            .headers
            .iter()
            .filter(|(k, _)| crate::util::secrets::looks_secret(k))
            .map(|(_, v)| v),
    ) {
        crate::util::secrets::remember(secret);
    }
    (api_key_env, api_key)
}

/// Whether `model` is one of OpenAI's reasoning models (o-series,
/// GPT-5, Codex), which keep their reasoning between turns only through
/// the Responses API; a vendor prefix (`openai/…`) is looked through.
pub(crate) fn openai_reasoning_model(model: &str) -> bool {
    let bare = model.rsplit('/').next().unwrap_or(model);
    ["o1", "o3", "o4", "gpt-5", "codex-"]
        .iter()
        .any(|p| bare.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::super::{resolve, Paths};
    use super::*;

    #[test]
    fn another_provider_named_on_the_command_line_uses_its_own_model() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("config.toml");
        std::fs::write(
            &path,
            "provider = \"openrouter\"\nmodel = \"anthropic/claude-sonnet-4.5\"\n\
             [providers.local]\nbase_url = \"http://127.0.0.1:8080/v1\"\n\
             model = \"smollm2\"\napi_key_env = \"\"\n",
        )
        .unwrap();
        let run = |provider: Option<&str>, model: Option<&str>| {
            let ov = Overrides {
                config_path: Some(path.clone()),
                provider: provider.map(str::to_string),
                model: model.map(str::to_string),
                ..Overrides::default()
            };
            resolve(Paths::under(home.path()), home.path(), &ov)
                .unwrap()
                .provider
        };
        assert_eq!(run(None, None).model, "anthropic/claude-sonnet-4.5");
        let local = run(Some("local"), None);
        assert_eq!(local.model, "smollm2");
        assert_eq!(local.api_key_env, None, "an empty variable name is none");
        assert_eq!(run(Some("local"), Some("other")).model, "other");
        assert_eq!(
            run(Some("openrouter"), None).model,
            "anthropic/claude-sonnet-4.5",
            "the file's own provider keeps the file's model"
        );
    }
}
