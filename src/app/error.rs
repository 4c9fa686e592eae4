//! The one error type at the edge: every failure becomes a [`CommandError`]
//! — its message, a hint with the fix, and which exit code it means — through
//! one `From` per library error, instead of downcasts at the end.

use crate::agent::AgentError;
use crate::config::ConfigError;
use crate::frontend::repl::ReplError;
use crate::mcp::McpError;
use crate::provider::ProviderError;
use crate::session::SessionError;
use crate::tools::UnknownBuiltin;
use crate::update::UpdateError;

/// What an outcome means to a script (README, `--help`, docs/ci.md): 1 a
/// runtime failure, 2 a mistake in how hermes was invoked or configured,
/// 3 a limit reached (`--max-turns`, `--max-budget-tokens`), 4 an action
/// refused because nobody could approve it (the answer may be
/// incomplete), 130 interrupted (Ctrl-C), 128 + N stopped by signal N
/// (SIGTERM 143, SIGHUP 129).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Runtime,
    Usage,
    Limit,
    Blocked,
    Interrupted,
    Signalled(i32),
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Runtime => 1,
            Exit::Usage => 2,
            Exit::Limit => 3,
            Exit::Blocked => 4,
            Exit::Interrupted => 130,
            Exit::Signalled(n) => u8::try_from(128 + n).unwrap_or(1),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub exit: Exit,
    pub message: String,
    pub hint: Option<String>,
}

impl CommandError {
    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> CommandError {
        CommandError {
            exit: Exit::Usage,
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    pub fn runtime(message: impl Into<String>, hint: Option<String>) -> CommandError {
        CommandError {
            exit: Exit::Runtime,
            message: message.into(),
            hint,
        }
    }

    fn of(exit: Exit, e: &dyn std::fmt::Display, hint: Option<String>) -> CommandError {
        CommandError {
            exit,
            message: e.to_string(),
            hint,
        }
    }
}

impl From<ConfigError> for CommandError {
    fn from(e: ConfigError) -> Self {
        CommandError::of(Exit::Usage, &e, e.hint())
    }
}

impl From<SessionError> for CommandError {
    fn from(e: SessionError) -> Self {
        let exit = match e {
            SessionError::NotFound { .. } | SessionError::Ambiguous { .. } => Exit::Usage,
            _ => Exit::Runtime,
        };
        CommandError::of(exit, &e, e.hint().map(str::to_string))
    }
}

impl From<ProviderError> for CommandError {
    fn from(e: ProviderError) -> Self {
        let exit = if e.is_config() {
            Exit::Usage
        } else if matches!(e, ProviderError::Cancelled) {
            Exit::Interrupted
        } else {
            Exit::Runtime
        };
        CommandError::of(exit, &e, e.hint())
    }
}

impl From<AgentError> for CommandError {
    fn from(e: AgentError) -> Self {
        match e {
            AgentError::Provider(p) => p.into(),
            AgentError::Cancelled => CommandError::of(Exit::Interrupted, &e, None),
            AgentError::MaxTurns(_) | AgentError::RunBudget(_) => {
                CommandError::of(Exit::Limit, &e, e.hint())
            }
            other => CommandError::of(Exit::Runtime, &other, other.hint()),
        }
    }
}

impl From<McpError> for CommandError {
    fn from(e: McpError) -> Self {
        CommandError::of(
            Exit::Usage,
            &e,
            Some("fix the [mcp_servers] table in config.toml".into()),
        )
    }
}

impl From<UpdateError> for CommandError {
    fn from(e: UpdateError) -> Self {
        CommandError::of(Exit::Runtime, &e, e.hint())
    }
}

impl From<UnknownBuiltin> for CommandError {
    fn from(e: UnknownBuiltin) -> Self {
        CommandError::of(Exit::Usage, &e, Some("tools.builtin may list: echo".into()))
    }
}

impl From<ReplError> for CommandError {
    fn from(e: ReplError) -> Self {
        match e {
            ReplError::Session(s) => s.into(),
            other => CommandError::of(Exit::Runtime, &other, None),
        }
    }
}

impl From<crate::worktree::WorktreeError> for CommandError {
    fn from(e: crate::worktree::WorktreeError) -> Self {
        let exit = match e {
            crate::worktree::WorktreeError::Failed { .. } => Exit::Runtime,
            _ => Exit::Usage,
        };
        CommandError::of(exit, &e, Some(e.hint().to_string()))
    }
}

impl From<std::io::Error> for CommandError {
    fn from(e: std::io::Error) -> Self {
        CommandError::of(Exit::Runtime, &e, None)
    }
}

/// Prints the failure — an `error` event too with `--json` — and gives its
/// exit code. A run blocked for want of an approver answered: its line is
/// a warning, and `run_summary` says the rest.
pub(super) fn report(e: &CommandError, json: bool) -> u8 {
    let mask = |t: &str| crate::util::secrets::mask(t).into_owned();
    if json && e.exit != Exit::Blocked {
        let ev = crate::agent::Event::Error {
            message: mask(&e.message),
            hint: e.hint.as_deref().map(mask),
        };
        if let Ok(line) = serde_json::to_string(&ev) {
            crate::frontend::out(format!("{line}\n").as_bytes());
        }
    }
    // Messages quote providers and servers: through the one stderr writer
    // (escape sequences out, secrets masked, a closed stderr no panic).
    let line = crate::util::stderr::line;
    if e.exit == Exit::Interrupted {
        line("interrupted")
    } else if let Exit::Signalled(_) = e.exit {
        line(&e.message)
    } else if e.exit == Exit::Blocked {
        line(&format!("warning: {}", e.message));
        if let Some(h) = &e.hint {
            line(&format!("hint: {h}"));
        }
    } else {
        line(&format!("error: {}", e.message));
        if let Some(h) = &e.hint {
            line(&format!("hint: {h}"));
        }
    }
    e.exit.code()
}
