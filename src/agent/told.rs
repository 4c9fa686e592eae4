//! The approval mode as the model has heard of it. Plan mode is the
//! person's: they switch to it and out of it; the model learns of a switch
//! at the head of the next message, once — and on resume, the last note a
//! conversation carries says what its model believes.

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

    /// The person switched to plan mode from `was`.
    pub(crate) fn entered_plan_from(&mut self, was: ApprovalMode) {
        self.before_plan = Some(was);
    }

    /// The mode plan mode goes back to: the one before it, `ask` when the
    /// run started in it.
    pub(crate) fn back_from_plan(&self) -> ApprovalMode {
        self.before_plan.unwrap_or(ApprovalMode::Ask)
    }

    /// The person approved the plan: the next message says so.
    pub(crate) fn plan_approved(&mut self) {
        self.approved = true;
    }

    /// What the next message says first of the mode `now`, when it changed
    /// since the model was last told; from then on, the model knows.
    pub(crate) fn tell(&mut self, now: ApprovalMode) -> Option<String> {
        let told = std::mem::replace(
            self,
            Told {
                mode: Some(now),
                approved: false,
                before_plan: self.before_plan,
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
