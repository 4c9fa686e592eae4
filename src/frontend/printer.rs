//! Rendering events: streamed text on stdout, tool activity and retries on stderr
//! (so `hermes -q … > answer.txt` captures only the answer), or JSON Lines.
//! A closed stdout (`| head`) is not an error: output simply stops.

use std::future::Future;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::mpsc::UnboundedReceiver;

use super::markdown::{self, Markdown};
use super::tool_block::ToolBlock;
use crate::agent::Event;
use crate::util::sanitize::Sanitizer;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Text,
    Json,
}

/// Lines of a diff shown in a question or after an edit.
const DIFF_LINES: usize = 40;

pub(crate) struct Printer {
    style: Style,
    /// Whether the last text written to stdout ended a line.
    at_line_start: bool,
    spinner: Option<ProgressBar>,
    spinner_allowed: bool,
    /// The model's text, cleaned of escape sequences as it streams.
    clean: Sanitizer,
    block: ToolBlock,
    /// Markdown rendering, when stdout is a terminal (without colours
    /// under `NO_COLOR`).
    markdown: Option<Markdown>,
    /// While laid-out text streams and a turn reads keys: the live drawing
    /// holding the line being typed under the text (whole lines of text go
    /// above it).
    text_live: Option<(indicatif::MultiProgress, u64)>,
    /// The questions this front end answers (the REPL on a terminal).
    questions: Option<super::approve::Questions>,
    /// The servers' forms it fills (the REPL on a terminal).
    forms: Option<super::form::TerminalForms>,
    /// The answer's text is not streamed: it is printed whole once known
    /// to fit (`--output-schema`).
    held: bool,
    /// The plan drawn live this turn, as it last stood: printed once when
    /// the turn ends.
    plan: Option<Vec<String>>,
}

/// Steps of a plan drawn live under a running turn.
const PLAN_LIVE_STEPS: usize = 8;

impl Printer {
    pub(crate) fn new(style: Style) -> Printer {
        Printer {
            style,
            at_line_start: true,
            spinner: None,
            spinner_allowed: style == Style::Text && std::io::stderr().is_terminal(),
            clean: Sanitizer::default(),
            block: ToolBlock::new(style == Style::Text && std::io::stderr().is_terminal()),
            markdown: (style == Style::Text && markdown::wanted(std::io::stdout().is_terminal()))
                .then(|| {
                    let md = Markdown::new(super::terminal::columns(1).unwrap_or(0));
                    match markdown::no_colour() {
                        true => md.without_colour(),
                        false => md,
                    }
                }),
            text_live: None,
            questions: None,
            forms: None,
            held: false,
            plan: None,
        }
    }

    /// The model's text is not printed as it streams (the caller prints
    /// the answer).
    pub(crate) fn hold_answer(&mut self) {
        self.held = true;
    }

    /// A subagent's event, shown under the entry of the call that started
    /// it: its step on the nested line; its questions, refusals and
    /// warnings as the parent's are, naming it.
    fn subagent(&mut self, id: &str, description: &str, event: &Event) {
        let who = format!("[{description}]");
        match event {
            Event::ModelRequest { .. } => self.block.sub_state(id, &who, "thinking…"),
            Event::ToolCallQueued {
                name,
                arguments,
                resolved_path,
                ..
            } => self.block.step(
                id,
                &format!(
                    "{who} {}  queued",
                    ToolBlock::label(name, &shown(arguments, resolved_path))
                ),
                false,
            ),
            Event::ToolCallStarted {
                id: call,
                name,
                arguments,
                resolved_path,
            } => self.block.sub_call(
                id,
                call,
                &format!(
                    "{who} {}  running",
                    ToolBlock::label(name, &shown(arguments, resolved_path))
                ),
                true,
            ),
            Event::ToolCallFinished {
                id: call,
                name,
                is_error,
                ..
            } => {
                let mark = if *is_error { "✗" } else { "✓" };
                self.block
                    .sub_call(id, call, &format!("{who} {mark} {name}"), false)
            }
            Event::TextDelta { .. } => self.block.sub_state(id, &who, "answering…"),
            Event::ApprovalAsked {
                name,
                arguments,
                resolved_path,
                ..
            } => {
                let value = crate::agent::with_resolved(&arguments.value, resolved_path.as_deref());
                let label = ToolBlock::label(name, &value.to_string());
                let waiting = format!("waiting for your answer: {label}");
                self.block.sub_state(id, &who, &waiting);
                self.ask(event, Some(&who));
            }
            Event::Approval {
                name,
                decision: crate::agent::Settled::Deny,
                by,
                ..
            } => self.say(format!("✗ {who} {name} denied by {by}")),
            Event::Warning { message } => self.say(format!("warning: {who} {message}")),
            Event::Subagent {
                description: inner,
                event,
                ..
            } => self.subagent(id, &format!("{description} › {inner}"), event),
            _ => {}
        }
    }

