//! The menu under the prompt and the status line below it. Both are drawn
//! as the line editor's hint — rows after the line, which rustyline lays out
//! and takes off the screen when the line is left (vendor patch 3) — so
//! rustyline stays the editor: history, kill ring, pastes and bindings are
//! its own. The menu opens as a word that has candidates is typed (`/` at
//! the start, `@`, a tool name, what follows `/model ` or `/resume `),
//! filtered as it grows; ↑ ↓ move, Tab or Enter take, Esc closes it until
//! the line changes. A picker is the same menu over a fixed list, the line
//! its filter: Enter takes the highlighted entry, Esc takes none.

use std::sync::{Arc, Mutex};

use crate::util::text::{columns_of as width, cut_to_columns as cut};
use rustyline::{Cmd, ConditionalEventHandler, Event, EventContext, RepeatCount};

/// The most entries shown at once; the rest scroll into view.
const ROWS: usize = 8;

/// One entry: what is taken into the line, and what it is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Item {
    pub value: String,
    pub about: String,
}

impl Item {
    pub(crate) fn new(value: impl Into<String>, about: impl Into<String>) -> Item {
        Item {
            value: value.into(),
            about: about.into(),
        }
    }
}

#[derive(Default)]
struct State {
    /// What is drawn now: the line it was drawn for, where the word being
    /// completed starts, and its entries.
    shown: Option<Shown>,
    selected: usize,
    /// Esc closed the menu on this line.
    closed: Option<String>,
    /// A picker's entries, while one is open.
    picking: Option<Vec<Item>>,
    /// The status line, empty for none.
    status: super::status::Status,
    /// When Esc was last pressed at an empty prompt: a second within
    /// [`TWICE`] asks for `/rewind`.
    esc_at_empty: Option<std::time::Instant>,
    /// Esc Esc was pressed: the empty line it ended is `/rewind`.
    rewind: bool,
    /// Shift-Tab was pressed: the line it ended goes back into the editor,
    /// in the next approval mode.
    cycle: bool,
    /// vi-style editing: Esc is the editor's (normal mode), never a
    /// rewind.
    vi: bool,
}

/// How soon a second Esc at an empty prompt must follow the first.
const TWICE: std::time::Duration = std::time::Duration::from_millis(800);

struct Shown {
    line: String,
    start: usize,
    items: Vec<Item>,
}

/// Shared by the editor's helper (which draws) and the key handlers (which
/// move and take).
#[derive(Default)]
pub(crate) struct Menu(Mutex<State>);

/// The rows under the line. Never completed into the line (Right arrow at
/// the end of a line inserts a hint's completion).
pub(crate) struct Rows(String);

impl rustyline::hint::Hint for Rows {
    fn display(&self) -> &str {
        &self.0
    }
    fn completion(&self) -> Option<&str> {
        None
    }
}

impl Menu {
    /// Whether the line just read was ended by Esc Esc (then it is
    /// `/rewind`); asked once.
    pub(crate) fn take_rewind(&self) -> bool {
        self.0
            .lock()
            .map(|mut st| std::mem::take(&mut st.rewind))
            .unwrap_or(false)
    }

    /// Whether the line just read was ended by Shift-Tab (then the mode
    /// steps on and the line comes back); asked once.
    pub(crate) fn take_cycle(&self) -> bool {
        self.0
            .lock()
            .map(|mut st| std::mem::take(&mut st.cycle))
            .unwrap_or(false)
    }

    /// vi-style editing from now on: a lone Esc goes to the editor.
    pub(crate) fn set_vi(&self) {
        if let Ok(mut st) = self.0.lock() {
            st.vi = true;
        }
    }

    pub(crate) fn set_status(&self, status: super::status::Status) {
        if let Ok(mut st) = self.0.lock() {
            st.status = status;
        }
    }

    /// From now on the menu is a picker over `items`, `selected` first
    /// highlighted; `None` ends it.
    pub(crate) fn pick(&self, items: Option<Vec<Item>>, selected: usize) {
        if let Ok(mut st) = self.0.lock() {
            st.picking = items;
            st.selected = selected;
            st.shown = None;
        }
    }

