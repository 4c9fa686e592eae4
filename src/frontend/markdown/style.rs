//! The escape sequences the renderer and its parts (code, tables, wrapping)
//! set text in: one leaf they all read, so none of them reaches back into
//! the renderer for a colour.

pub(super) const BOLD: &str = "\u{1b}[1m";
pub(super) const ITALIC: &str = "\u{1b}[3m";
pub(super) const UNDERLINE: &str = "\u{1b}[4m";
pub(super) const DIM: &str = "\u{1b}[2m";
pub(super) const STRIKE: &str = "\u{1b}[9m";
pub(super) const RESET: &str = "\u{1b}[0m";

/// Inline code and code without a known language, in the theme's cyan.
pub(super) fn cyan() -> String {
    crate::util::palette::start(crate::util::palette::Colour::Cyan)
}