    /// An `approval_asked` event's question, drawn only where someone
    /// answers (a front end that asks holds the questions); `asker`: the
    /// subagent that asks, named in it.
    fn ask(&mut self, event: &Event, asker: Option<&str>) {
        let Event::ApprovalAsked {
            id,
            name,
            arguments,
            resolved_path,
            why,
            preview,
            grants,
        } = event
        else {
            return;
        };
        self.stop_spinner();
        self.end_text();
        let Some(q) = &self.questions else {
            return;
        };
        let why = match asker {
            Some(who) => format!("{why} — asked by subagent {who}"),
            None => why.clone(),
        };
        let arguments = crate::agent::ShownArguments {
            value: crate::agent::with_resolved(&arguments.value, resolved_path.as_deref()),
            required: arguments.required.clone(),
        };
        let drawn = q.asked(
            id,
            name,
            &arguments,
            &why,
            preview.as_deref(),
            grants.as_deref(),
        );
        self.suspend(|| super::approve::write(&drawn));
    }

    /// Questions are drawn from now on, and held in `questions` for the
    /// lines that answer them.
    /// Servers' forms are filled here from now on.
    pub(crate) fn fill_forms(&mut self, forms: super::form::TerminalForms) {
        self.forms = Some(forms);
    }

    pub(crate) fn draw_questions(&mut self, questions: super::approve::Questions) {
        self.questions = Some(questions);
    }

