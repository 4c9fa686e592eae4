//! A paste of several lines at the prompt: the line shows `[pasted N
//! lines]` where it went, and the text is held until the line is sent,
//! then put back in the placeholder's place — so a long log or diff is sent
//! whole without filling the editor (and the screen) line by line. A paste
//! of one line goes in as it is.

use std::sync::Mutex;

/// The pastes held for the line being edited: (placeholder, text).
static HELD: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// What the line editor inserts for a paste (its paste hook).
pub(super) fn hold(text: String) -> String {
    let text = text.strip_suffix('\n').unwrap_or(&text).to_string();
    let lines = text.lines().count();
    if lines < 2 {
        return text;
    }
    let Ok(mut held) = HELD.lock() else {
        return text;
    };
    let placeholder = match held.len() {
        0 => format!("[pasted {lines} lines]"),
        n => format!("[pasted {lines} lines #{}]", n + 1),
    };
    held.push((placeholder.clone(), text));
    placeholder
}

/// `line` as sent: each placeholder still in it replaced by its paste.
/// The pastes are let go (a placeholder deleted in the editor drops its
/// paste).
pub(super) fn release(line: &str) -> String {
    let held = HELD
        .lock()
        .map(|mut h| std::mem::take(&mut *h))
        .unwrap_or_default();
    let mut out = line.to_string();
    for (placeholder, text) in held {
        out = out.replacen(&placeholder, &text, 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paste_of_lines_is_held_and_put_back_when_sent() {
        assert_eq!(hold("one line".into()), "one line");
        let a = hold("error: one\nerror: two\n".into());
        let b = hold("x\ny\nz".into());
        assert_eq!(a, "[pasted 2 lines]");
        assert_eq!(b, "[pasted 3 lines #2]");
        assert_eq!(
            release(&format!("why {a} and {b}?")),
            "why error: one\nerror: two and x\ny\nz?"
        );
        assert_eq!(
            release("[pasted 2 lines]"),
            "[pasted 2 lines]",
            "let go once sent"
        );
    }
}
