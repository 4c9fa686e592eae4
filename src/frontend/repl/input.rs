//! What a line is — a custom command or skill, a server's prompt, a
//! built-in command, or a message — and what is done with it: the text to
//! send as the next turn, if any.

use tokio::sync::mpsc::UnboundedReceiver;

use super::commands;
use super::context::{Flow, ReplError};
use super::editor::Editor;
use super::read::Line;
use super::rewind;
use super::send::{attach, confirm_outside, fill_prompt, run_prompt};
use super::setup::Repl;
use super::turn::{cancel_on_ctrl_c, compact};
use crate::agent::Event;
use crate::frontend::command_table::{self, Slash};
use crate::frontend::offers::{self, PromptLine};
use crate::frontend::printer::{drive, Printer};
use crate::frontend::typeahead::TypeAhead;
use crate::model::Image;
use crate::util::text::excerpt;

/// What a line is, looked for in this order.
pub(super) enum Input {
    /// `/NAME` of a custom command or a skill: its prompt is sent.
    Custom,
    /// `/server:prompt`: a server's prompt.
    Prompt(PromptLine),
    /// A built-in command; `None` for a `/word` that is no command.
    Builtin(Option<Slash>),
    /// A message to the model, with its mentions.
    Message,
}

/// What follows a line.
pub(super) enum Next {
    /// A turn with this text and these images; the model to go back to
    /// after it (a custom command may name its own).
    Send((String, Vec<Image>), Option<String>),
    /// Back to the prompt.
    Prompt,
    /// The session ends.
    Quit,
}

