//! Where a tool call is approved: the questions to the person in the
//! round. An `ask` is settled in entry order, one question at a time (an
//! earlier answer of the session may settle it first): the round emits
//! `approval_asked` and waits for the typed answer on `policy::Answers` —
//! a front end only draws the question and hands the answer back — and an
//! "always" is written to config.toml here. A planned change is asked
//! again when its file changed meanwhile; every decision is noted as an
//! event and a session record.

use serde_json::Value;

use super::super::protocol::{Event, Settled, SettledBy};
use super::entries::Asked;
use super::Round;
use crate::call::ToolRef;
use crate::config::Decision;
use crate::policy::{Answer, By, Grant, HookEvent, HookVerdict, Outcome, Question, UserAnswer};
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
        if self.policy.answers().is_none() {
            return (asked, true);
        }
        // The gate first, then the lock: an earlier slot may still need it.
        self.gate.wait_turn(slot).await;
        let _one_at_a_time = self.policy.asking().lock().await;
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
        // Claude Code's PermissionRequest hooks may answer for the person —
        // not a guard hook's question, nor one hermes always puts.
        if asked.by != By::Hook && !matches!(asked.by, By::AlwaysAsked(_)) {
            if let Some(o) = self.permission_hooks(id, name, tool, args).await {
                return (o, false);
            }
        }
        let question = Question {
            call_id: id.to_string(),
            tool: name.to_string(),
            arguments: args.clone(),
            required: self.tools.required_args(name, tool),
            preview,
            why: {
                let why = match &asked.reason {
                    Some(r) => format!("{}: {r}", asked.by),
                    None => asked.by.to_string(),
                };
                match self.tools.subject(name, tool, args).hints.note {
                    Some(note) => format!("{why} — {note}"),
                    None => why,
                }
            },
            once_only: matches!(asked.by, By::AlwaysAsked(_)),
            grants: None,
        };
        let once_only = question.once_only;
        if let Ok(mut q) = self.open_question.lock() {
            *q = Some((id.to_string(), name.to_string()));
        }
        self.notify(format!(
            "hermes needs your permission to use {}",
            crate::policy::claude_tools::claude_name(name)
        ));
        let answer = self.ask(question).await;
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
            Some(Answer::Session | Answer::Always) if once_only => {
                user(Decision::Allow, UserAnswer::Once)
            }
            Some(a @ (Answer::Session | Answer::Always)) => match Grant::for_call(name, args) {
                Some(grant) => {
                    let how = match a {
                        Answer::Always if self.always(&grant) => UserAnswer::Always,
                        _ => UserAnswer::ForSession,
                    };
                    self.policy.allow_for_session(grant);
                    user(Decision::Allow, how)
                }
                // A command that chains others: this once, never standing.
                None => user(Decision::Allow, UserAnswer::Once),
            },
            Some(Answer::Deny(reason)) => Outcome {
                reason,
                ..user(Decision::Deny, UserAnswer::Denied)
            },
            // `Answers` takes no form's answer for a call.
            Some(Answer::Form(_)) => user(Decision::Deny, UserAnswer::Denied),
        };
        (outcome, false)
    }

    /// What the PermissionRequest hooks decided for this call, if any.
    async fn permission_hooks(
        &self,
        id: &str,
        name: &str,
        tool: &ToolRef,
        args: &Value,
    ) -> Option<Outcome> {
        if !self.policy.has(HookEvent::PermissionRequest) {
            return None;
        }
        let subject = self.tools.subject(name, tool, args);
        let said = self
            .policy
            .permission_request(&self.hook_ctx, &subject, id, args, self.cancel)
            .await;
        for w in said.warnings {
            self.emit(Event::Warning { message: w });
        }
        let outcome = match said.verdict? {
            HookVerdict::Allow => Outcome::new(Decision::Allow, By::Hook),
            HookVerdict::Block(why) => Outcome {
                reason: Some(why),
                ..Outcome::new(Decision::Deny, By::Hook)
            },
            _ => return None,
        };
        self.hooks_said(None, said.stop);
        Some(outcome)
    }

    /// Puts `q` to whoever answers: an `approval_asked` event, then the
    /// answer to that call id — `None` when the turn stops first (or
    /// nobody answers).
    async fn ask(&self, q: Question) -> Option<Answer> {
        let (answers, _) = self.policy.answers()?;
        let waiting = answers.wait_for(&q.call_id);
        let (own, resolved_path) = self.as_sent(&q.call_id, &q.arguments);
        self.emit(Event::ApprovalAsked {
            id: q.call_id.clone(),
            name: q.tool.clone(),
            arguments: crate::agent::ShownArguments {
                value: own,
                required: q.required.clone(),
            },
            resolved_path,
            why: q.why.clone(),
            grants: if q.once_only {
                None
            } else {
                q.grants
                    .clone()
                    .or_else(|| Grant::for_call(&q.tool, &q.arguments).map(|g| g.to_string()))
            },
            preview: q.preview,
        });
        tokio::select! {
            biased;
            _ = self.cancel.cancelled() => None,
            answer = waiting => answer.ok(),
        }
    }

    /// An "always" answer written to the user's config.toml as a rule
    /// (for `shell`, the exact command line): `false`, with a warning,
    /// when the file could not take it — the answer then holds for this
    /// session only.
    fn always(&self, grant: &Grant) -> bool {
        let Some((_, config)) = self.policy.answers() else {
            return false;
        };
        let pattern = grant.command.as_deref().map(Grant::pattern);
        let when = pattern.as_deref().map(|p| ("/command", p));
        let written = match &grant.domain {
            Some(host) => crate::config::edit::allow_host_always(config, host),
            None => crate::config::edit::allow_always_when(config, &grant.tool, when),
        };
        match written {
            Ok(()) => true,
            Err(e) => {
                self.emit(Event::Warning {
                    message: format!(
                        "could not add {grant} to {}: {e}; allowed for this session only",
                        config.display()
                    ),
                });
                false
            }
        }
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
        self.policy.answers()?;
        let change = match self.tools.plan(tool, args, &Default::default()).await? {
            Ok(c) => c,
            Err(_) => return None,
        };
        let _one_at_a_time = self.policy.asking().lock().await;
        let why = format!(
            "{} changed after you were asked; this is the change on it as it is now",
            change.shown
        );
        let (decision, by) = self
            .ask_once(id, name, tool, args, change.preview(), why)
            .await;
        self.note_approval(id, name, decision, SettledBy::new(by), None, None)
            .await;
        (decision == Settled::Allow).then(|| Some(change.expect()))
    }

    /// A question only "once" answers (whatever the person picks), about
    /// `preview`; the decision and who made it.
    async fn ask_once(
        &self,
        id: &str,
        name: &str,
        tool: &ToolRef,
        args: &Value,
        preview: String,
        why: String,
    ) -> (Settled, By) {
        let question = Question {
            call_id: id.to_string(),
            tool: name.to_string(),
            arguments: args.clone(),
            required: self.tools.required_args(name, tool),
            preview: Some(preview),
            why,
            once_only: true,
            grants: None,
        };
        match self.ask(question).await {
            Some(Answer::Once | Answer::Session | Answer::Always) => {
                (Settled::Allow, By::User(UserAnswer::Once))
            }
            // `Answers` takes no form's answer for a call.
            Some(Answer::Deny(_) | Answer::Form(_)) => {
                (Settled::Deny, By::User(UserAnswer::Denied))
            }
            None => (Settled::Deny, By::User(UserAnswer::StoppingTheTurn)),
        }
    }

    /// What a command wrote that the sandbox held back (git's config and
    /// hooks, start-up files, executables on PATH), put to the person once,
    /// listed: landed if they allow it, left out otherwise — and with
    /// nobody to ask (a one-shot run, a subagent), never. `--yolo` allows
    /// calls, not these.
    pub(super) async fn ask_to_land(
        &self,
        id: &str,
        name: &str,
        tool: &ToolRef,
        args: &Value,
        out: &mut crate::call::ToolOutput,
    ) {
        let Some(held) = out.held_back.take() else {
            return;
        };
        if self.policy.answers().is_none() || self.cancel.is_cancelled() {
            return;
        }
        let Some(mut changes) = out.changes.take() else {
            return;
        };
        let _one_at_a_time = self.policy.asking().lock().await;
        let why = "the command also wrote these, which run later outside the sandbox \
                   (git, your shell, hermes); they were held back — land them as the \
                   command left them?";
        let (decision, by) = self
            .ask_once(id, name, tool, args, held.preview().to_string(), why.into())
            .await;
        self.note_approval(
            id,
            name,
            decision,
            SettledBy::new(by),
            Some("to land what the sandbox held back".into()),
            None,
        )
        .await;
        if decision == Settled::Allow {
            let landed = tokio::task::spawn_blocking(move || {
                let text = held.land(&mut changes);
                (changes, text)
            })
            .await;
            match landed {
                Ok((c, text)) => {
                    out.content = text;
                    out.is_error |= !c.failed.is_empty();
                    out.changes = Some(c);
                }
                Err(e) => self.emit(Event::Warning {
                    message: format!("could not land what was held back: {e}"),
                }),
            }
        } else {
            out.changes = Some(changes);
        }
    }

    /// Hosts the shell's proxy refused a command, put to the person once:
    /// may commands reach them — for this session ("once" too: a refused
    /// connection cannot be made again but by running the command again),
    /// or always (written to `[network] allow`)? The model is told the
    /// answer beside the result. With nobody to ask, the result alone says
    /// what was refused.
    pub(super) async fn ask_to_reach(
        &self,
        id: &str,
        name: &str,
        tool: &ToolRef,
        args: &Value,
        out: &mut crate::call::ToolOutput,
    ) {
        let rules = std::mem::take(&mut out.refused);
        if rules.is_empty() || self.policy.answers().is_none() || self.cancel.is_cancelled() {
            return;
        }
        let _one_at_a_time = self.policy.asking().lock().await;
        let listed = rules.join(", ");
        let question = Question {
            call_id: id.to_string(),
            tool: name.to_string(),
            arguments: args.clone(),
            required: self.tools.required_args(name, tool),
            preview: Some(rules.iter().map(|r| format!("  {r}\n")).collect()),
            why: format!(
                "the command tried to reach {listed}, which [network] allow does not name, and \
                 was refused; let commands reach it?"
            ),
            once_only: false,
            grants: Some(format!("commands to reach {listed}")),
        };
        let answer = self.ask(question).await;
        let (decision, by) = match answer {
            Some(a @ (Answer::Once | Answer::Session | Answer::Always)) => {
                let parsed: Vec<crate::config::HostRule> = rules
                    .iter()
                    .filter_map(|r| crate::config::HostRule::try_from(r.clone()).ok())
                    .collect();
                let always = a == Answer::Always && self.always_reach(&rules);
                self.tools.background().proxied.allow_reach(&parsed, always);
                out.content.push_str(&format!(
                    "\n[network: the person let commands reach {listed} {}; run the command \
                     again]",
                    if always {
                        "from now on"
                    } else {
                        "for this session"
                    }
                ));
                let how = if always {
                    UserAnswer::Always
                } else {
                    UserAnswer::ForSession
                };
                (Settled::Allow, By::User(how))
            }
            Some(Answer::Deny(_) | Answer::Form(_)) => {
                out.content.push_str(&format!(
                    "\n[network: the person did not let commands reach {listed}]"
                ));
                (Settled::Deny, By::User(UserAnswer::Denied))
            }
            None => (Settled::Deny, By::User(UserAnswer::StoppingTheTurn)),
        };
        self.note_approval(
            id,
            name,
            decision,
            SettledBy::new(by),
            Some(format!("to let commands reach {listed}")),
            None,
        )
        .await;
    }

    /// An "always" to reach hosts: each written to `[network] allow`;
    /// `false`, with a warning, when the file could not take them.
    fn always_reach(&self, rules: &[String]) -> bool {
        let Some((_, config)) = self.policy.answers() else {
            return false;
        };
        for r in rules {
            if let Err(e) = crate::config::edit::allow_host_always(config, r) {
                self.emit(Event::Warning {
                    message: format!(
                        "could not add {r} to [network] allow in {}: {e}; allowed for this \
                         session only",
                        config.display()
                    ),
                });
                return false;
            }
        }
        true
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
        // The session file keeps who decided as its text (older records are
        // read back).
        let by_text = by.to_string();
        let (arguments, resolved_path) = match asked {
            Some(a) => {
                let (own, resolved) = self.as_sent(id, a.arguments);
                let shown = crate::agent::ShownArguments {
                    value: own,
                    required: a.required,
                };
                (Some(shown), resolved)
            }
            None => (None, None),
        };
        self.emit(Event::Approval {
            id: id.to_string(),
            name: name.to_string(),
            decision,
            by,
            reason: reason.clone(),
            arguments,
            resolved_path,
        });
        let record = Record::Event {
            ts: Utc::now().rfc3339(),
            event: SessionEvent::Approval {
                by: by_text,
                call_id: id.to_string(),
                decision,
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
