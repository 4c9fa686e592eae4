//! What the model or a tool wrote, made safe for the user's terminal: escape
//! and control sequences removed — CSI (`ESC [ … `, e.g. `ESC[2J`), OSC
//! (`ESC ] … BEL`, e.g. OSC 52 clipboard writes, window titles), DCS / APC /
//! PM / SOS strings, other `ESC x` pairs, C1 controls, and C0 controls but
//! newline and tab — before hermes adds any styling of its own. Text streams
//! in pieces, so the filter keeps its state between them: a sequence split
//! across two deltas is removed whole. An 8-bit C1 control (U+0080–U+009F,
//! which mojibake produces) is dropped by itself: without it nothing that
//! follows is a sequence.

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
    /// Forgets a sequence left open (a new turn starts clean).
    pub(crate) fn reset(&mut self) {
        self.state = State::Text;
    }

    /// The printable part of `piece`, given what came before it.
    pub(crate) fn push(&mut self, piece: &str) -> String {
        let mut out = String::with_capacity(piece.len());
        for c in piece.chars() {
            self.state = match (self.state, c) {
                (State::Text, '\u{1b}') => State::Escape,
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
                (State::Csi, '\u{20}'..='\u{3f}') => State::Csi,
                // Not a CSI after all: what follows is text again.
                (State::Csi, c) => {
                    if !c.is_control() {
                        out.push(c);
                    }
                    State::Text
                }
                // A string never spans a line: a newline ends one left open,
                // so a stray introducer cannot swallow the rest.
                (State::Str | State::StrEscape, '\n') => {
                    out.push('\n');
                    State::Text
                }
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
                       tab\tkept\u{7}\u{8}\u{1b}Pdcs\u{1b}\\ end\u{9b}!";
        assert_eq!(clean(hostile), "Hi there\ntab\tkept end!");
        assert_eq!(clean("plain ünïcode ✓"), "plain ünïcode ✓");
        // Mojibake C1 characters and an unterminated string do not eat the rest.
        assert_eq!(clean("\u{9d}Привет\u{90}\nnext"), "Привет\nnext");
        assert_eq!(clean("a\u{1b}]0;never ended\nb"), "a\nb");
        assert_eq!(clean("x\u{1b}[12;Ay"), "xy");
        assert_eq!(clean("x\u{1b}[1\u{e9}y"), "x\u{e9}y");
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
