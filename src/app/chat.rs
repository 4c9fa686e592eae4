//! A conversation run: one-shot (`-q`, piped stdin) or the REPL, over a new or
//! resumed session.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::cli::Cli;
use super::commands::Context;
use super::signals::Signals;
use super::summary::{Tallied, Tally};
use super::{CommandError, Exit};
use crate::agent::{open_session, Agent, AnswerSchema, Event, Opening, Parts, RunSummary};
use crate::config::{self, DeferPolicy, Settings};
use crate::frontend::{drive, repl, Printer, Style};
use crate::mcp::McpRegistry;
use crate::policy::Policy;
use crate::provider;
use crate::session;
use crate::tools::Registry;

enum Mode {
    OneShot(String),
    /// The REPL, with a first message (`hermes "text"`) or none.
    Repl(Option<String>),
}

pub(super) async fn run(
    cli: &Cli,
    ctx: &Context<'_>,
) -> (Result<(), CommandError>, Option<RunSummary>) {
    let mut tally = Tally::new(Instant::now());
    let mut summary = None;
    let result = run_counted(cli, ctx, &mut tally, &mut summary).await;
    (result, summary)
}

/// The run; `summary` is filled once its session is known (a one-shot
/// run's), from what `tally` counted.
async fn run_counted(
    cli: &Cli,
    ctx: &Context<'_>,
    tally: &mut Tally,
    summary: &mut Option<RunSummary>,
) -> Result<(), CommandError> {
    let cwd = ctx.cwd;
    let mode = mode(cli)?;
    let answer_schema = match (&cli.output_schema, &mode) {
        (Some(_), Mode::Repl(_)) => {
            return Err(CommandError::usage(
                "--output-schema is for one-shot runs",
                "give the prompt with -q \"TEXT\" (or pipe it on stdin)",
            ))
        }
        (Some(path), _) => Some(Arc::new(AnswerSchema::read(path).map_err(|e| {
            CommandError::usage(
                format!("--output-schema {e}"),
                "give it a file holding one JSON Schema",
            )
        })?)),
        (None, _) => None,
    };
    let mut settings = config::resolve(ctx.paths.clone(), cwd, ctx.overrides)?;
    if cli.ephemeral {
        // Checkpoints are kept beside the sessions, for `hermes rewind`.
        settings.builtin.checkpoints = None;
    } else if let Some(repaired) = session::guard_folder(&settings.paths.sessions_dir())? {
        errln!("warning: {repaired}");
    }
    if let Some(o) = ctx.worktree {
        // Its commits: git's own folder of the worktree, the object store,
        // hermes' branches — never the main checkout's.
        let git = o.worktree.git_writable();
        settings.builtin.shell.writable.extend(git);
        settings.warnings.extend(o.notes.iter().cloned());
    }
    let resume = resume_path(cli, &settings.paths.sessions_dir(), cwd)?;
    let opening = match (&resume, &cli.session_id) {
        (Some(path), _) => Opening::Resume(path),
        (None, Some(id)) => Opening::Named(id),
        (None, None) if cli.ephemeral => Opening::Ephemeral,
        (None, None) => Opening::New,
    };
    // The REPL on a terminal and a `--json-answers` script answer servers'
    // forms: declared to servers from the first connection on, the
    // background fill's included.
    let forms = match mode {
        Mode::Repl(_) => std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
        Mode::OneShot(_) => cli.json_answers,
    };
    let mut conversation = assemble(&settings, cwd, opening, forms).await?;
    if let Some(s) = &answer_schema {
        conversation.agent.answer_as(s.clone());
    }
    let session_id = conversation.agent.session().id().to_string();
    if let Some(o) = ctx.worktree {
        super::in_worktree::record(&conversation.agent, &o.worktree).await?;
    }
    let mcp = conversation.mcp.clone();
    // Watched until hermes exits: a second signal during the shutdown below
    // ends it at once.
    let signals = Signals::watch(matches!(mode, Mode::OneShot(_)));
    let one_shot = matches!(mode, Mode::OneShot(_));
    let background = conversation.agent.background();
    let mut output = None;
    let moving: super::in_worktree::Moving = Arc::default();
    let result = converse(
        cli,
        mode,
        &settings,
        cwd,
        conversation,
        &signals.stop,
        tally,
        (&mut output, &moving),
    )
    .await;
    // Every exit path, error or not, stops the servers and the background
    // processes: no orphans.
    background.end_session();
    mcp.shutdown().await;
    if one_shot {
        let mut s = tally.summary(session_id, output);
        s.worktree = ctx.worktree.map(|o| crate::agent::RunWorktree {
            name: o.worktree.name.clone(),
            branch: o.worktree.branch.clone(),
            path: o.worktree.path.to_string_lossy().into_owned(),
        });
        *summary = Some(s);
    }
    if let (Some(o), false) = (ctx.worktree, cli.json) {
        super::in_worktree::leave(&o.worktree).await;
    }
    let moving = moving.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let (Ok(()), Some((name, id))) = (&result, moving) {
        return Err(super::in_worktree::relaunch(cli, ctx, &name, &id));
    }
    match signals.received() {
        Some(n) if n != SIGINT => Err(CommandError {
            exit: Exit::Signalled(n),
            message: format!("stopped by {}", signal_name(n)),
            hint: None,
        }),
        _ => result,
    }
}

