//! One block per tool round. On a terminal it is live (indicatif): a line
//! per entry — tool, its own arguments cut to fit, and its state: queued →
//! running (elapsed, the latest progress message) → done / failed /
//! cancelled — updated in place, each result on its entry's line. Elsewhere
//! it is plain sequential lines, each result labelled with its entry.

use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::util::sanitize::clean;
use crate::util::text::excerpt;

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
            let _ = super::live::set_live(self.live.clone());
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
                None => super::live::add_above_input(m, ProgressBar::new_spinner()),
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
        super::live::refit_status();
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
            let _ = super::live::set_live(None);
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
