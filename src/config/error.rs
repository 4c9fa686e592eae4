//! How a config fails: the file, line and key of what to fix, and a hint.

use std::path::PathBuf;

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
    /// A config error that the held keys of an untrusted project file may
    /// explain (a provider it defines, say).
    #[error("{source}")]
    WithHeld {
        source: Box<ConfigError>,
        held: String,
    },
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
            ConfigError::Invalid { key, .. } if key.ends_with("split_batches") => {
                "remove that line: hermes always splits local tool_call batches, there is nothing to configure".into()
            }
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

            ConfigError::WithHeld { held, .. } => held.clone(),
            ConfigError::BadValue { .. } => return None,
        })
    }
}
