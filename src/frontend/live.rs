//! What is drawn live on stderr during a turn, as one value: the drawing
//! (a tool block or the thinking spinner), and the lines that go under it
//! while a turn reads keys — the plan's checklist, the line being typed,
//! the status line. Lines from other threads (typed lines shown back,
//! "stopping…", a form's questions) go above it through [`above`] instead
//! of tearing it.

use std::sync::{Mutex, MutexGuard};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use super::status::Status;
use crate::util::sanitize::clean;

/// The live screen.
struct Screen {
    /// What is drawn live now; `None` when nothing is.
    drawing: Option<MultiProgress>,
    /// Counts drawings, so one is taken off only while it is still the one
    /// drawn ([`clear_live_if`]).
    generation: u64,
    /// The line being typed: its text (`None`: no turn is reading keys),
    /// and its bar in the drawing.
    input: (Option<String>, Option<ProgressBar>),
    /// The status line (model, context, session) and its bar, under the
    /// input line.
    status: (Option<Status>, Option<ProgressBar>),
    /// The model's plan: its lines, and their bars above the input line,
    /// so an update redraws the checklist in place instead of adding one.
    plan: (Vec<String>, Vec<ProgressBar>),
    /// Questions waiting for an answer, counted on the status line.
    waiting: usize,
    /// What is typed is a secret a server's form asks for: shown as dots.
    hidden: bool,
}

static SCREEN: Mutex<Screen> = Mutex::new(Screen {
    drawing: None,
    generation: 0,
    input: (None, None),
    status: (None, None),
    plan: (Vec::new(), Vec::new()),
    waiting: 0,
    hidden: false,
});

fn screen() -> Option<MutexGuard<'static, Screen>> {
    SCREEN.lock().ok()
}

/// What the input line shows before anything is typed.
const INPUT_HINT: &str = "\u{1b}[2m(type to queue a message · Esc stops the turn)\u{1b}[0m";

fn line_style() -> ProgressStyle {
    ProgressStyle::with_template("{wide_msg}").unwrap_or_else(|_| ProgressStyle::default_spinner())
}

impl Screen {
    /// The plan's bars made to match its lines, just above the input line.
    fn draw_plan(&mut self, m: &MultiProgress) {
        let Some(input) = self.input.1.clone() else {
            return;
        };
        let plan = &mut self.plan;
        while plan.1.len() > plan.0.len() {
            if let Some(bar) = plan.1.pop() {
                bar.finish_and_clear();
            }
        }
        while plan.1.len() < plan.0.len() {
            let bar = m.insert_before(&input, ProgressBar::new_spinner());
            bar.set_style(line_style());
            plan.1.push(bar);
        }
        for (bar, line) in plan.1.iter().zip(&plan.0) {
            bar.set_message(clean(line));
        }
    }

    fn clear_plan(&mut self) {
        for bar in self.plan.1.drain(..) {
            bar.finish_and_clear();
        }
    }

    /// The lines under the drawing taken off it.
    fn clear_under(&mut self) {
        if let Some(bar) = self.input.1.take() {
            bar.finish_and_clear();
        }
        self.clear_plan();
        if let Some(bar) = self.status.1.take() {
            bar.finish_and_clear();
        }
    }

    fn refit_status(&self) {
        if let (Some(text), Some(bar)) = (&self.status.0, &self.status.1) {
            bar.set_message(status_line(text, self.waiting));
        }
    }

