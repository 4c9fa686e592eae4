//! Configuration: the file format, where files live, and how layers resolve into
//! the [`Settings`] a run uses. Layers, lowest first: built-in presets < user file
//! (or `--config PATH`) < project `.hermes/config.toml` < `HERMES_*` env < flags.

mod file;
mod load;
mod paths;
mod presets;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use file::{
    ApprovalMode, ApprovalsSection, Concurrency, ConfigFile, ConnectorsSection, DeferMode,
    HookEntry, HooksSection, McpServerEntry, ProviderEntry, ProviderKind, ToolFilter, ToolsSection,
};
pub use paths::{project_config, Paths};

/// Model requests allowed in one user turn unless configured.
pub const DEFAULT_MAX_TURNS: u32 = 50;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot find a home directory for hermes")]
    NoHome,
    #[error("cannot read config {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: {key}: {message}", file.display())]
    Invalid {
        file: PathBuf,
        line: usize,
        key: String,
        message: String,
    },
    #[error("-c {arg}: {message}")]
    BadOverride { arg: String, message: String },
    #[error("unknown provider `{name}` (known: {})", known.join(", "))]
    UnknownProvider { name: String, known: Vec<String> },
    #[error("provider `{name}` has no base_url")]
    NoBaseUrl { name: String },
    #[error("no model chosen for provider `{provider}`")]
    NoModel { provider: String },
    #[error(
        "provider `{name}` is of kind `{kind}`, which this build of hermes does not speak yet"
    )]
    UnsupportedKind { name: String, kind: String },
    #[error("{what} must be {expected}, got {got}")]
    BadValue {
        what: String,
        expected: &'static str,
        got: String,
    },
}

impl ConfigError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            ConfigError::NoHome => "set HERMES_HOME to a folder hermes may use".into(),
            ConfigError::Read { .. } => "check the path given to --config".into(),
            ConfigError::Invalid { .. } => {
                "fix that line; `hermes config show` prints the merged config, config/config.example.toml lists every key".into()
            }
            ConfigError::BadOverride { .. } => {
                "write -c key=value with a dotted key, e.g. -c providers.local.base_url=http://127.0.0.1:8080/v1".into()
            }
            ConfigError::UnknownProvider { name, .. } => format!(
                "add [providers.{name}] with base_url and api_key_env to config.toml, or pick a known one with --provider"
            ),
            ConfigError::NoBaseUrl { name } => {
                format!("set providers.{name}.base_url, e.g. http://127.0.0.1:8080/v1")
            }
            ConfigError::NoModel { provider } => {
                format!("pass -m MODEL, or set `model` or providers.{provider}.model in config.toml")
            }
            ConfigError::UnsupportedKind { .. } => {
                "use an OpenAI-compatible endpoint (kind = \"openai\") for now".into()
            }
            ConfigError::BadValue { .. } => return None,
        })
    }
}

/// What the flags may override; resolved once, after the files.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub config_path: Option<PathBuf>,
    pub sets: Vec<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub max_turns: Option<u32>,
}

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
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub paths: Paths,
    /// The files that contributed, lowest layer first.
    pub sources: Vec<PathBuf>,
    pub merged: ConfigFile,
    pub provider: ProviderSettings,
    pub max_turns: u32,
    pub system_prompt: Option<String>,
    pub builtin_tools: Vec<String>,
}

impl Settings {
    /// The `[tools]` deferral settings, defaults filled in.
    pub fn defer_policy(&self) -> crate::tools::DeferPolicy {
        let t = &self.merged.tools;
        let d = crate::tools::DeferPolicy::default();
        crate::tools::DeferPolicy {
            mode: t.defer.unwrap_or(DeferMode::Auto),
            max_tools: t.defer_max_tools.unwrap_or(d.max_tools),
            max_share: t.defer_max_share.unwrap_or(d.max_share),
            context_window: t.context_window.unwrap_or(d.context_window),
        }
    }
}

/// Checks one config text as a file at `path` would be checked.
pub fn parse_text(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    load::parse_layer(path, text)
}

