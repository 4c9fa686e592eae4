//! Claude Code's PermissionRequest: the hooks hermes runs when it is about
//! to ask the person to approve a call. A hook may answer for them —
//! `{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
//! "decision": {"behavior": "allow"|"deny", "message", "interrupt"}}}`, or
//! exit 2 to deny with stderr as the reason — or say nothing, and the
//! person is asked. Any deny wins; a hook that fails, or one that would
//! rewrite the input (`updatedInput`, which hermes does not take here),
//! is named in a warning and the person is asked: the question is the
//! gate, so falling back to it is safe.

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{HookCall, HookContext, HookEvent, HookVerdict, Policy, Subject};

/// What the PermissionRequest hooks of one question said.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct PermissionAnswer {
    /// `Some(Allow)`: run without asking; `Some(Block(why))`: refused.
    pub verdict: Option<HookVerdict>,
    /// For the person: hooks that failed, their `systemMessage`s.
    pub warnings: Vec<String>,
    /// A deny's `interrupt: true` (or `continue: false`): the turn ends.
    pub stop: Option<String>,
}

impl Policy {
    /// The PermissionRequest hooks whose matcher names `tool`, run before
    /// its question is put.
    pub(crate) async fn permission_request(
        &self,
        ctx: &HookContext,
        tool: &Subject,
        call_id: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> PermissionAnswer {
        let mut out = PermissionAnswer::default();
        for h in self.of_call(HookEvent::PermissionRequest, tool) {
            if cancel.is_cancelled() {
                break;
            }
            let call = HookCall {
                event: HookEvent::PermissionRequest,
                tool,
                call_id,
                args,
                output: None,
            };
            let a = h.run(ctx, &call, cancel).await;
            out.warnings.extend(a.message.clone());
            let label = h.name().unwrap_or("a PermissionRequest hook");
            match a.verdict {
                HookVerdict::Block(why) if a.broken => {
                    out.warnings.push(format!("{why}; you are asked instead"));
                }
                HookVerdict::Block(why) => {
                    out.verdict = Some(HookVerdict::Block(why));
                    out.stop = a.stop;
                    return out;
                }
                HookVerdict::Allow if a.updated_input.is_some() => {
                    out.warnings.push(format!(
                        "PermissionRequest hook `{label}` allowed with an updatedInput, which \
                         hermes does not take there; you are asked instead"
                    ));
                }
                // Matched only by the plain name a collision took away:
                // written for another tool, it may deny this one, not allow.
                HookVerdict::Allow if h.matches_by_own_name(tool) => {
                    out.verdict = Some(HookVerdict::Allow);
                }
                _ => {}
            }
            if a.stop.is_some() {
                out.stop = a.stop;
                break;
            }
        }
        out
    }
}