    fn input_line(&self, text: &str) -> String {
        if text.is_empty() {
            format!("› {INPUT_HINT}")
        } else if self.hidden {
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
}

/// The plan's checklist drawn live from now on, updated in place (empty:
/// none). Drawn only while a turn reads keys, with the input line.
pub(crate) fn set_plan(lines: Vec<String>) {
    let Some(mut s) = screen() else { return };
    s.plan.0 = lines;
    match s.drawing.clone() {
        Some(m) if s.input.1.is_some() => s.draw_plan(&m),
        _ => s.clear_plan(),
    }
}

/// The status line from now on.
pub(crate) fn set_status(status: Status) {
    if let Some(mut s) = screen() {
        s.status.0 = Some(status);
        s.refit_status();
    }
}

/// The status line drawn again, fitted to the width as it is now (after
/// a resize, or when what waits changed).
pub(crate) fn refit_status() {
    if let Some(s) = screen() {
        s.refit_status();
    }
}

fn status_line(status: &Status, waiting: usize) -> String {
    let columns = super::terminal::columns(2).unwrap_or(80).max(20);
    format!("\u{1b}[2m{}\u{1b}[22m", status.fit(waiting, columns - 1))
}

/// A question waiting for its answer, counted on the status line while
/// it lives.
pub(crate) struct Waiting;

impl Waiting {
    pub(crate) fn new() -> Waiting {
        if let Some(mut s) = screen() {
            s.waiting += 1;
            s.refit_status();
        }
        Waiting
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(mut s) = screen() {
            s.waiting = s.waiting.saturating_sub(1);
            s.refit_status();
        }
    }
}

/// From now on what is typed is shown as dots (`true`), or as typed.
pub(crate) fn hide_input(on: bool) {
    if let Some(mut s) = screen() {
        s.hidden = on;
        if let (Some(t), Some(bar)) = (&s.input.0, &s.input.1) {
            bar.set_message(s.input_line(t));
        }
    }
}

/// Whether a turn reads keys now (what is typed is drawn live).
pub(crate) fn reading_keys() -> bool {
    screen().is_some_and(|s| s.input.0.is_some())
}

pub(crate) fn input_hidden() -> bool {
    screen().is_some_and(|s| s.hidden)
}

/// Whether anything is drawn live now.
pub(crate) fn is_live() -> bool {
    screen().is_some_and(|s| s.drawing.is_some())
}

/// Stops drawing live if what is drawn is still what `set_live` returned
/// `generation` for (the spinner or a tool block may have taken over).
pub(crate) fn clear_live_if(generation: u64) {
    let current = screen().map(|s| s.generation);
    if current == Some(generation) {
        set_live(None);
    }
}

/// Draws `m` live from now on; `None` when nothing is. The input line, when
/// a turn reads keys, goes with it, last, then the status line. Returns
/// this drawing's generation.
pub(crate) fn set_live(m: Option<MultiProgress>) -> u64 {
    let Some(mut s) = screen() else { return 0 };
    s.generation += 1;
    s.clear_under();
    if let (Some(text), Some(m)) = (s.input.0.clone(), &m) {
        let bar = m.add(ProgressBar::new_spinner());
        bar.set_style(line_style());
        bar.set_message(s.input_line(&text));
        s.input.1 = Some(bar);
        s.draw_plan(m);
        if let Some(text) = s.status.0.as_ref().filter(|t| !t.is_empty()) {
            let bar = m.add(ProgressBar::new_spinner());
            bar.set_style(line_style());
            bar.set_message(status_line(text, s.waiting));
            s.status.1 = Some(bar);
        }
    }
    s.drawing = m;
    s.generation
}

/// The line being typed (`None` once the turn stops reading keys), shown
/// under what is drawn live.
pub(crate) fn set_input(text: Option<&str>) {
    let Some(mut s) = screen() else { return };
    s.input.0 = text.map(str::to_string);
    match (&s.input.0, &s.input.1) {
        (Some(t), Some(bar)) => bar.set_message(s.input_line(t)),
        (None, Some(_)) => s.clear_under(),
        _ => {}
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
pub(super) fn add_above_input(m: &MultiProgress, bar: ProgressBar) -> ProgressBar {
    let under = screen().and_then(|s| s.plan.1.first().cloned().or_else(|| s.input.1.clone()));
    match under {
        Some(line) => m.insert_before(&line, bar),
        None => m.add(bar),
    }
}

/// A line on stderr, above what is drawn live if anything is.
pub(crate) fn above(text: &str) {
    above_with(|| crate::util::stderr::line(text))
}

/// `write` run with whatever is drawn live out of its way.
pub(crate) fn above_with(write: impl FnOnce()) {
    // Not held while `write` runs: it may draw too.
    let drawing = screen().and_then(|s| s.drawing.clone());
    match drawing {
        Some(m) => m.suspend(write),
        None => write(),
    }
}
