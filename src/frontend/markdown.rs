//! The model's Markdown rendered for a terminal, as it streams: each line is
//! rendered once it is complete — headings bold, list bullets, quotes, code
//! blocks set apart (dim, no Markdown inside), and inline emphasis, strong,
//! `code` and links (inline spans by `pulldown-cmark`). Only on a terminal
//! that wants colour; elsewhere the text goes out as it came. The input is
//! already sanitised, so the only escape sequences are hermes' own.

use std::sync::OnceLock;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxSet};

const BOLD: &str = "\u{1b}[1m";
const ITALIC: &str = "\u{1b}[3m";
const UNDERLINE: &str = "\u{1b}[4m";
const DIM: &str = "\u{1b}[2m";
const CYAN: &str = "\u{1b}[36m";
const RESET: &str = "\u{1b}[0m";

#[derive(Default)]
pub(crate) struct Markdown {
    /// The line still being received.
    pending: String,
    /// Inside a fenced code block: its fence, and its highlighter when the
    /// block names a language syntect knows.
    fence: Option<(String, Option<Code>)>,
}

/// Syntax highlighting of one code block (syntect's grammars, loaded the
/// first time a block needs them — never at start-up), coloured by scope
/// with the terminal's own 16 colours rather than a theme.
struct Code {
    parse: ParseState,
    stack: ScopeStack,
}

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

impl Code {
    fn for_language(lang: &str) -> Option<Code> {
        let lang = lang.trim();
        if lang.is_empty() {
            return None;
        }
        let syntax = syntaxes().find_syntax_by_token(lang)?;
        Some(Code {
            parse: ParseState::new(syntax),
            stack: ScopeStack::new(),
        })
    }

    fn line(&mut self, line: &str) -> String {
        let with_nl = format!("{line}\n");
        let Ok(ops) = self.parse.parse_line(&with_nl, syntaxes()) else {
            return format!("{CYAN}{line}{RESET}");
        };
        let mut out = String::new();
        let mut at = 0;
        for (i, op) in ops {
            let i = i.min(line.len());
            if i > at {
                out.push_str(&paint(&self.stack, &line[at..i]));
                at = i;
            }
            let _ = self.stack.apply(&op);
        }
        if at < line.len() {
            out.push_str(&paint(&self.stack, &line[at..]));
        }
        out
    }
}

/// One token in the colour of its innermost scope that has one.
fn paint(stack: &ScopeStack, text: &str) -> String {
    let colour = stack.as_slice().iter().rev().find_map(|s: &Scope| {
        let name = s.build_string();
        let starts = |p: &str| name.starts_with(p);
        Some(if starts("comment") {
            DIM
        } else if starts("string") {
            "\u{1b}[32m"
        } else if starts("constant.numeric") || starts("constant.language") {
            "\u{1b}[33m"
        } else if starts("keyword") || starts("storage") {
            "\u{1b}[35m"
        } else if starts("entity.name.function") || starts("support.function") {
            "\u{1b}[34m"
        } else if starts("entity.name.type") || starts("support.type") {
            CYAN
        } else {
            return None;
        })
    });
    match colour {
        Some(c) => format!("{c}{text}{RESET}"),
        None => text.to_string(),
    }
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
        if let Some((fence, code)) = &mut self.fence {
            if trimmed.starts_with(fence.as_str()) {
                self.fence = None;
                return format!("{DIM}{line}{RESET}");
            }
            return match code {
                Some(c) => c.line(line),
                None => format!("{CYAN}{line}{RESET}"),
            };
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let fence: String = trimmed
                .chars()
                .take_while(|c| *c == '`' || *c == '~')
                .collect();
            let lang = trimmed[fence.len()..]
                .split_whitespace()
                .next()
                .unwrap_or("");
            self.fence = Some((fence, Code::for_language(lang)));
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
        if let Some((number, rest)) = ordered_item(trimmed) {
            return format!("{indent}{number} {}", inline(rest));
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
        // A line the inline parser reads as an empty block ("1.", "-")
        // is shown as it came, never dropped.
        match inline(trimmed) {
            out if out.is_empty() => format!("{indent}{trimmed}"),
            out => format!("{indent}{out}"),
        }
    }
}

fn heading(line: &str) -> Option<&str> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    ((1..=6).contains(&hashes))
        .then(|| line[hashes..].strip_prefix(' '))
        .flatten()
}

/// `12. text` or `3) text`: the marker and the text (the inline parser
/// would take the marker for a list and drop it).
fn ordered_item(line: &str) -> Option<(&str, &str)> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let marker = line.as_bytes().get(digits)?;
    if !(1..=9).contains(&digits) || !matches!(marker, b'.' | b')') {
        return None;
    }
    // The marker is ASCII, so `digits + 1` is a character boundary.
    let rest = line[digits + 1..].strip_prefix(' ')?;
    Some((&line[..=digits], rest))
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
            "# Title\n- one **bold**\n> quoted *it*\nrun `cargo test` and see [docs](https://x.y)\n```text\nlet *x* = 1;\n```\ndone",
        );
        assert_eq!(
            got,
            "\u{1b}[1m\u{1b}[4mTitle\u{1b}[0m\n\
             • one \u{1b}[1mbold\u{1b}[0m\n\
             \u{1b}[2m│\u{1b}[0m quoted \u{1b}[3mit\u{1b}[0m\n\
             run \u{1b}[36mcargo test\u{1b}[0m and see \u{1b}[4mdocs\u{1b}[0m (https://x.y)\n\
             \u{1b}[2m```text\u{1b}[0m\n\
             \u{1b}[36mlet *x* = 1;\u{1b}[0m\n\
             \u{1b}[2m```\u{1b}[0m\n\
             done"
        );
    }

    #[test]
    fn a_code_block_in_a_known_language_is_highlighted() {
        let got = render("```rust\nfn main() { let s = \"hi\"; } // note\n```\n");
        assert!(got.contains("\u{1b}[35mfn\u{1b}[0m"), "{got:?}");
        assert!(got.contains("\u{1b}[32m"), "a string colour: {got:?}");
        assert!(got.contains("\u{1b}[2m//"), "a comment dimmed: {got:?}");
        assert!(!got.contains("```rust\nfn"), "{got:?}");
    }

    /// A whole answer as a terminal gets it, escapes shown as `⎋`.
    #[test]
    fn a_typical_answer_renders_as_in_the_snapshot() {
        let answer = "## Why the test fails\n\n\
            The fixture is read **before** the server starts, so `load()` sees an *empty* file.\n\n\
            1. Move the read after `start()`.\n\
            2. Keep the timeout:\n\
            - at most **5 s**\n\
            - and a `CancellationToken`\n\n\
            > Note: the flaky run was on CI only.\n\n\
            ```rust\n\
            let server = start(&config).await?;\n\
            let data = load(\"fixture.json\")?; // now ready\n\
            ```\n\n\
            ```\n\
            plain <text> with *stars*\n\
            ```\n\
            ---\n\
            See [the docs](https://example.org/docs) for more.";
        insta::assert_snapshot!(render(answer).replace('\u{1b}', "⎋"));
    }

    #[test]
    fn lines_that_open_with_any_character_render() {
        for line in [
            "→ next",
            "✅ Done",
            "é",
            "3× faster",
            "中文",
            "12",
            "1.",
            "2) two",
        ] {
            let got = render(line);
            assert!(got.contains(line), "{line:?} → {got:?}");
        }
        assert_eq!(render("2) two"), "2) two");
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
