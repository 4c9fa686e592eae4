//! Questions to the person in the round: an `ask` settled in entry order,
//! one question at a time (an earlier answer of the session may settle it
//! first); a planned change asked again when its file changed meanwhile;
//! and every decision noted as an event and a session record.

use serde_json::Value;

use super::{Asked, Event, Round, Settled, SettledBy};
use crate::call::ToolRef;
use crate::config::Decision;
use crate::policy::{Answer, By, Grant, Outcome, Question, UserAnswer};
use crate::session::{Record, SessionEvent};
use crate::util::time::Utc;

impl Round<'_> {
    /// An `ask` settled by the user, in entry order, one question at a
    /// time; with nobody to ask it stays unanswered (`true`). A stop while
    /// asking denies this entry and stops the turn.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn settle_ask(
        &self,
        slot: usize,
        id: &str,
        name: &str,
        tool: &ToolRef,
        args: &Value,
        asked: Outcome,
        preview: Option<String>,
    ) -> (Outcome, bool) {
        let Some(asker) = self.policy.asker() else {
            return (asked, true);
        };
        // The gate first, then the lock: an earlier slot may still need it.
        self.gate.wait_turn(slot).await;
        let _one_at_a_time = self.asking.lock().await;
        // An earlier answer of this round may have allowed this tool — not
        // when a hook asked: a hook's question is put every time.
        if asked.by != By::Hook
            && !matches!(asked.by, By::AlwaysAsked(_))
            && self
                .policy
                .allowed_this_session()
                .iter()
                .any(|g| g.covers(name, args))
        {
            return (
                Outcome::new(Decision::Allow, By::User(UserAnswer::ForSession)),
                false,
            );
        }
        let question = Question {
            call_id: id.to_string(),
            tool: name.to_string(),
            arguments: args.clone(),
            required: self.tools.required_args(name, tool),
            preview,
            why: match &asked.reason {
                Some(r) => format!("{}: {r}", asked.by),
                None => asked.by.to_string(),
            },
        };
        if let Ok(mut q) = self.open_question.lock() {
            *q = Some((id.to_string(), name.to_string()));
        }
        self.notify(format!(
            "hermes needs your permission to use {}",
            crate::policy::claude_tools::claude_name(name)
        ));
        let answer = asker.ask(question).await;
        if let Ok(mut q) = self.open_question.lock() {
            *q = None;
        }
        let user = |decision, a| Outcome::new(decision, By::User(a));
        let outcome = match answer {
            None => {
                self.cancel.cancel();
                user(Decision::Deny, UserAnswer::StoppingTheTurn)
            }
            Some(Answer::Once) => user(Decision::Allow, UserAnswer::Once),
            Some(a @ (Answer::Session | Answer::Always)) => match Grant::for_call(name, args) {
                Some(grant) => {
                    self.policy.allow_for_session(grant);
                    let how = match a {
                        Answer::Always => UserAnswer::Always,
                        _ => UserAnswer::ForSession,
                    };
                    user(Decision::Allow, how)
                }
                // A command that chains others: this once, never standing.
                None => user(Decision::Allow, UserAnswer::Once),
            },
            Some(Answer::Deny(reason)) => Outcome {
                reason,
                ..user(Decision::Deny, UserAnswer::Denied)
            },
        };
        (outcome, false)
    }

    /// A planned change that found its file changed, put to the person
    /// again on the file as it is now: what it then expects, or `None`
    /// (denied, cannot apply any more, nobody to ask).
    pub(super) async fn ask_again(
        &self,
        id: &str,
        name: &str,
        tool: &ToolRef,
        args: &Value,
    ) -> Option<Option<crate::tools::Expect>> {
        let asker = self.policy.asker()?;
        let change = match self.tools.plan(tool, args, &Default::default())? {
            Ok(c) => c,
            Err(_) => return None,
        };
        let _one_at_a_time = self.asking.lock().await;
        let question = Question {
            call_id: id.to_string(),
            tool: name.to_string(),
            arguments: args.clone(),
            required: self.tools.required_args(name, tool),
            preview: Some(change.preview()),
            why: format!(
                "{} changed after you were asked; this is the change on it as it is now",
                change.shown
            ),
        };
        let answer = asker.ask(question).await;
        let (decision, by) = match answer {
            Some(Answer::Once | Answer::Session | Answer::Always) => {
                (Settled::Allow, By::User(UserAnswer::Once))
            }
            Some(Answer::Deny(_)) => (Settled::Deny, By::User(UserAnswer::Denied)),
            None => (Settled::Deny, By::User(UserAnswer::StoppingTheTurn)),
        };
        self.note_approval(id, name, decision, SettledBy::new(by), None, None)
            .await;
        (decision == Settled::Allow).then(|| Some(change.expect()))
    }

    /// An approval decision as an event and a session record; `asked`:
    /// the arguments of an entry nobody could be asked about, for the user.
    pub(super) async fn note_approval(
        &self,
        id: &str,
        name: &str,
        decision: Settled,
        by: SettledBy,
        reason: Option<String>,
        asked: Option<Asked<'_>>,
    ) {
        // The session file keeps the texts (its older records are read back).
        let (decision_text, by_text) = (
            match decision {
                Settled::Allow => "allow",
                Settled::Deny => "deny",
            },
            by.to_string(),
        );
        self.emit(Event::Approval {
            id: id.to_string(),
            name: name.to_string(),
            decision,
            by,
            reason: reason.clone(),
            arguments: asked.map(|a| crate::agent::ShownArguments {
                value: a.arguments.clone(),
                required: a.required,
            }),
        });
        let record = Record::Event {
            ts: Utc::now().rfc3339(),
            event: SessionEvent::Approval {
                by: by_text,
                call_id: id.to_string(),
                decision: decision_text.to_string(),
                reason,
                tool: name.to_string(),
            },
        };
        // A record the file cannot take is reported with the call's result.
        let Some(session) = self.session else { return };
        if let Err(e) = session.append(&record).await {
            self.emit(Event::Warning {
                message: e.to_string(),
            });
        }
    }

    /// Notification hooks, beside the question rather than before it: a
    /// slow notifier must not hold the question back.
    fn notify(&self, message: String) {
        if !self.policy.has(crate::policy::HookEvent::Notification) {
            return;
        }
        let (policy, ctx, events) = (
            self.policy.clone(),
            self.hook_ctx.clone(),
            self.events.clone(),
        );
        let cancel = self.cancel.clone();
        tokio::spawn(async move {
            let o = policy.notification(&ctx, &message, &cancel).await;
            for w in o.warnings {
                let _ = events.send(crate::agent::Event::Warning { message: w });
            }
        });
    }
}
