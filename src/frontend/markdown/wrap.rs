//! Fitting styled text to the terminal's width: a line is broken at spaces
//! into lines of at most the width, each starting with what the block
//! gives it (a bullet, then an indent under it). Escape sequences take no
//! columns; a style open at a break is closed there and opened again on
//! the next line, so no prefix is drawn in it.

use unicode_width::UnicodeWidthChar;

use super::style::RESET;

/// The columns `text` takes on screen.
pub(super) fn width(text: &str) -> usize {
    let mut w = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // A CSI sequence ends at its final letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        w += c.width().unwrap_or(0);
    }
    w
}

/// One piece of a line: a word with the escapes inside it, or a run of
/// spaces.
struct Piece<'a> {
    text: &'a str,
    space: bool,
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut space = None;
    for (i, c) in text.char_indices() {
        let is_space = c == ' ';
        match space {
            Some(s) if s == is_space => {}
            Some(s) => {
                out.push(Piece {
                    text: &text[start..i],
                    space: s,
                });
                start = i;
            }
            None => {}
        }
        space = Some(is_space);
    }
    if let Some(s) = space {
        out.push(Piece {
            text: &text[start..],
            space: s,
        });
    }
    out
}

/// `text` in lines of at most `columns` (0: as it is), the first starting
/// with `first`, the others with `rest`; a word longer than a line is cut
/// where the line ends.
pub(super) fn wrap(text: &str, columns: usize, first: &str, rest: &str) -> Vec<String> {
    if columns == 0 || width(first) + width(text) <= columns {
        return vec![format!("{first}{text}")];
    }
    let mut out = Lines {
        lines: Vec::new(),
        line: first.to_string(),
        used: width(first),
        empty: true,
        open: Vec::new(),
        rest,
    };
    let mut space = "";
    for p in pieces(text) {
        if p.space {
            space = p.text;
            continue;
        }
        let sep = if out.empty { 0 } else { width(space) };
        if !out.empty && out.used + sep + width(p.text) > columns {
            out.next_line();
        } else if sep > 0 {
            out.line.push_str(space);
            out.used += sep;
        }
        space = "";
        // A word longer than a whole line: cut where each line ends.
        let mut word = p.text;
        while out.used + width(word) > columns && columns > out.used {
            let cut = cut_at(word, columns - out.used);
            if cut == 0 || cut == word.len() {
                break;
            }
            out.push(&word[..cut]);
            out.next_line();
            word = &word[cut..];
        }
        out.push(word);
    }
    out.lines.push(out.line);
    out.lines
}

/// The lines being filled.
struct Lines<'a> {
    lines: Vec<String>,
    line: String,
    used: usize,
    /// No word on the line yet (only its prefix).
    empty: bool,
    /// Escapes in force (since the last reset), carried over a break.
    open: Vec<String>,
    rest: &'a str,
}

impl Lines<'_> {
    fn push(&mut self, word: &str) {
        self.line.push_str(word);
        self.used += width(word);
        self.empty = false;
        let mut at = 0;
        while let Some(i) = word[at..].find('\u{1b}') {
            let s = at + i;
            let end = word[s..]
                .find(|c: char| c.is_ascii_alphabetic())
                .map_or(word.len(), |e| s + e + 1);
            match &word[s..end] {
                RESET => self.open.clear(),
                seq => self.open.push(seq.to_string()),
            }
            at = end;
        }
    }

    fn next_line(&mut self) {
        if !self.open.is_empty() {
            self.line.push_str(RESET);
        }
        let next = format!("{}{}", self.rest, self.open.concat());
        self.lines.push(std::mem::replace(&mut self.line, next));
        self.used = width(self.rest);
        self.empty = true;
    }
}

/// The byte index in `word` after the most characters that fit in
/// `room` columns (escapes take none).
fn cut_at(word: &str, room: usize) -> usize {
    let mut w = 0;
    let mut chars = word.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\u{1b}' {
            for (_, c) in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        let cw = c.width().unwrap_or(0);
        if w + cw > room {
            return i;
        }
        w += cw;
    }
    word.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_break_at_spaces_under_their_prefix() {
        assert_eq!(
            wrap("the quick brown fox jumps", 12, "• ", "  "),
            ["• the quick", "  brown fox", "  jumps"]
        );
        assert_eq!(wrap("short", 12, "", ""), ["short"]);
        assert_eq!(
            wrap("no limit at all here", 0, "", ""),
            ["no limit at all here"]
        );
    }

    #[test]
    fn a_style_open_at_a_break_is_closed_and_opened_again() {
        let bold = "\u{1b}[1m";
        let lines = wrap(&format!("a {bold}bold run of words{RESET} end"), 10, "", "");
        assert_eq!(
            lines,
            [
                format!("a {bold}bold run{RESET}"),
                format!("{bold}of words{RESET}"),
                "end".to_string(),
            ]
        );
        assert!(lines.iter().all(|l| width(l) <= 10));
    }

    #[test]
    fn a_word_longer_than_a_line_is_cut_and_wide_characters_count_twice() {
        let lines = wrap("see https://example.org/a/very/long/path", 16, "", "");
        assert!(lines.iter().all(|l| width(l) <= 16), "{lines:?}");
        assert_eq!(
            lines.concat().replace(' ', ""),
            "seehttps://example.org/a/very/long/path"
        );
        assert_eq!(width("中文"), 4);
        assert_eq!(wrap("中文 中文 中文", 9, "", ""), ["中文 中文", "中文"]);
    }
}