const SIGINT: i32 = 2;

fn signal_name(n: i32) -> String {
    match n {
        1 => "SIGHUP".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// A conversation ready to run: the agent over its session, the events it
/// will emit, and the MCP registry to shut down when done.
pub struct Conversation {
    pub agent: Agent,
    pub events: mpsc::UnboundedReceiver<Event>,
    pub mcp: Arc<McpRegistry>,
}

/// Wires a conversation from settings — provider, MCP registry, tools,
/// policy, session (new, or `resume`) — the one place that does, for the
/// binary and for benchmarks that drive the library. The first events
/// (`session_started`, warnings) are already queued. `forms`: someone
/// will answer servers' forms (the REPL on a terminal, a `--json-answers`
/// script; `McpRegistry::on_form` sets how).
pub async fn assemble(
    settings: &Settings,
    cwd: &Path,
    opening: Opening<'_>,
    forms: bool,
) -> Result<Conversation, CommandError> {
    let provider = provider::from_settings(&settings.provider)?;
    let mcp = Arc::new(McpRegistry::new(&settings.mcp_servers, &settings.paths)?);
    if forms {
        mcp.expect_forms();
    }
    let mut tools =
        Registry::with_builtins(&settings.builtin, cwd, settings.limits.tool_output_bytes)?
            .with_mcp(mcp.clone())
            .with_policy(DeferPolicy {
                api_limit: provider.tool_limit(),
                ..settings.defer.clone()
            });
    if let Some(c) = &settings.connectors {
        tools = tools.with_gateway(Arc::new(crate::connectors::Gateway::new(c)));
    }
    // The built-in `agent`: subagents, of the types this run may start.
    let runner = settings
        .builtin
        .names
        .iter()
        .any(|n| n == crate::agent::subagents::NAME)
        .then(|| subagent_runner(settings, cwd));
    if runner.is_some() {
        tools = tools.with_subagent(crate::agent::subagents::spec());
    }
    tools.set_read_only(settings.approvals.mode == crate::config::ApprovalMode::Plan);
    // A port is offered to someone who can answer, never forwarded unasked.
    let forward = settings.builtin.shell.forward_ports;
    tools.background().set_forwarding(match forward {
        crate::config::ForwardPorts::Ask if !forms => crate::config::ForwardPorts::Never,
        f => f,
    });
    tools.list_connectors_in_background();
    mcp.fill_catalogs_in_background();
    let types = runner.as_deref().map(|r| r.types());
    let start = open_session(settings, cwd, &tools, types, opening).await?;
    let (tx, rx) = mpsc::unbounded_channel();
    let progress = tx.clone();
    mcp.on_progress(Arc::new(move |p| {
        let _ = progress.send(Event::ToolProgress {
            id: p.call_id,
            server: p.server,
            progress: p.progress,
            total: p.total,
            message: p.message,
        });
    }));
    let notices = tx.clone();
    mcp.on_notice(Arc::new(move |message| {
        let _ = notices.send(Event::Warning { message });
    }));
    let resumed = start.resumed;
    let parts = Parts {
        provider: provider.into(),
        model: settings.provider.model.clone(),
        tools,
        policy: Policy::from_settings(&settings.hooks, &settings.approvals),
        meter: crate::agent::Meter::new(settings.provider.windows.clone(), settings.context),
        max_turns: settings.max_turns,
        events: tx.clone(),
        run_budget: settings.max_budget_tokens.map(crate::agent::RunBudget::new),
    };
    // `session_started` is the first event; what config and the project
    // warn of follows it.
    let mut agent = Agent::start(parts, start).await;
    for w in &settings.warnings {
        let _ = tx.send(Event::Warning { message: w.clone() });
    }
    if let Some(r) = runner {
        for message in subagent_warnings(r.types()) {
            let _ = tx.send(Event::Warning { message });
        }
        agent = agent.with_subagents(r);
    }
    if !resumed {
        for message in crate::agent::reach_warnings(cwd) {
            let _ = tx.send(Event::Warning { message });
        }
    }
    Ok(Conversation {
        agent,
        events: rx,
        mcp,
    })
}

/// What starts this run's subagents: `[agents]`, the types it may use
/// (the project's only when its folder is trusted), where and when.
fn subagent_runner(settings: &Settings, cwd: &Path) -> Arc<crate::agent::subagents::Runner> {
    use crate::agent::subagents::{types, Runner};
    let trusted = crate::config::project_trusted(&settings.paths, cwd);
    Arc::new(Runner::new(
        settings.agents,
        types::discover(cwd, &settings.paths.config_dir, trusted),
        config::SystemPrompt::environment(cwd, &crate::util::time::Utc::now()),
        settings.provider.windows.clone(),
        settings.context,
        settings.worktree.clone(),
    ))
}

/// What the person should know of the agent types: names hermes has no
/// tool for, aliases, and a project's types held until it is trusted.
fn subagent_warnings(types: &crate::agent::subagents::Types) -> Vec<String> {
    let mut out = types.warnings.clone();
    if let Some(first) = types.held.first() {
        out.push(format!(
            "{} agent type(s) of this project ({}…) are not used: this folder is not trusted, \
             or they changed since it was; run `hermes trust` to use them",
            types.held.len(),
            first.display()
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
async fn converse(
    cli: &Cli,
    mode: Mode,
    settings: &Settings,
    cwd: &Path,
    conversation: Conversation,
    stop: &CancellationToken,
    tally: &mut Tally,
    (output, moving): (&mut Option<serde_json::Value>, &super::in_worktree::Moving),
) -> Result<(), CommandError> {
    let Conversation {
        agent,
        mut events,
        mcp,
    } = conversation;
    let style = if cli.json { Style::Json } else { Style::Text };
    crate::util::palette::set_light(settings.tui.theme == config::Theme::Light);
    let mut printer = Printer::new(style);
    match mode {
        Mode::Repl(first) => {
            let ctx = repl::ReplContext {
                settings,
                cwd,
                history: settings.paths.history_file(),
                stop: stop.clone(),
                first,
                mcp,
                models: Default::default(),
                moving: moving.clone(),
            };
            repl::run(agent, ctx, &mut events, &mut printer).await?;
            Ok(())
        }
        Mode::OneShot(prompt) => {
            let mut agent = agent;
            if cli.json_answers {
                let answers = crate::policy::Answers::default();
                agent
                    .policy_mut()
                    .answered_on(answers.clone(), settings.paths.config_file());
                mcp.on_form(agent.form_asker(answers.clone()));
                super::json_answers::read_stdin(answers);
            }
            // `hermes -q "/review src/lib.rs"`: a custom command or a skill
            // expanded as the REPL expands it.
            let config_dir = settings.paths.config_dir.clone();
            let prompt = match crate::frontend::expand_command(
                &prompt,
                &agent,
                cwd,
                &config_dir,
                stop,
            )
            .await
            {
                None => prompt,
                Some(Ok(loaded)) => {
                    if let Some(m) = &loaded.model {
                        agent.set_model(m);
                    }
                    loaded.text
                }
                Some(Err(why)) => {
                    return Err(CommandError::usage(
                        why,
                        "run the command in the REPL, or allow its `!` lines with --approve shell",
                    ))
                }
            };
            // The answer is printed once it is known to fit.
            let schema = cli.output_schema.is_some();
            let prompt = match &agent.answer_schema() {
                Some(s) => format!("{prompt}\n\n{}", s.asked()),
                None => prompt,
            };
            if schema {
                printer.hold_answer();
            }
            let mut sink = Tallied {
                printer: &mut printer,
                tally,
            };
            // `-o`'s folder resolved before the turn: a link a command
            // plants on the way to it, or at it, is refused, not followed.
            let out_file = cli
                .output_last_message
                .as_deref()
                .map(|p| crate::util::beneath::resolved(&cwd.join(p)));
            let res = drive(agent.run_turn(&prompt, stop), &mut events, &mut sink).await;
            // What it left running ends with the run, and says so first.
            agent
                .background()
                .stop_all("the run ended", std::time::Duration::from_secs(5))
                .await;
            while let Ok(ev) = events.try_recv() {
                crate::frontend::Sink::handle(&mut sink, &ev);
            }
            printer.end_line();
            // Failed before any answer: `--continue` must not land here.
            let left = agent.leave(crate::agent::EndReason::Other).await;
            for message in left.warnings {
                crate::frontend::Sink::handle(
                    &mut printer,
                    &crate::agent::Event::Warning { message },
                );
            }
            let outcome = res?;
            let answer = match &outcome.output {
                Some(v) => v.to_string(),
                None => outcome.text.clone(),
            };
            if schema && !cli.json {
                crate::frontend::out(format!("{answer}\n").as_bytes());
            }
            *output = outcome.output;
            if let (Some(path), Some(target)) = (&cli.output_last_message, &out_file) {
                let body = if answer.ends_with('\n') {
                    answer
                } else {
                    format!("{answer}\n")
                };
                crate::util::beneath::replace(target, body.as_bytes()).map_err(|e| {
                    let why = if crate::util::beneath::is_link_error(&e) {
                        "a link stands there or on the way to it".to_string()
                    } else {
                        e.to_string()
                    };
                    CommandError::runtime(
                        format!("-o {}: {why}", path.display()),
                        Some("give -o a file hermes may write, not a link".into()),
                    )
                })?;
            }
            blocked(tally)
        }
    }
}

/// Exit 4 when an action was refused because nobody could approve it: the
/// answer came, but may be incomplete.
fn blocked(tally: &Tally) -> Result<(), CommandError> {
    match tally.refused() {
        0 => Ok(()),
        n => Err(CommandError {
            exit: Exit::Blocked,
            message: format!(
                "{n} action(s) were refused because nobody could approve them in this run; \
                 the answer may be incomplete"
            ),
            hint: Some(
                "allow them with --approve GLOB or --yolo, or answer questions with --json --json-answers"
                    .into(),
            ),
        }),
    }
}

fn mode(cli: &Cli) -> Result<Mode, CommandError> {
    let prompt = match cli.query.as_deref() {
        // Stdin carries the answers: the prompt is the text given.
        Some("-") if cli.json_answers => {
            return Err(CommandError::usage(
                "--json-answers reads answers on stdin, so the prompt cannot come from it",
                "give the prompt as -q \"TEXT\"",
            ))
        }
        Some(q) if cli.json_answers => q.to_string(),
        Some("-") => read_stdin()?,
        // Text and piped data: the data follows the text as a fenced block,
        // as `claude -p` does (`git diff | hermes -q "review this"`).
        Some(q) if stdin_is_data() => with_data(q, &read_stdin()?),
        Some(q) => q.to_string(),
        None if !cli.prompt.is_empty() => {
            let text = cli.prompt.join(" ");
            if cli.interactive || std::io::stdin().is_terminal() {
                return Ok(Mode::Repl(Some(text)));
            }
            // Off a terminal the words are a one-shot prompt: what a pipe
            // carries is data after them (as with -q), never lines read
            // as further messages.
            if stdin_is_data() {
                with_data(&text, &read_stdin()?)
            } else {
                text
            }
        }
        None if cli.interactive || std::io::stdin().is_terminal() => return Ok(Mode::Repl(None)),
        None => read_stdin()?,
    };
    if prompt.trim().is_empty() {
        return Err(CommandError::usage(
            "the prompt is empty",
            "pass a prompt with -q \"…\" or pipe one on stdin",
        ));
    }
    Ok(Mode::OneShot(prompt))
}

/// All of stdin as text. Bytes that are not UTF-8 (a Latin-1 diff) become
/// U+FFFD, with a warning: input is never fatal.
fn read_stdin() -> Result<String, CommandError> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    if let std::borrow::Cow::Owned(_) = text {
        errln!("warning: stdin has bytes that are not UTF-8; each was replaced with \u{FFFD}");
    }
    Ok(text.into_owned())
}

/// Whether stdin is data piped in, so `-q TEXT` should read it too: a pipe
/// with data (or its end) ready within a moment. A pipe nobody writes to or
/// closes (a parent process that leaves stdin open), a terminal, a file (a
/// `while read` loop's input) or `/dev/null` is left alone.
fn stdin_is_data() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: fstat(2) on fd 0 into a stat we own.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(0, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFIFO {
            return false;
        }
        let mut pfd = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, a bounded timeout.
        let n = unsafe { libc::poll(&mut pfd, 1, 500) };
        let ready = n > 0 && pfd.revents & (libc::POLLIN | libc::POLLHUP) != 0;
        if !ready {
            errln!(
                "warning: stdin is a pipe with nothing in it after 0.5 s; not waiting for it \
                 (put the data in the prompt with -q -)"
            );
        }
        ready
    }
    #[cfg(not(unix))]
    false
}

/// `text`, then `data` as a fenced block (a fence longer than any run of
/// backticks inside it). Empty data adds nothing.
fn with_data(text: &str, data: &str) -> String {
    if data.trim().is_empty() {
        return text.to_string();
    }
    let longest = data.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let nl = if data.ends_with('\n') { "" } else { "\n" };
    format!("{text}\n\n{fence}\n{data}{nl}{fence}\n")
}

fn resume_path(
    cli: &Cli,
    sessions_dir: &Path,
    cwd: &Path,
) -> Result<Option<PathBuf>, CommandError> {
    let found = found_session(cli, sessions_dir, cwd)?;
    match found {
        Some(path) if cli.fork => Ok(Some(session::fork(&path, sessions_dir)?)),
        None if cli.fork => Err(CommandError::usage(
            "--fork copies a session, but none was named",
            "use it with --resume ID or --continue",
        )),
        other => Ok(other),
    }
}

/// The session `--resume` or `--continue` names, if either is given.
fn found_session(
    cli: &Cli,
    sessions_dir: &Path,
    cwd: &Path,
) -> Result<Option<PathBuf>, CommandError> {
    if let Some(id) = &cli.resume {
        return Ok(Some(session::find(sessions_dir, id)?));
    }
    if let Some(id) = &cli.session_id {
        if !session::valid_name(id) {
            return Err(CommandError::usage(
                format!("--session-id {id:?} cannot name a session"),
                "use letters, digits, '.', '_' and '-', up to 64, not starting with '.'",
            ));
        }
        return Ok(session::find_exact(sessions_dir, id));
    }
    if cli.continue_last {
        return match session::latest_in(sessions_dir, cwd) {
            Some(s) => Ok(Some(s.path)),
            None => Err(CommandError::usage(
                format!("no session was started in {}", cwd.display()),
                "`hermes sessions list` shows all sessions; use --resume ID",
            )),
        };
    }
    Ok(None)
}
