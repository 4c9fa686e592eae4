//! `Policy`: the hooks and the approval every tool call passes, applied
//! once per entry with the underlying tool's name and the entry's call id.

use super::approval::{By, UserAnswer};
use super::approval::{Outcome, Subject};
use super::ask::Answers;
use super::ask::Grant;
use super::hooks::{Hook, HookAnswer, HookCall, HookContext, HookEvent, HookVerdict};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::approval::Approvals;
use crate::config::{ApprovalSettings, Decision, HooksSettings};

/// What the post hooks of one entry said.
#[derive(Debug, Default)]
pub(crate) struct PostOutcome {
    /// For the person: hooks that failed, their `systemMessage`s.
    pub warnings: Vec<String>,
    /// For the model, beside the result.
    pub feedback: Vec<String>,
    /// `continue: false`: the turn ends, with this reason.
    pub stop: Option<String>,
}

#[derive(Clone)]
pub(crate) struct Policy {
    /// Every event's hooks, each event's in config order.
    pub(super) hooks: Vec<(HookEvent, Hook)>,
    pub(super) approvals: Approvals,
    pub(super) max_tool_calls_per_turn: u32,
    /// Where answers to `ask` come from (the REPL on a terminal, a
    /// `--json-answers` script), and the config file an "always" answer
    /// is written to; none in other one-shot runs.
    pub(super) answers: Option<(Answers, std::path::PathBuf)>,
    /// One question at a time across the rounds of this run — the
    /// person's agent's and every subagent's (a clone shares it).
    pub(super) asking: std::sync::Arc<tokio::sync::Mutex<()>>,
    pub(super) session: super::ask::Shared,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::from_settings(&HooksSettings::default(), &ApprovalSettings::default())
    }
}

impl Policy {
    pub(crate) fn from_settings(hooks: &HooksSettings, approvals: &ApprovalSettings) -> Policy {
        Policy {
            hooks: HookEvent::ALL
                .into_iter()
                .flat_map(|e| hooks.of(e).iter().map(move |h| (e, Hook::from_settings(h))))
                .collect(),
            approvals: Approvals::new(approvals),
            max_tool_calls_per_turn: approvals.max_tool_calls_per_turn,
            answers: None,
            asking: Default::default(),
            session: super::ask::Shared::default(),
        }
    }

    /// Every matching `pre_tool_call` hook, in config order, each seeing
    /// the input the ones before it left: the first block wins; otherwise
    /// an `ask` wins over an `allow`, which wins over no opinion.
    pub(crate) async fn pre_tool_call(
        &self,
        ctx: &HookContext,
        tool: &Subject,
        call_id: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> HookAnswer {
        let mut input = args.clone();
        let mut verdict = HookVerdict::Pass;
        let mut said = HookAnswer::default();
        for h in self
            .of_call(HookEvent::Pre, tool)
            .filter(|h| h.applies(args))
        {
            let call = HookCall {
                event: HookEvent::Pre,
                tool,
                call_id,
                args: &input,
                output: None,
            };
            if h.in_background() {
                h.start_in_background(ctx, &call);
                continue;
            }
            let mut a = h.run(ctx, &call, cancel).await;
            // Matched only by the plain name of a renamed tool: it was
            // written for another tool, and may stop this one but not
            // allow or rewrite it.
            if !h.matches_by_own_name(tool) {
                a.updated_input = None;
                if a.verdict == HookVerdict::Allow {
                    a.verdict = HookVerdict::Pass;
                }
            }
            if let Some(updated) = a.updated_input.take() {
                input = updated;
            }
            said.gather(&a);
            verdict = match (verdict, a.verdict) {
                (_, b @ HookVerdict::Block(_)) => {
                    return HookAnswer {
                        verdict: b,
                        updated_input: None,
                        ..said
                    }
                }
                (a @ HookVerdict::Ask(_), _) | (_, a @ HookVerdict::Ask(_)) => a,
                (HookVerdict::Allow, _) | (_, HookVerdict::Allow) => HookVerdict::Allow,
                _ => HookVerdict::Pass,
            };
            if said.stop.is_some() {
                break;
            }
        }
        // `continue: false` ends the turn: the call does not run.
        if let Some(why) = &said.stop {
            verdict = HookVerdict::Block(if why.is_empty() {
                "a hook stopped the turn".into()
            } else {
                format!("a hook stopped the turn: {why}")
            });
        }
        HookAnswer {
            verdict,
            updated_input: (&input != args).then_some(input),
            ..said
        }
    }

    /// Runs every matching `post_tool_call` hook — `post_tool_call_failure`
    /// for a call that failed (Claude Code's PostToolUse and
    /// PostToolUseFailure). As in Claude Code, what they decide is told to
    /// the model beside the result (the tool has run): a `block` and its
    /// reason, exit 2's stderr, `additionalContext`. Their failures are the
    /// person's, not fatal. `cancel` is the round's: after a stop no further
    /// hook starts, a running one is ended, and neither is reported as a
    /// failure.
    pub(crate) async fn post_tool_call(
        &self,
        ctx: &HookContext,
        tool: &Subject,
        call_id: &str,
        args: &Value,
        output: &crate::call::ToolOutput,
        cancel: &CancellationToken,
    ) -> PostOutcome {
        let mut out = PostOutcome::default();
        let event = if output.is_error {
            HookEvent::PostFailure
        } else {
            HookEvent::Post
        };
        for h in self.of_call(event, tool).filter(|h| h.applies(args)) {
            if cancel.is_cancelled() {
                break;
            }
            let call = HookCall {
                event,
                tool,
                call_id,
                args,
                output: Some(output),
            };
            if h.in_background() {
                h.start_in_background(ctx, &call);
                continue;
            }
            let a = h.run(ctx, &call, cancel).await;
            if cancel.is_cancelled() {
                break;
            }
            match &a.verdict {
                HookVerdict::Block(why) if a.broken => out.warnings.push(why.clone()),
                HookVerdict::Block(why) => out.feedback.push(why.clone()),
                _ => {}
            }
            out.feedback.extend(a.context.clone());
            out.warnings.extend(a.message.clone());
            if a.stop.is_some() {
                out.stop = a.stop;
                break;
            }
        }
        out
    }

    /// The hooks of `event`, an event about a call, whose matcher names
    /// `tool`.
    pub(super) fn of_call<'a>(
        &'a self,
        event: HookEvent,
        tool: &'a Subject,
    ) -> impl Iterator<Item = &'a Hook> + 'a {
        self.hooks
            .iter()
            .filter(move |(e, h)| *e == event && h.matches(tool))
            .map(|(_, h)| h)
    }