    /// A picker's entries that `filter` matches (every word of it, in the
    /// value or what it is, case aside).
    fn filtered(items: &[Item], filter: &str) -> Vec<Item> {
        let words: Vec<String> = filter.split_whitespace().map(str::to_lowercase).collect();
        items
            .iter()
            .filter(|i| {
                let hay = format!("{} {}", i.value, i.about).to_lowercase();
                words.iter().all(|w| hay.contains(w.as_str()))
            })
            .cloned()
            .collect()
    }

    /// What a picker took when its line `filter` was entered.
    pub(crate) fn taken(&self, filter: &str) -> Option<String> {
        let st = self.0.lock().ok()?;
        let items = Self::filtered(st.picking.as_ref()?, filter);
        items
            .get(st.selected.min(items.len().saturating_sub(1)))
            .map(|i| i.value.clone())
    }

    /// The rows to draw under `line`: the menu for `found` (the word at
    /// `start` and its candidates), or the picker's, then the status line.
    pub(crate) fn rows(&self, line: &str, found: Option<(usize, Vec<Item>)>) -> Option<Rows> {
        let mut st = self.0.lock().ok()?;
        let found = match &st.picking {
            Some(all) => Some((0, Self::filtered(all, line))),
            None if st.closed.as_deref() == Some(line) => None,
            None => found.filter(|(start, items)| {
                // Nothing to choose when the word is its only candidate.
                !(items.len() == 1 && items[0].value == line[*start..])
            }),
        };
        // A new line (a filter typed) highlights its first entry again; a
        // picker's first drawing keeps the entry it was opened on.
        let same = st.shown.as_ref().is_some_and(|s| s.line == line);
        let opening = st.picking.is_some() && st.shown.is_none();
        if !same && !opening {
            st.selected = 0;
        }
        if st.closed.as_deref() != Some(line) {
            st.closed = None;
        }
        st.shown = found.map(|(start, items)| Shown {
            line: line.to_string(),
            start,
            items,
        });
        if let Some(shown) = &st.shown {
            st.selected = st.selected.min(shown.items.len().saturating_sub(1));
        }
        let columns = super::terminal::columns(1).unwrap_or(80).max(20);
        let mut rows = String::new();
        if let Some(shown) = &st.shown {
            rows.push_str(&layout(
                &shown.items,
                st.selected,
                columns,
                st.picking.is_some(),
            ));
        }
        if !st.status.is_empty() {
            rows.push('\n');
            rows.push_str(&st.status.fit(0, columns - 1));
        }
        (!rows.is_empty()).then_some(Rows(rows))
    }

    /// What `key` does on `line` with the menu as it is drawn; `None` leaves
    /// the key to the editor.
    fn key(&self, key: Key, line: &str) -> Option<Cmd> {
        let mut st = self.0.lock().ok()?;
        let picking = st.picking.is_some();
        let open = st
            .shown
            .as_ref()
            .is_some_and(|s| s.line == line && !s.items.is_empty());
        let count = st.shown.as_ref().map_or(0, |s| s.items.len());
        match key {
            Key::Esc if picking => Some(Cmd::Interrupt),
            Key::Enter | Key::Tab if picking => Some(Cmd::AcceptLine),
            Key::BackTab if picking => None,
            Key::BackTab => {
                st.cycle = true;
                Some(Cmd::AcceptLine)
            }
            Key::Esc if !open && line.is_empty() && !st.vi => {
                let now = std::time::Instant::now();
                if st
                    .esc_at_empty
                    .is_some_and(|t| now.duration_since(t) < TWICE)
                {
                    st.esc_at_empty = None;
                    st.rewind = true;
                    return Some(Cmd::AcceptLine);
                }
                st.esc_at_empty = Some(now);
                Some(Cmd::Noop)
            }
            _ if !open => None,
            Key::Up => {
                st.selected = (st.selected + count - 1) % count;
                Some(Cmd::Repaint)
            }
            Key::Down => {
                st.selected = (st.selected + 1) % count;
                Some(Cmd::Repaint)
            }
            Key::Esc => {
                st.closed = Some(line.to_string());
                Some(Cmd::Repaint)
            }
            Key::Tab | Key::Enter => {
                let shown = st.shown.as_ref()?;
                let item = shown.items.get(st.selected)?;
                let word = &line[shown.start..];
                if key == Key::Enter && item.value == word {
                    // Taken already: Enter sends the line.
                    return None;
                }
                // A folder or a server's prefix goes on being typed.
                let space = if item.value.ends_with('/') || item.value.ends_with(':') {
                    ""
                } else {
                    " "
                };
                // The word ends the line where the cursor is: a candidate
                // it starts gets the rest typed in; one it names loosely
                // replaces it.
                Some(match item.value.strip_prefix(word) {
                    Some(rest) => Cmd::Insert(1, format!("{rest}{space}")),
                    // Loose matches are commands, the line's first word
                    // (a count on BackwardChar would be the key's own).
                    None if shown.start == 0 => Cmd::Replace(
                        rustyline::Movement::BeginningOfLine,
                        Some(format!("{}{space}", item.value)),
                    ),
                    None => return None,
                })
            }
        }
    }
}

