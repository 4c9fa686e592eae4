//! The status line under the prompt — `gpt-5 · mode plan · context 12% of
//! 400 000 · session 20261203-… · 1 question waiting` — fitted to the
//! terminal's width: never wrapped onto a second row (a wrapped line leaves
//! a stale copy behind when the drawing is redrawn). Fields go, least
//! needed first — the session, then the context — then the model is cut
//! with `…`; the mode and what waits always show.

use crate::util::text::{columns_of, cut_to_columns};

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Status {
    pub model: String,
    /// `plan`, `auto`: a mode other than the default `ask`.
    pub mode: Option<String>,
    /// `context 12% of 400 000`.
    pub context: Option<String>,
    pub session: String,
    /// Background processes running: always shown, like what waits.
    pub processes: usize,
}

impl Status {
    pub(crate) fn is_empty(&self) -> bool {
        self.model.is_empty() && self.session.is_empty()
    }

    /// The line in at most `columns` columns, with `waiting` questions.
    pub(crate) fn fit(&self, waiting: usize, columns: usize) -> String {
        let waiting = match waiting {
            0 => None,
            1 => Some("1 question waiting".to_string()),
            n => Some(format!("{n} questions waiting")),
        };
        let line = |model: &str, context: bool, session: bool| {
            let mut parts = vec![model.to_string()];
            parts.extend(self.mode.as_ref().map(|m| format!("mode {m}")));
            if context {
                parts.extend(self.context.clone());
            }
            if session && !self.session.is_empty() {
                parts.push(format!("session {}", self.session));
            }
            match self.processes {
                0 => {}
                1 => parts.push("1 process running".into()),
                n => parts.push(format!("{n} processes running")),
            }
            parts.extend(waiting.clone());
            parts.retain(|p| !p.is_empty());
            parts.join(" · ")
        };
        for (context, session) in [(true, true), (true, false), (false, false)] {
            let l = line(&self.model, context, session);
            if columns_of(&l) <= columns {
                return l;
            }
        }
        let rest = line("", false, false);
        // The model, then ` · ` (three columns), then the rest.
        let room = match columns_of(&rest) {
            0 => columns,
            w => columns.saturating_sub(w + 3),
        };
        let model = cut_to_columns(&self.model, room.max(2));
        cut_to_columns(&line(&model, false, false), columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status() -> Status {
        Status {
            model: "accounts/fireworks/models/qwen3-coder-480b-a35b-instruct".into(),
            mode: Some("plan".into()),
            context: Some("context 3% of 262 144".into()),
            session: "20261205-153240-7ff554".into(),
            processes: 0,
        }
    }

    #[test]
    fn fields_go_least_needed_first_and_the_line_never_passes_the_width() {
        let s = status();
        let wide = s.fit(1, 200);
        assert_eq!(
            wide,
            "accounts/fireworks/models/qwen3-coder-480b-a35b-instruct · mode plan · \
             context 3% of 262 144 · session 20261205-153240-7ff554 · 1 question waiting"
        );
        let l = s.fit(1, 120);
        assert!(!l.contains("session") && l.contains("context 3%"), "{l}");
        let l = s.fit(2, 100);
        assert_eq!(
            l,
            "accounts/fireworks/models/qwen3-coder-480b-a35b-instruct · mode plan · 2 questions waiting"
        );
        for columns in [79, 60, 40, 20, 8] {
            let l = s.fit(1, columns);
            assert!(columns_of(&l) <= columns, "{columns}: {l}");
        }
        let l = s.fit(1, 60);
        assert!(l.ends_with("mode plan · 1 question waiting"), "{l}");
        let running = Status {
            processes: 2,
            ..status()
        };
        let l = running.fit(0, 60);
        assert!(l.ends_with("mode plan · 2 processes running"), "{l}");
        assert!(
            l.starts_with("accounts/fireworks/mo") && l.contains('…'),
            "{l}"
        );
        assert_eq!(s.fit(0, 200).matches(" · ").count(), 3);
    }
}
