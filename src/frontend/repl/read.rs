//! Reading the next line at the prompt: a line typed during the last turn
//! first; Ctrl-C twice to quit, Shift-Tab to change mode, a trailing
//! backslash to go on, Esc Esc for `/rewind`; each line kept in the history
//! as typed, its pastes released.

use std::path::PathBuf;

use rustyline::error::ReadlineError;

use super::context::ReplError;
use super::editor::{next_line, prompt, Editor};
use super::plan;
use super::setup::Repl;
use crate::frontend::{paste, terminal};

/// What reading gave.
pub(super) enum Read {
    /// A line to act on, and the editor back.
    Line(Editor, Line),
    /// Nothing to act on (Ctrl-C once, an empty line, Shift-Tab): read again.
    Again(Editor),
    /// Ctrl-D, Ctrl-C twice, or the run must end.
    Quit,
}

/// A line as the person entered it.
pub(super) struct Line {
    /// As typed: pastes as their placeholders.
    pub(super) typed: String,
    /// With the pastes put in, trimmed.
    pub(super) text: String,
    /// The images pasted into it, by placeholder.
    pub(super) pasted: Vec<(String, PathBuf)>,
}

/// A background process' event, while the prompt waits: printed above
/// the line being edited (`above`), or on stderr off a terminal.
fn notice(
    above: &mut Option<Box<dyn rustyline::ExternalPrinter + Send>>,
    ev: &crate::agent::Event,
) {
    let Some(line) = crate::frontend::printer::background_notice(ev) else {
        return;
    };
    let line = crate::util::sanitize::clean(&line);
    match above.as_mut() {
        Some(p) => {
            if p.print(format!("{line}\n")).is_err() {
                errln!("{line}");
            }
        }
        None => errln!("{line}"),
    }
}

impl Repl<'_> {
    /// The next line: a queued one goes first; a line given back waits
    /// for the editor.
    pub(super) async fn read(&mut self, editor: Editor) -> Result<Read, ReplError> {
        let initial = match self.queued.lock().map(|q| q.is_empty()) {
            Ok(true) => self.restore.take(),
            _ => None,
        };
        let shown = prompt(self.agent.policy_mut().yolo(), self.agent.mode());
        // What background processes do while the prompt waits is told at
        // once, above the line being edited.
        let (tx, mut notices) = tokio::sync::mpsc::unbounded_channel();
        self.agent.listen_idle(Some(tx));
        let queued = self.queued.clone();
        let reading = next_line(editor, &queued, shown.clone(), initial);
        tokio::pin!(reading);
        let next = loop {
            tokio::select! {
                biased;
                _ = self.ctx.stop.cancelled() => {
                    self.agent.listen_idle(None);
                    return Ok(Read::Quit);
                }
                next = &mut reading => break next,
                Some(ev) = notices.recv() => notice(&mut self.above, &ev),
            }
        };
        self.agent.listen_idle(None);
        while let Ok(ev) = notices.try_recv() {
            notice(&mut self.above, &ev);
        }
        let next = next?;
        let (editor, line) = match next {
            (ed, Ok(l)) => (ed, l),
            (ed, Err(ReadlineError::Interrupted)) => {
                paste::forget();
                if self
                    .interrupted
                    .is_some_and(|t| t.elapsed() < terminal::QUIT_WINDOW)
                {
                    return Ok(Read::Quit);
                }
                self.interrupted = Some(std::time::Instant::now());
                errln!("(Ctrl-C again to quit; Ctrl-D or /quit also quit)");
                return Ok(Read::Again(ed));
            }
            (_, Err(ReadlineError::Eof)) => return Ok(Read::Quit),
            (_, Err(e)) => return Err(ReplError::Editor(e)),
        };
        // Shift-Tab: the next mode, the line back in the editor.
        if self.menu.take_cycle() {
            plan::cycled(&mut self.agent, &shown, &line);
            self.restore = (!line.is_empty()).then_some(line);
            return Ok(Read::Again(editor));
        }
        let (mut editor, mut line) = self.go_on(editor, line).await?;
        if line.trim().is_empty() {
            // Esc Esc at an empty prompt: `/rewind`.
            if !self.menu.take_rewind() {
                return Ok(Read::Again(editor));
            }
            line = "/rewind".to_string();
        }
        // The history keeps the line as typed, pastes as their placeholders.
        let _ = editor.add_history_entry(line.trim());
        let _ = editor.append_history(&self.ctx.history);
        let typed = line.trim().to_string();
        let pasted = paste::images(&line);
        let text = paste::release(&line).trim().to_string();
        if text.is_empty() {
            return Ok(Read::Again(editor));
        }
        Ok(Read::Line(
            editor,
            Line {
                typed,
                text,
                pasted,
            },
        ))
    }

    /// A trailing backslash: the message goes on on the next line.
    async fn go_on(
        &mut self,
        mut editor: Editor,
        mut line: String,
    ) -> Result<(Editor, String), ReplError> {
        while let Some(head) = line.strip_suffix('\\') {
            let head = head.to_string();
            let (ed, more) = next_line(editor, &self.queued, "› ".into(), None).await?;
            editor = ed;
            match more {
                Ok(more) => line = format!("{head}\n{more}"),
                Err(_) => return Ok((editor, head)),
            }
        }
        Ok((editor, line))
    }
}
