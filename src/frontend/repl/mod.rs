//! The interactive session: a rustyline prompt with a history file, streamed
//! replies, and slash commands. The line editor blocks, so each read runs on the
//! blocking pool; Ctrl-C or `/stop` during a turn stops the turn, not the
//! program, and other lines typed during a turn are sent after it.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustyline::error::ReadlineError;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

mod commands;
mod diff;
mod editor;
mod pickers;
mod plan;
mod rewind;
mod view;

use editor::prompt;
use editor::{next_line, Editor};
use view::{context_line, leave, status_line};

use super::approve::Questions;
use super::complete::Completion;
use super::form::AnswerSlot;
use super::printer::{drive, group, Printer};
use super::typeahead::{Sinks, TypeAhead};
use crate::agent::{Agent, AgentError, Event};
use crate::config::Settings;
use crate::util::text::excerpt;

/// What ends the interactive session with an error (a failed turn does not:
/// it is reported and the prompt comes back).
#[derive(Debug, thiserror::Error)]
pub enum ReplError {
    #[error("the line editor failed: {0}")]
    Editor(#[from] ReadlineError),
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error("a background task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

pub(crate) struct ReplContext<'a> {
    pub settings: &'a Settings,
    pub cwd: &'a Path,
    pub history: PathBuf,
    /// Cancelled when the run must end (SIGTERM, SIGHUP): the running turn
    /// stops and the REPL returns.
    pub stop: CancellationToken,
    /// A first message to send at once (`hermes "text"`).
    pub first: Option<String>,
    /// The servers, whose forms (elicitation) the REPL fills.
    pub mcp: Arc<crate::mcp::McpRegistry>,
    /// The models the provider lists, once it has answered (asked when the
    /// REPL opens): for Tab after `/model` and a name it does not list.
    pub models: Arc<Mutex<Option<Vec<String>>>>,
}

pub(super) enum Flow {
    Continue,
    Quit,
    /// Send this as the user's message.
    Send(String),
    /// Several sessions match what `/resume` was given: ask which.
    Pick(Vec<crate::session::Summary>),
    /// `/resume` alone on a terminal: pick one of these sessions.
    PickSession(Vec<super::menu::Item>),
    /// `/model` alone on a terminal: pick one of the provider's models.
    PickModel(Vec<String>),
    /// `/rewind` alone on a terminal (or Esc Esc): pick a turn, then what
    /// of it goes back.
    PickTurn(Vec<super::menu::Item>),
    /// `/compact [FOCUS]`: the loop runs it (it drives a turn's events).
    Compact(Option<String>),
    /// `/help`: the loop shows it, with the custom commands it loaded.
    Help,
}

pub(crate) async fn run(
    mut agent: Agent,
    ctx: ReplContext<'_>,
    rx: &mut UnboundedReceiver<Event>,
    printer: &mut Printer,
) -> Result<(), ReplError> {
    // Candidates are listed (with descriptions), not cycled through.
    // A lone Esc (closing the menu) is told from an arrow's sequence
    // within 30 ms; without a timeout it would wait for the next key.
    let vi = ctx.settings.tui.edit_mode == crate::config::EditMode::Vi;
    // The edit mode first: setting it sets the key timeout too.
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
    let custom = super::custom::Custom::load(ctx.cwd, &ctx.settings.paths.config_dir);
    let mut listed_commands = super::command_table::for_completion();
    listed_commands.extend(custom.for_completion());
    let completion = Completion::new(listed_commands, ctx.cwd);
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
    let tool_names = completion.tools.clone();
    let (prompt_names, resource_names) = (completion.prompts.clone(), completion.resources.clone());
    let (menu, session_names) = (completion.menu.clone(), completion.sessions.clone());
    editor.set_helper(Some(completion));
    if vi {
        menu.set_vi();
    }
    super::menu::bind(&mut editor, &menu);
    // Alt-Enter: a new line within the message.
    editor.bind_sequence(
        rustyline::KeyEvent(rustyline::KeyCode::Enter, rustyline::Modifiers::ALT),
        rustyline::Cmd::Newline,
    );
    editor.bind_sequence(
        rustyline::KeyEvent::ctrl('C'),
        rustyline::EventHandler::Conditional(Box::new(super::terminal::ClearOrInterrupt)),
    );
    if let Some(dir) = ctx.history.parent() {
        let _ = crate::util::private::create_dir_all(dir);
    }
    let _ = editor.load_history(&ctx.history);
    let banner = [
        format!("hermes {}", env!("CARGO_PKG_VERSION")),
        ctx.settings.provider.model.clone(),
        format!("session {}", agent.session().id()),
        "/help for commands, Ctrl-D to quit".to_string(),
    ];
    for line in super::markdown::fields_to_stderr(&banner, " · ", "") {
        errln!("{line}");
    }
    let tty = std::io::stdin().is_terminal();
    // The line editor puts the terminal in raw mode while it reads; a read
    // abandoned when the run must end (SIGTERM) would leave it so.
    let _terminal = tty.then(super::terminal::TerminalMode::save).flatten();
    super::resumed::show(&agent);
    let queued: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(ctx.first.iter().cloned().collect()));
    let answers: AnswerSlot = Arc::default();
    // Questions need a terminal to be read on and answered on; otherwise an
    // `ask` is refused as in a one-shot run.
    let mut questions = None;
    if tty && std::io::stderr().is_terminal() {
        let answered = crate::policy::Answers::default();
        agent
            .policy_mut()
            .answered_on(answered.clone(), ctx.settings.paths.config_file());
        let q_answers = answered.clone();
        let q = Questions::new(answered);
        printer.draw_questions(q.clone());
        questions = Some(q);
        ctx.mcp.on_form(agent.form_asker(q_answers.clone()));
        printer.fill_forms(super::form::TerminalForms {
            slot: answers.clone(),
            answers: q_answers,
        });
    }
    // A line given back to the editor to finish.
    let mut restore: Option<String> = None;
    // What a turn reads while it runs (on a terminal), and what stops it.
    let typeahead = tty.then(|| Sinks {
        queued: queued.clone(),
        forms: answers.clone(),
        questions: questions.clone(),
    });
    let stop = &ctx.stop;
    // When Ctrl-C was last pressed at an empty prompt.
    let mut interrupted: Option<std::time::Instant> = None;
    rustyline::set_paste_hook(super::paste::hold);
    loop {
        // Tool names for Tab: whatever the catalogs hold by now.
        if let Ok(mut names) = tool_names.lock() {
            *names = agent.tool_summaries();
        }
        let offers = agent.offers();
        if let Ok(mut names) = prompt_names.lock() {
            *names = super::offers::prompt_commands(&offers);
        }
        if let Ok(mut names) = resource_names.lock() {
            *names = super::offers::resource_mentions(&offers);
        }
        if tty {
            let (dir, cwd) = (ctx.settings.paths.sessions_dir(), ctx.cwd.to_path_buf());
            let id = agent.session().id().to_string();
            if let Ok(mut names) = session_names.lock() {
                names.forget(move || {
                    pickers::sessions(&dir, &cwd, &id)
                        .into_iter()
                        .map(|i| (i.value, i.about))
                        .collect()
                });
            }
            let status = status_line(&agent);
            menu.set_status(status.clone());
            super::live::set_status(status);
        }
        // A queued line goes first; a line given back waits for the editor.
        let initial = match queued.lock().map(|q| q.is_empty()) {
            Ok(true) => restore.take(),
            _ => None,
        };
        let shown = prompt(agent.policy_mut().yolo(), agent.mode());
        let next = tokio::select! {
            biased;
            _ = ctx.stop.cancelled() => break,
            next = next_line(editor, &queued, shown.clone(), initial) => next?,
        };
        let line = match next {
            (ed, Ok(l)) => {
                editor = ed;
                l
            }
            (ed, Err(ReadlineError::Interrupted)) => {
                editor = ed;
                super::paste::forget();
                if interrupted.is_some_and(|t| t.elapsed() < super::terminal::QUIT_WINDOW) {
                    break;
                }
                interrupted = Some(std::time::Instant::now());
                errln!("(Ctrl-C again to quit; Ctrl-D or /quit also quit)");
                continue;
            }
            (_, Err(ReadlineError::Eof)) => break,
            (_, Err(e)) => return Err(ReplError::Editor(e)),
        };
        // Shift-Tab: the next mode, the line back in the editor.
        if menu.take_cycle() {
            plan::cycled(&mut agent, &shown, &line);
            restore = (!line.is_empty()).then_some(line);
            continue;
        }
        // A trailing backslash: the message goes on on the next line.
        let mut line = line;
        while let Some(head) = line.strip_suffix('\\') {
            let head = head.to_string();
            let (ed, more) = next_line(editor, &queued, "› ".into(), None).await?;
            editor = ed;
            match more {
                Ok(more) => line = format!("{head}\n{more}"),
                Err(_) => {
                    line = head;
                    break;
                }
            }
        }
        if line.trim().is_empty() {
            // Esc Esc at an empty prompt: `/rewind`.
            if menu.take_rewind() {
                line = "/rewind".to_string();
            } else {
                continue;
            }
        }
        // The history keeps the line as typed, pastes as their placeholders.
        let _ = editor.add_history_entry(line.trim());
        let _ = editor.append_history(&ctx.history);
        // What the person typed: pastes as their placeholders.
        let typed = line.trim().to_string();
        let pasted = super::paste::images(&line);
        let line = super::paste::release(&line);
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        // A built-in command, parsed once.
        let slash = super::command_table::Slash::parse(text);
        // A custom command or a skill: its prompt, sent as typed text is.
        // Its `` !`cmd` `` lines run as a turn's calls do: their questions
        // drawn and answered, Esc, `/stop` or Ctrl-C stopping them.
        let cancel = ctx.stop.child_token();
        let on_ctrl_c = cancel_on_ctrl_c(&cancel);
        let watch = typeahead
            .as_ref()
            .filter(|_| custom.runs_commands(text))
            .map(|sinks| TypeAhead::start(cancel.clone(), sinks.clone(), String::new()));
        let loaded = drive(custom.load_line(text, &agent, &cancel), rx, printer).await;
        on_ctrl_c.abort();
        if let Some(w) = watch {
            if let Some(q) = typeahead.as_ref().and_then(|s| s.questions.as_ref()) {
                q.clear();
            }
            let typed = w.finish().await;
            printer.end_line();
            if !typed.trim().is_empty() {
                restore = Some(typed);
            }
        }
        if cancel.is_cancelled() && !ctx.stop.is_cancelled() {
            errln!("stopped; nothing was sent.");
            continue;
        }
        let mut model_before = None;
        let custom_send = match loaded {
            Some(Err(why)) => {
                errln!("{why}");
                continue;
            }
            Some(Ok(l)) => {
                if let Some(m) = l.model {
                    model_before = Some(agent.model().to_string());
                    agent.set_model(&m);
                }
                errln!("› {}", crate::util::sanitize::clean(&excerpt(&l.text, 300)));
                attach(&agent, &l.text, &l.text, &[], &[], &ctx).await.ok()
            }
            None => None,
        };
        // A custom command's prompt, else what the line is.
        let send = if let Some(send) = custom_send {
            Some(send)
        } else {
            use super::offers::PromptLine;
            if text.starts_with('/') && text.contains(':') {
                agent.settle_listings().await;
            }
            let mut offers = agent.offers();
            // A prompt of a server not listed yet: list it first (bounded).
            if let Some(server) = super::offers::unlisted_server(text, &offers) {
                if let Err(e) = agent.list_server(server).await {
                    errln!("error: {e}");
                    continue;
                }
                offers = agent.offers();
            }
            if let Some(line) = super::offers::prompt_command(text, &offers) {
                match line {
                    PromptLine::Refused(why) => {
                        errln!("{why}");
                        None
                    }
                    PromptLine::Asked(asked) => {
                        let (ed, asked) = fill_prompt(editor, &queued, asked).await?;
                        editor = ed;
                        match asked {
                            Some(asked) => run_prompt(&agent, asked, &ctx.stop)
                                .await
                                .map(|t| (t, Vec::new())),
                            None => None,
                        }
                    }
                }
            } else if text.starts_with('/') {
                let Some(slash) = slash else {
                    commands::unknown(text.split_whitespace().next().unwrap_or(text));
                    continue;
                };
                match commands::command(slash, &mut agent, &ctx).await? {
                    Flow::Quit => break,
                    Flow::Compact(focus) => {
                        compact(&mut agent, focus.as_deref(), &ctx.stop, rx, printer).await;
                        None
                    }
                    Flow::Help => {
                        errln!("{}", super::command_table::help());
                        errln!("{}", custom.help());
                        None
                    }
                    Flow::Continue => None,
                    Flow::Send(t) => Some((t, Vec::new())),
                    Flow::Pick(found) => {
                        editor =
                            commands::pick_and_resume(editor, &queued, &mut agent, &ctx, found)
                                .await?;
                        None
                    }
                    Flow::PickSession(items) => {
                        editor = commands::pick_session(editor, &mut agent, &ctx, items).await?;
                        None
                    }
                    Flow::PickModel(names) => {
                        editor = commands::pick_model(editor, &mut agent, &ctx, names).await?;
                        None
                    }
                    Flow::PickTurn(items) => {
                        editor = rewind::pick(editor, &mut agent, &ctx, items).await?;
                        None
                    }
                }
            } else {
                let (ed, allowed) = confirm_outside(editor, &typed, ctx.cwd).await?;
                editor = ed;
                match attach(&agent, text, &typed, &pasted, &allowed, &ctx).await {
                    Ok(t) => Some(t),
                    // Put back to be fixed: nothing typed is lost.
                    Err(()) => {
                        restore = Some(text.to_string());
                        None
                    }
                }
            }
        };
        let Some(send) = send else { continue };
        let ended = turn(
            &mut agent,
            send,
            typeahead.as_ref(),
            restore.take(),
            stop,
            rx,
            printer,
        )
        .await;
        if let Some(m) = model_before {
            agent.set_model(&m);
        }
        if ctx.stop.is_cancelled() {
            break;
        }
        // A plan-mode answer is a plan: the person says whether it runs.
        if ended.answered && tty && agent.mode() == crate::config::ApprovalMode::Plan {
            editor = plan::approve(editor, &queued, &mut agent).await?;
        }
        restore = given_back(ended, &queued);
    }
    leave(&mut agent, crate::agent::EndReason::PromptInputExit).await;
    Ok(())
}

/// How a turn ended, for what is typed next.
struct Ended {
    /// The model answered.
    answered: bool,
    /// The user stopped it.
    stopped: bool,
    /// What was typed during it and not entered.
    typed: String,
}

/// What goes back into the editor after a turn: what was typed and not
/// entered — and, after a stop, the messages queued during the turn too,
/// so nothing is sent to the model behind the user's back once they have
/// said stop. Commands queued (`/quit`) still run, in order.
fn given_back(ended: Ended, queued: &Mutex<Vec<String>>) -> Option<String> {
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

/// One turn, stoppable with Ctrl-C — and, on a terminal, with `/stop` typed
/// meanwhile (other lines typed meanwhile go to `typeahead`). A failed turn
/// is reported; the session goes on.
async fn turn(
    agent: &mut Agent,
    (text, images): (String, Vec<crate::model::Image>),
    typeahead: Option<&Sinks>,
    draft: Option<String>,
    stop: &CancellationToken,
    rx: &mut UnboundedReceiver<Event>,
    printer: &mut Printer,
) -> Ended {
    let cancel = stop.child_token();
    let on_ctrl_c = cancel_on_ctrl_c(&cancel);
    // A draft given back while a queued line runs is the line being typed
    // in this turn: shown, and given back again if it is not entered.
    let mut draft = draft.unwrap_or_default();
    let watch = typeahead
        .map(|sinks| TypeAhead::start(cancel.clone(), sinks.clone(), std::mem::take(&mut draft)));
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

/// The arguments a prompt still needs, asked one by one on the prompt
/// line; an empty answer to a required one gives the prompt up.
async fn fill_prompt(
    mut editor: Editor,
    queued: &Mutex<Vec<String>>,
    mut asked: super::offers::PromptAsked,
) -> Result<(Editor, Option<super::offers::PromptAsked>), ReplError> {
    let missing = std::mem::take(&mut asked.missing);
    for (name, description) in missing {
        let label = if description.is_empty() {
            format!("  {name}: ")
        } else {
            format!("  {name} ({}): ", excerpt(&description, 60))
        };
        let (ed, answer) = next_line(editor, queued, label, None).await?;
        editor = ed;
        match answer.map(|a| a.trim().to_string()) {
            Ok(a) if !a.is_empty() => {
                asked.arguments.insert(name, a.into());
            }
            _ => {
                errln!("{name} is required; the prompt was not sent");
                return Ok((editor, None));
            }
        }
    }
    Ok((editor, Some(asked)))
}

/// A server's prompt, fetched (Ctrl-C stops the wait): its text to send,
/// shown first, or `None` after saying why not.
async fn run_prompt(
    agent: &Agent,
    asked: super::offers::PromptAsked,
    stop: &CancellationToken,
) -> Option<String> {
    let cancel = stop.child_token();
    let on_ctrl_c = cancel_on_ctrl_c(&cancel);
    let got = agent
        .run_prompt(&asked.server, &asked.prompt, asked.arguments, &cancel)
        .await;
    on_ctrl_c.abort();
    match got {
        Ok(text) if text.trim().is_empty() => {
            errln!(
                "prompt {} of server `{}` is empty; nothing was sent",
                asked.prompt,
                asked.server
            );
            None
        }
        Ok(text) => {
            errln!("› {}", crate::util::sanitize::clean(&excerpt(&text, 300)));
            Some(text)
        }
        Err(e) => {
            errln!("error: {e}");
            None
        }
    }
}

/// The files outside the working folder that `typed` mentions, each asked
/// about on the terminal (never answered by a line typed ahead): those the
/// person allows.
async fn confirm_outside(
    mut editor: Editor,
    typed: &str,
    cwd: &std::path::Path,
) -> Result<(Editor, Vec<String>), ReplError> {
    let mut allowed = Vec::new();
    let none = Mutex::new(Vec::new());
    for (mention, real) in crate::agent::outside_mentions(typed, cwd) {
        let question = format!(
            "  attach {}, outside the working folder? [y/N] ",
            crate::util::sanitize::clean(&real.display().to_string())
        );
        let (ed, answer) = next_line(editor, &none, question, None).await?;
        editor = ed;
        if answer.is_ok_and(|a| matches!(a.trim(), "y" | "Y" | "yes")) {
            allowed.push(mention);
        }
    }
    Ok((editor, allowed))
}

/// The typed message with its `@` mentions and pasted images attached,
/// each named on the screen; `Err` after saying why one could not be.
async fn attach(
    agent: &Agent,
    text: &str,
    typed: &str,
    pasted: &[(String, std::path::PathBuf)],
    allowed: &[String],
    ctx: &ReplContext<'_>,
) -> Result<(String, Vec<crate::model::Image>), ()> {
    let cancel = ctx.stop.child_token();
    let on_ctrl_c = cancel_on_ctrl_c(&cancel);
    let limit = ctx.settings.limits.tool_output_bytes;
    let got = agent
        .attach_mentions(text, typed, pasted, ctx.cwd, allowed, limit, &cancel)
        .await;
    on_ctrl_c.abort();
    match got {
        Ok(a) => {
            for (m, bytes) in &a.attached {
                errln!("  attached {m} ({} bytes)", group(*bytes as u64));
            }
            for m in &a.left {
                errln!("  {m} is neither a file here nor a server's resource; sent as typed");
            }
            Ok((a.text, a.images))
        }
        Err(e) => {
            errln!("error: {e}; the message was not sent (it is back in the editor)");
            Err(())
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
async fn compact(
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
