//! How a turn ended without an answer, told to the model with the next
//! message.

/// Why the last request of a session got no answer, which the next user
/// message tells the model (`[hermes: the previous request was … before
/// you answered it.]`) and the session records (`turn_ended`).
#[derive(Debug, Clone, PartialEq)]
pub(in crate::agent) enum Unanswered {
    /// Found so on resume: the run ended before the answer came.
    Interrupted,
    /// The user stopped the turn.
    Stopped,
    /// The turn failed: the error.
    Failed(String),
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unanswered::Interrupted => write!(f, "interrupted"),
            Unanswered::Stopped => write!(f, "stopped by the user"),
            Unanswered::Failed(e) => write!(f, "ended by an error ({e})"),
        }
    }
}
