//! What may run: `pre_tool_call` hooks (guardrails), approval, and
//! `post_tool_call` hooks, each applied once per entry with the underlying
//! tool's name and that entry's call id.

mod approval;
mod hooks;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{ApprovalSettings, HooksSettings};
use approval::Approvals;
pub(crate) use approval::{Hints, Outcome};
pub(crate) use hooks::Hook;

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Allow,
    Block(String),
}

#[derive(Debug, Clone)]
pub struct Policy {
    pre: Vec<Hook>,
    post: Vec<Hook>,
    approvals: Approvals,
    max_tool_calls_per_turn: u32,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::from_settings(&HooksSettings::default(), &ApprovalSettings::default())
    }
}

impl Policy {
    pub fn from_settings(hooks: &HooksSettings, approvals: &ApprovalSettings) -> Policy {
        Policy {
            pre: hooks
                .pre_tool_call
                .iter()
                .map(Hook::from_settings)
                .collect(),
            post: hooks
                .post_tool_call
                .iter()
                .map(Hook::from_settings)
                .collect(),
            approvals: Approvals::new(approvals),
            max_tool_calls_per_turn: approvals.max_tool_calls_per_turn,
        }
    }

    /// Every matching `pre_tool_call` hook, in config order; the first block wins.
    pub async fn pre_tool_call(
        &self,
        tool: &str,
        call_id: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Verdict {
        for h in self.pre.iter().filter(|h| h.matches(tool)) {
            if let Verdict::Block(why) = h
                .run("pre_tool_call", tool, call_id, args, None, cancel)
                .await
            {
                return Verdict::Block(why);
            }
        }
        Verdict::Allow
    }

    /// Runs every matching `post_tool_call` hook; their failures are reported,
    /// not fatal. `cancel` is the round's: after a stop no further hook starts,
    /// a running one is ended, and neither is reported as a failure.
    pub async fn post_tool_call(
        &self,
        tool: &str,
        call_id: &str,
        args: &Value,
        output: &crate::call::ToolOutput,
        cancel: &CancellationToken,
    ) -> Vec<String> {
        let mut problems = Vec::new();
        for h in self.post.iter().filter(|h| h.matches(tool)) {
            if cancel.is_cancelled() {
                break;
            }
            let verdict = h
                .run("post_tool_call", tool, call_id, args, Some(output), cancel)
                .await;
            if let (Verdict::Block(why), false) = (verdict, cancel.is_cancelled()) {
                problems.push(why);
            }
        }
        problems
    }

    /// Approval of one entry, from its tool, its own arguments and what
    /// its server says of the tool.
    pub fn approve(&self, tool: &str, args: &Value, hints: Hints) -> Outcome {
        self.approvals.decide(tool, args, hints)
    }

    /// Tool calls one user turn may make.
    pub fn max_tool_calls_per_turn(&self) -> u32 {
        self.max_tool_calls_per_turn
    }
}
