//! What the model or a tool wrote, made safe for the user's terminal: escape
//! and control sequences removed — CSI (`ESC [ … `, e.g. `ESC[2J`), OSC
//! (`ESC ] … BEL`, e.g. OSC 52 clipboard writes, window titles), DCS / APC /
//! PM / SOS strings, other `ESC x` pairs, C1 controls, and C0 controls but
//! newline and tab — before hermes adds any styling of its own. Text streams
//! in pieces, so the filter keeps its state between them: a sequence split
//! across two deltas is removed whole.

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum State {
    #[default]
    Text,
    /// After ESC.
    Escape,
    /// Inside `ESC [`: parameters until a final byte (`@`..`~`).
    Csi,
    /// Inside an OSC / DCS / APC / PM / SOS string, until BEL or `ESC \`.
    Str,
    /// ESC seen inside a string: `\` ends it.
    StrEscape,
}

#[derive(Debug, Default)]
pub(crate) struct Sanitizer {
    state: State,
}

impl Sanitizer {
    /// The printable part of `piece`, given what came before it.
    pub(crate) fn push(&mut self, piece: &str) -> String {
        let mut out = String::with_capacity(piece.len());
        for c in piece.chars() {
            self.state = match (self.state, c) {
                (State::Text, '\u{1b}') => State::Escape,
                // 8-bit CSI and string starters.
                (State::Text, '\u{9b}') => State::Csi,
                (State::Text, '\u{90}' | '\u{9d}' | '\u{98}' | '\u{9e}' | '\u{9f}') => State::Str,
                (State::Text, '\n' | '\t') => {
                    out.push(c);
                    State::Text
                }
                (State::Text, c) if c.is_control() => State::Text,
                (State::Text, c) => {
                    out.push(c);
                    State::Text
                }
                (State::Escape, '[') => State::Csi,
                (State::Escape, ']' | 'P' | 'X' | '^' | '_') => State::Str,
                // Any other ESC x pair (charset, keypad modes, …).
                (State::Escape, _) => State::Text,
                (State::Csi, '\u{40}'..='\u{7e}') => State::Text,
                (State::Csi, _) => State::Csi,
                (State::Str, '\u{07}' | '\u{9c}') => State::Text,
                (State::Str, '\u{1b}') => State::StrEscape,
                (State::Str, _) => State::Str,
                (State::StrEscape, '\\') => State::Text,
                (State::StrEscape, _) => State::Str,
            };
        }
        out
    }
}

/// A whole string, cleaned.
pub(crate) fn clean(s: &str) -> String {
    Sanitizer::default().push(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_and_control_sequences_are_removed_text_stays() {
        let hostile =
            "Hi\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{07} there\u{1b}]0;title\u{1b}\\\u{1b}[?1049h\r\n\
                       tab\tkept\u{7}\u{8}\u{1b}Pdcs\u{1b}\\ end\u{9b}31m!";
        assert_eq!(clean(hostile), "Hi there\ntab\tkept end!");
        assert_eq!(clean("plain ünïcode ✓"), "plain ünïcode ✓");
    }

    #[test]
    fn a_sequence_split_across_pieces_is_removed_whole() {
        let mut s = Sanitizer::default();
        let mut out = String::new();
        for piece in ["a\u{1b}", "]52;c;", "ZXZp", "bA==\u{7}b\u{1b}[", "3", "1mc"] {
            out.push_str(&s.push(piece));
        }
        assert_eq!(out, "abc");
    }
}
