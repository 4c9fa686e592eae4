//! The approval mode as the model hears of it, and what a one-shot run
//! asks of its answer. Plan mode is the person's: they switch to it and
//! out of it (`--mode`, `/mode`, Shift-Tab, approving a plan); the model
//! learns of a switch at the head of the next message, once — the system
//! prompt, fixed for the session, only says what each mode allows.

use std::sync::Arc;

use super::super::core::Agent;
use crate::config::ApprovalMode;

impl Agent {
    /// Every final answer from now on must be one JSON value valid
    /// against `schema`.
    pub(crate) fn answer_as(&mut self, schema: Arc<crate::agent::AnswerSchema>) {
        self.bounds.answer_schema = Some(schema);
    }

    pub(crate) fn answer_schema(&self) -> Option<&crate::agent::AnswerSchema> {
        self.bounds.answer_schema.as_deref()
    }

    /// The approval mode now.
    pub(crate) fn mode(&self) -> ApprovalMode {
        self.policy.mode()
    }

    /// Switches the approval mode (`/mode`, Shift-Tab): the policy's, and
    /// the built-ins' read-only roots for plan mode. Returns the mode it
    /// was; the next message tells the model.
    pub(crate) fn set_mode(&mut self, mode: ApprovalMode) -> ApprovalMode {
        let was = self.policy.set_mode(mode);
        self.tools.set_read_only(mode == ApprovalMode::Plan);
        if mode == ApprovalMode::Plan && was != ApprovalMode::Plan {
            self.state.told.entered_plan_from(was);
        }
        was
    }

    /// The person approved the plan: back to the mode they came from, and
    /// the model is told to carry the plan out. Returns that mode.
    pub(crate) fn approve_plan(&mut self) -> ApprovalMode {
        let back = self.state.told.back_from_plan();
        self.set_mode(back);
        self.state.told.plan_approved();
        back
    }

    /// Out of plan mode, without an approval: back to the mode before it.
    pub(crate) fn leave_plan(&mut self) {
        let back = self.state.told.back_from_plan();
        self.set_mode(back);
    }

    /// What the next message says first of the mode, when it changed since
    /// the model was last told (plan mode on, or off).
    pub(super) fn mode_note(&mut self) -> Option<String> {
        let now = self.mode();
        self.state.told.tell(now)
    }
}
