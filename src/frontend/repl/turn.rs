//! A turn run from the prompt — stoppable with Ctrl-C, and on a terminal
//! with `/stop` or Esc typed meanwhile — and `/compact`, run the same way;
//! what was typed during it given back.

use std::sync::Mutex;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use super::setup::Repl;
use super::view::context_line;
use crate::agent::{Agent, AgentError, Event};
use crate::frontend::printer::{drive, Printer};
use crate::frontend::typeahead::TypeAhead;

/// How a turn ended, for what is typed next.
pub(super) struct Ended {
    /// The model answered.
    pub(super) answered: bool,
    /// The user stopped it.
    stopped: bool,
    /// What was typed during it and not entered.
    typed: String,
}

/// What goes back into the editor after a turn: what was typed and not
/// entered — and, after a stop, the messages queued during the turn too,
/// so nothing is sent to the model behind the user's back once they have
/// said stop. Commands queued (`/quit`) still run, in order.
pub(super) fn given_back(ended: Ended, queued: &Mutex<Vec<String>>) -> Option<String> {
    let mut back: Vec<String> = Vec::new();
    if ended.stopped {
        if let Ok(mut q) = queued.lock() {
            let (commands, messages): (Vec<String>, Vec<String>) =
                q.drain(..).partition(|l| l.starts_with('/'));
            *q = commands;
            back = messages;
        }
    }
    if !ended.typed.trim().is_empty() {
        back.push(ended.typed);
    }
    if back.is_empty() {
        return None;
    }
    if ended.stopped {
        errln!("what you typed during the turn is back in the editor: Enter sends it");
    }
    Some(back.join("\n"))
}

impl Repl<'_> {
    /// One turn, stoppable with Ctrl-C — and, on a terminal, with `/stop` typed
    /// meanwhile (other lines typed meanwhile go to `typeahead`). A failed turn
    /// is reported; the session goes on.
    pub(super) async fn turn(
        &mut self,
        (text, images): (String, Vec<crate::model::Image>),
        rx: &mut UnboundedReceiver<Event>,
        printer: &mut Printer,
    ) -> Ended {
        let (agent, typeahead) = (&mut self.agent, self.typeahead.as_ref());
        let draft = self.restore.take();
        let cancel = self.ctx.stop.child_token();
        let on_ctrl_c = cancel_on_ctrl_c(&cancel);
        // A draft given back while a queued line runs is the line being typed
        // in this turn: shown, and given back again if it is not entered.
        let mut draft = draft.unwrap_or_default();
        let watch = typeahead.map(|sinks| {
            TypeAhead::start(cancel.clone(), sinks.clone(), std::mem::take(&mut draft))
        });
        let res = drive(agent.run_turn_with(&text, images, &cancel), rx, printer).await;
        on_ctrl_c.abort();
        // A question the turn left open is answered by nothing now.
        if let Some(q) = typeahead.and_then(|s| s.questions.as_ref()) {
            q.clear();
        }
        let typed = match watch {
            Some(t) => t.finish().await,
            None => draft,
        };
        printer.end_line();
        let stopped = matches!(res, Err(AgentError::Cancelled));
        let answered = res.is_ok();
        match res {
            Ok(_) => {
                if let (Some(_), Some(_)) = agent.context_status() {
                    errln!("{}", context_line(agent));
                }
            }
            Err(AgentError::Cancelled) => errln!("stopped."),
            Err(e) => {
                errln!("error: {e}");
                if let Some(h) = e.hint() {
                    errln!("hint: {h}");
                }
            }
        }
        Ended {
            answered,
            stopped,
            typed,
        }
    }
}

/// Cancels `cancel` on Ctrl-C until the returned task is aborted.
pub(super) fn cancel_on_ctrl_c(cancel: &CancellationToken) -> tokio::task::JoinHandle<()> {
    let cancel = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            cancel.cancel();
        }
    })
}

/// `/compact [focus]`: the summary request runs like a turn, its events
/// shown, Ctrl-C stopping it.
pub(super) async fn compact(
    agent: &mut Agent,
    focus: Option<&str>,
    stop: &CancellationToken,
    rx: &mut UnboundedReceiver<Event>,
    printer: &mut Printer,
) {
    let cancel = stop.child_token();
    let on_ctrl_c = cancel_on_ctrl_c(&cancel);
    let res = drive(agent.compact_now(focus, &cancel), rx, printer).await;
    on_ctrl_c.abort();
    printer.end_line();
    match res {
        Ok(true) => errln!("{}", context_line(agent)),
        Ok(false) => errln!("nothing to compact: the conversation is its newest turn"),
        Err(AgentError::Cancelled) => errln!("stopped; the conversation is as it was."),
        Err(e) => errln!("error: cannot compact: {e}"),
    }
}
