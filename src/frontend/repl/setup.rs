//! The REPL set up — the line editor with its completion, menu and keys,
//! the banner, questions answered on the terminal — and what its loop
//! keeps from one line to the next.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::context::{ReplContext, ReplError};
use super::editor::Editor;
use super::pickers;
use super::view::status_line;
use crate::agent::Agent;
use crate::frontend::approve::Questions;
use crate::frontend::complete::{Completion, Sessions};
use crate::frontend::custom::Custom;
use crate::frontend::form::{AnswerSlot, TerminalForms};
use crate::frontend::menu::Menu;
use crate::frontend::printer::Printer;
use crate::frontend::terminal::TerminalMode;
use crate::frontend::typeahead::Sinks;

/// What the loop keeps from one line to the next.
pub(super) struct Repl<'a> {
    pub(super) agent: Agent,
    pub(super) ctx: ReplContext<'a>,
    /// Custom commands and skills, loaded once.
    pub(super) custom: Custom,
    /// Stdin is a terminal.
    pub(super) tty: bool,
    /// Lines typed during a turn, sent after it (the first message too).
    pub(super) queued: Arc<Mutex<Vec<String>>>,
    /// What a turn reads while it runs (on a terminal), and what stops it.
    pub(super) typeahead: Option<Sinks>,
    /// A line given back to the editor to finish.
    pub(super) restore: Option<String>,
    /// When Ctrl-C was last pressed at an empty prompt.
    pub(super) interrupted: Option<Instant>,
    /// The menu and status line drawn under the line.
    pub(super) menu: Arc<Menu>,
    /// Prints above the line being edited: what a background process did
    /// while the prompt waits (on a terminal).
    pub(super) above: Option<Box<dyn rustyline::ExternalPrinter + Send>>,
    /// What Tab offers, filled again before each line.
    listed: Listed,
    /// Put back when the REPL ends: the line editor puts the terminal in
    /// raw mode while it reads, and a read abandoned when the run must end
    /// (SIGTERM) would leave it so.
    _terminal: Option<TerminalMode>,
}

/// The lists the editor's completion reads, shared with it.
struct Listed {
    tools: Arc<Mutex<Vec<(String, String)>>>,
    prompts: Arc<Mutex<Vec<(String, String)>>>,
    resources: Arc<Mutex<Vec<(String, String)>>>,
    sessions: Arc<Mutex<Sessions>>,
}

impl<'a> Repl<'a> {
    /// The editor and the loop's state, the banner shown, what was resumed
    /// shown, questions and forms put on the terminal when it is one.
    pub(super) fn set_up(
        mut agent: Agent,
        ctx: ReplContext<'a>,
        printer: &mut Printer,
    ) -> Result<(Repl<'a>, Editor), ReplError> {
        let custom = Custom::load(ctx.cwd, &ctx.settings.paths.config_dir);
        let (mut editor, menu, listed) = editor(&agent, &ctx, &custom)?;
        let banner = [
            format!("hermes {}", env!("CARGO_PKG_VERSION")),
            ctx.settings.provider.model.clone(),
            format!("session {}", agent.session().id()),
            "/help for commands, Ctrl-D to quit".to_string(),
        ];
        for line in crate::frontend::markdown::fields_to_stderr(&banner, " · ", "") {
            errln!("{line}");
        }
        let tty = std::io::stdin().is_terminal();
        let terminal = tty.then(TerminalMode::save).flatten();
        crate::frontend::resumed::show(&agent);
        let queued = Arc::new(Mutex::new(ctx.first.iter().cloned().collect()));
        let forms: AnswerSlot = Arc::default();
        // Questions need a terminal to be read on and answered on;
        // otherwise an `ask` is refused as in a one-shot run.
        let questions = (tty && std::io::stderr().is_terminal())
            .then(|| questions(&mut agent, &ctx, printer, forms.clone()));
        let typeahead = tty.then(|| Sinks {
            queued: Arc::clone(&queued),
            forms,
            questions,
        });
        rustyline::set_paste_hook(crate::frontend::paste::hold);
        let above = tty
            .then(|| editor.create_external_printer().ok())
            .flatten()
            .map(|p| Box::new(p) as Box<dyn rustyline::ExternalPrinter + Send>);
        let repl = Repl {
            agent,
            ctx,
            custom,
            tty,
            queued,
            typeahead,
            restore: None,
            interrupted: None,
            menu,
            above,
            listed,
            _terminal: terminal,
        };
        Ok((repl, editor))
    }

