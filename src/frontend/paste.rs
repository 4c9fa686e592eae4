//! A paste of several lines at the prompt: the line shows `[pasted N
//! lines]` where it went, and the text is held until the line is sent,
//! then put back in the placeholder's place — so a long log or diff is sent
//! whole without filling the editor (and the screen) line by line. A paste
//! of one line goes in as it is, unless it holds an `@`: what the person
//! typed is the line with its placeholders, and only an `@` typed attaches
//! a file (a pasted log's `@/etc/passwd` must not). A paste that is nothing
//! but the path of an image file (what a terminal pastes when a file is
//! dropped on it) shows as `[image NAME]` and attaches that image.

use std::path::PathBuf;
use std::sync::Mutex;

/// The pastes held for the line being edited: (placeholder, text).
static HELD: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// The image paths pasted for the line being edited: (placeholder, path).
static IMAGES: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());

/// What the line editor inserts for a paste (its paste hook).
pub(super) fn hold(text: String) -> String {
    let text = text.strip_suffix('\n').unwrap_or(&text).to_string();
    if let Some(path) = image_path(&text) {
        if let Ok(mut images) = IMAGES.lock() {
            let name = path
                .file_name()
                .map(|n| crate::util::sanitize::clean(&n.to_string_lossy()))
                .unwrap_or_default();
            let placeholder = match images.len() {
                0 => format!("[image {name}]"),
                n => format!("[image {name} #{}]", n + 1),
            };
            images.push((placeholder.clone(), path));
            return placeholder;
        }
    }
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

/// The image paths pasted into `line`, to attach as it is sent; each is
/// let go. Their placeholders stay in the text, where the images were.
pub(super) fn images(line: &str) -> Vec<(String, PathBuf)> {
    let Ok(mut images) = IMAGES.lock() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    images.retain(|(placeholder, path)| {
        if !line.contains(placeholder.as_str()) {
            return true;
        }
        out.push((placeholder.clone(), path.clone()));
        false
    });
    out
}

/// Lets every held paste go (a line given up with Ctrl-C).
pub(super) fn forget() {
    if let Ok(mut held) = HELD.lock() {
        held.clear();
    }
    if let Ok(mut images) = IMAGES.lock() {
        images.clear();
    }
}

/// The image file a paste names, when the paste is one path and nothing
/// else, in the forms terminals paste a dropped file in: plain, quoted
/// (`'/a b/shot.png'`), with escaped spaces (`/a\ b/shot.png`), or as a
/// `file://` URL. An image is known by its first bytes, not its name.
fn image_path(text: &str) -> Option<PathBuf> {
    let t = text.trim();
    if t.is_empty() || t.contains('\n') {
        return None;
    }
    let t = t.strip_prefix("file://").unwrap_or(t);
    let unquoted = ['\'', '"']
        .iter()
        .find_map(|q| t.strip_prefix(*q)?.strip_suffix(*q));
    let path = match unquoted {
        Some(p) => p.to_string(),
        None => {
            let mut out = String::with_capacity(t.len());
            let mut chars = t.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => out.extend(chars.next()),
                    // A bare space: words, not one path.
                    ' ' if !t.starts_with("/") && !t.starts_with('~') => return None,
                    c => out.push(c),
                }
            }
            out.replace("%20", " ")
        }
    };
    let path = crate::util::path::expand_home(&path);
    let mut head = [0u8; 16];
    let n = std::io::Read::read(&mut std::fs::File::open(&path).ok()?, &mut head).ok()?;
    crate::model::Image::sniff(&head[..n])?;
    Some(path)
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

    #[test]
    fn a_pasted_image_path_is_held_as_an_image_in_the_forms_terminals_paste() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("my shot.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        let text = dir.path().join("notes.png");
        std::fs::write(&text, "not an image").unwrap();
        let p = png.display().to_string();
        for pasted in [
            format!("'{p}'"),
            format!("\"{p}\"\n"),
            p.replace(' ', "\\ "),
            format!("file://{}", p.replace(' ', "%20")),
        ] {
            assert_eq!(image_path(&pasted), Some(png.clone()), "{pasted}");
        }
        assert_eq!(
            image_path(&p),
            Some(png.clone()),
            "an absolute path with a space"
        );
        assert_eq!(
            image_path(&text.display().to_string()),
            None,
            "a name is not enough"
        );
        assert_eq!(image_path(&format!("look at {p}")), None);
        let a = hold(format!("'{p}'"));
        let b = hold(format!("'{p}'"));
        assert_eq!(
            (a.as_str(), b.as_str()),
            ("[image my shot.png]", "[image my shot.png #2]")
        );
        assert_eq!(release(&format!("what is {a}?")), format!("what is {a}?"));
        assert_eq!(
            images(&format!("what is {a}?")),
            vec![(a.clone(), png.clone())]
        );
        assert!(images(&a).is_empty(), "let go once sent");
        forget();
        assert!(images(&b).is_empty(), "and on Ctrl-C");
    }
}
