//! The per-entry path of a round: each entry checked (scope, schema,
//! `pre_tool_call` hooks, approval — `Round::check_one`), run under its
//! server's concurrency, and settled with its result.

use super::round::Round;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use super::super::protocol::{Event, Settled, SettledBy};
use crate::call::{classify, ids, names::Bridge, CallClass, Entry, ToolOutput, ToolRef};
use crate::config::Decision;
use crate::model::{ToolCall, ToolResult};
use crate::policy::{By, HookVerdict, UserAnswer};
use crate::session::{Record, SessionError, SessionEvent};
use crate::tools::{validation, Planned};
use crate::util::time::Utc;
use futures_util::future::BoxFuture;

/// An entry's arguments and its tool's required ones, as a question shows them.
pub(super) struct Asked<'a> {
    pub(super) arguments: &'a Value,
    pub(super) required: Vec<String>,
}

/// How a call of the message is run, once checked.
pub(super) enum Plan {
    /// Down the per-entry path: the resolved tool and the entry's arguments
    /// (as the tool resolved them), and what a planned file change expects
    /// to find.
    Entry {
        name: String,
        tool: ToolRef,
        args: Value,
        expect: Option<crate::tools::Expect>,
        /// Whether the person was asked (a stale change is asked again).
        asked: bool,
        /// A question put off to the entry's turn ([`Checked::at_turn`]).
        at_turn: Option<AtTurn>,
        /// What the pre hooks told the model, put beside the result.
        context: Option<String>,
    },
    /// A `connectors__`-only batch: each entry checked (scope, schema, hooks,
    /// approval) like any other, the allowed ones sent in one dispatch.
    Batch {
        entries: Vec<Entry>,
        /// The entries' own ids (as a split would give them), made once.
        ids: Vec<String>,
        refused: Vec<Option<String>>,
    },
    /// `tool_search` / `tool_describe`, answered by the bridge.
    Bridge(Bridge),
    /// Settled before running (an error result).
    Done(ToolOutput),
    /// An entry for `tool` settled before running (refused by its scope,
    /// schema, a hook or approval, or the turn stopped before it started),
    /// shown under that tool and its own arguments, not under `tool_call`.
    Settled {
        tool: String,
        arguments: String,
        out: ToolOutput,
    },
}

/// What a finished call is shown as: its underlying tool, and — for one
/// that never started, so no earlier event gave them — its arguments.
pub(super) struct Shown {
    pub(super) tool: String,
    pub(super) arguments: Option<String>,
}

impl Shown {
    fn named(tool: &str) -> Shown {
        Shown {
            tool: tool.to_string(),
            arguments: None,
        }
    }
}

/// An entry past its checks: the tool, the arguments to run it with, what
/// a planned change expects to find, and whether the person was asked.
struct Checked {
    tool: ToolRef,
    args: Value,
    expect: Option<crate::tools::Expect>,
    asked: bool,
    /// A file change after a command of the batch that is put to the
    /// person: asked at its turn, on the folder as the command left it —
    /// once, with the diff that will be written.
    at_turn: Option<AtTurn>,
    /// What the pre hooks told the model (`additionalContext`).
    context: Option<String>,
}

/// A question put off to an entry's turn: what approval said of it, and
/// the entry's slot (questions keep entry order).
#[derive(Clone)]
pub(super) struct AtTurn {
    outcome: crate::policy::Outcome,
    slot: usize,
}

/// What a round did.
pub(in crate::agent) struct Ran {
    /// Every call's result, in entry order.
    pub results: Vec<ToolResult>,
    /// The first result the session file could not take.
    pub failed: Option<SessionError>,
    /// The tool invocations the turn's cap let through.
    pub admitted: usize,
}

/// How many tool invocations a call is, for the turn's cap.
fn invocations(class: &CallClass) -> usize {
    match class {
        CallClass::ConnectorBatch(entries) => entries.len(),
        _ => 1,
    }
}

