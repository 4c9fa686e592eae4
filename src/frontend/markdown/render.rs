//! The renderer: the model's Markdown laid out line by line as it streams,
//! and hermes' own long lines fitted to the terminal.

use super::code::Code;
use super::style::{cyan, BOLD, DIM, ITALIC, RESET, STRIKE, UNDERLINE};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

#[derive(Default)]
pub(crate) struct Markdown {
    /// The line still being received.
    pending: String,
    /// Inside a fenced code block: its fence, and its highlighter when the
    /// block names a language syntect knows.
    fence: Option<(String, Option<Code>)>,
    /// Rows of a table still coming: drawn once it ends, when its column
    /// widths are known.
    table: Vec<String>,
    /// The terminal's width: text is wrapped to it (0: not wrapped).
    columns: usize,
    /// Colours left out (`NO_COLOR`): styles that are not colour stay.
    no_colour: bool,
}

/// `text` broken at spaces into lines at most as wide as the terminal on
/// stderr (as it is when stderr is no terminal), the first starting with
/// `first`, the others with `rest`: hermes' own long lines (a question's
/// answers, a tool list) never wrap mid-word.
pub(crate) fn fit_to_stderr(text: &str, first: &str, rest: &str) -> Vec<String> {
    super::wrap::wrap(
        text,
        crate::frontend::terminal::columns(2).unwrap_or(0),
        first,
        rest,
    )
}

/// `fields` joined by `sep` into lines at most as wide as the terminal on
/// stderr, broken only between fields (the separator left out there, the
/// next line starting with `rest`); a field too wide for a line of its own
/// is broken at spaces. A banner or a question's first line never breaks
/// inside a name.
pub(crate) fn fields_to_stderr(fields: &[String], sep: &str, rest: &str) -> Vec<String> {
    fields_to(
        fields,
        sep,
        rest,
        crate::frontend::terminal::columns(2).unwrap_or(0),
    )
}

