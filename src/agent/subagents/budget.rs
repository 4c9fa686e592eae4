//! What a subagent may spend: its own tokens, and all subagents' of one
//! run together. Kept apart from the runner so the turn that checks it
//! after each completion needs nothing else of subagents.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What a subagent may spend, and what all subagents have spent.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    max: u64,
    max_total: u64,
    total: Arc<AtomicU64>,
}

impl Budget {
    /// `max` for this subagent, `max_total` for all that share `total`.
    pub(crate) fn new(max: u64, max_total: u64, total: Arc<AtomicU64>) -> Budget {
        Budget {
            max,
            max_total,
            total,
        }
    }

    /// Before a request, with `own` spent by this subagent so far: `Err`
    /// when it, or all subagents together, have spent all they may.
    pub(crate) fn check(&self, own: u64) -> Result<(), String> {
        self.judge(own, self.total.load(Ordering::SeqCst), |spent, max| {
            spent >= max
        })
    }

    /// A request of `tokens`, after which the subagent has spent `own`:
    /// `Err` (why, naming the setting) when that is past its budget, or all
    /// subagents' past theirs.
    pub(crate) fn spend(&self, tokens: u64, own: u64) -> Result<(), String> {
        let total = self.total.fetch_add(tokens, Ordering::SeqCst) + tokens;
        self.judge(own, total, |spent, max| spent > max)
    }

    fn judge(&self, own: u64, total: u64, over: impl Fn(u64, u64) -> bool) -> Result<(), String> {
        if over(own, self.max) {
            return Err(format!(
                "the subagent spent {own} tokens, its budget is {} ([agents] max_tokens)",
                self.max
            ));
        }
        if over(total, self.max_total) {
            return Err(format!(
                "the run's subagents spent {total} tokens, their budget is {} ([agents] \
                 max_total_tokens)",
                self.max_total
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_subagent_and_all_together_are_held_to_their_budgets() {
        let total = Arc::new(AtomicU64::new(0));
        let a = Budget::new(100, 150, total.clone());
        let b = Budget::new(100, 150, total);
        assert_eq!(a.spend(60, 60), Ok(()));
        let own = a.spend(60, 120).unwrap_err();
        assert!(own.contains("max_tokens"), "{own}");
        // 120 spent by a; b's 40 brings the run to 160.
        let all = b.spend(40, 40).unwrap_err();
        assert!(
            all.contains("max_total_tokens") && all.contains("160"),
            "{all}"
        );
    }
}
