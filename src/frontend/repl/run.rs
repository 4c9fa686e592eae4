//! The interactive session's loop: set up, then line by line — read it,
//! tell what it is, do it, and run the turn it sends.

use tokio::sync::mpsc::UnboundedReceiver;

use super::context::{ReplContext, ReplError};
use super::input::Next;
use super::plan;
use super::read::Read;
use super::setup::Repl;
use super::turn::given_back;
use super::view::leave;
use crate::agent::{Agent, Event};
use crate::frontend::printer::Printer;

pub(crate) async fn run(
    agent: Agent,
    ctx: ReplContext<'_>,
    rx: &mut UnboundedReceiver<Event>,
    printer: &mut Printer,
) -> Result<(), ReplError> {
    let (mut repl, mut editor) = Repl::set_up(agent, ctx, printer)?;
    loop {
        repl.refresh();
        let (ed, line) = match repl.read(editor).await? {
            Read::Line(ed, line) => (ed, line),
            Read::Again(ed) => {
                editor = ed;
                continue;
            }
            Read::Quit => break,
        };
        editor = ed;
        let Some(input) = repl.classify(&line.text).await else {
            continue;
        };
        let (ed, next) = repl.dispatch(editor, &line, input, rx, printer).await?;
        editor = ed;
        let (send, model_before) = match next {
            Next::Send(send, model_before) => (send, model_before),
            Next::Prompt => continue,
            Next::Quit => break,
        };
        let ended = repl.turn(send, rx, printer).await;
        if let Some(m) = model_before {
            repl.agent.set_model(&m);
        }
        if repl.ctx.stop.is_cancelled() {
            break;
        }
        // A plan-mode answer is a plan: the person says whether it runs.
        let plan_mode = repl.agent.mode() == crate::config::ApprovalMode::Plan;
        if ended.answered && repl.tty && plan_mode {
            editor = plan::approve(editor, &repl.queued, &mut repl.agent).await?;
        }
        repl.restore = given_back(ended, &repl.queued);
    }
    leave(&mut repl.agent, crate::agent::EndReason::PromptInputExit).await;
    Ok(())
}