    pub(crate) fn handle(&mut self, ev: &Event) {
        if self.style == Style::Json {
            // The secret values hermes holds never leave it, in any event;
            // errors and warnings are masked where they are made.
            if let Ok(line) = serde_json::to_string(ev) {
                let line = crate::util::secrets::mask_known(&line);
                out(format!("{line}\n").as_bytes());
            }
            return;
        }
        match ev {
            Event::ModelRequest { .. } => {
                self.block.close();
                self.clean.reset();
                self.start_spinner()
            }
            Event::TextDelta { .. } if self.held => {}
            Event::TextDelta { text } => self.text_delta(text),
            Event::ToolRoundStarted { ids, .. } => self.block.planned(ids),
            Event::Subagent {
                id,
                description,
                event,
            } => self.subagent(id, description, event),
            Event::ToolCallQueued {
                id,
                name,
                arguments,
                resolved_path,
            } => {
                self.stop_spinner();
                self.end_text();
                self.block
                    .queued(id, name, &shown(arguments, resolved_path));
            }
            Event::ToolCallStarted {
                id,
                name,
                arguments,
                resolved_path,
            } => {
                self.stop_spinner();
                self.end_text();
                self.block
                    .started(id, name, &shown(arguments, resolved_path));
            }
            Event::ToolCallFinished {
                id,
                name,
                arguments,
                is_error,
                content,
                diff,
                ..
            } => {
                self.stop_spinner();
                self.end_text();
                let args = arguments.as_deref().unwrap_or("");
                self.block.finished(id, name, args, *is_error, content);
                if let Some(d) = diff {
                    self.say_diff(d, DIFF_LINES, "");
                }
            }
            Event::ToolProgress {
                id,
                server,
                progress,
                total,
                message,
            } => {
                let of = total.map(|t| format!("/{t}")).unwrap_or_default();
                let msg = message.as_deref().map(|m| format!(" {m}"));
                let shown = format!("{progress}{of}{}", msg.unwrap_or_default());
                self.block.progress(id.as_deref(), server, &shown);
            }
            // The terminal shows the answer; thinking is for an editor
            // and `--json`.
            Event::ThinkingDelta { .. } => {}
            Event::Retrying {
                attempt,
                delay_ms,
                reason,
            } => {
                self.stop_spinner();
                self.say(format!(
                    "retrying in {:.1} s (retry {attempt}): {reason}",
                    *delay_ms as f64 / 1000.0
                ));
            }
            Event::ProcessExited { .. }
            | Event::PortOpened { .. }
            | Event::PortForwarded { .. } => {
                if let Some(line) = background_notice(ev) {
                    self.stop_spinner();
                    self.end_text();
                    self.say(line);
                }
            }
            // The call's own line tells of a fetch.
            Event::ProcessStarted { .. }
            | Event::ProcessOutput { .. }
            | Event::WebFetched { .. } => {}
            Event::Warning { message } => {
                self.stop_spinner();
                self.end_text();
                self.say(format!("warning: {message}"));
            }
            Event::Compacted {
                before_tokens,
                after_tokens,
                summarised,
                stubbed,
                ..
            } => self.compacted((*before_tokens, *after_tokens), *summarised, *stubbed),
            Event::PlanUpdated { explanation, plan } => {
                self.plan_updated(explanation.as_deref(), plan)
            }
            Event::TurnDone { .. } | Event::Error { .. } => {
                self.stop_spinner();
                self.end_line();
                self.settle_plan();
            }
            Event::ApprovalAsked { .. } => self.ask(ev, None),
            Event::FormAsked {
                id,
                server,
                message,
                fields,
                ..
            } => {
                self.stop_spinner();
                self.end_text();
                let asked = super::form::Asked {
                    id,
                    server,
                    message,
                    fields,
                };
                if let Some(forms) = &self.forms {
                    forms.fill(asked);
                }
            }
            // A refusal for want of an approver says what allows it; any
            // other refusal is told once, on its entry's line in the block
            // (its result names who refused and why).
            Event::Approval {
                name,
                decision,
                by,
                arguments,
                ..
            } if *decision == crate::agent::Settled::Deny && by.nobody_to_ask => {
                self.nobody_to_ask(name, by, arguments.as_ref())
            }
            Event::SessionStarted { .. }
            | Event::Usage { .. }
            | Event::Approval { .. }
            | Event::RunSummary(_) => {}
        }
        self.keep_input_drawn();
    }

    /// A piece of the answer: laid out (on a terminal) and written.
    fn text_delta(&mut self, text: &str) {
        self.stop_spinner();
        let text = self.clean.push(text);
        let text = match &mut self.markdown {
            Some(md) => md.push(&text),
            None => text,
        };
        // Laid-out text comes in whole lines, so the line being typed stays
        // drawn under it; text as it came does not.
        if self.markdown.is_some() {
            self.keep_input_drawn();
        } else {
            self.stop_text_live();
        }
        self.text_out(&text);
        if !text.is_empty() {
            self.at_line_start = text.ends_with('\n');
        }
    }

    /// The conversation was compacted from `before` to `after` tokens.
    fn compacted(&mut self, (before, after): (u64, u64), summarised: u64, stubbed: u64) {
        self.stop_spinner();
        self.end_text();
        let mut what = Vec::new();
        if summarised > 0 {
            what.push(format!("{summarised} older messages summarised"));
        }
        if stubbed > 0 {
            what.push(format!("{stubbed} old tool results dropped"));
        }
        let (before, after, what) = (group(before), group(after), what.join(", "));
        self.say(format!(
            "compacted the conversation: about {before} → {after} tokens ({what})"
        ));
    }

    /// The model's plan: while a turn reads keys, the checklist is drawn
    /// live and redrawn in place; elsewhere each update is printed.
    fn plan_updated(&mut self, explanation: Option<&str>, plan: &[crate::call::PlanStep]) {
        let lines = super::plan_view::lines(explanation, plan);
        if super::live::reading_keys() {
            let live = super::plan_view::live_lines(explanation, plan, PLAN_LIVE_STEPS);
            super::live::set_plan(live);
            self.plan = Some(lines);
        } else {
            self.stop_spinner();
            self.end_text();
            for line in lines {
                self.say(line);
            }
        }
    }

