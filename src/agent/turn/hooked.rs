//! The turn's own hook moments, as Claude Code has them: SessionStart
//! before a session's first prompt, UserPromptSubmit before each prompt
//! (SubagentStart before a subagent's),
//! Stop when the model has answered (SubagentStop when a subagent has),
//! PreCompact before a compaction. What
//! they add for the model goes into the prompt it reads (and so into the
//! session file: a `--continue` replays it as sent).

use tokio_util::sync::CancellationToken;

use super::super::core::Agent;
use super::AgentError;
use crate::agent::Event;
use crate::policy::{EventOutcome, HookContext, HookEvent};

impl Agent {
    /// Where this session's hooks run — its own folder, not the process'
    /// (`hermes acp` runs sessions of several) — and what they are told.
    pub(super) fn hook_ctx(&self) -> HookContext {
        let cwd = match self.tools.cwd() {
            Some(c) => c.to_path_buf(),
            None => std::env::current_dir().unwrap_or_default(),
        };
        HookContext {
            session_id: self.state.handle.id().to_string(),
            transcript_path: self.state.handle.path().to_path_buf(),
            project_dir: crate::config::project_dir(&cwd),
            cwd,
        }
    }

    /// Warnings for the person.
    fn said(&self, o: &EventOutcome) {
        for w in &o.warnings {
            self.emit(Event::Warning { message: w.clone() });
        }
    }

    /// The prompt as the model will get it: the SessionStart hooks' context
    /// (the session's first prompt of this run) and the UserPromptSubmit
    /// hooks' after the person's words; `Err` when a hook blocked it.
    pub(super) async fn prompt_hooks(
        &mut self,
        text: String,
        user_text: &str,
        cancel: &CancellationToken,
    ) -> Result<String, AgentError> {
        let mut context = Vec::new();
        // A subagent's prompt is its parent's words, not the person's:
        // SubagentStart, not SessionStart and UserPromptSubmit.
        if let Some(id) = self.state.handle.agent() {
            if self.policy.has(HookEvent::SubagentStart) {
                let kind = self.family.agent_type.as_deref().unwrap_or("");
                let o = self
                    .policy
                    .subagent_start(&self.hook_ctx(), id, kind, cancel)
                    .await;
                self.said(&o);
                context.extend(o.context);
            }
            return Ok(match context.is_empty() {
                true => text,
                false => format!("{text}\n\n{}", hook_notes(&context)),
            });
        }
        if !self.state.session_hooked {
            self.state.session_hooked = true;
            if self.policy.has(HookEvent::SessionStart) {
                let source = if self.state.resumed {
                    "resume"
                } else {
                    "startup"
                };
                let o = self
                    .policy
                    .session_start(&self.hook_ctx(), source, cancel)
                    .await;
                self.said(&o);
                context.extend(o.context);
            }
        }
        if self.policy.has(HookEvent::UserPromptSubmit) {
            let o = self
                .policy
                .user_prompt_submit(&self.hook_ctx(), user_text, cancel)
                .await;
            self.said(&o);
            if let Some(why) = o.blocked {
                return Err(AgentError::PromptBlocked(why));
            }
            context.extend(o.context);
        }
        if context.is_empty() {
            return Ok(text);
        }
        Ok(format!("{text}\n\n{}", hook_notes(&context)))
    }

    /// After the model's answer: what a Stop hook (a SubagentStop hook,
    /// for a subagent) sends it on with, if any.
    pub(super) async fn stop_hooks(
        &mut self,
        active: bool,
        cancel: &CancellationToken,
    ) -> Option<String> {
        let o = match self.state.handle.agent() {
            None if self.policy.has(HookEvent::Stop) => {
                self.policy.stop(&self.hook_ctx(), active, cancel).await
            }
            Some(id) if self.policy.has(HookEvent::SubagentStop) => {
                let kind = self.family.agent_type.as_deref().unwrap_or("");
                self.policy
                    .subagent_stop(&self.hook_ctx(), id, kind, active, cancel)
                    .await
            }
            _ => return None,
        };
        self.said(&o);
        o.blocked
    }

    /// Before a compaction (`manual` or `auto`): told, it decides nothing.
    pub(in crate::agent) async fn pre_compact_hooks(
        &self,
        trigger: &str,
        cancel: &CancellationToken,
    ) {
        if self.policy.has(HookEvent::PreCompact) {
            let o = self
                .policy
                .pre_compact(&self.hook_ctx(), trigger, cancel)
                .await;
            self.said(&o);
        }
    }
}

/// Hooks' text for the model, marked as theirs.
pub(super) fn hook_notes(context: &[String]) -> String {
    context
        .iter()
        .map(|c| format!("[hook] {c}"))
        .collect::<Vec<_>>()
        .join("\n")
}
