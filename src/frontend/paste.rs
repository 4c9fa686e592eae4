//! A paste of several lines at the prompt: the line shows `[pasted N
//! lines]` where it went, and the text is held until the line is sent,
//! then put back in the placeholder's place — so a long log or diff is sent
//! whole without filling the editor (and the screen) line by line. A paste
//! of one line goes in as it is, unless it holds an `@`: what the person
//! typed is the line with its placeholders, and only an `@` typed attaches
//! a file (a pasted log's `@/etc/passwd` must not).

use std::sync::Mutex;

/// The pastes held for the line being edited: (placeholder, text).
static HELD: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// What the line editor inserts for a paste (its paste hook).
pub(super) fn hold(text: String) -> String {
    let text = text.strip_suffix('\n').unwrap_or(&text).to_string();
    let lines = text.lines().count();
    if lines < 2 && !text.contains('@') {
        return text;
    }
    let Ok(mut held) = HELD.lock() else {
        return text;
    };
    let what = if lines == 1 {
        "1 line".to_string()
    } else {
        format!("{lines} lines")
    };
    let placeholder = match held.len() {
        0 => format!("[pasted {what}]"),
        n => format!("[pasted {what} #{}]", n + 1),
    };
    held.push((placeholder.clone(), text));
    placeholder
}

/// `line` as sent: each placeholder in it replaced by its paste, which is
/// let go. Pastes of lines still queued keep theirs until they are sent.
pub(super) fn release(line: &str) -> String {
    let Ok(mut held) = HELD.lock() else {
        return line.to_string();
    };
    let mut out = line.to_string();
    held.retain(|(placeholder, text)| {
        if !line.contains(placeholder.as_str()) {
            return true;
        }
        out = out.replacen(placeholder.as_str(), text, 1);
        false
    });
    out
}

/// Lets every held paste go (a line given up with Ctrl-C).
pub(super) fn forget() {
    if let Ok(mut held) = HELD.lock() {
        held.clear();
    }
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
        // One line with an `@` is held too: it was not typed.
        let c = hold("see @/etc/passwd".into());
        assert_eq!(c, "[pasted 1 line]");
        let d = hold("x\ny".into());
        assert_eq!(release(&d), "x\ny", "one line's paste only");
        assert_eq!(release(&c), "see @/etc/passwd", "the other kept till sent");
    }
}
