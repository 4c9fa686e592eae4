//! The model's Markdown rendered for a terminal, as it streams: each line is
//! rendered once it is complete — headings bold, list bullets, quotes, code
//! blocks set apart (dim, no Markdown inside), and inline emphasis, strong,
//! `code` and links (inline spans by `pulldown-cmark`). Only on a terminal;
//! elsewhere the text goes out as it came. `NO_COLOR` takes the colours
//! away, not the layout: wrapping, tables, bullets and bold stay. Tabs
//! become spaces to the next stop of four, so widths are what the
//! terminal shows. The input is already sanitised, so the only escape
//! sequences are hermes' own.

mod code;
mod render;
mod style;
mod table;
mod wrap;

pub(crate) use render::{fields_to_stderr, fit_to_stderr, no_colour, wanted, Markdown};