    /// Every hook with its place in its event's list (`pre_tool_call[0]`).
    fn placed(&self) -> impl Iterator<Item = (HookEvent, String, &Hook)> {
        let mut seen = std::collections::HashMap::new();
        self.hooks.iter().map(move |(e, h)| {
            let i = seen.entry(*e).or_insert(0usize);
            let place = format!("{}[{i}]", e.key());
            *i += 1;
            (*e, place, h)
        })
    }

    /// Every hook about a tool call, with the name `hermes hooks test`
    /// knows it by: its `name`, else its place.
    pub(crate) fn tool_hooks(&self) -> Vec<(HookEvent, String, &Hook)> {
        self.placed()
            .filter(|(e, ..)| e.about_a_call())
            .map(|(e, place, h)| (e, h.name().map(str::to_string).unwrap_or(place), h))
            .collect()
    }

    /// The hook `name` (its `name` key, or its place), for `hermes hooks
    /// test`.
    pub(crate) fn hook(&self, name: &str) -> Option<(HookEvent, &Hook)> {
        self.placed()
            .find(|(_, place, h)| h.name() == Some(name) || place == name)
            .map(|(e, _, h)| (e, h))
    }

    /// Approval of one entry, from its tool, its own arguments and what
    /// its server says of the tool, and what the `pre_tool_call` hooks said
    /// (one that blocked has already ended the entry). A deny from any rule
    /// stands; a hook's `allow` answers an `ask`, a hook's `ask` is put even
    /// where the rules, `/yolo` or this session's answers would allow.
    pub(crate) fn approve(&self, tool: &Subject, args: &Value, hook: &HookVerdict) -> Outcome {
        let flag =
            self.approvals.yolo_flag() && !self.session.lock().is_ok_and(|s| s.flag_yolo_off);
        let o = self.approvals.decide_as(self.mode(), flag, tool, args);
        if o.decision == Decision::Deny {
            return o;
        }
        if let HookVerdict::Ask(reason) = hook {
            return Outcome {
                decision: Decision::Ask,
                by: By::Hook,
                reason: (!reason.is_empty()).then(|| reason.clone()),
            };
        }
        if o.decision == Decision::Ask && *hook == HookVerdict::Allow && !tool.hints.even_under_yolo
        {
            return Outcome::new(Decision::Allow, By::Hook);
        }
        let Ok(s) = self.session.lock() else { return o };
        if s.yolo && !tool.hints.even_under_yolo {
            return Outcome::new(Decision::Allow, By::YoloCommand);
        }
        // An answer for the session never covers what is always asked (a
        // write outside the folder, to a control path): that is asked
        // each time.
        if o.decision == Decision::Ask
            && tool.hints.always_ask.is_none()
            && s.allowed.iter().any(|g| g.covers(&tool.name, args))
        {
            return Outcome::new(Decision::Allow, By::User(UserAnswer::ForSession));
        }
        o
    }

    /// Someone answers questions from now on, on `answers`; an "always"
    /// answer is written to `config`.
    pub(crate) fn answered_on(&mut self, answers: Answers, config: std::path::PathBuf) {
        self.answers = Some((answers, config));
    }

    /// Held while a question is put to the person: one at a time, whichever
    /// agent asks.
    pub(crate) fn asking(&self) -> &tokio::sync::Mutex<()> {
        &self.asking
    }

    /// Where answers come from and where "always" goes, if anyone answers.
    pub(crate) fn answers(&self) -> Option<&(Answers, std::path::PathBuf)> {
        self.answers.as_ref()
    }

