//! The approval mode as the model hears of it, and what a one-shot run
//! asks of its answer. Plan mode is the person's: they switch to it and
//! out of it (`--mode`, `/mode`, Shift-Tab, approving a plan); the model
//! learns of a switch at the head of the next message, once — the system
//! prompt, fixed for the session, only says what each mode allows.

use std::sync::Arc;

use super::Agent;
use crate::config::ApprovalMode;

/// What the model was last told, and where plan mode goes back to.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Told {
    /// The mode it was told of; `None`: none yet (a mode other than plan
    /// needs no word).
    mode: Option<ApprovalMode>,
    /// The person approved the plan; the next message says so.
    approved: bool,
    /// The mode the person was in before plan mode (`None`: the run
    /// started in it — `ask` then).
    before_plan: Option<ApprovalMode>,
}

/// How each note begins: on resume the last one heard says what the
/// model believes of plan mode.
const PLAN_ON: &str = "[hermes: plan mode is on.";
const PLAN_OFF: &str = "[hermes: plan mode is off";
const PLAN_APPROVED: &str = "[hermes: the person approved your plan";

impl Told {
    /// What a conversation's model was last told: the latest user message
    /// that carries a note (a resumed session, `/resume`), so a session
    /// left in plan mode hears that it is off, and one still in it is not
    /// told twice.
    pub(crate) fn from_history(messages: &[crate::model::Message]) -> Told {
        let mode = messages.iter().rev().find_map(|m| match m {
            crate::model::Message::User { content, .. } => {
                if content.starts_with(PLAN_ON) {
                    Some(ApprovalMode::Plan)
                } else if content.starts_with(PLAN_OFF) || content.starts_with(PLAN_APPROVED) {
                    Some(ApprovalMode::Ask)
                } else {
                    None
                }
            }
            _ => None,
        });
        Told {
            mode,
            ..Told::default()
        }
    }

    /// This, going back from plan mode where `other` does.
    pub(crate) fn returning_to(self, other: &Told) -> Told {
        Told {
            before_plan: other.before_plan,
            ..self
        }
    }
}

impl Agent {
    /// Every final answer from now on must be one JSON value valid
    /// against `schema`.
    pub(crate) fn answer_as(&mut self, schema: Arc<crate::agent::AnswerSchema>) {
        self.answer_schema = Some(schema);
    }

    pub(crate) fn answer_schema(&self) -> Option<&crate::agent::AnswerSchema> {
        self.answer_schema.as_deref()
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
            self.told_mode.before_plan = Some(was);
        }
        was
    }

    /// The person approved the plan: back to the mode they came from, and
    /// the model is told to carry the plan out. Returns that mode.
    pub(crate) fn approve_plan(&mut self) -> ApprovalMode {
        let back = self.told_mode.before_plan.unwrap_or(ApprovalMode::Ask);
        self.set_mode(back);
        self.told_mode.approved = true;
        back
    }

    /// Out of plan mode, without an approval: back to the mode before it.
    pub(crate) fn leave_plan(&mut self) {
        let back = self.told_mode.before_plan.unwrap_or(ApprovalMode::Ask);
        self.set_mode(back);
    }

    /// What the next message says first of the mode, when it changed since
    /// the model was last told (plan mode on, or off).
    pub(super) fn mode_note(&mut self) -> Option<String> {
        let now = self.mode();
        let before_plan = self.told_mode.before_plan;
        let told = std::mem::replace(
            &mut self.told_mode,
            Told {
                mode: Some(now),
                approved: false,
                before_plan,
            },
        );
        note(told, now)
    }
}

/// The note for a model last told `told`, now in `now`.
fn note(told: Told, now: ApprovalMode) -> Option<String> {
    let was_plan = told.mode == Some(ApprovalMode::Plan);
    match (now == ApprovalMode::Plan, was_plan) {
        (true, false) => Some(format!(
            "{PLAN_ON} Only reads and investigation run — commands see every \
             working folder read-only, and nothing that changes files is allowed. Investigate, \
             then end your answer with your plan; the person approves it before anything \
             changes.]"
        )),
        (false, true) if told.approved => Some(format!(
            "{PLAN_APPROVED} and left plan mode (now {}): carry the plan out.]",
            now.name()
        )),
        (false, true) => Some(format!(
            "{PLAN_OFF} (now {}): changes may run again.]",
            now.name()
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_mode_switch_is_told_once_and_an_approval_says_to_carry_it_out() {
        let told = |mode, approved| Told {
            mode,
            approved,
            before_plan: None,
        };
        assert_eq!(
            note(Told::default(), ApprovalMode::Ask),
            None,
            "ask needs no word"
        );
        let on = note(Told::default(), ApprovalMode::Plan).unwrap();
        assert!(on.contains("plan mode is on"), "{on}");
        assert_eq!(
            note(told(Some(ApprovalMode::Plan), false), ApprovalMode::Plan),
            None
        );
        let approved = note(told(Some(ApprovalMode::Plan), true), ApprovalMode::Auto).unwrap();
        assert!(
            approved.contains("approved your plan") && approved.contains("now auto"),
            "{approved}"
        );
        let off = note(told(Some(ApprovalMode::Plan), false), ApprovalMode::Ask).unwrap();
        assert!(off.contains("plan mode is off (now ask)"), "{off}");
        assert_eq!(
            note(told(Some(ApprovalMode::Ask), false), ApprovalMode::Auto),
            None
        );
    }

    #[test]
    fn a_resumed_conversation_remembers_the_last_note_it_heard() {
        use crate::model::Message;
        let user = |t: &str| Message::User {
            content: t.into(),
            images: Vec::new(),
        };
        let on = note(Told::default(), ApprovalMode::Plan).unwrap();
        let off = note(
            Told::from_history(&[user(&format!("{on}\n\nplan it"))]),
            ApprovalMode::Ask,
        )
        .unwrap();
        assert!(off.starts_with(PLAN_OFF), "{off}");
        let history = [user(&format!("{on}\n\nplan it")), user("more")];
        assert_eq!(
            note(Told::from_history(&history), ApprovalMode::Plan),
            None,
            "still in plan mode: not told twice"
        );
        let history = [user(&format!("{on}\n\nx")), user(&format!("{off}\n\ny"))];
        assert!(note(Told::from_history(&history), ApprovalMode::Plan).is_some());
        assert_eq!(Told::from_history(&[user("hi")]), Told::default());
    }
}
