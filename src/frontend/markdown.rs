//! The model's Markdown rendered for a terminal, as it streams: each line is
//! rendered once it is complete — headings bold, list bullets, quotes, code
//! blocks set apart (dim, no Markdown inside), and inline emphasis, strong,
//! `code` and links (inline spans by `pulldown-cmark`). Only on a terminal
//! that wants colour; elsewhere the text goes out as it came. The input is
//! already sanitised, so the only escape sequences are hermes' own.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

const BOLD: &str = "\u{1b}[1m";
const ITALIC: &str = "\u{1b}[3m";
const UNDERLINE: &str = "\u{1b}[4m";
const DIM: &str = "\u{1b}[2m";
const CYAN: &str = "\u{1b}[36m";
const RESET: &str = "\u{1b}[0m";

#[derive(Debug, Default)]
pub(crate) struct Markdown {
    /// The line still being received.
    pending: String,
    /// Inside a fenced code block: its fence.
    fence: Option<String>,
}

/// Whether output should be styled: stdout a terminal, `NO_COLOR` unset,
/// `TERM` not `dumb`.
pub(crate) fn wanted(stdout_is_terminal: bool) -> bool {
    stdout_is_terminal
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

impl Markdown {
    /// The rendered complete lines of what has come so far.
    pub(crate) fn push(&mut self, text: &str) -> String {
        self.pending.push_str(text);
        let mut out = String::new();
        while let Some(i) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=i).collect();
            out.push_str(&self.line(line.trim_end_matches('\n')));
            out.push('\n');
        }
        out
    }

    /// The rest, at the end of an answer.
    pub(crate) fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        self.fence = None;
        if rest.is_empty() {
            String::new()
        } else {
            self.line(&rest)
        }
    }

    fn line(&mut self, line: &str) -> String {
        let trimmed = line.trim_start();
        if let Some(fence) = &self.fence {
            if trimmed.starts_with(fence.as_str()) {
                self.fence = None;
                return format!("{DIM}{line}{RESET}");
            }
            return format!("{CYAN}{line}{RESET}");
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let fence: String = trimmed
                .chars()
                .take_while(|c| *c == '`' || *c == '~')
                .collect();
            self.fence = Some(fence);
            return format!("{DIM}{line}{RESET}");
        }
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(rest) = heading(trimmed) {
            return format!("{indent}{BOLD}{UNDERLINE}{}{RESET}", inline(rest));
        }
        if let Some(rest) = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "))
            .or_else(|| trimmed.strip_prefix("+ "))
        {
            return format!("{indent}• {}", inline(rest));
        }
        if let Some(rest) = trimmed
            .strip_prefix("> ")
            .or_else(|| trimmed.strip_prefix('>'))
        {
            return format!("{indent}{DIM}│{RESET} {}", inline(rest));
        }
        if trimmed == "---" || trimmed == "***" {
            return format!("{DIM}{}{RESET}", "─".repeat(40));
        }
        format!("{indent}{}", inline(trimmed))
    }
}

fn heading(line: &str) -> Option<&str> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    ((1..=6).contains(&hashes))
        .then(|| line[hashes..].strip_prefix(' '))
        .flatten()
}

/// Inline spans of one line: emphasis, strong, code, links.
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut link: Option<String> = None;
    for ev in Parser::new(text) {
        match ev {
            Event::Text(t) => out.push_str(&t),
            Event::Code(c) => out.push_str(&format!("{CYAN}{c}{RESET}")),
            Event::Start(Tag::Emphasis) => out.push_str(ITALIC),
            Event::Start(Tag::Strong) => out.push_str(BOLD),
            Event::End(TagEnd::Emphasis | TagEnd::Strong) => out.push_str(RESET),
            Event::Start(Tag::Link { dest_url, .. }) => {
                out.push_str(UNDERLINE);
                link = Some(dest_url.to_string());
            }
            Event::End(TagEnd::Link) => {
                out.push_str(RESET);
                if let Some(url) = link.take() {
                    out.push_str(&format!(" ({url})"));
                }
            }
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            // A line that is not Markdown text (an HTML tag, …) as it came.
            Event::Html(h) | Event::InlineHtml(h) => out.push_str(&h),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(s: &str) -> String {
        let mut m = Markdown::default();
        let mut out = m.push(s);
        out.push_str(&m.finish());
        out
    }

    #[test]
    fn blocks_and_spans_are_rendered_for_a_terminal() {
        let got = render(
            "# Title\n- one **bold**\n> quoted *it*\nrun `cargo test` and see [docs](https://x.y)\n```rust\nlet *x* = 1;\n```\ndone",
        );
        assert_eq!(
            got,
            "\u{1b}[1m\u{1b}[4mTitle\u{1b}[0m\n\
             • one \u{1b}[1mbold\u{1b}[0m\n\
             \u{1b}[2m│\u{1b}[0m quoted \u{1b}[3mit\u{1b}[0m\n\
             run \u{1b}[36mcargo test\u{1b}[0m and see \u{1b}[4mdocs\u{1b}[0m (https://x.y)\n\
             \u{1b}[2m```rust\u{1b}[0m\n\
             \u{1b}[36mlet *x* = 1;\u{1b}[0m\n\
             \u{1b}[2m```\u{1b}[0m\n\
             done"
        );
    }

    #[test]
    fn lines_are_rendered_once_whole_whatever_the_pieces() {
        let mut m = Markdown::default();
        let mut out = String::new();
        for piece in ["# Ti", "tle\n- a", "b\n", "tail"] {
            out.push_str(&m.push(piece));
        }
        out.push_str(&m.finish());
        assert_eq!(out, render("# Title\n- ab\ntail"));
    }
}
