//! Hooks of the moments that are not a tool call, as Claude Code runs them:
//! UserPromptSubmit (before a prompt is sent: it may block it or add
//! context), Stop (when the model has answered: a block sends it on, with
//! the reason), SessionStart (its context goes with the first prompt),
//! SessionEnd, PreCompact and Notification (told, they decide nothing).

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::{Hook, HookContext, HookEvent, HookVerdict, Policy};

/// What the hooks of one moment said.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct EventOutcome {
    /// UserPromptSubmit: the prompt is not sent, for this reason. Stop: the
    /// model goes on, with this as its instruction.
    pub blocked: Option<String>,
    /// Text for the model (`additionalContext`, or plain stdout where
    /// Claude Code takes it so).
    pub context: Vec<String>,
    /// For the person: `systemMessage`s, and hooks that failed where a
    /// failure decides nothing.
    pub warnings: Vec<String>,
}

impl Policy {
    /// The hooks of `event` whose matcher names `what` (every one, for an
    /// event without a matcher).
    fn of<'a>(
        &'a self,
        event: HookEvent,
        what: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Hook> + 'a {
        self.hooks
            .iter()
            .filter(move |(e, h)| *e == event && what.is_none_or(|w| h.matches_word(w)))
            .map(|(_, h)| h)
    }

    /// Whether any hook is configured for `event`.
    pub(crate) fn has(&self, event: HookEvent) -> bool {
        self.hooks.iter().any(|(e, _)| *e == event)
    }

    async fn run_all(
        &self,
        ctx: &HookContext,
        event: HookEvent,
        what: Option<&str>,
        fields: Value,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let mut out = EventOutcome::default();
        let takes_plain = matches!(
            event,
            HookEvent::UserPromptSubmit | HookEvent::SessionStart | HookEvent::SubagentStart
        );
        for h in self.of(event, what) {
            if cancel.is_cancelled() {
                break;
            }
            let a = h.run_event(ctx, event, fields.clone(), cancel).await;
            out.warnings.extend(a.message.clone());
            out.context.extend(a.context.clone());
            if takes_plain {
                out.context.extend(a.plain.clone());
            }
            let decides = matches!(
                event,
                HookEvent::UserPromptSubmit | HookEvent::Stop | HookEvent::SubagentStop
            );
            match a.verdict {
                // A broken prompt guard stops the prompt, as a broken tool
                // guard stops the call; a broken Stop hook must not keep
                // the model going.
                HookVerdict::Block(why) if a.broken && event != HookEvent::UserPromptSubmit => {
                    out.warnings.push(why)
                }
                HookVerdict::Block(why) if decides => {
                    out.blocked.get_or_insert(why);
                }
                HookVerdict::Block(why) => out.warnings.push(why),
                _ => {}
            }
            if let Some(why) = a.stop {
                // `continue: false`: nothing goes on, whatever was decided.
                let why = if why.is_empty() {
                    "a hook ended the turn".to_string()
                } else {
                    format!("a hook ended the turn: {why}")
                };
                match event {
                    HookEvent::Stop | HookEvent::SubagentStop => {
                        out.blocked = None;
                        out.warnings.push(why);
                    }
                    _ => out.blocked = Some(why),
                }
                break;
            }
        }
        out
    }

    /// UserPromptSubmit: before `prompt` is sent.
    pub(crate) async fn user_prompt_submit(
        &self,
        ctx: &HookContext,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let fields = json!({"prompt": prompt});
        self.run_all(ctx, HookEvent::UserPromptSubmit, None, fields, cancel)
            .await
    }

    /// Stop: the model answered; `active` when it goes on because a Stop
    /// hook sent it (Claude Code's `stop_hook_active`, so a hook can let go).
    pub(crate) async fn stop(
        &self,
        ctx: &HookContext,
        active: bool,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let fields = json!({"stop_hook_active": active});
        self.run_all(ctx, HookEvent::Stop, None, fields, cancel)
            .await
    }

    /// SubagentStart: subagent `agent_id` (of type `agent_type`, `""` for
    /// none, which the matchers are tried on) is about to send its prompt;
    /// what the hooks add goes with it.
    pub(crate) async fn subagent_start(
        &self,
        ctx: &HookContext,
        agent_id: &str,
        agent_type: &str,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let fields = json!({"agent_id": agent_id, "agent_type": agent_type});
        self.run_all(
            ctx,
            HookEvent::SubagentStart,
            Some(agent_type),
            fields,
            cancel,
        )
        .await
    }

    /// SubagentStop: subagent `agent_id` (of type `agent_type`, `""` for
    /// none, which the matchers are tried on) has answered; its records are
    /// in the session's file under its id.
    pub(crate) async fn subagent_stop(
        &self,
        ctx: &HookContext,
        agent_id: &str,
        agent_type: &str,
        active: bool,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let fields = json!({
            "stop_hook_active": active,
            "agent_id": agent_id,
            "agent_type": agent_type,
            "agent_transcript_path": ctx.transcript_path,
        });
        self.run_all(
            ctx,
            HookEvent::SubagentStop,
            Some(agent_type),
            fields,
            cancel,
        )
        .await
    }

    /// SessionStart: `source` is `startup`, `resume`, `clear` or `compact`.
    pub(crate) async fn session_start(
        &self,
        ctx: &HookContext,
        source: &str,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let fields = json!({"source": source});
        self.run_all(ctx, HookEvent::SessionStart, Some(source), fields, cancel)
            .await
    }

    /// SessionEnd: `reason` is `clear`, `resume`, `prompt_input_exit` or
    /// `other`; told only.
    pub(crate) async fn session_end(
        &self,
        ctx: &HookContext,
        reason: &str,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let fields = json!({"reason": reason});
        self.run_all(ctx, HookEvent::SessionEnd, Some(reason), fields, cancel)
            .await
    }

    /// PreCompact: `trigger` is `manual` or `auto`.
    pub(crate) async fn pre_compact(
        &self,
        ctx: &HookContext,
        trigger: &str,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let fields = json!({"trigger": trigger, "custom_instructions": ""});
        self.run_all(ctx, HookEvent::PreCompact, Some(trigger), fields, cancel)
            .await
    }

    /// Notification: hermes waits for the person (`message` says why).
    pub(crate) async fn notification(
        &self,
        ctx: &HookContext,
        message: &str,
        cancel: &CancellationToken,
    ) -> EventOutcome {
        let fields = json!({"message": message});
        self.run_all(ctx, HookEvent::Notification, None, fields, cancel)
            .await
    }
}
