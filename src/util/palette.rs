//! The few colours hermes draws with — code, diffs, inline code — in one
//! place, so `[tui] theme = "light"` can swap them for darker ones that
//! read on a light background (the basic yellow and cyan wash out there).
//! The dark theme keeps the terminal's own basic colours, which follow the
//! person's palette.

use std::sync::atomic::{AtomicBool, Ordering};

static LIGHT: AtomicBool = AtomicBool::new(false);

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Colour {
    Red,
    Green,
    Yellow,
    Blue,
    Magenta,
    Cyan,
}

/// The theme from now on: light, or the dark default.
pub(crate) fn set_light(light: bool) {
    LIGHT.store(light, Ordering::Relaxed);
}

/// The SGR parameters of `c` in the theme in use: `32`, or `38;5;28`.
pub(crate) fn sgr(c: Colour) -> &'static str {
    if LIGHT.load(Ordering::Relaxed) {
        match c {
            Colour::Red => "38;5;124",
            Colour::Green => "38;5;28",
            Colour::Yellow => "38;5;130",
            Colour::Blue => "38;5;19",
            Colour::Magenta => "38;5;90",
            Colour::Cyan => "38;5;24",
        }
    } else {
        match c {
            Colour::Red => "31",
            Colour::Green => "32",
            Colour::Yellow => "33",
            Colour::Blue => "34",
            Colour::Magenta => "35",
            Colour::Cyan => "36",
        }
    }
}

/// The escape that starts `c`.
pub(crate) fn start(c: Colour) -> String {
    format!("\u{1b}[{}m", sgr(c))
}