impl Round<'_> {
    /// Every call's result, in entry order — all of them even when the
    /// session file could not take one (then the first such error comes
    /// too): the history in memory must keep every call paired.
    pub(in crate::agent) async fn run(&self, calls: &[ToolCall]) -> Ran {
        // The cap counts tool invocations: a connectors batch is as many as
        // its entries, and it runs whole or not at all. Calls are admitted
        // in entry order while they fit; what is refused costs nothing.
        // Each call is classified once: its arguments may be large.
        let classes: Vec<CallClass> = calls
            .iter()
            .map(|c| classify(&c.name, &c.arguments))
            .collect();
        let mut used = 0;
        let refusals: Vec<Option<String>> = classes
            .iter()
            .map(|class| {
                let n = invocations(class);
                let left = self.allowed - used;
                if n <= left {
                    used += n;
                    return None;
                }
                let cap = self.policy.max_tool_calls_per_turn();
                Some(if left == 0 {
                    format!(
                        "not run: this turn reached its limit of {cap} tool calls \
                         ([approvals] max_tool_calls_per_turn); answer with what you have"
                    )
                } else {
                    format!(
                        "not run: this batch is {n} tool calls and the turn has {left} left of \
                         its {cap} ([approvals] max_tool_calls_per_turn); send at most {left}"
                    )
                })
            })
            .collect();
        self.emit(Event::ToolRoundStarted {
            ids: calls.iter().map(|c| c.id.clone()).collect(),
            entries: calls
                .iter()
                .zip(&classes)
                .map(|(c, class)| match class {
                    CallClass::Direct {
                        tool,
                        arguments: Ok(a),
                    } => (tool.clone(), a.to_string()),
                    _ => (c.name.clone(), c.arguments.clone()),
                })
                .collect(),
        });
        // Where the first command is: a file change after it cannot be
        // planned until it has run.
        if let Some(i) = classes
            .iter()
            .position(|c| matches!(c, CallClass::Direct { tool, .. } if tool == "shell"))
        {
            self.first_command
                .store(i, std::sync::atomic::Ordering::SeqCst);
        }
        // Scope, schema, hooks and approval for every entry, concurrently.
        let checks = calls.iter().zip(classes).zip(refusals).enumerate().map(
            |(i, ((c, class), refused))| async move {
                if let Some(why) = refused {
                    // Its slot is done: the entries after it may ask.
                    self.gate.done(i);
                    return Plan::Done(ToolOutput::error(why));
                }
                let plan = self.check(c, class, i).await;
                self.gate.done(i);
                plan
            },
        );
        let plans: Vec<Plan> = futures_util::future::join_all(checks).await;
        // Then run: futures are first polled in entry order, which is the
        // order they queue at a server's gate.
        let runs = calls.iter().zip(plans).map(|(c, p)| self.execute(c, p));
        let mut failed = None;
        let results = futures_util::future::join_all(runs)
            .await
            .into_iter()
            .map(|(result, written)| {
                if let (Err(e), None) = (written, &failed) {
                    failed = Some(e);
                }
                result
            })
            .collect();
        Ran {
            results,
            failed,
            admitted: used,
        }
    }

    pub(super) async fn check(&self, call: &ToolCall, class: CallClass, slot: usize) -> Plan {
        // An entry stopped before it started is shown under its own tool.
        let entry = match &class {
            CallClass::Direct { tool, arguments } => Some((
                tool.clone(),
                arguments.as_ref().map(Value::to_string).unwrap_or_default(),
            )),
            _ => None,
        };
        tokio::select! {
            biased;
            _ = self.cancel.cancelled() => {
                let open = self.open_question.lock().ok().and_then(|mut q| q.take());
                if let Some((id, name)) = open {
                    let by = SettledBy::new(By::User(UserAnswer::StoppingTheTurn));
                    self.note_approval(&id, &name, Settled::Deny, by, None, None).await;
                }
                match entry {
                    Some((tool, arguments)) => Plan::Settled {
                        tool,
                        arguments,
                        out: ToolOutput::not_started(),
                    },
                    None => Plan::Done(ToolOutput::not_started()),
                }
            }
            plan = self.plan(call, class, slot) => plan,
        }
    }

    async fn plan(&self, call: &ToolCall, class: CallClass, slot: usize) -> Plan {
        match class {
            CallClass::Bridge(b) => Plan::Bridge(b),
            CallClass::Invalid(msg) => Plan::Done(ToolOutput::error(msg)),
            // Only reached when the split was skipped: the old contract's answer.
            CallClass::Split(entries) => {
                Plan::Done(ToolOutput::error(validation::legacy_batch_error(&entries)))
            }
            CallClass::Direct { tool, arguments } => {
                let args = match arguments {
                    Ok(a) => a,
                    Err(why) => {
                        return Plan::Settled {
                            tool,
                            arguments: String::new(),
                            out: ToolOutput::error(why),
                        }
                    }
                };
                match self.check_one(&tool, &call.id, &args, slot).await {
                    Ok(c) => Plan::Entry {
                        name: tool,
                        tool: c.tool,
                        args: c.args,
                        expect: c.expect,
                        asked: c.asked,
                        at_turn: c.at_turn,
                        context: c.context,
                    },
                    Err(why) => Plan::Settled {
                        tool,
                        arguments: args.to_string(),
                        out: ToolOutput::error(why),
                    },
                }
            }
            CallClass::ConnectorBatch(entries) => {
                let ids = ids::entry_ids(&call.id, &entries, &mut HashSet::new());
                let checks = entries.iter().zip(&ids).map(|(e, id)| async move {
                    match &e.arguments {
                        Err(why) => Some(why.clone()),
                        // The batch goes to the gateway as the model wrote
                        // it: an entry a hook rewrote is refused, not sent
                        // unchanged.
                        Ok(args) => match self.check_one(&e.name, id, args, slot).await {
                            Err(why) => Some(why),
                            Ok(c) if &c.args != args => Some(format!(
                                "`{}` was not run: a hook changed its arguments, and a \
                                 connectors batch is sent as written; call it on its own",
                                e.name
                            )),
                            Ok(_) => None,
                        },
                    }
                });
                let refused = futures_util::future::join_all(checks).await;
                Plan::Batch {
                    entries,
                    ids,
                    refused,
                }
            }
        }
    }

    /// Resolution and schema, the arguments as the tool resolves them,
    /// `pre_tool_call` hooks, a file change planned in entry order, and
    /// approval for one entry: the tool to run and the arguments to run it
    /// with (a hook may have changed them), or why it must not run.
    async fn check_one(
        &self,
        name: &str,
        id: &str,
        args: &Value,
        slot: usize,
    ) -> Result<Checked, String> {
        let tool = self.tools.resolve_and_check(name, args).await?;
        // Rules, hooks, the question and the call see one path: resolved;
        // events show the model's own arguments, that path beside them.
        let resolved = |given: &Value| {
            let out = self.tools.normalize(&tool, given);
            if out.is_some() {
                if let Ok(mut g) = self.given.lock() {
                    g.insert(id.to_string(), given.clone());
                }
            }
            out.unwrap_or_else(|| given.clone())
        };
        let args = resolved(args);
        let subject = self.tools.subject(name, &tool, &args);
        let hook = self
            .policy
            .pre_tool_call(&self.hook_ctx, &subject, id, &args, self.cancel)
            .await;
        self.hooks_said(hook.message.clone(), hook.stop.clone());
        let context = hook.context.clone();
        if let HookVerdict::Block(why) = hook.verdict {
            self.note_approval(
                id,
                name,
                Settled::Deny,
                SettledBy::new(By::Hook),
                Some(why.clone()),
                None,
            )
            .await;
            return Err(why);
        }
        let args = match hook.updated_input {
            Some(updated) => {
                if let Some(e) = self.tools.check_args(name, &tool, &updated) {
                    return Err(format!("a hook changed the arguments: {e}"));
                }
                resolved(&updated)
            }
            None => args,
        };
        // A file change is worked out on what the entries before it leave,
        // so they are planned in entry order; one that cannot apply fails
        // here, and is never put to the person.
        let after_command = self.tools.plans_changes(&tool)
            && slot > self.first_command.load(std::sync::atomic::Ordering::SeqCst);
        let change = if self.tools.plans_changes(&tool) {
            self.gate.wait_turn(slot).await;
            let earlier = self.earlier.lock().map(|e| e.clone()).unwrap_or_default();
            match self.tools.plan(&tool, &args, &earlier).await {
                // On the folder as it is before the command runs, the
                // change may not apply yet (an edit of what the command
                // appends): worked out at its turn instead.
                Some(Err(_)) if after_command => None,
                Some(Err(why)) => return Err(why),
                Some(Ok(c)) => Some(c),
                None => None,
            }
        } else {
            None
        };
        // What a built-in knows of the call depends on the arguments it
        // will run with (a hook may have moved a write's path).
        let subject = self.tools.subject(name, &tool, &args);
        let outcome = self.policy.approve(&subject, &args, &hook.verdict);
        let asked = outcome.decision == Decision::Ask;
        // Shown now, the diff would be of the folder before the command
        // runs — and asked again when it has: put to the person at the
        // entry's turn instead.
        if asked && after_command && self.policy.answers().is_some() {
            return Ok(Checked {
                tool,
                args,
                expect: None,
                asked,
                at_turn: Some(AtTurn { outcome, slot }),
                context,
            });
        }
        let preview = change.as_ref().map(crate::tools::Change::preview);
        self.settle(slot, id, name, &tool, &args, outcome, preview)
            .await?;
        let expect = change.map(|c| {
            let expect = c.expect();
            if let Ok(mut e) = self.earlier.lock() {
                e.insert(c.path, c.after);
            }
            expect
        });
        Ok(Checked {
            tool,
            args,
            expect,
            asked,
            at_turn: None,
            context,
        })
    }

    /// The question, when `outcome` is one, and the decision noted: `Err`,
    /// the refusal the model is told.
    #[allow(clippy::too_many_arguments)]
    async fn settle(
        &self,
        slot: usize,
        id: &str,
        name: &str,
        tool: &ToolRef,
        args: &Value,
        mut outcome: crate::policy::Outcome,
        preview: Option<String>,
    ) -> Result<(), String> {
        let mut unanswered = false;
        if outcome.decision == Decision::Ask {
            (outcome, unanswered) = self
                .settle_ask(slot, id, name, tool, args, outcome, preview)
                .await;
        }
        let reason = outcome
            .reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        let (decision, refusal) = match outcome.decision {
            Decision::Allow => (Settled::Allow, None),
            // Nobody could answer (a one-shot run): the user is told which
            // flags allow it.
            _ if unanswered => (
                Settled::Deny,
                Some(format!(
                    "`{name}` was not run: it needs the user's approval ({}) and nobody could \
                     answer in this run; the user can allow it with --approve '{name}' or --yolo",
                    outcome.by
                )),
            ),
            _ => (
                Settled::Deny,
                Some(format!(
                    "`{name}` was not run: denied by {}{reason}",
                    outcome.by
                )),
            ),
        };
        let by = SettledBy {
            by: outcome.by.clone(),
            nobody_to_ask: unanswered,
        };
        // What the user would have been asked, whole: a refusal nobody
        // could answer is their only view of what the model wanted to run.
        let shown = unanswered.then(|| Asked {
            arguments: args,
            required: self.tools.required_args(name, tool),
        });
        self.note_approval(id, name, decision, by, outcome.reason.clone(), shown)
            .await;
        match refusal {
            Some(why) => Err(why),
            None => Ok(()),
        }
    }

    /// Settles a question put off to the entry's turn, on the change as
    /// planned now: what [`Planned::AtTurn`](crate::tools::Planned) calls.
    async fn settle_at_turn(
        &self,
        at: AtTurn,
        id: &str,
        name: &str,
        tool: &ToolRef,
        args: &Value,
        change: crate::tools::Change,
    ) -> Result<(), ToolOutput> {
        self.settle(
            at.slot,
            id,
            name,
            tool,
            args,
            at.outcome,
            Some(change.preview()),
        )
        .await
        .map_err(ToolOutput::error)
    }

    /// A hook's `systemMessage` for the person, and its `continue: false`,
    /// which ends the turn as a stop does, saying why.
    pub(in crate::agent) fn hooks_said(&self, message: Option<String>, stop: Option<String>) {
        if let Some(m) = message {
            self.emit(Event::Warning { message: m });
        }
        if let Some(why) = stop {
            let why = if why.is_empty() {
                "a hook ended the turn".to_string()
            } else {
                format!("a hook ended the turn: {why}")
            };
            self.emit(Event::Warning { message: why });
            self.cancel.cancel();
        }
    }

    pub(in crate::agent) fn emit(&self, e: Event) {
        let _ = self.events.send(e);
    }

    /// Runs a checked call: its output, and the underlying tool's name to
    /// report it under — `None` when its entries were reported one by one
    /// (a connectors batch).
    pub(super) async fn run_plan(
        &self,
        call: &ToolCall,
        plan: Plan,
    ) -> (Option<Shown>, ToolOutput) {
        let id = call.id.clone();
        let queued = |name: &str, arguments: String, resolved_path: Option<String>| {
            self.emit(Event::ToolCallQueued {
                id: id.clone(),
                name: name.to_string(),
                arguments,
                resolved_path,
            })
        };
        let started = |name: &str, arguments: String, resolved_path: Option<String>| {
            self.emit(Event::ToolCallStarted {
                id: id.clone(),
                name: name.to_string(),
                arguments,
                resolved_path,
            })
        };
        let as_sent = || Some(Shown::named(&call.name));
        match plan {
            Plan::Done(out) => (as_sent(), out),
            Plan::Settled {
                tool,
                arguments,
                out,
            } => (
                Some(Shown {
                    tool,
                    arguments: Some(arguments),
                }),
                out,
            ),
            Plan::Entry { name, args, .. } if self.cancel.is_cancelled() => (
                Some(Shown {
                    tool: name,
                    arguments: Some(args.to_string()),
                }),
                ToolOutput::not_started(),
            ),
            _ if self.cancel.is_cancelled() => (as_sent(), ToolOutput::not_started()),
            Plan::Batch {
                entries,
                ids,
                refused,
            } => (None, self.run_batch(&entries, &ids, &refused).await),
            Plan::Bridge(b) => {
                queued(&call.name, call.arguments.clone(), None);
                started(&call.name, call.arguments.clone(), None);
                let out = tokio::select! {
                    biased;
                    _ = self.cancel.cancelled() => ToolOutput::interrupted(None),
                    out = self.tools.bridge(b, &call.arguments) => out,
                };
                (as_sent(), out)
            }
            Plan::Entry {
                name,
                tool,
                args,
                expect,
                asked,
                at_turn,
                context,
            } => {
                let (own, resolved) = self.as_sent(&call.id, &args);
                let shown = own.to_string();
                queued(&name, shown.clone(), resolved.clone());
                let sent = AtomicBool::new(false);
                let on_start = || {
                    if !sent.swap(true, Ordering::SeqCst) {
                        started(&name, shown.clone(), resolved.clone());
                    }
                };
                let send = |planned| {
                    self.tools.call_checked(
                        &tool,
                        &call.id,
                        args.clone(),
                        planned,
                        self.cancel,
                        &on_start,
                    )
                };
                // The question put off to this entry's turn, asked there.
                let confirm =
                    |change: crate::tools::Change| -> BoxFuture<'_, Result<(), ToolOutput>> {
                        let at = at_turn.clone();
                        Box::pin(async {
                            match at {
                                Some(at) => {
                                    self.settle_at_turn(at, &call.id, &name, &tool, &args, change)
                                        .await
                                }
                                None => Ok(()),
                            }
                        })
                    };
                let first = match at_turn {
                    Some(_) => Planned::AtTurn(&confirm),
                    None => expect.into(),
                };
                let mut out = match (&tool, &self.subagents) {
                    // A subagent: its own conversation, on this round's
                    // policy, session and stop.
                    (ToolRef::Subagent, Some(spawn)) => {
                        on_start();
                        spawn.spawner.run(spawn, self, &call.id, &args).await
                    }
                    _ => send(first).await,
                };
                if name == crate::call::UPDATE_PLAN && !out.is_error {
                    if let Ok(u) = crate::call::PlanUpdate::read(&args) {
                        self.emit(Event::PlanUpdated {
                            explanation: u.explanation,
                            plan: u.plan,
                        });
                    }
                }
                // The file changed while the person was being asked (or
                // since): what they approved is not what would be written.
                // Asked again, on the file as it is now; once.
                // Nobody was shown it (allowed by a rule, a flag, the mode):
                // planned again on the file as it is now — as a command
                // before it in the batch left it — and written.
                if out.stale && !self.cancel.is_cancelled() {
                    if asked {
                        if let Some(expect) = self.ask_again(&call.id, &name, &tool, &args).await {
                            out = send(expect.into()).await;
                        }
                    } else {
                        match self.tools.plan(&tool, &args, &Default::default()).await {
                            Some(Ok(change)) => out = send(Planned::Expect(change.expect())).await,
                            Some(Err(why)) => out = ToolOutput::error(why),
                            None => {}
                        }
                    }
                }
                // What the sandbox held back, put to the person once.
                if out.held_back.is_some() {
                    self.ask_to_land(&call.id, &name, &tool, &args, &mut out)
                        .await;
                }
                // Hosts the shell's proxy refused it, put to the person once.
                if !out.refused.is_empty() {
                    self.ask_to_reach(&call.id, &name, &tool, &args, &mut out)
                        .await;
                }
                let mut feedback: Vec<String> = context.into_iter().collect();
                if sent.load(Ordering::SeqCst) {
                    let subject = self.tools.subject(&name, &tool, &args);
                    let post = self
                        .policy
                        .post_tool_call(
                            &self.hook_ctx,
                            &subject,
                            &call.id,
                            &args,
                            &out,
                            self.cancel,
                        )
                        .await;
                    for problem in post.warnings {
                        self.emit(Event::Warning { message: problem });
                    }
                    feedback.extend(post.feedback);
                    self.hooks_said(None, post.stop);
                }
                // What hooks told the model goes with the result, as
                // Claude Code gives it.
                for f in feedback {
                    out.content.push_str(&format!("\n\n[hook] {f}"));
                }
                (Some(Shown::named(&name)), out)
            }
        }
    }

    async fn execute(&self, call: &ToolCall, plan: Plan) -> (ToolResult, Result<(), SessionError>) {
        let (tool, output) = self.run_plan(call, plan).await;
        // Secrets hermes holds (keys, tokens, servers' secret env and
        // headers) never reach the session file or the model, whatever a
        // tool printed.
        let content = match crate::util::secrets::mask_known(&output.content) {
            std::borrow::Cow::Borrowed(_) => output.content,
            std::borrow::Cow::Owned(masked) => masked,
        };
        let result = ToolResult {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content,
            is_error: output.is_error,
            images: output.images,
        };
        let diff = output.diff;
        let changed = crate::agent::ChangedFile::landed(output.changes.as_deref());
        // Persisted the moment it exists: a crash keeps every finished result.
        let written = match self.session {
            Some(session) => {
                let changed = match output.changes {
                    Some(changes) => {
                        session
                            .append(&Record::Event {
                                ts: Utc::now().rfc3339(),
                                event: SessionEvent::FilesChanged {
                                    tool_call_id: call.id.clone(),
                                    changes: *changes,
                                },
                            })
                            .await
                    }
                    None => Ok(()),
                };
                match changed {
                    Ok(()) => {
                        session
                            .append(&Record::ToolResult {
                                ts: Utc::now().rfc3339(),
                                result: result.clone(),
                            })
                            .await
                    }
                    Err(e) => Err(e),
                }
            }
            None => Ok(()),
        };
        if let Some(shown) = tool {
            self.emit(Event::ToolCallFinished {
                id: result.tool_call_id.clone(),
                name: shown.tool,
                arguments: shown.arguments,
                is_error: result.is_error,
                content: result.content.clone(),
                diff,
                changed,
            });
        }
        (result, written)
    }
}
