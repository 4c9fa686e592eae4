//! Turning any failure into one `error:` line, an optional `hint:`, and an exit code.

use std::process::ExitCode;

use crate::agent::AgentError;
use crate::config::ConfigError;
use crate::mcp::McpError;
use crate::provider::ProviderError;
use crate::session::SessionError;
use crate::tools::UnknownBuiltin;

/// A mistake in how hermes was invoked: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct UsageError {
    pub message: String,
    pub hint: Option<String>,
}

/// A failure of this run that the user should read with its hint: exit code 1.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct RuntimeError {
    pub message: String,
    pub hint: Option<String>,
}

pub struct Failure {
    pub code: u8,
    pub message: String,
    pub hint: Option<String>,
}

impl Failure {
    pub fn of(e: &anyhow::Error) -> Failure {
        let (code, hint) = if let Some(c) = e.downcast_ref::<ConfigError>() {
            (2, c.hint())
        } else if let Some(u) = e.downcast_ref::<UsageError>() {
            (2, u.hint.clone())
        } else if let Some(r) = e.downcast_ref::<RuntimeError>() {
            (1, r.hint.clone())
        } else if let Some(u) = e.downcast_ref::<crate::update::UpdateError>() {
            (1, u.hint())
        } else if e.downcast_ref::<McpError>().is_some() {
            (
                2,
                Some("fix the [mcp_servers] table in config.toml".to_string()),
            )
        } else if let Some(p) = e.downcast_ref::<ProviderError>() {
            (provider_code(p), p.hint())
        } else if let Some(a) = e.downcast_ref::<AgentError>() {
            match a {
                AgentError::Cancelled => (130, None),
                AgentError::Provider(p) => (provider_code(p), p.hint()),
                _ => (1, a.hint()),
            }
        } else if let Some(s) = e.downcast_ref::<SessionError>() {
            let code = match s {
                SessionError::NotFound { .. } | SessionError::Ambiguous { .. } => 2,
                _ => 1,
            };
            (code, s.hint().map(str::to_string))
        } else if e.downcast_ref::<UnknownBuiltin>().is_some() {
            (2, Some("tools.builtin may list: echo".to_string()))
        } else {
            (1, None)
        };
        Failure {
            code,
            message: e.to_string(),
            hint,
        }
    }
}

fn provider_code(p: &ProviderError) -> u8 {
    if p.is_config() {
        2
    } else if matches!(p, ProviderError::Cancelled) {
        130
    } else {
        1
    }
}

pub fn report(e: &anyhow::Error, json: bool) -> ExitCode {
    let f = Failure::of(e);
    if json {
        let ev = crate::agent::Event::Error {
            message: f.message.clone(),
            hint: f.hint.clone(),
        };
        if let Ok(line) = serde_json::to_string(&ev) {
            println!("{line}");
        }
    }
    if f.code == 130 {
        eprintln!("interrupted");
    } else {
        eprintln!("error: {}", f.message);
        if let Some(h) = &f.hint {
            eprintln!("hint: {h}");
        }
    }
    ExitCode::from(f.code)
}
