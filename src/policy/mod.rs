//! What may run: `pre_tool_call` hooks (guardrails), approval, and
//! `post_tool_call` hooks, each applied once per entry with the underlying
//! tool's name and that entry's call id.

mod hooks;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{ApprovalMode, ApprovalSettings, HooksSettings};
use crate::util::glob::glob_match;
pub(crate) use hooks::Hook;

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Allow,
    Block(String),
}

#[derive(Debug, Clone, Default)]
pub struct Policy {
    pre: Vec<Hook>,
    post: Vec<Hook>,
    deny_by_default: bool,
    allow: Vec<String>,
    deny: Vec<String>,
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
            deny_by_default: approvals.mode == ApprovalMode::Deny,
            allow: approvals.allow.clone(),
            deny: approvals.deny.clone(),
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

    /// Approval, settled per entry.
    pub fn approve(&self, tool: &str) -> Verdict {
        let any = |globs: &[String]| globs.iter().any(|g| glob_match(g, tool));
        let allowed = if self.deny_by_default {
            any(&self.allow)
        } else {
            !any(&self.deny)
        };
        if allowed {
            Verdict::Allow
        } else {
            Verdict::Block(format!(
                "`{tool}` was not approved (the [approvals] settings deny it)"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approvals_follow_mode_and_globs() {
        let p = Policy {
            deny: vec!["mcp__*__write*".into()],
            ..Policy::default()
        };
        assert_eq!(p.approve("mcp__f__read"), Verdict::Allow);
        assert!(matches!(p.approve("mcp__f__write_file"), Verdict::Block(_)));
        let p = Policy {
            deny_by_default: true,
            allow: vec!["mcp__f__read*".into()],
            ..Policy::default()
        };
        assert_eq!(p.approve("mcp__f__read_file"), Verdict::Allow);
        assert!(matches!(p.approve("mcp__f__write_file"), Verdict::Block(_)));
    }
}
