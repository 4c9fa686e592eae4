//! The one way hermes writes a line for a person on stderr: escape and
//! control sequences out (what servers, models and config files wrote must
//! not drive the terminal), secrets masked, and a closed stderr
//! (`2>&1 | head`) no reason to fail.

use std::io::Write;

/// Writes `text` and a newline to stderr, made safe.
pub(crate) fn line(text: &str) {
    let safe = super::sanitize::clean(&super::secrets::mask(text));
    let _ = writeln!(std::io::stderr(), "{safe}");
}

/// A line of what a person decides on (an approval question, a refusal's
/// arguments): escape sequences out, but only the secret values hermes
/// holds masked — a pattern hidden there could hide a payload.
pub(crate) fn decided(text: &str) {
    let safe = super::sanitize::clean(&super::secrets::mask_known(text));
    let _ = writeln!(std::io::stderr(), "{safe}");
}

/// One of hermes' own control sequences (a terminal mode on or off),
/// written as it is: never text from outside.
pub(crate) fn raw(sequence: &'static str) {
    let mut err = std::io::stderr();
    let _ = err.write_all(sequence.as_bytes());
    let _ = err.flush();
}

/// Takes the last `rows` rows off the screen: the cursor goes up to the
/// first of them, and everything from there down is cleared.
pub(crate) fn erase_rows_above(rows: usize) {
    let mut err = std::io::stderr();
    let _ = write!(err, "\u{1b}[{rows}A\r\u{1b}[J");
    let _ = err.flush();
}

/// `warning: …`
pub(crate) fn warn(message: &str) {
    line(&format!("warning: {message}"));
}

/// Whether hermes' own colours go to stderr: a terminal that wants them.
pub(crate) fn colours() -> bool {
    use std::io::IsTerminal;
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        std::io::stderr().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && std::env::var("TERM").map_or(true, |t| t != "dumb")
    })
}

/// One line of a unified diff: added lines green, removed red, hunk
/// headers cyan — the colours hermes' own, the text made safe first (as
/// what a person decides on: only held secrets masked).
pub(crate) fn diff_line(indent: &str, text: &str) {
    let safe = super::sanitize::clean(&super::secrets::mask_known(text));
    use super::palette::{sgr, Colour};
    let colour = match safe.as_bytes().first() {
        _ if !colours() => None,
        Some(b'+') if !safe.starts_with("+++") => Some(sgr(Colour::Green)),
        Some(b'-') if !safe.starts_with("---") => Some(sgr(Colour::Red)),
        Some(b'@') => Some(sgr(Colour::Cyan)),
        _ => None,
    };
    let _ = match colour {
        Some(c) => writeln!(std::io::stderr(), "{indent}\x1b[{c}m{safe}\x1b[0m"),
        None => writeln!(std::io::stderr(), "{indent}{safe}"),
    };
}
