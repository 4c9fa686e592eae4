//! The one way into a session, at start-up (`app/chat.rs`: a new one,
//! `--resume`, `--continue`, `--fork`) and in the REPL (`/new`, `/resume`):
//! [`open_session`] writes a new file's meta record and system prompt, or
//! makes the repairs a resumed one needs (a torn tail, unanswered calls) by
//! appending — earlier bytes are never rewritten; then [`Agent::start`] (a
//! run's first session) or [`Agent::begin`] (a later one) holds the tools
//! it offers, its deferral, its window's calibration and the note for a
//! turn it left unanswered per session, so `/resume` opens a session
//! exactly as `--resume` does.

use std::path::Path;

use crate::config::Settings;
use crate::model::{Message, ToolResult};
use crate::session::{
    self, LoadedSession, Meta, Record, SessionError, SessionEvent, SessionHandle,
};
use crate::tools::Registry;
use crate::util::time::Utc;

use super::core::{Agent, Parts};
use super::session::SessionStart;
use super::Event;

/// Which session a run works in.
#[derive(Debug, Clone, Copy)]
pub enum Opening<'a> {
    /// A new one, under a new id.
    New,
    /// The session in this file (already found).
    Resume(&'a Path),
    /// A new one under this id (`--session-id`, when no session has it).
    Named(&'a str),
    /// A new one kept nowhere (`--ephemeral`).
    Ephemeral,
}

impl<'a> From<Option<&'a Path>> for Opening<'a> {
    fn from(resume: Option<&'a Path>) -> Opening<'a> {
        resume.map_or(Opening::New, Opening::Resume)
    }
}

/// Opens the session to work in: one resumed, or a new one, whose system
/// prompt adds to hermes' own words what `tools` reach (servers, their
/// tools and instructions, the project's AGENTS.md) — listed first when
/// they are offered directly, so the prompt and the first request name
/// them all.
pub(crate) async fn open_session(
    settings: &Settings,
    cwd: &Path,
    tools: &Registry,
    agent_types: Option<&super::subagents::Types>,
    opening: Opening<'_>,
) -> Result<SessionStart, SessionError> {
    if let Opening::Resume(path) = opening {
        return resume_session(path).await;
    }
    tools.list_before_first_request().await;
    let reach = super::reach_prompt(tools, cwd, &settings.prompt, agent_types);
    new_session(settings, cwd, reach, opening).await
}

async fn new_session(
    settings: &Settings,
    cwd: &Path,
    reach: String,
    opening: Opening<'_>,
) -> Result<SessionStart, SessionError> {
    let now = Utc::now();
    let sessions = settings.paths.sessions_dir();
    let (id, handle) = match opening {
        Opening::Named(id) => {
            let path = session::path_for_named(&sessions, id, &now);
            (id.to_string(), SessionHandle::create(&path, id)?)
        }
        Opening::Ephemeral => {
            let id = session::new_id(&now);
            let handle = SessionHandle::ephemeral(&id);
            (id, handle)
        }
        Opening::New | Opening::Resume(_) => {
            let id = session::new_id(&now);
            let path = session::path_for(&sessions, &id);
            let handle = SessionHandle::create(&path, &id)?;
            (id, handle)
        }
    };
    let mut system = settings.system_prompt.text(cwd, &now);
    if !reach.is_empty() {
        system.push_str("\n\n");
        system.push_str(reach.trim_end());
    }
    handle
        .append(&Record::Meta(Meta {
            version: session::FORMAT_VERSION,
            id,
            created: now.rfc3339(),
            cwd: cwd.to_string_lossy().into_owned(),
            provider: settings.provider.name.clone(),
            model: settings.provider.model.clone(),
            hermes_version: env!("CARGO_PKG_VERSION").into(),
            forked_from: None,
        }))
        .await?;
    let system = Message::System { content: system };
    handle
        .append(&Record::Message {
            ts: now.rfc3339(),
            message: system.clone(),
        })
        .await?;
    Ok(SessionStart {
        handle,
        messages: vec![system],
        resumed: false,
        deferred: None,
        offered: None,
        last_usage: None,
        warnings: Vec::new(),
        worked_in: None,
    })
}

async fn resume_session(path: &Path) -> Result<SessionStart, SessionError> {
    // Locked before it is read: nothing can be appended between the two.
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let handle = SessionHandle::append_to(path, &id)?;
    let LoadedSession {
        meta,
        mut messages,
        unanswered,
        torn_tail,
        deferred,
        offered,
        last_usage,
        warnings,
        worked_in,
    } = session::load(path)?;
    let _ = meta;
    let ts = Utc::now().rfc3339();
    if let Some(torn) = torn_tail {
        // End the fragment so new records start on a line of their own, and say
        // which line it was so later loads skip it knowingly.
        handle.append_raw(b"\n".to_vec()).await?;
        handle
            .append(&Record::Event {
                ts: ts.clone(),
                event: SessionEvent::TornLine {
                    line: torn.line as u64,
                    hash: Some(torn.hash),
                },
            })
            .await?;
    }
    for call in unanswered {
        let result = ToolResult {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: "interrupted: hermes stopped before this tool call finished".into(),
            is_error: true,
            images: Vec::new(),
        };
        handle
            .append(&Record::ToolResult {
                ts: ts.clone(),
                result: result.clone(),
            })
            .await?;
        messages.push(Message::Tool(result));
    }
    // The repairs answer their rounds; they go where the model expects them,
    // even when later messages follow an unfinished round.
    let mut messages = session::pair_results(messages, |_, _| {});
    session::in_entry_order(&mut messages);
    handle
        .append(&Record::Event {
            ts,
            event: SessionEvent::Resumed,
        })
        .await?;
    Ok(SessionStart {
        handle,
        messages,
        resumed: true,
        deferred,
        offered,
        last_usage,
        warnings,
        worked_in: Some(worked_in),
    })
}

/// The tools' side of a session beginning: its deferral decision (its own,
/// not the previous session's), kept as it recorded it — unless the
/// recorded direct tools are more than this provider's API takes, which
/// the returned warning says — and, resumed, the tools it offered and the
/// servers its last turn used, started early.
async fn begin_tools(tools: &Registry, start: &SessionStart) -> Option<String> {
    tools.forget_deferral();
    let over_limit = tools.over_api_limit();
    if let Some(deferred) = start.deferred {
        if deferred || over_limit.is_none() {
            tools.keep_deferral(deferred);
        }
    }
    if start.resumed {
        if start.offered.is_none() {
            // Recorded before hermes kept the list, or never asked.
            tools.list_before_first_request().await;
        }
        tools.keep_offered(start.offered.clone());
        tools.warm_for_resume(&last_turn_calls(&start.messages));
    } else {
        tools.keep_offered(None);
    }
    over_limit
}

/// Whether the session's last turn got no answer: it ends with the user's
/// words or tool results.
pub(crate) fn unanswered(messages: &[Message]) -> bool {
    matches!(
        messages.last(),
        Some(Message::User { .. } | Message::Tool(_))
    )
}

/// The tool calls of the latest turn that made any.
fn last_turn_calls(messages: &[Message]) -> Vec<crate::model::ToolCall> {
    // The latest turn that made calls: a closing "thanks" does not hide the
    // servers of the work before it.
    let mut calls = Vec::new();
    for m in messages.iter().rev() {
        match m {
            Message::Assistant { tool_calls, .. } => calls.extend(tool_calls.iter().cloned()),
            Message::User { .. } if !calls.is_empty() => break,
            _ => {}
        }
    }
    calls
}

impl Agent {
    /// An agent in its first session: made from `parts`, then begun as
    /// `/new` and `/resume` begin theirs.
    pub(crate) async fn start(parts: Parts, start: SessionStart) -> Agent {
        let placeholder = SessionStart::fresh(start.handle.clone(), Vec::new());
        let mut agent = Agent::from_parts(parts, placeholder);
        // The session "left" is this one: nothing to close.
        let _ = agent.begin(start).await;
        agent
    }

    /// Opens a session for this agent's tools ([`open_session`]), to begin
    /// with [`Agent::begin`].
    pub(crate) async fn open(
        &self,
        settings: &Settings,
        cwd: &Path,
        resume: Option<&Path>,
    ) -> Result<SessionStart, SessionError> {
        let types = self.family.spawner.as_deref().map(|r| r.types());
        open_session(settings, cwd, &self.tools, types, resume.into()).await
    }

    /// The conversation read again from this session's file, on the same
    /// writer: after `/rewind` appended its record, what the next request
    /// sends is what `--continue` would.
    pub(crate) async fn reload(&mut self) -> Result<(), SessionError> {
        let handle = self.session().clone();
        let loaded = session::load(handle.path())?;
        let mut messages = session::pair_results(loaded.messages, |_, _| {});
        session::in_entry_order(&mut messages);
        let start = SessionStart {
            handle,
            messages,
            resumed: true,
            deferred: loaded.deferred,
            offered: loaded.offered,
            last_usage: loaded.last_usage,
            warnings: loaded.warnings,
            // Whatever this run still has to tell, it still has to.
            worked_in: self.state.worked_in.clone(),
        };
        // The same session: nothing to close.
        let _same = self.begin(start).await;
        Ok(())
    }

    /// Makes `start` this agent's session — `session_started` first, then
    /// what the person should know of it — and returns the session it was
    /// in, to be closed.
    pub(crate) async fn begin(&mut self, start: SessionStart) -> SessionHandle {
        let events = self.events();
        let _ = events.send(Event::SessionStarted {
            schema: super::EVENTS_SCHEMA,
            id: start.handle.id().to_string(),
            path: start.handle.path().display().to_string(),
            resumed: start.resumed,
        });
        if let Some(message) = begin_tools(&self.tools, &start).await {
            let _ = events.send(Event::Warning { message });
        }
        for message in &start.warnings {
            let _ = events.send(Event::Warning {
                message: message.clone(),
            });
        }
        let unanswered = unanswered(&start.messages);
        let old = self.switch_session(start);
        if unanswered {
            self.mark_unanswered();
        }
        old
    }
}
