//! Starting a new session or resuming one: the meta record and system prompt of a
//! new file, or the repairs a resumed one needs (a torn tail, unanswered calls)
//! made by appending — earlier bytes are never rewritten. And the one way a
//! session begins in an agent, at start-up (`app/chat.rs`) and in the REPL
//! (`/new`, `/resume`): [`begin_tools`] and [`Agent::begin`] hold the tools it
//! offers, its deferral and the note for a turn it left unanswered per
//! session, so `/resume` opens a session exactly as `--resume` does.

use std::path::Path;

use crate::config::Settings;
use crate::model::{Message, ToolResult};
use crate::session::{
    self, LoadedSession, Meta, Record, SessionError, SessionEvent, SessionHandle,
};
use crate::util::time::Utc;

pub(crate) struct SessionStart {
    pub handle: SessionHandle,
    pub messages: Vec<Message>,
    pub resumed: bool,
    /// The deferral decision the session recorded, to be kept (resume).
    pub deferred: Option<bool>,
    /// The tools it offered directly, recorded with it, to be offered again.
    pub offered: Option<Vec<crate::model::OfferedTool>>,
    /// The last request's size as the provider counted it (resume): the
    /// messages it carried, its prompt tokens.
    pub last_usage: Option<(usize, u64)>,
    pub warnings: Vec<String>,
}

/// Opens the session a run works in: `resume` (a file path already found) or a new one.
/// `reach`: what a new session's system prompt adds to hermes' own words
/// (servers, their tools and instructions, the project's AGENTS.md); asked
/// for only when a session is created.
pub(crate) async fn open_session(
    settings: &Settings,
    cwd: &Path,
    resume: Option<&Path>,
    reach: impl FnOnce() -> String,
) -> Result<SessionStart, SessionError> {
    match resume {
        Some(path) => resume_session(path).await,
        None => new_session(settings, cwd, reach()).await,
    }
}

async fn new_session(
    settings: &Settings,
    cwd: &Path,
    reach: String,
) -> Result<SessionStart, SessionError> {
    let now = Utc::now();
    let id = session::new_id(&now);
    let path = session::path_for(&settings.paths.sessions_dir(), &id);
    let handle = SessionHandle::create(&path, &id)?;
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
    })
}

/// The tools' side of a session beginning: its deferral decision (its own,
/// not the previous session's), kept as it recorded it — unless the
/// recorded direct tools are more than this provider's API takes, which
/// the returned warning says — and, resumed, the tools it offered and the
/// servers its last turn used, started early.
pub(crate) async fn begin_tools(
    tools: &crate::tools::Registry,
    start: &SessionStart,
) -> Option<String> {
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

impl super::Agent {
    /// Makes `start` this agent's session (`/new`, `/resume`), as start-up
    /// makes its first one; the session it was in is returned, to be
    /// closed.
    pub(crate) async fn begin(&mut self, start: SessionStart) -> SessionHandle {
        let events = self.events();
        if let Some(message) = begin_tools(&self.tools, &start).await {
            let _ = events.send(super::Event::Warning { message });
        }
        for message in &start.warnings {
            let _ = events.send(super::Event::Warning {
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