    /// A call refused for want of an approver: what allows it, and the
    /// arguments it had.
    fn nobody_to_ask(
        &mut self,
        name: &str,
        by: &crate::agent::SettledBy,
        arguments: Option<&crate::agent::ShownArguments>,
    ) {
        self.stop_spinner();
        self.end_text();
        self.say(format!(
            "✗ {name} needs approval ({by}); allow it with --approve '{name}' (a glob, repeatable) or --yolo"
        ));
        if let Some(a) = arguments {
            for line in super::approve::shown_whole(&a.value, &a.required).lines() {
                self.say_decided(format!("    {line}"));
            }
        }
    }

    /// The terminal was resized: text is wrapped to its new width, and
    /// the live block drawn again for it.
    pub(crate) fn resized(&mut self) {
        if let (Some(md), Some(cols)) = (&mut self.markdown, super::terminal::columns(1)) {
            md.set_columns(cols);
        }
        self.block.resized();
        // Whatever else is drawn live, drawn again for the new width.
        super::live::above_with(|| ());
    }

    /// Ends a partly written stdout line (and any spinner or tool block),
    /// so what follows starts on its own line.
    pub(crate) fn end_line(&mut self) {
        self.block.close();
        self.stop_spinner();
        self.end_text();
    }

    fn end_text(&mut self) {
        let mut rest = self
            .markdown
            .as_mut()
            .map(Markdown::finish)
            .unwrap_or_default();
        if !rest.is_empty() {
            self.at_line_start = false;
        }
        if !self.at_line_start {
            rest.push('\n');
            self.at_line_start = true;
        }
        self.text_out(&rest);
        self.stop_text_live();
    }

    /// Text on stdout, above the line being typed if it is drawn.
    fn text_out(&self, text: &str) {
        if !text.is_empty() {
            self.suspend(|| out(text.as_bytes()));
        }
    }

    /// Runs `f` (which prints) with what is drawn live taken off and put
    /// back after.
    fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.text_live {
            Some((m, _)) => m.suspend(f),
            None => self.block.suspend(f),
        }
    }

    /// While a turn reads keys and nothing else is drawn live (text
    /// streams, a question waits), the line being typed and the status
    /// line are drawn on their own, so typing shows in every phase.
    fn keep_input_drawn(&mut self) {
        if self.text_live.is_some()
            || !self.at_line_start
            || !super::live::reading_keys()
            || super::live::is_live()
        {
            return;
        }
        let (m, _) = super::live_term::multi();
        let generation = super::live::set_live(Some(m.clone()));
        self.text_live = Some((m, generation));
    }

    fn stop_text_live(&mut self) {
        if let Some((_, generation)) = self.text_live.take() {
            super::live::clear_live_if(generation);
        }
    }

    /// A line on stderr that does not tear a live tool block.
    fn say(&self, line: String) {
        self.suspend(|| err_line(line));
    }

    /// A line of what the user decides on (see `util::stderr::decided`).
    fn say_decided(&self, line: String) {
        self.suspend(|| crate::util::stderr::decided(&line));
    }

    /// A diff, coloured on a terminal, at most `max` lines; what is cut is
    /// counted, and `more` says how to see it.
    fn say_diff(&self, diff: &str, max: usize, more: &str) {
        let lines: Vec<&str> = diff.lines().collect();
        self.suspend(|| {
            for l in lines.iter().take(max) {
                crate::util::stderr::diff_line("    ", l);
            }
            if lines.len() > max {
                err_line(format!(
                    "    … {} more lines of the diff hidden{more}",
                    lines.len() - max
                ));
            }
        });
    }

    /// The plan drawn live this turn, taken off and printed as it last
    /// stood, so it stays in the scrollback above the prompt.
    fn settle_plan(&mut self) {
        if let Some(lines) = self.plan.take() {
            super::live::set_plan(Vec::new());
            for line in lines {
                self.say(line);
            }
        }
    }

    fn start_spinner(&mut self) {
        if !self.spinner_allowed || self.spinner.is_some() {
            return;
        }
        self.stop_text_live();
        let (m, _) = super::live_term::multi();
        let pb = m.add(ProgressBar::new_spinner());
        super::live::set_live(Some(m));
        // The time waited, so a provider that sends nothing for minutes is
        // seen to: "⠁ thinking… 2m 5s".
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
            pb.set_style(style);
        }
        pb.set_message("thinking…");
        pb.enable_steady_tick(Duration::from_millis(100));
        self.spinner = Some(pb);
    }

    fn stop_spinner(&mut self) {
        if let Some(pb) = self.spinner.take() {
            pb.finish_and_clear();
            super::live::set_live(None);
        }
    }
}