    /// A session begins (`/new`, `/resume`): nothing the last one's
    /// answers allowed holds in it, nor its `/yolo` or mode switch — they
    /// were for that session. Clones made before (a subagent still
    /// running) keep theirs.
    pub(crate) fn begin_session(&mut self) {
        self.session = super::ask::Shared::default();
    }

    /// The policy of a subagent: its own session, which no answer of its
    /// parent's covers — but the mode and `/yolo` it runs under are the
    /// parent's as it starts (plan mode holds for its calls too).
    pub(crate) fn for_subagent(&self) -> Policy {
        let parent = self.session.lock().map(|s| s.clone()).unwrap_or_default();
        let mut p = self.clone();
        p.session = std::sync::Arc::new(std::sync::Mutex::new(super::ask::SessionApprovals {
            allowed: Vec::new(),
            ..parent
        }));
        p
    }

    /// Lets what `grant` covers run without asking for the rest of the
    /// session.
    pub(crate) fn allow_for_session(&self, grant: Grant) {
        if let Ok(mut s) = self.session.lock() {
            if !s.allowed.contains(&grant) {
                s.allowed.push(grant);
            }
        }
    }

    /// What this session's answers allowed.
    pub(crate) fn allowed_this_session(&self) -> Vec<Grant> {
        self.session
            .lock()
            .map(|s| s.allowed.clone())
            .unwrap_or_default()
    }

    /// Toggles `/yolo`; returns whether it is now on.
    /// Off when on by `/yolo` or by `--yolo` (the flag too: the person
    /// asked for questions again), on otherwise.
    pub(crate) fn toggle_yolo(&self) -> bool {
        let on = self.yolo();
        self.session
            .lock()
            .map(|mut s| {
                s.yolo = !on;
                s.flag_yolo_off = on;
                !on
            })
            .unwrap_or(false)
    }

    /// Whether tools run without asking now: `/yolo`, or `--yolo` not
    /// turned off since.
    pub(crate) fn yolo(&self) -> bool {
        let flag = self.approvals.yolo_flag();
        self.session
            .lock()
            .map(|s| s.yolo || (flag && !s.flag_yolo_off))
            .unwrap_or(flag)
    }

    /// The approval mode now: the one switched to, else the configured.
    pub(crate) fn mode(&self) -> crate::config::ApprovalMode {
        self.session
            .lock()
            .ok()
            .and_then(|s| s.mode)
            .unwrap_or(self.approvals.mode())
    }

    /// Switches the mode for this session (and every clone: subagents);
    /// returns the one it was.
    pub(crate) fn set_mode(
        &self,
        mode: crate::config::ApprovalMode,
    ) -> crate::config::ApprovalMode {
        let was = self.mode();
        if let Ok(mut s) = self.session.lock() {
            s.mode = Some(mode);
        }
        was
    }

    /// Tool calls one user turn may make.
    pub(crate) fn max_tool_calls_per_turn(&self) -> u32 {
        self.max_tool_calls_per_turn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Hints;
    use serde_json::json;

    /// "s" on an in-folder write covers in-folder writes only; a write the
    /// built-in always asks about (outside the folder, a control path) is
    /// asked again, and "s" on a command covers that command line alone.
    #[test]
    fn an_answer_for_the_session_covers_only_what_was_asked() {
        let policy = Policy::default();
        let write = |always_ask| Subject {
            hints: Hints {
                always_ask,
                ..Hints::default()
            },
            ..Subject::named("write_file")
        };
        let args = json!({"path": "notes.md", "content": "x"});
        let asked = |s: &Subject, a: &Value| policy.approve(s, a, &HookVerdict::Pass).decision;
        assert_eq!(asked(&write(None), &args), Decision::Ask);
        policy.allow_for_session(Grant::for_call("write_file", &args).unwrap());
        assert_eq!(
            asked(&write(None), &json!({"path": "other.md"})),
            Decision::Allow
        );
        let outside = write(Some("a write outside the working folder"));
        assert_eq!(asked(&outside, &json!({"path": "/etc/x"})), Decision::Ask);
        let control = write(Some(
            "a write to git's config or hooks, which decide what git runs",
        ));
        assert_eq!(
            asked(&control, &json!({"path": ".git/config"})),
            Decision::Ask
        );

        let shell = Subject::named("shell");
        let cmd = |c: &str| json!({ "command": c });
        policy.allow_for_session(Grant::for_call("shell", &cmd("bash run_tests.sh")).unwrap());
        assert_eq!(asked(&shell, &cmd("bash run_tests.sh")), Decision::Allow);
        for wrapped in [
            "bash -c \"rm -rf src\"",
            "timeout 60 bash run_tests.sh",
            "env CI=1 bash run_tests.sh",
            "nice bash run_tests.sh",
            "find . -name '*.sh' -exec bash {} \\;",
            "tar -xf t.tar --to-command='bash run_tests.sh'",
            "xargs -a list bash",
        ] {
            assert_eq!(asked(&shell, &cmd(wrapped)), Decision::Ask, "{wrapped}");
        }
    }
}
