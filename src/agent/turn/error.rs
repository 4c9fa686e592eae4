//! How a turn fails, each with the fix as a hint.

use crate::provider::ProviderError;
use crate::session::SessionError;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("no final answer after {0} model requests (the --max-turns limit)")]
    MaxTurns(u32),
    /// The answer still did not fit `--output-schema` once the model was
    /// told why.
    #[error("{0} (after the model was asked to correct it once)")]
    OutputInvalid(String),
    /// The next request would pass the run's `--max-budget-tokens`.
    #[error("{0}")]
    RunBudget(String),
    #[error("interrupted")]
    Cancelled,
    #[error("the model answered the request for a summary with no text; the conversation was not compacted")]
    NoSummary,
    #[error("{0}")]
    TooLong(String),
    /// A UserPromptSubmit hook did not let the prompt go.
    #[error("the prompt was not sent: {0}")]
    PromptBlocked(String),
    /// A subagent spent what `[agents]` lets it (or all of them together).
    #[error("{0}")]
    OverBudget(String),
}

impl AgentError {
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            AgentError::Provider(e) => e.hint(),
            AgentError::Session(e) => e.hint().map(str::to_string),
            AgentError::MaxTurns(_) => Some(
                "raise --max-turns (or max_turns in config.toml), or continue with --continue"
                    .into(),
            ),
            AgentError::Cancelled | AgentError::NoSummary => None,
            AgentError::OutputInvalid(_) => Some(
                "check the schema with the answer hermes printed in the warning, or try another model"
                    .into(),
            ),
            AgentError::RunBudget(_) => Some(
                "raise --max-budget-tokens, or continue with --session-id (or --continue) and a new budget"
                    .into(),
            ),
            AgentError::OverBudget(_) => Some(
                "raise [agents] max_turns, max_tokens or max_total_tokens in config.toml".into(),
            ),
            AgentError::PromptBlocked(_) => {
                Some("a UserPromptSubmit hook decided so; `hermes hooks test` runs one on its own".into())
            }
            AgentError::TooLong(_) => Some(
                "shorten the message, or set the model's window (providers.NAME.context_window) if hermes has it wrong"
                    .into(),
            ),
        }
    }
}