    /// What Tab offers and the status line, as they are now: the catalogs
    /// listed by now, the sessions to resume, the context used.
    pub(super) fn refresh(&mut self) {
        if let Ok(mut names) = self.listed.tools.lock() {
            *names = self.agent.tool_summaries();
        }
        let offers = self.agent.offers();
        if let Ok(mut names) = self.listed.prompts.lock() {
            *names = crate::frontend::offers::prompt_commands(&offers);
        }
        if let Ok(mut names) = self.listed.resources.lock() {
            *names = crate::frontend::offers::resource_mentions(&offers);
        }
        if self.tty {
            let dir = self.ctx.settings.paths.sessions_dir();
            let cwd = self.ctx.cwd.to_path_buf();
            let id = self.agent.session().id().to_string();
            if let Ok(mut names) = self.listed.sessions.lock() {
                names.forget(move || {
                    pickers::sessions(&dir, &cwd, &id)
                        .into_iter()
                        .map(|i| (i.value, i.about))
                        .collect()
                });
            }
            let status = status_line(&self.agent);
            self.menu.set_status(status.clone());
            crate::frontend::live::set_status(status);
        }
    }
}

/// The line editor: listed completion with the commands (built-in and
/// custom), the menu, vi or emacs keys, Alt-Enter, Ctrl-C, the history.
fn editor(
    agent: &Agent,
    ctx: &ReplContext<'_>,
    custom: &Custom,
) -> Result<(Editor, Arc<Menu>, Listed), ReplError> {
    let vi = ctx.settings.tui.edit_mode == crate::config::EditMode::Vi;
    // Candidates are listed (with descriptions), not cycled through. A
    // lone Esc (closing the menu) is told from an arrow's sequence within
    // 30 ms; without a timeout it would wait for the next key. The edit
    // mode first: setting it sets the key timeout too.
    let config = rustyline::Config::builder()
        .completion_type(rustyline::CompletionType::List)
        .edit_mode(if vi {
            rustyline::EditMode::Vi
        } else {
            rustyline::EditMode::Emacs
        })
        .keyseq_timeout(Some(30))
        .build();
    let mut editor: Editor = rustyline::Editor::with_config(config)?;
    let mut listed_commands = crate::frontend::command_table::for_completion();
    listed_commands.extend(custom.for_completion());
    let completion = Completion::new(listed_commands, ctx.cwd);
    list_models(agent, ctx, &completion);
    let listed = Listed {
        tools: completion.tools.clone(),
        prompts: completion.prompts.clone(),
        resources: completion.resources.clone(),
        sessions: completion.sessions.clone(),
    };
    let menu = completion.menu.clone();
    editor.set_helper(Some(completion));
    if vi {
        menu.set_vi();
    }
    crate::frontend::menu::bind(&mut editor, &menu);
    // Alt-Enter: a new line within the message.
    editor.bind_sequence(
        rustyline::KeyEvent(rustyline::KeyCode::Enter, rustyline::Modifiers::ALT),
        rustyline::Cmd::Newline,
    );
    editor.bind_sequence(
        rustyline::KeyEvent::ctrl('C'),
        rustyline::EventHandler::Conditional(Box::new(crate::frontend::terminal::ClearOrInterrupt)),
    );
    if let Some(dir) = ctx.history.parent() {
        let _ = crate::util::private::create_dir_all(dir);
    }
    let _ = editor.load_history(&ctx.history);
    Ok((editor, menu, listed))
}

/// The provider's models, once it lists them: for Tab after `/model`, and
/// for the run's context (a name it does not list).
fn list_models(agent: &Agent, ctx: &ReplContext<'_>, completion: &Completion) {
    let models = ctx.models.clone();
    let listed = agent.models_listed();
    let shown = completion.models.clone();
    tokio::spawn(async move {
        if let Some(names) = listed.await {
            if let Ok(mut m) = shown.lock() {
                *m = names.clone();
            }
            if let Ok(mut m) = models.lock() {
                *m = Some(names);
            }
        }
    });
}

/// Approvals and servers' forms asked and answered on the terminal.
fn questions(
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    printer: &mut Printer,
    forms: AnswerSlot,
) -> Questions {
    let answered = crate::policy::Answers::default();
    agent
        .policy_mut()
        .answered_on(answered.clone(), ctx.settings.paths.config_file());
    let q = Questions::new(answered.clone());
    printer.draw_questions(q.clone());
    ctx.mcp.on_form(agent.form_asker(answered.clone()));
    printer.fill_forms(TerminalForms {
        slot: forms,
        answers: answered,
    });
    q
}