/// [`fields_to_stderr`] for `columns` (0: one line).
fn fields_to(fields: &[String], sep: &str, rest: &str, columns: usize) -> Vec<String> {
    use crate::util::text::columns_of as width;
    if columns == 0 {
        return vec![fields.join(sep)];
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for field in fields {
        let joined = format!("{line}{sep}{field}");
        if !line.is_empty() && width(&joined) <= columns {
            line = joined;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        let start = if lines.is_empty() { "" } else { rest };
        let alone = format!("{start}{field}");
        if width(&alone) <= columns {
            line = alone;
        } else {
            let mut broken = super::wrap::wrap(field, columns, start, rest);
            line = broken.pop().unwrap_or_default();
            lines.extend(broken);
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Whether output should be laid out for a terminal: stdout one, `TERM`
/// not `dumb`.
pub(crate) fn wanted(stdout_is_terminal: bool) -> bool {
    stdout_is_terminal && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// Whether `NO_COLOR` asks for no colour (set and not empty).
pub(crate) fn no_colour() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// The width of a tab stop when tabs are laid out as spaces.
const TAB: usize = 4;

/// `line` with each tab as the spaces to the next stop.
fn expand_tabs(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\t') {
        return line.into();
    }
    let mut out = String::with_capacity(line.len() + TAB);
    let mut column = 0;
    for c in line.chars() {
        if c == '\t' {
            let n = TAB - column % TAB;
            out.extend(std::iter::repeat_n(' ', n));
            column += n;
        } else {
            out.push(c);
            column += super::wrap::width(c.encode_utf8(&mut [0; 4]));
        }
    }
    out.into()
}

/// `text` without its colour sequences (SGR 30–49, 90–107 and the 38/48
/// extended forms); bold, dim, italic, underline, strike and reset stay.
fn strip_colour(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('m') else {
            out.push_str(&rest[at..]);
            return out;
        };
        let params = &after[..end];
        let kept: Vec<&str> = style_params(params);
        if !kept.is_empty() {
            out.push_str(&format!("\u{1b}[{}m", kept.join(";")));
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The parameters of one SGR sequence that are not colour.
fn style_params(params: &str) -> Vec<&str> {
    let mut kept = Vec::new();
    let mut it = params.split(';');
    while let Some(p) = it.next() {
        match p.parse::<u32>() {
            // 38;5;n and 38;2;r;g;b (and 48): skip their arguments.
            Ok(38 | 48) => match it.next() {
                Some("5") => {
                    it.next();
                }
                Some("2") => {
                    it.nth(2);
                }
                _ => {}
            },
            Ok(30..=49 | 90..=107) => {}
            _ => kept.push(p),
        }
    }
    kept
}

impl Markdown {
    /// Rendering for a terminal `columns` wide (0: no wrapping).
    pub(crate) fn new(columns: usize) -> Markdown {
        Markdown {
            columns,
            ..Markdown::default()
        }
    }

    /// The terminal's width from now on (it was resized).
    pub(crate) fn set_columns(&mut self, columns: usize) {
        self.columns = columns;
    }

    /// Rendering without colours (`NO_COLOR`).
    pub(crate) fn without_colour(mut self) -> Markdown {
        self.no_colour = true;
        self
    }

    fn coloured(&self, out: String) -> String {
        if self.no_colour {
            strip_colour(&out)
        } else {
            out
        }
    }

    /// The rendered complete lines of what has come so far.
    pub(crate) fn push(&mut self, text: &str) -> String {
        self.pending.push_str(text);
        let mut out = String::new();
        while let Some(i) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=i).collect();
            let line = expand_tabs(line.trim_end_matches('\n')).into_owned();
            out.push_str(&self.feed(&line));
        }
        self.coloured(out)
    }

    /// The rest, at the end of an answer (a last line without its newline
    /// is given without one).
    pub(crate) fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        let tail = if rest.is_empty() {
            String::new()
        } else {
            self.feed(&expand_tabs(&rest))
        };
        let table = self.flush_table();
        self.fence = None;
        let out = if table.is_empty() {
            tail.strip_suffix('\n').unwrap_or(&tail).to_string()
        } else {
            tail + &table
        };
        self.coloured(out)
    }

    /// One complete line in: what it, and a table it ends, render to (each
    /// line with its newline); nothing while a table's rows come.
    fn feed(&mut self, line: &str) -> String {
        if self.fence.is_none() && super::table::is_row(line) {
            self.table.push(line.to_string());
            return String::new();
        }
        let mut out = self.flush_table();
        for l in self.line(line) {
            out.push_str(&l);
            out.push('\n');
        }
        out
    }

    /// The table whose rows have come, drawn — or, when they are no table,
    /// each row as a line.
    fn flush_table(&mut self) -> String {
        if self.table.is_empty() {
            return String::new();
        }
        let rows = std::mem::take(&mut self.table);
        if let Some(drawn) = super::table::render(&rows, self.columns, inline) {
            return drawn;
        }
        let mut out = String::new();
        for r in rows {
            for l in self.line(&r) {
                out.push_str(&l);
                out.push('\n');
            }
        }
        out
    }

    /// One line as the terminal shows it: one or more lines when wrapped.
    fn line(&mut self, line: &str) -> Vec<String> {
        let trimmed = line.trim_start();
        if let Some((fence, code)) = &mut self.fence {
            if trimmed.starts_with(fence.as_str()) {
                self.fence = None;
                return vec![format!("{DIM}{line}{RESET}")];
            }
            return vec![match code {
                Some(c) => c.line(line),
                None => format!("{}{line}{RESET}", cyan()),
            }];
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
            return vec![format!("{DIM}{line}{RESET}")];
        }
        let indent = &line[..line.len() - trimmed.len()];
        let fill = |text: String, first: &str, rest: &str| {
            super::wrap::wrap(
                &text,
                self.columns,
                &format!("{indent}{first}"),
                &format!("{indent}{rest}"),
            )
        };
        if let Some(rest) = heading(trimmed) {
            // A numbered heading keeps its number (`## 1. Steps`).
            // Its style is taken up again after each span in it ends.
            let style = format!("{BOLD}{UNDERLINE}");
            let text = match ordered_item(rest) {
                Some((number, rest)) => format!("{number} {}", inline_in(rest, &style)),
                None => inline_in(rest, &style),
            };
            return fill(format!("{style}{text}{RESET}"), "", "");
        }
        if let Some(rest) = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "))
            .or_else(|| trimmed.strip_prefix("+ "))
        {
            // A task list item: its box, ticked or not.
            let (mark, rest) = match task(rest) {
                Some((true, rest)) => ("☑ ", rest),
                Some((false, rest)) => ("☐ ", rest),
                None => ("• ", rest),
            };
            return fill(inline(rest), mark, "  ");
        }
        if let Some((number, rest)) = ordered_item(trimmed) {
            let hang = " ".repeat(number.len() + 1);
            return fill(inline(rest), &format!("{number} "), &hang);
        }
        if let Some(rest) = trimmed
            .strip_prefix("> ")
            .or_else(|| trimmed.strip_prefix('>'))
        {
            let bar = format!("{DIM}│{RESET} ");
            return fill(inline(rest), &bar, &bar);
        }
        if trimmed == "---" || trimmed == "***" {
            return vec![format!("{DIM}{}{RESET}", "─".repeat(40))];
        }
        // A line the inline parser reads as an empty block ("1.", "-")
        // is shown as it came, never dropped.
        match inline(trimmed) {
            out if out.is_empty() => vec![format!("{indent}{trimmed}")],
            out => fill(out, "", ""),
        }
    }
}

fn heading(line: &str) -> Option<&str> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    ((1..=6).contains(&hashes))
        .then(|| line[hashes..].strip_prefix(' '))
        .flatten()
}

/// `[ ] text` / `[x] text`: whether it is ticked, and the text.
fn task(item: &str) -> Option<(bool, &str)> {
    let rest = item.strip_prefix('[')?;
    let (mark, rest) = rest.split_at_checked(1)?;
    let rest = rest.strip_prefix("] ")?;
    match mark {
        " " => Some((false, rest)),
        "x" | "X" => Some((true, rest)),
        _ => None,
    }
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

/// Inline spans of one line: emphasis, strong, strikethrough, code, links.
fn inline(text: &str) -> String {
    inline_in(text, "")
}

/// Inline spans of text that has the style `base` (a heading's): each
/// span's end takes `base` up again.
fn inline_in(text: &str, base: &str) -> String {
    let mut out = String::new();
    let reset = format!("{RESET}{base}");
    // A link's target, and where its text begins in `out`.
    let mut link: Option<(String, usize)> = None;
    for ev in Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH) {
        match ev {
            Event::Text(t) => out.push_str(&t),
            Event::Code(c) => out.push_str(&format!("{}{c}{reset}", cyan())),
            Event::Start(Tag::Emphasis) => out.push_str(ITALIC),
            Event::Start(Tag::Strong) => out.push_str(BOLD),
            Event::Start(Tag::Strikethrough) => out.push_str(STRIKE),
            Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough) => {
                out.push_str(&reset)
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                out.push_str(UNDERLINE);
                link = Some((dest_url.to_string(), out.len()));
            }
            Event::End(TagEnd::Link) => {
                // An autolink (`<https://…>`) is its own text: once.
                let shown = link
                    .take()
                    .filter(|(url, at)| {
                        let text = &out[*at..];
                        text != url && url.strip_prefix("mailto:") != Some(text)
                    })
                    .map(|(url, _)| url);
                out.push_str(&reset);
                if let Some(url) = shown {
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
    #[test]
    fn fields_break_between_fields_and_a_long_one_at_spaces() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let banner = f(&["hermes 0.1.0", "a-model", "session 1", "/help for commands"]);
        assert_eq!(
            super::fields_to(&banner, " · ", "", 40),
            ["hermes 0.1.0 · a-model · session 1", "/help for commands"]
        );
        assert_eq!(
            super::fields_to(&banner, " · ", "", 0),
            ["hermes 0.1.0 · a-model · session 1 · /help for commands"]
        );
        let q = f(&[
            "? echo wants to run",
            "mode ask",
            "asked by subagent [alpha echo]",
        ]);
        assert_eq!(
            super::fields_to(&q, " — ", "  ", 32),
            [
                "? echo wants to run — mode ask",
                "  asked by subagent [alpha echo]"
            ]
        );
        let long = f(&["x", "one two three four five six"]);
        assert_eq!(
            super::fields_to(&long, " · ", "  ", 12),
            ["x", "  one two", "  three four", "  five six"]
        );
    }

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
    fn numbered_headings_strikethrough_and_task_lists() {
        assert_eq!(render("## 1. Steps"), "\u{1b}[1m\u{1b}[4m1. Steps\u{1b}[0m");
        assert_eq!(render("~~old~~ new"), "\u{1b}[9mold\u{1b}[0m new");
        assert_eq!(
            render("- [x] tests pass\n- [ ] docs\n- [y] not a box"),
            "☑ tests pass\n☐ docs\n• [y] not a box"
        );
    }

    #[test]
    fn paragraphs_and_items_wrap_to_the_width_under_their_marker() {
        let mut m = Markdown::new(24);
        let mut out = m.push(
            "The fixture is read before the server starts.\n- a bullet that goes on for a while\n12. and a numbered one as well\n",
        );
        out.push_str(&m.finish());
        assert_eq!(
            out,
            "The fixture is read\nbefore the server\nstarts.\n\
             • a bullet that goes on\n  for a while\n\
             12. and a numbered one\n    as well\n"
        );
        // Code is never wrapped.
        let long = format!("```\n{}\n```\n", "x".repeat(40));
        assert!(Markdown::new(24).push(&long).contains(&"x".repeat(40)));
    }

    #[test]
    fn a_table_is_drawn_when_its_last_row_has_come() {
        let mut m = Markdown::new(80);
        let head = m.push("Counts:\n| tool | calls |\n|---|--:|\n| grep | 3 |\n");
        assert_eq!(head, "Counts:\n", "rows wait for the table to end");
        let rest = m.push("| `read_file` | 12 |\nDone.\n");
        let plain = rest.replace('\u{1b}', "⎋");
        assert!(plain.starts_with("⎋[2m┌"), "{plain}");
        assert!(rest.contains("12 "), "{rest}");
        assert!(rest.ends_with("Done.\n"), "{rest}");
        // A table that ends the answer is drawn at its end.
        let mut m = Markdown::new(80);
        let mut out = m.push("| a | b |\n|---|---|\n| 1 | 2 |");
        assert!(out.is_empty());
        out.push_str(&m.finish());
        assert!(
            out.contains("┌") && out.ends_with("┘\u{1b}[0m\n"),
            "{out:?}"
        );
    }

    #[test]
    fn a_span_in_a_heading_keeps_the_heading_style_after_it() {
        assert_eq!(
            render("## The **fast** path"),
            "\u{1b}[1m\u{1b}[4mThe \u{1b}[1mfast\u{1b}[0m\u{1b}[1m\u{1b}[4m path\u{1b}[0m"
        );
    }

    #[test]
    fn an_autolink_is_shown_once_and_a_link_with_text_names_its_target() {
        assert_eq!(
            render("see <https://x.y/a>"),
            "see \u{1b}[4mhttps://x.y/a\u{1b}[0m"
        );
        assert_eq!(render("mail <me@x.y>"), "mail \u{1b}[4mme@x.y\u{1b}[0m");
        assert_eq!(
            render("[docs](https://x.y)"),
            "\u{1b}[4mdocs\u{1b}[0m (https://x.y)"
        );
    }

    #[test]
    fn tabs_are_laid_out_to_stops_of_four_and_wrap_by_what_shows() {
        let mut m = Markdown::new(12);
        let mut out = m.push("a\tb\tcc\n\tindented words here\n");
        out.push_str(&m.finish());
        // A tab's indent is kept under the wrapped lines, as spaces.
        assert_eq!(out, "a   b   cc\n    indented\n    words\n    here\n");
        assert!(!render("```\n\tcode\n```").contains('\t'));
    }

    #[test]
    fn no_colour_keeps_the_layout_and_the_styles_that_are_not_colour() {
        let mut m = Markdown::new(30).without_colour();
        let mut out = m.push("# Title\nrun `cargo test` now\n| a | b |\n|---|:-:|\n| 1 | 2 |\n");
        out.push_str(&m.finish());
        assert!(
            out.starts_with("\u{1b}[1m\u{1b}[4mTitle\u{1b}[0m\n"),
            "{out:?}"
        );
        assert!(out.contains("run cargo test\u{1b}[0m now"), "{out:?}");
        assert!(out.contains("┌───┬───┐"), "{out:?}");
        assert!(!out.contains("\u{1b}[36m"), "{out:?}");
        assert_eq!(
            strip_colour("\u{1b}[1;38;2;10;20;30mx\u{1b}[32;4my\u{1b}[0m"),
            "\u{1b}[1mx\u{1b}[4my\u{1b}[0m"
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