/// The rows of a menu: a window of at most [`ROWS`] entries holding the
/// selected one, values in a column, each row cut to the width.
fn layout(items: &[Item], selected: usize, columns: usize, picking: bool) -> String {
    let mut rows = String::new();
    if items.is_empty() {
        if picking {
            rows.push_str("\n  (nothing matches)");
        }
        return rows;
    }
    let first = selected.saturating_sub(ROWS - 1);
    let window = &items[first..items.len().min(first + ROWS)];
    let wide = window
        .iter()
        .map(|i| width(&i.value))
        .max()
        .unwrap_or(0)
        .min(columns / 2);
    for (n, item) in window.iter().enumerate() {
        let mark = if first + n == selected { "›" } else { " " };
        let value = cut(&item.value, wide);
        let pad = " ".repeat(wide - width(&value));
        let about = crate::util::sanitize::clean(item.about.lines().next().unwrap_or(""));
        let row = format!("{mark} {value}{pad}  {about}");
        rows.push('\n');
        rows.push_str(cut(&row, columns - 1).trim_end());
    }
    if items.len() > window.len() {
        rows.push_str(&format!("\n  … {} of {} (↑ ↓)", window.len(), items.len()));
    }
    rows
}

/// Styles the rows as drawn on a terminal: the selected entry in reverse
/// video, the status line dim (neither is a colour, so `NO_COLOR` keeps
/// them).
pub(crate) fn styled(rows: &str, has_status: bool) -> String {
    let lines: Vec<&str> = rows.split('\n').collect();
    let last = lines.len() - 1;
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if l.starts_with('›') {
                format!("\u{1b}[7m{l}\u{1b}[27m")
            } else if (has_status && i == last) || l.starts_with("  … ") {
                format!("\u{1b}[2m{l}\u{1b}[22m")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Menu {
    pub(crate) fn has_status(&self) -> bool {
        self.0.lock().is_ok_and(|st| !st.status.is_empty())
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Key {
    Up,
    Down,
    Tab,
    Enter,
    Esc,
    /// Shift-Tab: the next approval mode.
    BackTab,
}

/// A key bound to the menu: it acts when the menu is open (or a picker
/// is), and is the editor's own otherwise.
struct Bound(Arc<Menu>, Key);

impl ConditionalEventHandler for Bound {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        self.0.key(self.1, ctx.line())
    }
}

/// Binds the menu's keys in `editor`.
pub(crate) fn bind<H: rustyline::Helper, I: rustyline::history::History>(
    editor: &mut rustyline::Editor<H, I>,
    menu: &Arc<Menu>,
) {
    use rustyline::{KeyCode, KeyEvent, Modifiers};
    for (code, key) in [
        (KeyCode::Up, Key::Up),
        (KeyCode::Down, Key::Down),
        (KeyCode::Tab, Key::Tab),
        (KeyCode::Enter, Key::Enter),
        (KeyCode::Esc, Key::Esc),
        (KeyCode::BackTab, Key::BackTab),
    ] {
        editor.bind_sequence(
            KeyEvent(code, Modifiers::NONE),
            rustyline::EventHandler::Conditional(Box::new(Bound(menu.clone(), key))),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(values: &[&str]) -> Vec<Item> {
        values
            .iter()
            .map(|v| Item::new(*v, format!("about {v}")))
            .collect()
    }

    #[test]
    fn arrows_move_and_tab_takes_the_highlighted_entry() {
        let menu = Menu::default();
        let rows = menu
            .rows("/m", Some((0, items(&["/model", "/mcp"]))))
            .unwrap();
        assert!(rows.0.contains("› /model  about /model"), "{}", rows.0);
        assert_eq!(menu.key(Key::Down, "/m"), Some(Cmd::Repaint));
        let rows = menu
            .rows("/m", Some((0, items(&["/model", "/mcp"]))))
            .unwrap();
        assert!(rows.0.contains("› /mcp"), "{}", rows.0);
        assert_eq!(menu.key(Key::Tab, "/m"), Some(Cmd::Insert(1, "cp ".into())));
        // Another line: the keys are the editor's.
        assert_eq!(menu.key(Key::Down, "/mo"), None);
    }

    #[test]
    fn enter_on_a_word_already_taken_sends_and_esc_closes_until_the_line_changes() {
        let menu = Menu::default();
        assert!(menu
            .rows(
                "read @src/",
                Some((5, items(&["@src/main.rs", "@src/lib.rs"])))
            )
            .is_some());
        assert_eq!(
            menu.key(Key::Enter, "read @src/"),
            Some(Cmd::Insert(1, "main.rs ".into()))
        );
        // The only candidate, typed out: no menu, Enter sends.
        assert!(menu.rows("/help", Some((0, items(&["/help"])))).is_none());
        assert_eq!(menu.key(Key::Enter, "/help"), None);
        menu.rows("/m", Some((0, items(&["/model", "/mcp"]))));
        assert_eq!(menu.key(Key::Esc, "/m"), Some(Cmd::Repaint));
        assert!(menu
            .rows("/m", Some((0, items(&["/model", "/mcp"]))))
            .is_none());
        assert!(menu.rows("/mo", Some((0, items(&["/model"])))).is_some());
    }

    #[test]
    fn a_picker_filters_by_every_word_and_takes_the_highlighted_one() {
        let menu = Menu::default();
        menu.pick(Some(items(&["gpt-5", "gpt-5-mini", "o3"])), 2);
        let rows = menu.rows("", None).unwrap();
        assert!(rows.0.contains("› o3"), "{}", rows.0);
        assert_eq!(menu.taken(""), Some("o3".into()));
        menu.rows("gpt", None);
        assert_eq!(
            menu.taken("gpt"),
            Some("gpt-5".into()),
            "a filter highlights its first"
        );
        menu.rows("mini", None);
        assert_eq!(menu.taken("mini"), Some("gpt-5-mini".into()));
        assert_eq!(menu.key(Key::Enter, "mini"), Some(Cmd::AcceptLine));
        assert_eq!(menu.key(Key::Esc, "mini"), Some(Cmd::Interrupt));
        assert!(menu
            .rows("zzz", None)
            .unwrap()
            .0
            .contains("nothing matches"));
        assert_eq!(menu.taken("zzz"), None);
        menu.pick(None, 0);
        assert_eq!(menu.key(Key::Enter, ""), None);
    }

    #[test]
    fn a_long_list_scrolls_and_rows_fit_the_width() {
        let menu = Menu::default();
        let many: Vec<String> = (0..20).map(|i| format!("/c{i:02}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        menu.rows("/c", Some((0, items(&many))));
        for _ in 0..10 {
            menu.key(Key::Down, "/c");
        }
        let rows = menu.rows("/c", Some((0, items(&many)))).unwrap().0;
        assert!(rows.contains("› /c10"), "{rows}");
        assert!(!rows.contains("/c00"), "{rows}");
        assert!(rows.contains("… 8 of 20"), "{rows}");
        let row = layout(&[Item::new("/x", "word ".repeat(40))], 0, 40, false);
        assert!(row.lines().all(|l| width(l) < 40), "{row}");
    }

    #[test]
    fn the_status_line_is_the_last_row_and_dim() {
        let menu = Menu::default();
        menu.set_status(super::super::status::Status {
            model: "gpt-5".into(),
            context: Some("context 3%".into()),
            ..Default::default()
        });
        let rows = menu.rows("hello", None).unwrap().0;
        assert_eq!(rows, "\ngpt-5 · context 3%");
        assert_eq!(
            styled(&rows, true),
            "\n\u{1b}[2mgpt-5 · context 3%\u{1b}[22m"
        );
    }
}
