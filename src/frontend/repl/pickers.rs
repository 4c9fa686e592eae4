//! Pickers: `/model` and `/resume` with nothing after them open the menu
//! over the models the provider lists or the sessions kept, the line typed
//! its filter. What the sessions look like in the menu and the picker (id,
//! title, age, folder when not this one) is here too.

use std::path::Path;
use std::sync::Mutex;

use super::context::ReplError;
use super::editor::{next_line, Editor};
use crate::frontend::menu::Item;

/// Lets the person pick one of `items` (`selected` highlighted first);
/// `None` when they take none (Esc, Ctrl-C, Ctrl-D, or a filter nothing
/// matches).
pub(super) async fn pick(
    editor: Editor,
    title: &str,
    prompt: &str,
    items: Vec<Item>,
    selected: usize,
) -> Result<(Editor, Option<String>), ReplError> {
    let Some(menu) = editor.helper().map(|h| h.menu.clone()) else {
        return Ok((editor, None));
    };
    errln!("{title} (type to filter · ↑ ↓ move · Enter takes · Esc takes none)");
    menu.pick(Some(items), selected);
    // Not a line queued during the last turn: the filter is typed here.
    let none_queued = Mutex::new(Vec::new());
    let (editor, line) = next_line(editor, &none_queued, prompt.to_string(), None).await?;
    let taken = line.ok().and_then(|l| menu.taken(&l));
    menu.pick(None, 0);
    Ok((editor, taken))
}

/// The sessions as the menu lists them, newest first, those of `cwd`
/// before the others, without `except` (the one open).
pub(super) fn sessions(dir: &Path, cwd: &Path, except: &str) -> Vec<Item> {
    let here = cwd.to_string_lossy();
    let now = std::time::SystemTime::now();
    let (mut mine, others): (Vec<_>, Vec<_>) = crate::session::list(dir)
        .into_iter()
        .filter(|s| s.meta.id != except)
        .partition(|s| s.meta.cwd == here);
    mine.extend(others);
    mine.into_iter()
        .map(|s| {
            let used = std::fs::metadata(&s.path).and_then(|m| m.modified()).ok();
            let age = used
                .and_then(|t| now.duration_since(t).ok())
                .map_or_else(String::new, |d| format!(" · {}", ago(d)));
            let title = crate::util::sanitize::clean(&crate::util::text::excerpt(&s.title, 60));
            let title = if title.is_empty() {
                "(no message)".to_string()
            } else {
                title
            };
            let folder = if s.meta.cwd == here {
                String::new()
            } else {
                format!(" · {}", s.meta.cwd)
            };
            Item::new(s.meta.id, format!("{title}{age}{folder}"))
        })
        .collect()
}

/// `d` the way a list of sessions says it: `40 s ago`, `3 min ago`,
/// `5 h ago`, `2 days ago`.
pub(super) fn ago(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        86_400..172_800 => "1 day ago".to_string(),
        _ => format!("{} days ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn ages_read_as_a_person_says_them() {
        assert_eq!(ago(Duration::from_secs(40)), "40 s ago");
        assert_eq!(ago(Duration::from_secs(185)), "3 min ago");
        assert_eq!(ago(Duration::from_secs(5 * 3600 + 7)), "5 h ago");
        assert_eq!(ago(Duration::from_secs(86_400 + 5)), "1 day ago");
        assert_eq!(ago(Duration::from_secs(9 * 86_400)), "9 days ago");
    }
}
