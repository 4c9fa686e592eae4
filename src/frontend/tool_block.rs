//! One block per tool round. On a terminal it is live (indicatif): a line
//! per entry — tool, its own arguments cut to fit, and its state: queued →
//! running (elapsed, the latest progress message) → done / failed /
//! cancelled — updated in place, each result on its entry's line. Elsewhere
//! it is plain sequential lines, each result labelled with its entry.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use super::status::Status;
use crate::util::sanitize::clean;
use crate::util::text::excerpt;

/// What is drawn live on stderr now (a tool block or the thinking spinner).
/// Lines from other threads — typed lines shown back, "stopping…" — go
/// above it through [`above`] instead of tearing it.
static LIVE: Mutex<Option<MultiProgress>> = Mutex::new(None);

/// The line being typed while a turn runs, drawn as the last line of what
/// is live: its text (`None`: no turn is reading keys), and its bar in the
/// live drawing.
static INPUT: Mutex<(Option<String>, Option<ProgressBar>)> = Mutex::new((None, None));

/// The status line (model, context, session) and its bar, drawn under the
/// input line while a turn reads keys.
static STATUS: Mutex<(Option<Status>, Option<ProgressBar>)> = Mutex::new((None, None));

/// The model's plan while a turn reads keys: its lines, and their bars in
/// the live drawing — under what is drawn, above the line being typed —
/// so an update redraws the checklist in place instead of adding one.
static PLAN: Mutex<(Vec<String>, Vec<ProgressBar>)> = Mutex::new((Vec::new(), Vec::new()));

/// The plan's checklist drawn live from now on, updated in place (empty:
/// none). Drawn only while a turn reads keys, with the input line.
pub(crate) fn set_plan(lines: Vec<String>) {
    let live = LIVE.lock().ok().and_then(|l| l.clone());
    let Ok(input) = INPUT.lock() else { return };
    let Ok(mut plan) = PLAN.lock() else { return };
    plan.0 = lines;
    match (&live, &input.1) {
        (Some(m), Some(line)) => draw_plan(m, line, &mut plan),
        _ => clear_plan(&mut plan.1),
    }
}

/// The plan's bars made to match its lines, just above `input`.
fn draw_plan(m: &MultiProgress, input: &ProgressBar, plan: &mut (Vec<String>, Vec<ProgressBar>)) {
    while plan.1.len() > plan.0.len() {
        if let Some(bar) = plan.1.pop() {
            bar.finish_and_clear();
        }
    }
    while plan.1.len() < plan.0.len() {
        let bar = m.insert_before(input, ProgressBar::new_spinner());
        bar.set_style(ToolBlock::style("{wide_msg}"));
        plan.1.push(bar);
    }
    for (bar, line) in plan.1.iter().zip(&plan.0) {
        bar.set_message(clean(line));
    }
}

fn clear_plan(bars: &mut Vec<ProgressBar>) {
    for bar in bars.drain(..) {
        bar.finish_and_clear();
    }
}

/// Questions waiting for an answer now, shown on the status line.
static WAITING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The status line from now on.
pub(crate) fn set_status(status: Status) {
    if let Ok(mut s) = STATUS.lock() {
        s.0 = Some(status);
    }
    refit_status();
}

/// The status line drawn again, fitted to the width as it is now (after
/// a resize, or when what waits changed).
pub(crate) fn refit_status() {
    if let Ok(status) = STATUS.lock() {
        if let (Some(text), Some(bar)) = (&status.0, &status.1) {
            bar.set_message(status_line(text));
        }
    }
}

fn status_line(status: &Status) -> String {
    let waiting = WAITING.load(std::sync::atomic::Ordering::SeqCst);
    let columns = super::terminal::columns(2).unwrap_or(80).max(20);
    format!("\u{1b}[2m{}\u{1b}[22m", status.fit(waiting, columns - 1))
}

/// A question waiting for its answer, counted on the status line while
/// it lives.
pub(crate) struct Waiting;

impl Waiting {
    pub(crate) fn new() -> Waiting {
        WAITING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        refit_status();
        Waiting
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        WAITING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        refit_status();
    }
}

/// Whether what is typed is a secret a server's form asks for: shown as
/// dots, never as typed.
static HIDDEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on what is typed is shown as dots (`true`), or as typed.
pub(crate) fn hide_input(on: bool) {
    HIDDEN.store(on, std::sync::atomic::Ordering::SeqCst);
    if let Ok(input) = INPUT.lock() {
        if let (Some(t), Some(bar)) = (&input.0, &input.1) {
            bar.set_message(input_line(t));
        }
    }
}

