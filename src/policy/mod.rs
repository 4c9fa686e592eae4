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
pub(crate) use hooks::{Hook, HookAnswer, HookCall, HookContext, HookEvent, HookVerdict};

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

    /// Every matching `pre_tool_call` hook, in config order, each seeing
    /// the input the ones before it left: the first block wins; otherwise
    /// an `ask` wins over an `allow`, which wins over no opinion.
    pub(crate) async fn pre_tool_call(
        &self,
        ctx: &HookContext,
        tool: &str,
        call_id: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> HookAnswer {
        let mut input = args.clone();
        let mut verdict = HookVerdict::Pass;
        for h in self.pre.iter().filter(|h| h.matches(tool)) {
            let call = HookCall {
                event: HookEvent::Pre,
                tool,
                call_id,
                args: &input,
                output: None,
            };
            let a = h.run(ctx, &call, cancel).await;
            if let Some(updated) = a.updated_input {
                input = updated;
            }
            verdict = match (verdict, a.verdict) {
                (_, b @ HookVerdict::Block(_)) => {
                    return HookAnswer {
                        verdict: b,
                        updated_input: None,
                    }
                }
                (a @ HookVerdict::Ask(_), _) | (_, a @ HookVerdict::Ask(_)) => a,
                (HookVerdict::Allow, _) | (_, HookVerdict::Allow) => HookVerdict::Allow,
                _ => HookVerdict::Pass,
            };
        }
        HookAnswer {
            verdict,
            updated_input: (&input != args).then_some(input),
        }
    }

    /// Runs every matching `post_tool_call` hook; their failures are reported,
    /// not fatal. `cancel` is the round's: after a stop no further hook starts,
    /// a running one is ended, and neither is reported as a failure.
    pub(crate) async fn post_tool_call(
        &self,
        ctx: &HookContext,
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
            let call = HookCall {
                event: HookEvent::Post,
                tool,
                call_id,
                args,
                output: Some(output),
            };
            let a = h.run(ctx, &call, cancel).await;
            if let (HookVerdict::Block(why), false) = (a.verdict, cancel.is_cancelled()) {
                problems.push(why);
            }
        }
        problems
    }

    /// The hook `name` (its `name` key, or `pre_tool_call[i]` /
    /// `post_tool_call[i]`), for `hermes hooks test`.
    pub(crate) fn hook(&self, name: &str) -> Option<(HookEvent, &Hook)> {
        fn find<'h>(list: &'h [Hook], key: &str, name: &str) -> Option<&'h Hook> {
            list.iter()
                .enumerate()
                .find(|(i, h)| h.name() == Some(name) || format!("{key}[{i}]") == name)
                .map(|(_, h)| h)
        }
        find(&self.pre, "pre_tool_call", name)
            .map(|h| (HookEvent::Pre, h))
            .or_else(|| find(&self.post, "post_tool_call", name).map(|h| (HookEvent::Post, h)))
    }

    /// Approval of one entry, from its tool, its own arguments and what
    /// its server says of the tool.
    pub(crate) fn approve(&self, tool: &str, args: &Value, hints: Hints) -> Outcome {
        self.approvals.decide(tool, args, hints)
    }

    /// Tool calls one user turn may make.
    pub fn max_tool_calls_per_turn(&self) -> u32 {
        self.max_tool_calls_per_turn
    }
}
