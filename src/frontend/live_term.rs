//! The terminal every live drawing (a tool block, the thinking spinner, the
//! line typed during a turn) is drawn on: indicatif's lines, laid out so a
//! resize leaves nothing behind.
//!
//! indicatif on its own pads each line with spaces to the terminal's width
//! and lets the terminal wrap to the next row, then finds its drawing again
//! by moving up one row a line. Both break on a resize: terminals that
//! reflow (tmux, VTE, iTerm2, kitty, WezTerm) join the padded rows into one
//! long line and spread it over more rows at a narrower width, and the
//! next frame, moving up too few, leaves the top of the old drawing on the
//! screen — entries drawn twice, one line merged into another.
//!
//! Here no line is padded: each ends with `\r\n`, so a terminal holds the
//! drawing as the lines it is, and a frame finds its top by counting the
//! rows those lines take at the width the terminal has now — which is what
//! a reflowing terminal shows after any number of resizes. It then clears
//! to the end of the screen (`ESC [J`) and draws afresh. The cursor is
//! parked at the start of the last line (`ESC 7` before it, `ESC 8` after):
//! tmux and the others keep a cursor there through a reflow, so the last
//! line — the status line, fitted to the full width — may be as long as it
//! likes. A terminal that does not reflow (xterm, rxvt, st, the Linux
//! console) keeps one row a line, and is counted so.
//!
//! A frame already written when the terminal is resized, but read by it
//! after (tmux holds a resize back from the program for up to a quarter
//! of a second while resizes come quickly, and every terminal has bytes in
//! flight), counts rows for the old width. So every line but the last is
//! kept to [`LIVE_COLUMNS`]: one row at any width from there up, and such
//! a frame counts right. Only below that width can one leave rows behind.

use std::io::Write;
use std::sync::{Arc, Mutex};

use indicatif::{MultiProgress, ProgressDrawTarget, TermLike};

use crate::util::sanitize::clean;
use crate::util::text::columns_of;

/// Frames a second at most, as indicatif's own stderr target.
const HZ: u8 = 20;

/// The widest a live line but the last is drawn.
pub(crate) const LIVE_COLUMNS: usize = 80;

/// The columns a live line but the last may take now.
pub(crate) fn line_columns() -> Option<usize> {
    super::terminal::columns(2).map(|c| c.min(LIVE_COLUMNS))
}

/// A drawing on its own [`LiveTerm`]: lines added to the drawing are drawn
/// there.
pub(crate) fn multi() -> (MultiProgress, LiveTerm) {
    let term = LiveTerm::default();
    let target = ProgressDrawTarget::term_like_with_hz(Box::new(term.clone()), HZ);
    (MultiProgress::with_draw_target(target), term)
}

/// indicatif's terminal for one drawing; clones share it.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveTerm(Arc<Mutex<Frame>>);

#[derive(Debug, Default)]
struct Frame {
    /// The lines of the frame being drawn.
    pending: Vec<String>,
    /// The lines on the screen now, the cursor at the end of the last.
    shown: Vec<String>,
    /// The next write is the padding after a line (not drawn).
    after_line: bool,
    /// The drawing's lines were left on the screen for good.
    committed: bool,
}

impl LiveTerm {
    /// Leaves the lines drawn now on the screen for good, the cursor at
    /// the start of the row under them, where what is printed next goes —
    /// a finished block's lines stay as the record of what ran. Nothing
    /// this drawing draws after it reaches the screen.
    pub(crate) fn commit(&self) {
        if let Ok(mut f) = self.0.lock() {
            f.commit();
        }
    }

    fn columns() -> usize {
        super::terminal::columns(2).unwrap_or(80)
    }
}

/// Whether the terminal joins and splits its lines again on a resize.
/// Most do (tmux, VTE, iTerm2, kitty, WezTerm, Alacritty, Windows
/// Terminal, xterm.js); these do not.
fn reflows() -> bool {
    let term = std::env::var("TERM").unwrap_or_default();
    std::env::var_os("XTERM_VERSION").is_none()
        && !term.starts_with("rxvt")
        && !(term == "st" || term.starts_with("st-"))
        && term != "linux"
}

/// The rows `lines` take on a terminal `columns` wide.
fn rows(lines: &[String], columns: usize, reflows: bool) -> usize {
    match reflows {
        true => lines
            .iter()
            .map(|l| columns_of(&clean(l)).div_ceil(columns.max(1)).max(1))
            .sum(),
        false => lines.len(),
    }
}

/// A frame as bytes: from the start of the old drawing's last line (the
/// cursor) up to its first row, cleared to the end of the screen, the new
/// lines, the cursor back at the start of the last.
fn frame(shown: &[String], lines: &[String], columns: usize, reflows: bool) -> String {
    let mut out = String::new();
    let up = rows(&shown[..shown.len().saturating_sub(1)], columns, reflows);
    if up > 0 {
        out.push_str(&format!("\u{1b}[{up}A"));
    }
    out.push_str("\r\u{1b}[J");
    if let Some((last, above)) = lines.split_last() {
        for line in above {
            out.push_str(line);
            out.push_str("\r\n");
        }
        out.push_str("\u{1b}7");
        out.push_str(last);
        out.push_str("\u{1b}8");
    }
    out
}