/// Whether a turn reads keys now (what is typed is drawn live).
pub(crate) fn reading_keys() -> bool {
    INPUT.lock().is_ok_and(|i| i.0.is_some())
}

pub(crate) fn input_hidden() -> bool {
    HIDDEN.load(std::sync::atomic::Ordering::SeqCst)
}

/// What the input line shows before anything is typed.
const INPUT_HINT: &str = "\u{1b}[2m(type to queue a message · Esc stops the turn)\u{1b}[0m";

/// Counts what has been drawn live, so a drawing is taken off only while
/// it is still the one drawn ([`clear_live_if`]).
static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The columns each template of an entry's line takes besides its
/// message: `  ◌ {msg}  queued`, `  ⠋ {msg}  running 12s` (room for the
/// time), `      ↳ {msg}`, `  {msg}`.
const QUEUED: usize = 12;
const RUNNING: usize = 20;
const STEP: usize = 8;
const DONE: usize = 2;

/// `text` cut to the room its line leaves it now, with `…` where it was
/// cut: a block's lines, live and left on the screen, are at most
/// `live_term::LIVE_COLUMNS` wide, so a resize never changes the rows
/// they take (see `live_term`) and a block reads the same at any width
/// from there up.
fn fit(text: &str, fixed: usize) -> String {
    match super::live_term::line_columns() {
        Some(columns) => {
            crate::util::text::cut_to_columns(text, columns.saturating_sub(fixed + 1).max(8))
        }
        None => text.to_string(),
    }
}

/// Whether anything is drawn live now.
pub(crate) fn is_live() -> bool {
    LIVE.lock().is_ok_and(|l| l.is_some())
}

/// Stops drawing live if what is drawn is still what `set_live` returned
/// `generation` for (the spinner or a tool block may have taken over).
pub(crate) fn clear_live_if(generation: u64) {
    if GENERATION.load(std::sync::atomic::Ordering::SeqCst) == generation {
        set_live(None);
    }
}

/// Draws `m` live from now on; `None` when nothing is. The input line, when
/// a turn reads keys, goes with it, last, then the status line. Returns
/// this drawing's generation.
pub(crate) fn set_live(m: Option<MultiProgress>) -> u64 {
    let generation = GENERATION.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    if let Ok(mut input) = INPUT.lock() {
        if let Some(bar) = input.1.take() {
            bar.finish_and_clear();
        }
        let mut plan = PLAN.lock().ok();
        if let Some(plan) = plan.as_mut() {
            clear_plan(&mut plan.1);
        }
        let mut status = STATUS.lock().ok();
        if let Some(bar) = status.as_mut().and_then(|s| s.1.take()) {
            bar.finish_and_clear();
        }
        if let (Some(text), Some(m)) = (&input.0, &m) {
            let bar = m.add(ProgressBar::new_spinner());
            bar.set_style(ToolBlock::style("{wide_msg}"));
            bar.set_message(input_line(text));
            if let Some(plan) = plan.as_mut() {
                draw_plan(m, &bar, plan);
            }
            input.1 = Some(bar);
            if let Some(status) = status.as_mut() {
                if let Some(text) = status.0.as_ref().filter(|s| !s.is_empty()) {
                    let bar = m.add(ProgressBar::new_spinner());
                    bar.set_style(ToolBlock::style("{wide_msg}"));
                    bar.set_message(status_line(text));
                    status.1 = Some(bar);
                }
            }
        }
    }
    if let Ok(mut live) = LIVE.lock() {
        *live = m;
    }
    generation
}

/// The line being typed (`None` once the turn stops reading keys), shown
/// under what is drawn live.
pub(crate) fn set_input(text: Option<&str>) {
    if let Ok(mut input) = INPUT.lock() {
        input.0 = text.map(str::to_string);
        match (&input.0, &input.1) {
            (Some(t), Some(bar)) => bar.set_message(input_line(t)),
            (None, Some(_)) => {
                if let Some(bar) = input.1.take() {
                    bar.finish_and_clear();
                }
                if let Ok(mut plan) = PLAN.lock() {
                    clear_plan(&mut plan.1);
                }
                if let Some(bar) = STATUS.lock().ok().and_then(|mut s| s.1.take()) {
                    bar.finish_and_clear();
                }
            }
            _ => {}
        }
    }
}

fn input_line(text: &str) -> String {
    if text.is_empty() {
        format!("› {INPUT_HINT}")
    } else if input_hidden() {
        format!("› {}", "•".repeat(text.chars().count().min(40)))
    } else {
        // The end of a long line, where the typing is.
        let shown = clean(&text.replace('\n', " ⏎ "));
        let room = super::live_term::line_columns()
            .unwrap_or(80)
            .saturating_sub(3);
        format!("› {}", tail_to_columns(&shown, room))
    }
}

