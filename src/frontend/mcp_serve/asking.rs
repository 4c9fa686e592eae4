//! A call's approval question put to the MCP client that made it, as an
//! elicitation form — the client's person answers `once`, `session` or
//! `deny` — and its progress and warnings as MCP notifications.

use rmcp::model::{
    ElicitRequestParams, ElicitationAction, ProgressNotificationParam, ProgressToken,
};
#[allow(deprecated)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::agent::Event;
use crate::policy::{Answer, Answers};

/// How long a question may wait for the client's person.
const ASK_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Serves one call's events until the call ends (its sender dropped):
/// questions to `peer` when `answers` is set (the client takes forms),
/// progress under `progress` when the client gave a token, warnings as
/// log messages.
pub(super) async fn serve_events(
    mut events: UnboundedReceiver<Event>,
    peer: Peer<RoleServer>,
    answers: Option<Answers>,
    progress: Option<ProgressToken>,
) {
    let mut steps = 0.0;
    while let Some(event) = events.recv().await {
        match event {
            Event::ApprovalAsked {
                id,
                name,
                arguments,
                why,
                preview,
                grants,
                ..
            } => {
                let Some(answers) = &answers else { continue };
                let shown = preview
                    .unwrap_or_else(|| serde_json::to_string(&arguments).unwrap_or_default());
                let message = format!("hermes: {name} needs your approval ({why})\n\n{shown}");
                let mut choices = vec!["once"];
                if grants.is_some() {
                    choices.push("session");
                }
                choices.push("deny");
                let answer = ask(&peer, message, &choices).await;
                let _ = answers.answer(&id, answer);
            }
            Event::ToolProgress {
                progress: done,
                total,
                message,
                ..
            } => {
                if let Some(token) = &progress {
                    let mut p = ProgressNotificationParam::new(token.clone(), done);
                    if let Some(t) = total {
                        p = p.with_total(t);
                    }
                    if let Some(m) = message {
                        p = p.with_message(m);
                    }
                    let _ = peer.notify_progress(p).await;
                }
            }
            Event::Warning { message } => log(&peer, message).await,
            // A task's steps (`agent`), as a `--json` run prints them,
            // each a progress notification: what it does, as it does it.
            Event::ModelRequest { .. }
            | Event::ToolCallFinished { .. }
            | Event::TurnDone { .. } => {
                if let Some(token) = &progress {
                    steps += 1.0;
                    let line = serde_json::to_string(&event).unwrap_or_default();
                    let _ = peer
                        .notify_progress(
                            ProgressNotificationParam::new(token.clone(), steps).with_message(line),
                        )
                        .await;
                }
            }
            _ => {}
        }
    }
}

/// A warning as an MCP log message (`notifications/message`): deprecated
/// by the protocol's newest version, read by every client of the versions
/// before it.
#[allow(deprecated)]
pub(super) async fn log(peer: &Peer<RoleServer>, message: String) {
    let param = LoggingMessageNotificationParam::new(LoggingLevel::Warning, json!(message))
        .with_logger("hermes");
    let _ = peer.notify_logging_message(param).await;
}

/// The client's answer to one question; no answer, a decline or a cancel
/// is a denial.
async fn ask(peer: &Peer<RoleServer>, message: String, choices: &[&str]) -> Answer {
    let schema = json!({
        "type": "object",
        "properties": {
            "answer": {
                "type": "string",
                "title": "Answer",
                "description": "once: run it this time; session: this and the like until hermes mcp serve ends; deny: do not run it",
                "enum": choices,
            },
            "reason": {"type": "string", "title": "Why (with deny, told to the caller)"}
        },
        "required": ["answer"]
    });
    let Ok(requested_schema) = serde_json::from_value(schema) else {
        return Answer::Deny(Some("hermes could not make the question's form".into()));
    };
    let asked = peer
        .create_elicitation_with_timeout(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message,
                requested_schema,
            },
            Some(ASK_WAIT),
        )
        .await;
    let Ok(result) = asked else {
        return Answer::Deny(Some("the client did not answer the question".into()));
    };
    if result.action != ElicitationAction::Accept {
        return Answer::Deny(Some("the client declined".into()));
    }
    let content = result.content.unwrap_or_default();
    let reason = content
        .get("reason")
        .and_then(|r| r.as_str())
        .filter(|r| !r.trim().is_empty())
        .map(str::to_string);
    match content.get("answer").and_then(|a| a.as_str()) {
        Some("once") => Answer::Once,
        Some("session") if choices.contains(&"session") => Answer::Session,
        _ => Answer::Deny(reason),
    }
}