/// `line` without the padding indicatif puts at its end, cut to `max`
/// columns with `…` (escapes copied, not counted).
fn kept_to(line: &str, max: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let line = line.trim_end_matches([' ', '\r']);
    if columns_of(&clean(line)) <= max {
        return line.to_string();
    }
    let mut out = String::new();
    let mut width = 0;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            out.push(c);
            // CSI: up to its final byte; anything else: one more char.
            if chars.peek() == Some(&'[') {
                for d in chars.by_ref() {
                    out.push(d);
                    if ('@'..='~').contains(&d) && d != '[' {
                        break;
                    }
                }
            } else if let Some(d) = chars.next() {
                out.push(d);
            }
            continue;
        }
        let w = c.width().unwrap_or(0);
        if width + w + 1 > max {
            out.push('…');
            out.push_str("\u{1b}[0m");
            break;
        }
        out.push(c);
        width += w;
    }
    out
}

fn write_err(s: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(s.as_bytes());
    let _ = err.flush();
}

impl TermLike for LiveTerm {
    fn width(&self) -> u16 {
        u16::try_from(Self::columns()).unwrap_or(u16::MAX)
    }

    fn height(&self) -> u16 {
        super::terminal::rows(2)
            .and_then(|r| u16::try_from(r).ok())
            .unwrap_or(24)
    }

    // indicatif finds its drawing by moving the cursor and clearing rows;
    // here the cursor is always at the drawing's top, and a frame clears
    // all below it.
    fn move_cursor_up(&self, _n: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _n: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _n: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _n: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }

    fn write_line(&self, s: &str) -> std::io::Result<()> {
        if let Ok(mut f) = self.0.lock() {
            f.pending.push(s.to_string());
            f.after_line = false;
        }
        Ok(())
    }

    fn write_str(&self, s: &str) -> std::io::Result<()> {
        if s == "\r" {
            return Ok(());
        }
        if let Ok(mut f) = self.0.lock() {
            if std::mem::take(&mut f.after_line) {
                // The padding to the terminal's width.
                return Ok(());
            }
            f.pending.push(s.to_string());
            f.after_line = true;
        }
        Ok(())
    }

    fn flush(&self) -> std::io::Result<()> {
        let Ok(mut f) = self.0.lock() else {
            return Ok(());
        };
        let lines = std::mem::take(&mut f.pending);
        f.after_line = false;
        if f.committed {
            return Ok(());
        }
        let columns = Self::columns();
        let mut lines = lines;
        let n = lines.len();
        for line in lines.iter_mut().take(n.saturating_sub(1)) {
            *line = kept_to(line, columns.min(LIVE_COLUMNS));
        }
        write_err(&frame(&f.shown, &lines, columns, reflows()));
        f.shown = lines;
        Ok(())
    }
}

impl Frame {
    /// The last line written again from its start (the cursor), and a
    /// line ended under it.
    fn commit(&mut self) {
        if std::mem::replace(&mut self.committed, true) {
            return;
        }
        if let Some(last) = std::mem::take(&mut self.shown).last() {
            write_err(&format!("\r\u{1b}[J{last}\r\n"));
        }
    }
}

impl Drop for Frame {
    /// A drawing dropped with lines still drawn leaves them, as indicatif
    /// does.
    fn drop(&mut self) {
        self.commit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_goes_up_the_rows_the_old_lines_take_now_and_parks_on_the_last() {
        let old = vec!["one".to_string(), "x".repeat(100), "s".repeat(200)];
        let new = vec!["two".to_string(), "status".to_string()];
        // At 80 columns, a reflowing terminal shows the 100-column line on
        // two rows; the cursor is at the start of the last line, however
        // long that is.
        assert_eq!(
            frame(&old, &new, 80, true),
            "\u{1b}[3A\r\u{1b}[Jtwo\r\n\u{1b}7status\u{1b}8"
        );
        // One that does not reflow keeps one row a line.
        assert_eq!(
            frame(&old, &new, 80, false),
            "\u{1b}[2A\r\u{1b}[Jtwo\r\n\u{1b}7status\u{1b}8"
        );
        // Coloured text counts as the columns it shows.
        let dim = vec![
            format!("\u{1b}[2m{}\u{1b}[22m", "y".repeat(81)),
            "z".to_string(),
        ];
        assert_eq!(frame(&dim, &[], 80, true), "\u{1b}[2A\r\u{1b}[J");
        assert_eq!(
            frame(&[], &new, 80, true),
            "\r\u{1b}[Jtwo\r\n\u{1b}7status\u{1b}8"
        );
    }

    #[test]
    fn a_line_is_kept_to_its_columns_escapes_uncounted() {
        assert_eq!(kept_to("short   ", 80), "short");
        let dim = format!("\u{1b}[2m{}\u{1b}[22m", "y".repeat(100));
        let kept = kept_to(&dim, 80);
        assert_eq!(columns_of(&clean(&kept)), 80);
        assert!(kept.starts_with("\u{1b}[2my"), "{kept:?}");
        assert!(kept.ends_with("…\u{1b}[0m"), "{kept:?}");
    }

    #[test]
    fn the_padding_after_each_line_is_not_drawn() {
        let t = LiveTerm::default();
        t.write_str("\r").unwrap();
        t.write_str("first").unwrap();
        t.write_str("      ").unwrap();
        t.write_str("second").unwrap();
        t.write_str("").unwrap();
        let f = t.0.lock().unwrap();
        assert_eq!(f.pending, vec!["first", "second"]);
    }
}