/// The end of `s` in `max` columns, `…` first where it was cut.
fn tail_to_columns(s: &str, max: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    if crate::util::text::columns_of(s) <= max {
        return s.to_string();
    }
    let mut kept = Vec::new();
    let mut width = 1;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if width + w > max {
            break;
        }
        kept.push(c);
        width += w;
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// Adds `bar` to `m` above the plan and the input line, if they are
/// there.
fn add_bar(m: &MultiProgress, bar: ProgressBar) -> ProgressBar {
    let input = INPUT.lock().ok().and_then(|i| i.1.clone());
    let first_of_plan = PLAN.lock().ok().and_then(|p| p.1.first().cloned());
    match first_of_plan.or(input) {
        Some(line) => m.insert_before(&line, bar),
        None => m.add(bar),
    }
}

/// A line on stderr, above what is drawn live if anything is.
pub(crate) fn above(text: &str) {
    above_with(|| line(text))
}

/// `write` run with whatever is drawn live out of its way.
pub(crate) fn above_with(write: impl FnOnce()) {
    let live = LIVE.lock().ok().and_then(|l| l.clone());
    match live {
        Some(m) => m.suspend(write),
        None => write(),
    }
}

struct Entry {
    id: String,
    /// `tool args`, cleaned and cut.
    label: String,
    name: String,
    bar: Option<ProgressBar>,
    /// A subagent's current step, on a line of its own under the entry.
    step: Option<ProgressBar>,
    /// The subagent's calls running now, as (call id, line), oldest first.
    sub_running: Vec<(String, String)>,
    /// The subagent's last call that finished (`[job] ✓ read_file`), kept
    /// on its line beside what it does next.
    sub_done: Option<String>,
    /// The entry's line as last set, before it was cut to the width, and
    /// the columns its template takes besides: cut again on a resize.
    shown: (String, usize),
    /// The same for the step line.
    step_shown: (String, usize),
    /// Sent to its tool (not only queued).
    running: bool,
    done: bool,
}

pub(crate) struct ToolBlock {
    live: Option<MultiProgress>,
    /// The terminal `live` draws on.
    term: Option<super::live_term::LiveTerm>,
    entries: Vec<Entry>,
    /// The round's entries' ids in the model's order.
    order: Vec<String>,
}

impl ToolBlock {
    pub(crate) fn new(live: bool) -> ToolBlock {
        let (live, term) = live.then(super::live_term::multi).unzip();
        ToolBlock {
            live,
            term,
            entries: Vec::new(),
            order: Vec::new(),
        }
    }

    /// `tool args`; a built-in by what it acts on: `shell $ cargo test`,
    /// `edit_file src/main.rs`, `grep TODO`.
    pub(crate) fn label(name: &str, args: &str) -> String {
        let v: serde_json::Value = serde_json::from_str(args).unwrap_or_default();
        let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
        let path = |p: &str| crate::util::path::shown_from_cwd(p);
        let what = match name {
            "shell" => format!("$ {}", s("command")),
            "read_file" | "write_file" | "edit_file" => path(&s("path")),
            "glob" | "grep" => match v["path"].as_str() {
                Some(p) => format!("{} in {}", s("pattern"), path(p)),
                None => s("pattern"),
            },
            _ => args.to_string(),
        };
        clean(&format!("{name} {}", excerpt(&what, 72)))
    }

    fn style(template: &str) -> ProgressStyle {
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_spinner())
    }

    fn entry(&mut self, id: &str, name: &str, args: &str) -> &mut Entry {
        if let Some(i) = self.entries.iter().position(|e| e.id == id) {
            return &mut self.entries[i];
        }
        let label = Self::label(name, args);
        if self.entries.is_empty() && self.live.is_some() {
            let _ = set_live(self.live.clone());
        }
        // In the round's order: before the first entry shown that comes
        // after it (one refused before it ran is shown last of all, when
        // its result is written, but belongs where the model put it).
        let rank = |id: &str| self.order.iter().position(|o| o == id);
        let at = match rank(id) {
            Some(r) => self
                .entries
                .iter()
                .position(|e| rank(&e.id).is_none_or(|er| er > r))
                .unwrap_or(self.entries.len()),
            None => self.entries.len(),
        };
        let next = self.entries.get(at).and_then(|e| e.bar.clone());
        // Every live line is cut to fit (`fit`), with `…`.
        let bar = self.live.as_ref().map(|m| {
            let bar = match &next {
                Some(next) => m.insert_before(next, ProgressBar::new_spinner()),
                None => add_bar(m, ProgressBar::new_spinner()),
            };
            bar.set_style(Self::style("  ◌ {msg}  queued"));
            bar.set_message(fit(&label, QUEUED));
            bar
        });
        self.entries.insert(
            at,
            Entry {
                id: id.to_string(),
                label: label.clone(),
                name: name.to_string(),
                bar,
                step: None,
                sub_running: Vec::new(),
                sub_done: None,
                shown: (label.clone(), QUEUED),
                step_shown: (String::new(), STEP),
                running: false,
                done: false,
            },
        );
        &mut self.entries[at]
    }

    /// A round begins with these entries, in this order.
    pub(crate) fn planned(&mut self, ids: &[String]) {
        self.order = ids.to_vec();
    }

    pub(crate) fn queued(&mut self, id: &str, name: &str, args: &str) {
        self.entry(id, name, args);
    }

    pub(crate) fn started(&mut self, id: &str, name: &str, args: &str) {
        let plain = self.live.is_none();
        let e = self.entry(id, name, args);
        e.running = true;
        match &e.bar {
            Some(bar) => {
                // The time it runs, not the time it waited in the queue.
                bar.reset_elapsed();
                bar.set_style(Self::style("  {spinner} {msg}  running {elapsed}"));
                e.shown = (e.label.clone(), RUNNING);
                bar.set_message(fit(&e.label, RUNNING));
                bar.enable_steady_tick(Duration::from_millis(120));
            }
            None if plain => line(&format!("⏺ {}", e.label)),
            None => {}
        }
    }

    /// A server's progress report: shown on the entry it names, or — from
    /// a server that named no token of ours — on that server's running
    /// entries (never on one still queued).
    pub(crate) fn progress(&mut self, id: Option<&str>, server: &str, text: &str) {
        let mut shown = false;
        for e in self.entries.iter_mut().filter(|e| {
            !e.done
                && e.running
                && match id {
                    Some(id) => e.id == id,
                    None => crate::call::names::is_of_server(&e.name, server),
                }
        }) {
            if let Some(bar) = &e.bar {
                let line = format!("{} — {}", e.label, clean(&excerpt(text, 60)));
                bar.set_message(fit(&line, RUNNING));
                e.shown = (line, RUNNING);
                shown = true;
            }
        }
        if !shown && self.live.is_none() {
            line(&format!("  … {server}: {text}"));
        }
    }

    /// A subagent's step (`mcp__x__search {…} running`, `thinking…`),
    /// under its entry: live, a line that changes in place; plain, a line
    /// each for what `lasting` marks (calls started and finished).
    pub(crate) fn step(&mut self, id: &str, text: &str, lasting: bool) {
        let live = self.live.clone();
        let Some(e) = self.entries.iter_mut().find(|e| e.id == id && !e.done) else {
            if live.is_none() && lasting {
                line(&format!("    ↳ {}", clean(&excerpt(text, 100))));
            }
            return;
        };
        let text = clean(&excerpt(text, 100));
        match (&live, &e.bar) {
            (Some(m), Some(bar)) => {
                let step = e.step.get_or_insert_with(|| {
                    let s = m.insert_after(bar, ProgressBar::new_spinner());
                    s.set_style(Self::style("      ↳ {msg}"));
                    s
                });
                step.set_message(fit(&text, STEP));
                e.step_shown = (text, STEP);
            }
            _ if lasting => line(&format!("    ↳ {text}")),
            _ => {}
        }
    }

    /// What a subagent under entry `id` (`who`) does now — `thinking…`,
    /// `waiting for your answer: …` — after the last call it finished, so
    /// that call stays in sight.
    pub(crate) fn sub_state(&mut self, id: &str, who: &str, state: &str) {
        let done = self
            .entries
            .iter()
            .find(|e| e.id == id && !e.done)
            .and_then(|e| e.sub_done.clone());
        let text = match done {
            Some(d) => format!("{d} · {state}"),
            None => format!("{who} {state}"),
        };
        self.step(id, &text, false);
    }

    /// A subagent's call `call` under entry `id` started (`running`) or
    /// finished, `text` saying which. Live, the nested line shows a call
    /// still running while any is — a quick call finishing beside a slow
    /// one does not hide the slow one —; plain, a line for each.
    pub(crate) fn sub_call(&mut self, id: &str, call: &str, text: &str, running: bool) {
        let Some(e) = self.entries.iter_mut().find(|e| e.id == id && !e.done) else {
            return self.step(id, text, true);
        };
        e.sub_running.retain(|(c, _)| c != call);
        if running {
            e.sub_running.push((call.to_string(), text.to_string()));
        } else {
            e.sub_done = Some(text.to_string());
        }
        let shown = match e.sub_running.as_slice() {
            _ if self.live.is_none() => text.to_string(),
            [] => text.to_string(),
            [.., (_, last)] if e.sub_running.len() > 1 => {
                format!("{last} (+{} more running)", e.sub_running.len() - 1)
            }
            [.., (_, last)] => last.clone(),
        };
        self.step(id, &shown, true);
    }

    /// `args`: for an entry not shown before (refused before it ran).
    pub(crate) fn finished(
        &mut self,
        id: &str,
        name: &str,
        args: &str,
        is_error: bool,
        content: &str,
    ) {
        let mark = if is_error { "✗" } else { "✓" };
        // A refusal's line says who refused and why, first: the tool is
        // named by the line already, and the line is cut at the width.
        let content = content
            .strip_prefix(&format!("`{name}` was not run: "))
            .unwrap_or(content);
        let first = clean(&excerpt(&preview(content), 100));
        let e = self.entry(id, name, args);
        e.done = true;
        if let Some(step) = e.step.take() {
            step.finish_and_clear();
        }
        match &e.bar {
            Some(bar) => {
                bar.set_style(Self::style("  {msg}"));
                let line = format!("{mark} {} — {first}", e.label);
                bar.finish_with_message(fit(&line, DONE));
                e.shown = (line, DONE);
            }
            None => line(&format!("  {mark} {} — {first}", e.label)),
        }
    }

    /// The terminal was resized: each line is cut again for the new width
    /// (its `…` where the line no longer fits, more of it where it now
    /// does) and the drawing drawn again at once — the terminal draws it
    /// from the same top row (see `live_term`), so nothing of the old
    /// drawing is left.
    pub(crate) fn resized(&mut self) {
        refit_status();
        for e in &self.entries {
            if let Some(bar) = &e.bar {
                bar.set_message(fit(&e.shown.0, e.shown.1));
            }
            if let Some(step) = &e.step {
                step.set_message(fit(&e.step_shown.0, e.step_shown.1));
            }
        }
        if let Some(m) = &self.live {
            m.suspend(|| ());
        }
    }

    /// Output that must not tear the live block (a warning, a question).
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.live {
            Some(m) => m.suspend(f),
            None => f(),
        }
    }

    /// Ends the round: entries that never finished are shown cancelled
    /// (a stop), and no spinner is left on the screen.
    pub(crate) fn close(&mut self) {
        self.order.clear();
        let plain = self.live.is_none();
        for e in &mut self.entries {
            if let Some(step) = e.step.take() {
                step.finish_and_clear();
            }
            match (&e.bar, e.done) {
                (Some(bar), false) => {
                    bar.set_style(Self::style("  {msg}"));
                    let label = fit(&e.label, DONE + "⊘   cancelled".len() - 2);
                    bar.finish_with_message(format!("⊘ {label}  cancelled"));
                }
                (None, false) if plain => line(&format!("  ⊘ {}  cancelled", e.label)),
                _ => {}
            }
        }
        if let Some(m) = &mut self.live {
            let _ = set_live(None);
            // The finished lines stay on the screen as the record of the
            // round — left there before their bars go (indicatif would
            // draw a frame without them) —; a fresh drawing for the next
            // round.
            if let Some(term) = &self.term {
                term.commit();
            }
            self.entries.clear();
            let (fresh, term) = super::live_term::multi();
            *m = fresh;
            self.term = Some(term);
        }
        self.entries.clear();
    }
}

fn line(s: &str) {
    crate::util::stderr::line(s);
}

/// A result in one line: JSON in its compact form (a pretty-printed
/// object's first line is only `{`), anything else its first line with
/// text.
fn preview(content: &str) -> String {
    let trimmed = content.trim();
    if trimmed.starts_with(['{', '[']) {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(trimmed) {
            return v.to_string();
        }
    }
    content
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::preview;

    #[test]
    fn a_json_result_previews_compact_and_text_by_its_first_line() {
        assert_eq!(
            preview("[\n  {\n    \"name\": \"a.txt\",\n    \"size\": 3\n  }\n]\n"),
            r#"[{"name":"a.txt","size":3}]"#
        );
        assert_eq!(preview("\n\nfirst words\nsecond"), "first words");
        assert_eq!(preview("{not json"), "{not json");
    }
}