impl Drop for Printer {
    fn drop(&mut self) {
        self.block.close();
        self.stop_spinner();
        self.stop_text_live();
        if self.plan.take().is_some() {
            super::live::set_plan(Vec::new());
        }
    }
}

/// A line on stderr: it carries tool names, arguments and output, which
/// servers and models control.
fn err_line(line: String) {
    crate::util::stderr::line(&line);
}

/// Command output: cleaned of escape sequences, secrets masked.
pub(crate) fn out_text(text: &str) {
    let masked = crate::util::secrets::mask(text);
    out(crate::util::sanitize::clean(&masked).as_bytes());
}

pub(crate) fn out(bytes: &[u8]) {
    // Once the reader has gone (`| head`), nothing more is written: no
    // panic, no error, and the run ends as it would have.
    static CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(bytes).and_then(|_| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// What [`drive`] hands events to: the printer, or the printer and
/// something that watches beside it (a run's tally).
pub(crate) trait Sink {
    fn handle(&mut self, ev: &Event);
    fn resized(&mut self);
}

/// The line a background process' event is told in, on a terminal.
pub(crate) fn background_notice(ev: &Event) -> Option<String> {
    Some(match ev {
        Event::ProcessExited { id, .. } => {
            format!("background process {id} {}", ev.process_end()?)
        }
        Event::PortOpened { port, id } => {
            let who = id.map_or("a process".to_string(), |i| format!("process {i}"));
            format!(
                "{who} listens on port {port} in the sandbox — /forward {port} to open it on \
                 this machine"
            )
        }
        Event::PortForwarded { port, host } => {
            format!("port {port} of the sandbox is at http://127.0.0.1:{host} on this machine")
        }
        Event::Warning { message } => format!("warning: {message}"),
        _ => return None,
    })
}

impl Sink for Printer {
    fn handle(&mut self, ev: &Event) {
        Printer::handle(self, ev)
    }

    fn resized(&mut self) {
        Printer::resized(self)
    }
}

/// Runs `fut` while printing its events as they come, and every event it left
/// queued before returning, so output is complete when this returns.
pub(crate) async fn drive<F: Future, S: Sink>(
    fut: F,
    rx: &mut UnboundedReceiver<Event>,
    printer: &mut S,
) -> F::Output {
    tokio::pin!(fut);
    let mut resized = Resized::new();
    loop {
        tokio::select! {
            biased;
            Some(ev) = rx.recv() => printer.handle(&ev),
            () = resized.next() => printer.resized(),
            res = &mut fut => {
                while let Ok(ev) = rx.try_recv() {
                    printer.handle(&ev);
                }
                return res;
            }
        }
    }
}

/// The terminal's resizes (SIGWINCH); never, where there is no signal.
struct Resized(Option<tokio::signal::unix::Signal>);

impl Resized {
    fn new() -> Resized {
        use tokio::signal::unix::{signal, SignalKind};
        Resized(signal(SignalKind::window_change()).ok())
    }

    async fn next(&mut self) {
        match &mut self.0 {
            Some(s) => {
                if s.recv().await.is_none() {
                    std::future::pending::<()>().await
                }
            }
            None => std::future::pending::<()>().await,
        }
    }
}

/// `12 345` for 12345: token counts a person reads at a glance.
pub(crate) fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// An entry's arguments (JSON text) as the person is shown them: with the
/// path hermes resolved, so they see where the call acts.
fn shown(arguments: &str, resolved: &Option<String>) -> String {
    match (resolved, serde_json::from_str(arguments)) {
        (Some(p), Ok(v)) => crate::agent::with_resolved(&v, Some(p)).to_string(),
        _ => arguments.to_string(),
    }
}
