//! The vocabulary of a streamed reply's assembly: each API's stream module
//! folds events into a `Completion` through `Fold`, saying per event what
//! it added (`Step`) or why it could not take it (`FoldError`).

use super::Completion;

/// What one stream event added.
#[derive(Debug, PartialEq)]
pub(crate) enum Step {
    /// Text to show the user now (may be empty).
    Text(String),
    /// The model's thinking as it streams (a summary, where the API gives
    /// only that): shown by a front end that wants it, never sent back
    /// from here — the native blocks keep what is replayed.
    Thinking(String),
    /// The stream's own end marker: stop reading.
    End,
}

/// A stream event the fold could not take.
#[derive(Debug)]
pub(crate) enum FoldError {
    /// Not the JSON the provider's format promises; holds an excerpt.
    NotJson(String),
    /// The provider reported an error inside the stream. `status` is the HTTP
    /// status the same error has as a response (529 overloaded, 429
    /// throttled), which decides whether it is worth another attempt.
    Remote {
        message: String,
        status: Option<u16>,
    },
}

/// Assembles one streamed reply.
pub(crate) trait Fold: Send {
    /// One event: its type (SSE `event:`, AWS `:event-type`) and payload.
    fn push(&mut self, event: &str, data: &str) -> Result<Step, FoldError>;
    /// Whether the stream said it was complete (else it was cut off).
    fn complete(&self) -> bool;
    fn finish(self: Box<Self>) -> Completion;
}
