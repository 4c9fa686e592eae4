//! What a whole run may spend (`--max-budget-tokens`): the input and output
//! tokens of every model request, subagents' and compactions' included. A
//! request is not sent when what was spent and its own input would pass
//! the bound, so a run never starts a request it cannot afford the prompt
//! of; its output is the model's, known only after.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Shared by the agent and every subagent it starts.
#[derive(Debug, Clone)]
pub(crate) struct RunBudget {
    max: u64,
    spent: Arc<AtomicU64>,
}

impl RunBudget {
    pub(crate) fn new(max: u64) -> RunBudget {
        RunBudget {
            max,
            spent: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Before a request of about `input` tokens: `Err`, saying what was
    /// spent and what the request would add, when it would pass the bound.
    pub(crate) fn check(&self, input: u64) -> Result<(), String> {
        let spent = self.spent.load(Ordering::SeqCst);
        if spent.saturating_add(input) > self.max {
            return Err(format!(
                "the run stopped before a model request: {spent} tokens were spent and the next \
                 request would send about {input} more, past --max-budget-tokens {}",
                self.max
            ));
        }
        Ok(())
    }

    /// A request's tokens, input and output.
    pub(crate) fn spend(&self, tokens: u64) {
        self.spent.fetch_add(tokens, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_that_would_pass_the_bound_is_not_sent_and_clones_share_what_was_spent() {
        let run = RunBudget::new(1000);
        let sub = run.clone();
        assert_eq!(run.check(1000), Ok(()), "up to the bound is allowed");
        sub.spend(700);
        assert_eq!(run.check(300), Ok(()));
        let why = run.check(301).unwrap_err();
        assert!(
            why.contains("700 tokens")
                && why.contains("301")
                && why.contains("--max-budget-tokens 1000"),
            "{why}"
        );
    }
}