/// Reads and merges every layer; does not require the provider to be usable.
pub fn load_merged(
    paths: &Paths,
    cwd: &Path,
    ov: &Overrides,
) -> Result<(ConfigFile, Vec<PathBuf>), ConfigError> {
    let mut merged = toml::Table::new();
    let mut sources = Vec::new();
    let user = ov
        .config_path
        .clone()
        .unwrap_or_else(|| paths.config_file());
    if let Some(t) = load::read_layer(&user, ov.config_path.is_some())? {
        load::merge(&mut merged, t);
        sources.push(user);
    }
    if let Some(project) = project_config(cwd) {
        if let Some(t) = load::read_layer(&project, false)? {
            load::merge(&mut merged, t);
            sources.push(project);
        }
    }
    for (var, key) in [("HERMES_PROVIDER", "provider"), ("HERMES_MODEL", "model")] {
        if let Some(v) = std::env::var(var).ok().filter(|v| !v.is_empty()) {
            merged.insert(key.into(), toml::Value::String(v));
        }
    }
    for set in &ov.sets {
        load::apply_override(&mut merged, set)?;
    }
    let file: ConfigFile =
        toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::BadValue {
                what: "the merged config".into(),
                expected: "valid",
                got: e.message().to_string(),
            })?;
    Ok((file, sources))
}

pub fn resolve(paths: Paths, cwd: &Path, ov: &Overrides) -> Result<Settings, ConfigError> {
    let (merged, sources) = load_merged(&paths, cwd, ov)?;
    let provider = resolve_provider(&merged, ov)?;
    let builtin_tools = merged.tools.builtin.clone().unwrap_or_default();
    Ok(Settings {
        paths,
        sources,
        provider,
        max_turns: ov
            .max_turns
            .or(merged.max_turns)
            .unwrap_or(DEFAULT_MAX_TURNS)
            .max(1),
        system_prompt: merged.system_prompt.clone(),
        builtin_tools,
        merged,
    })
}

fn resolve_provider(file: &ConfigFile, ov: &Overrides) -> Result<ProviderSettings, ConfigError> {
    let name = ov
        .provider
        .clone()
        .or_else(|| file.provider.clone())
        .unwrap_or_else(|| "openai".to_string());
    let preset = presets::preset(&name);
    let entry = match (preset, file.providers.get(&name)) {
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
    let kind = entry.kind.unwrap_or(ProviderKind::Openai);
    if kind != ProviderKind::Openai {
        return Err(ConfigError::UnsupportedKind {
            name,
            kind: format!("{kind:?}").to_lowercase(),
        });
    }
    let base_url = entry
        .base_url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| ConfigError::NoBaseUrl { name: name.clone() })?;
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(ConfigError::BadValue {
            what: format!("providers.{name}.base_url"),
            expected: "an http:// or https:// URL",
            got: base_url,
        });
    }
    let model = ov
        .model
        .clone()
        .or_else(|| file.model.clone())
        .or_else(|| entry.model.clone())
        .filter(|m| !m.trim().is_empty())
        .ok_or_else(|| ConfigError::NoModel {
            provider: name.clone(),
        })?;
    let api_key = entry.api_key.clone().or_else(|| {
        entry
            .api_key_env
            .as_deref()
            .and_then(|v| std::env::var(v).ok())
            .filter(|k| !k.trim().is_empty())
    });
    let ms = Duration::from_millis;
    Ok(ProviderSettings {
        kind,
        base_url: base_url.trim_end_matches('/').to_string(),
        api_key_env: entry.api_key_env.clone(),
        api_key,
        model,
        headers: entry.headers.clone().into_iter().collect(),
        retry: RetryPolicy {
            max_retries: entry.max_retries.unwrap_or(4),
            base: ms(entry.retry_base_ms.unwrap_or(500)),
            max: ms(entry.retry_max_ms.unwrap_or(30_000)),
        },
        connect_timeout: ms(entry.connect_timeout_ms.unwrap_or(10_000)),
        idle_timeout: ms(entry.idle_timeout_ms.unwrap_or(120_000)),
        name,
    })
}

/// The merged config as TOML with secrets replaced by `****`.
pub fn show_masked(file: &ConfigFile) -> String {
    let mut f = file.clone();
    for p in f.providers.values_mut() {
        if p.api_key.is_some() {
            p.api_key = Some("****".into());
        }
        for (k, v) in p.headers.iter_mut() {
            if looks_secret(k) {
                *v = "****".into();
            }
        }
    }
    for s in f.mcp_servers.values_mut() {
        for (k, v) in s.env.iter_mut() {
            if looks_secret(k) {
                *v = "****".into();
            }
        }
    }
    toml::to_string(&f).unwrap_or_else(|e| format!("# cannot print config: {e}\n"))
}

/// Header or variable names whose values are credentials.
pub fn looks_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "password",
        "authorization",
        "auth",
        "cookie",
    ]
    .iter()
    .any(|s| n.contains(s))
}