impl Repl<'_> {
    /// What `text` is; `None` after saying why a server it names could not
    /// be listed.
    pub(super) async fn classify(&mut self, text: &str) -> Option<Input> {
        if self.custom.has(text) {
            return Some(Input::Custom);
        }
        if text.starts_with('/') && text.contains(':') {
            self.agent.settle_listings().await;
        }
        let mut offers = self.agent.offers();
        // A prompt of a server not listed yet: list it first (bounded).
        if let Some(server) = offers::unlisted_server(text, &offers) {
            if let Err(e) = self.agent.list_server(server).await {
                errln!("error: {e}");
                return None;
            }
            offers = self.agent.offers();
        }
        if let Some(line) = offers::prompt_command(text, &offers) {
            return Some(Input::Prompt(line));
        }
        if text.starts_with('/') {
            return Some(Input::Builtin(Slash::parse(text)));
        }
        Some(Input::Message)
    }

    /// `input` done: a command run, a prompt fetched, a message attached.
    pub(super) async fn dispatch(
        &mut self,
        editor: Editor,
        line: &Line,
        input: Input,
        rx: &mut UnboundedReceiver<Event>,
        printer: &mut Printer,
    ) -> Result<(Editor, Next), ReplError> {
        let send =
            |s: Option<String>| s.map_or(Next::Prompt, |t| Next::Send((t, Vec::new()), None));
        match input {
            Input::Custom => Ok((editor, self.custom_line(&line.text, rx, printer).await)),
            Input::Prompt(PromptLine::Refused(why)) => {
                errln!("{why}");
                Ok((editor, Next::Prompt))
            }
            Input::Prompt(PromptLine::Asked(asked)) => {
                let (editor, asked) = fill_prompt(editor, &self.queued, asked).await?;
                let Some(asked) = asked else {
                    return Ok((editor, Next::Prompt));
                };
                let text = run_prompt(&self.agent, asked, &self.ctx.stop).await;
                Ok((editor, send(text)))
            }
            Input::Builtin(None) => {
                let text = &line.text;
                commands::unknown(text.split_whitespace().next().unwrap_or(text));
                Ok((editor, Next::Prompt))
            }
            Input::Builtin(Some(slash)) => self.builtin(editor, slash, rx, printer).await,
            Input::Message => {
                let (editor, allowed) = confirm_outside(editor, &line.typed, self.ctx.cwd).await?;
                let (agent, ctx) = (&self.agent, &self.ctx);
                match attach(agent, &line.text, &line.typed, &line.pasted, &allowed, ctx).await {
                    Ok(t) => Ok((editor, Next::Send(t, None))),
                    // Put back to be fixed: nothing typed is lost.
                    Err(()) => {
                        self.restore = Some(line.text.clone());
                        Ok((editor, Next::Prompt))
                    }
                }
            }
        }
    }

    /// A built-in command run, and what it asks the loop to do.
    async fn builtin(
        &mut self,
        editor: Editor,
        slash: Slash,
        rx: &mut UnboundedReceiver<Event>,
        printer: &mut Printer,
    ) -> Result<(Editor, Next), ReplError> {
        let (agent, ctx) = (&mut self.agent, &self.ctx);
        let editor = match commands::command(slash, agent, ctx).await? {
            Flow::Quit => return Ok((editor, Next::Quit)),
            Flow::Send(t) => return Ok((editor, Next::Send((t, Vec::new()), None))),
            Flow::Continue => editor,
            Flow::Compact(focus) => {
                compact(agent, focus.as_deref(), &ctx.stop, rx, printer).await;
                editor
            }
            Flow::Help => {
                errln!("{}", command_table::help());
                errln!("{}", self.custom.help());
                editor
            }
            Flow::Pick(found) => {
                commands::pick_and_resume(editor, &self.queued, agent, ctx, found).await?
            }
            Flow::PickSession(items) => commands::pick_session(editor, agent, ctx, items).await?,
            Flow::PickModel(names) => commands::pick_model(editor, agent, ctx, names).await?,
            Flow::PickTurn(items) => rewind::pick(editor, agent, ctx, items).await?,
        };
        Ok((editor, Next::Prompt))
    }

    /// A custom command or a skill: its prompt, sent as typed text is. Its
    /// `` !`cmd` `` lines run as a turn's calls do: their questions drawn
    /// and answered, Esc, `/stop` or Ctrl-C stopping them.
    async fn custom_line(
        &mut self,
        text: &str,
        rx: &mut UnboundedReceiver<Event>,
        printer: &mut Printer,
    ) -> Next {
        let cancel = self.ctx.stop.child_token();
        let on_ctrl_c = cancel_on_ctrl_c(&cancel);
        let watch = self
            .typeahead
            .as_ref()
            .filter(|_| self.custom.runs_commands(text))
            .map(|sinks| TypeAhead::start(cancel.clone(), sinks.clone(), String::new()));
        let loaded = drive(
            self.custom.load_line(text, &self.agent, &cancel),
            rx,
            printer,
        )
        .await;
        on_ctrl_c.abort();
        if let Some(w) = watch {
            if let Some(q) = self.typeahead.as_ref().and_then(|s| s.questions.as_ref()) {
                q.clear();
            }
            let typed = w.finish().await;
            printer.end_line();
            if !typed.trim().is_empty() {
                self.restore = Some(typed);
            }
        }
        if cancel.is_cancelled() && !self.ctx.stop.is_cancelled() {
            errln!("stopped; nothing was sent.");
            return Next::Prompt;
        }
        let loaded = match loaded {
            Some(Ok(l)) => l,
            Some(Err(why)) => {
                errln!("{why}");
                return Next::Prompt;
            }
            None => return Next::Prompt,
        };
        let model_before = loaded.model.map(|m| {
            let before = self.agent.model().to_string();
            self.agent.set_model(&m);
            before
        });
        errln!(
            "› {}",
            crate::util::sanitize::clean(&excerpt(&loaded.text, 300))
        );
        let (agent, ctx) = (&self.agent, &self.ctx);
        match attach(agent, &loaded.text, &loaded.text, &[], &[], ctx).await {
            Ok(send) => Next::Send(send, model_before),
            // Said why; the model goes back at once.
            Err(()) => {
                if let Some(m) = model_before {
                    self.agent.set_model(&m);
                }
                Next::Prompt
            }
        }
    }
}
