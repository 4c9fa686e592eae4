//! The agent: what it is made of — the provider and model it asks, the
//! tools it offers, the policy every call passes, the session it is in —
//! and what a front end may read of it. What it does is in the files that
//! add to it: a turn (`turn`), a session begun (`session_setup`), a
//! subagent started (`subagents`), the context compacted (`compaction`).

use std::sync::Arc;

use super::protocol::{Event, EventTx};
use super::session::{SessionStart, SessionState};
use super::subagents::budget::Budget;
use super::told::Told;
use super::tool_round::Spawner;
use super::window::Meter;
use super::{AnswerSchema, RunBudget};
use crate::model::Message;
use crate::policy::Policy;
use crate::provider::Provider;
use crate::session::{SessionHandle, Unanswered};
use crate::tools::Registry;

pub struct Agent {
    /// Shared so a front end can ask it things beside a turn (its models).
    pub(super) provider: Arc<dyn Provider>,
    pub(super) model: String,
    pub(super) tools: Registry,
    pub(super) policy: Policy,
    /// The session it is in, as one value.
    pub(super) state: SessionState,
    /// How full the model's window is, and when to compact.
    pub(super) meter: Meter,
    pub(super) events: EventTx,
    /// Where it stands among the run's agents.
    pub(super) family: Family,
    /// What the run asks of its turns.
    pub(super) bounds: Bounds,
}

/// Where an agent stands among the run's agents: whether it may start
/// subagents, and — for a subagent — its budget and its type.
#[derive(Default)]
pub(super) struct Family {
    /// What starts subagents for this agent's `agent` calls (none when it
    /// may not start any).
    pub(super) spawner: Option<Arc<dyn Spawner>>,
    /// A subagent's: what it may spend, and what all of them have.
    pub(super) budget: Option<Budget>,
    /// A subagent's type, which SubagentStop hooks' matchers are tried on.
    pub(super) agent_type: Option<String>,
}

/// What a run asks of its turns.
pub(super) struct Bounds {
    /// Model requests a turn may make.
    pub(super) max_turns: u32,
    /// What the whole run may spend, shared with its subagents.
    pub(super) run_budget: Option<RunBudget>,
    /// The shape the final answer must have (`--output-schema`).
    pub(super) answer_schema: Option<Arc<AnswerSchema>>,
}

/// What an agent is made of besides the session it is in: the session
/// comes from [`Agent::start`], the one way a session begins.
pub(crate) struct Parts {
    pub provider: Arc<dyn Provider>,
    pub model: String,
    pub tools: Registry,
    /// Hooks and approvals around every tool call.
    pub policy: Policy,
    /// The model windows config gives and when to compact.
    pub meter: Meter,
    pub max_turns: u32,
    pub events: EventTx,
    /// `--max-budget-tokens`, shared by the run's agents.
    pub run_budget: Option<RunBudget>,
}

impl Agent {
    /// The agent, in `session` with no history yet: `Agent::begin` gives
    /// it the session's own state.
    pub(super) fn from_parts(parts: Parts, start: SessionStart) -> Agent {
        let events = parts.events.clone();
        parts
            .tools
            .background()
            .set_events(Box::new(move |n| events.send(Event::from(n)).is_ok()));
        Agent {
            provider: parts.provider,
            model: parts.model,
            tools: parts.tools,
            policy: parts.policy,
            state: SessionState::from_start(start),
            meter: parts.meter,
            events: parts.events,
            family: Family::default(),
            bounds: Bounds {
                max_turns: parts.max_turns,
                run_budget: parts.run_budget,
                answer_schema: None,
            },
        }
    }

    /// The policy, for `/approvals`, `/yolo` and setting who answers.
    pub(crate) fn policy_mut(&mut self) -> &mut Policy {
        &mut self.policy
    }

    /// The session begun left its last request unanswered: the next
    /// message says so.
    pub(super) fn mark_unanswered(&mut self) {
        self.state.unfinished = Some(Unanswered::Interrupted);
    }

    /// Where this agent's events go, for front ends that add their own.
    pub(crate) fn events(&self) -> EventTx {
        self.events.clone()
    }

    /// How servers' forms are put while `answers` is answered (the REPL,
    /// a `--json-answers` script): a `form_asked` event, the answer on the
    /// same channel as an approval's.
    pub(crate) fn form_asker(&self, answers: crate::policy::Answers) -> crate::mcp::Asker {
        let events = self.events();
        crate::mcp::Asker {
            answers,
            tell: std::sync::Arc::new(move |f: crate::mcp::FormAsked| {
                let _ = events.send(Event::FormAsked {
                    id: f.id,
                    server: f.server,
                    message: f.message,
                    fields: f.fields,
                    schema: f.schema,
                });
            }),
        }
    }

    /// The conversation so far.
    pub(crate) fn messages(&self) -> &[Message] {
        &self.state.messages
    }

    /// Whether the user has written anything in this session.
    pub(crate) fn has_user_message(&self) -> bool {
        self.state
            .messages
            .iter()
            .any(|m| matches!(m, Message::User { .. }))
    }

    /// Whether the session is worth keeping when the run ends: one resumed
    /// (it was kept before), one the model answered in, or one whose turn
    /// the user stopped. A new session whose every turn failed before an
    /// answer is not, so `--continue` never lands in it.
    pub(crate) fn keeps_session(&self) -> bool {
        self.state.resumed
            || self.state.stopped
            || self
                .state
                .messages
                .iter()
                .any(|m| matches!(m, Message::Assistant { .. }))
    }

    pub(crate) fn session(&self) -> &SessionHandle {
        &self.state.handle
    }

    pub(super) fn emit(&self, e: Event) {
        let _ = self.events.send(e);
    }

    /// The agent's side of [`Agent::begin`]: the session's own state
    /// replaces the last one's, provider and tools kept. Returns the
    /// session it leaves, for the caller to close.
    pub(super) fn switch_session(&mut self, start: SessionStart) -> SessionHandle {
        self.meter.last_tokens = None;
        self.meter.warned = false;
        self.meter.resume_from(start.last_usage);
        let new = SessionState::from_start(start);
        let old = std::mem::replace(&mut self.state, new);
        // Another session: what the last one left running ends with it,
        // and what its answers allowed.
        if old.handle.id() != self.state.handle.id() {
            self.tools.background().end_session();
            self.policy.begin_session();
        }
        // What this conversation's model heard; where plan mode goes back
        // to is the person's, kept.
        self.state.told = Told::from_history(&self.state.messages).returning_to(&old.told);
        old.handle
    }

    /// The session's background processes (`/ps`, `/kill`, `/forward`).
    pub(crate) fn background(&self) -> std::sync::Arc<crate::tools::Background> {
        self.tools.background().clone()
    }

    /// While no turn runs, what the session's background processes do
    /// goes to `tx` (`None`: with the turn's events again).
    pub(crate) fn listen_idle(&self, tx: Option<EventTx>) {
        self.tools.background().listen_idle(tx.map(|tx| {
            Box::new(move |n| tx.send(Event::from(n)).is_ok()) as crate::tools::NoticeSink
        }));
    }

    pub(crate) fn model(&self) -> &str {
        &self.model
    }
}
