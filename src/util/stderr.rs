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

/// `warning: …`
pub(crate) fn warn(message: &str) {
    line(&format!("warning: {message}"));
}
