//! Reading the terminal while a turn runs. The line editor reads only
//! between turns; during a turn the terminal sends each key as it is
//! pressed (no line discipline, no echo — Ctrl-C still signals), and this
//! reader keeps the line being typed, shown live under the tool block or
//! the spinner. Enter shows the line above and queues it (sent after the
//! turn), or answers a question waiting for it; `/stop` or Esc stops the
//! turn. A paste (bracketed) joins the line being typed as one
//! placeholder however many lines it holds, as at the prompt. What is
//! typed and not sent when the turn ends goes back to the editor. A
//! blocking task polls stdin 100 ms at a time, so it ends promptly with the
//! turn. Used only when stdin is a terminal: on a pipe the line editor's
//! own buffering owns the input.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::approve::{Questions, Typed};
use super::form::AnswerSlot;
use super::live::{above, set_input};

/// Bracketed paste on and off: a paste comes between `ESC[200~` and
/// `ESC[201~`, so its newlines are not Enters.
const PASTE_ON: &str = "\u{1b}[?2004h";
const PASTE_OFF: &str = "\u{1b}[?2004l";

/// How long an Esc waits for the rest of a key's sequence (an arrow key is
/// Esc `[` `A`) before it is taken as Esc itself.
const ESC_WAIT: Duration = Duration::from_millis(30);

/// Where the lines typed during a turn go: a form's field waiting for a
/// value, the oldest approval question waiting, or the queue sent after
/// the turn.
#[derive(Clone)]
pub(super) struct Sinks {
    pub queued: Arc<Mutex<Vec<String>>>,
    pub forms: AnswerSlot,
    pub questions: Option<Questions>,
}

pub(super) struct TypeAhead {
    done: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<String>,
    _keys: Option<super::terminal::TerminalMode>,
}

impl TypeAhead {
    /// Starts watching stdin for the turn that `cancel` stops, the line
    /// being typed starting as `draft` (one given back by the last turn
    /// while a queued line runs); lines typed are pushed to `queued`.
    pub(super) fn start(cancel: CancellationToken, sinks: Sinks, draft: String) -> TypeAhead {
        let keys = super::terminal::TerminalMode::keys();
        crate::util::stderr::raw(PASTE_ON);
        set_input(Some(&draft));
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let task = tokio::task::spawn_blocking(move || {
            let mut reader = Keys::default();
            let mut line = draft;
            // Words entered while a question waited that were no answer:
            // kept, and put back in the line once no question waits.
            let mut held = String::new();
            while !flag.load(Ordering::SeqCst) {
                for key in reader.read() {
                    let after = match key {
                        Key::Char(c) => {
                            line.push(c);
                            After::Nothing
                        }
                        Key::Backspace => {
                            line.pop();
                            After::Nothing
                        }
                        Key::Clear => {
                            line.clear();
                            After::Nothing
                        }
                        Key::Esc => {
                            above("stopping… (Esc)");
                            cancel.cancel();
                            After::Nothing
                        }
                        Key::Paste(text) => {
                            // Held as the editor holds a paste: a
                            // placeholder joins the line being typed (an
                            // `@` in it is not typed, and attaches
                            // nothing), sent whole on Enter.
                            line.push_str(&super::paste::hold(text));
                            After::Nothing
                        }
                        Key::Enter => entered(std::mem::take(&mut line), &cancel, &sinks),
                    };
                    match after {
                        After::Hold(words) => join(&mut held, &words),
                        After::Answered
                            if !sinks.questions.as_ref().is_some_and(Questions::open) =>
                        {
                            let rest = std::mem::take(&mut line);
                            line = std::mem::take(&mut held);
                            join(&mut line, &rest);
                        }
                        _ => {}
                    }
                    set_input(Some(&line));
                }
            }
            // Held words the turn ended on go back to the editor first.
            join(&mut held, &line);
            held
        });
        TypeAhead {
            done,
            task,
            _keys: keys,
        }
    }

    /// Ends the watch; what was typed and not entered.
    pub(super) async fn finish(self) -> String {
        self.done.store(true, Ordering::SeqCst);
        let typed = self.task.await.unwrap_or_default();
        set_input(None);
        crate::util::stderr::raw(PASTE_OFF);
        typed
    }
}

/// What a line entered left to do.
enum After {
    Nothing,
    /// It answered a question.
    Answered,
    /// Words that were no answer to the question waiting: kept for the
    /// line being typed once no question waits.
    Hold(String),
}

/// `more` after `text`, a space between.
fn join(text: &mut String, more: &str) {
    if more.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(more);
}

/// A line entered during the turn: shown above what is drawn live, then
/// the value a form's field waits for, the answer to the oldest approval
/// question waiting, `/stop`, or queued.
fn entered(line: String, cancel: &CancellationToken, sinks: &Sinks) -> After {
    let lines: Vec<&str> = line.lines().filter(|l| !l.trim().is_empty()).collect();
    match lines.len() {
        // Still a value: a form's field may take an empty one.
        0 => {}
        _ if super::live::input_hidden() => above("› (hidden)"),
        1 => above(&format!("› {}", crate::util::sanitize::clean(lines[0]))),
        n => above(&format!("› [pasted {n} lines]")),
    }
    // Said where it was typed, not when the line is sent.
    if line.contains(char::REPLACEMENT_CHARACTER) {
        above(&format!("warning: {}", super::NOT_UTF8));
    }
    // A form's field waits: this line is its value (unless it is
    // `/stop`, or the form is gone).
    let waiting = sinks.forms.lock().ok().and_then(|mut a| a.take());
    let line = match waiting {
        Some(tx) if line.trim() != "/stop" => match tx.send(line) {
            Ok(()) => return After::Answered,
            Err(line) => line,
        },
        _ => line,
    };
    // A question waits: this line answers it.
    if let Some(q) = sinks.questions.as_ref().filter(|_| line.trim() != "/stop") {
        match q.typed(&line) {
            Typed::NoQuestion => {}
            Typed::Answered => return After::Answered,
            Typed::Again(drawn) => {
                super::live::above_with(|| super::approve::write(&drawn));
                return After::Nothing;
            }
            // Never lost: kept for the line once the question is answered.
            Typed::Unclear(what) => {
                above(&format!(
                    "not an answer; kept for after the question — {what}"
                ));
                return After::Hold(line.trim().to_string());
            }
        }
    }
    match line.trim() {
        "" => {}
        "/stop" => {
            above("stopping…");
            cancel.cancel();
        }
        other => {
            above("(queued: sent when this turn ends; Esc stops the turn and gives it back)");
            if let Ok(mut q) = sinks.queued.lock() {
                q.push(other.to_string());
            }
        }
    }
    After::Nothing
}

/// A key, as the reader makes it out of the bytes the terminal sends.
#[derive(Debug, Clone, PartialEq)]
enum Key {
    Char(char),
    Backspace,
    /// Ctrl-U: the line so far is dropped.
    Clear,
    Enter,
    Esc,
    Paste(String),
}

/// Bytes from the terminal into keys: UTF-8 decoded (a byte that is not
/// becomes U+FFFD and what follows it is kept), escape sequences of other
/// keys (arrows, function keys) passed over, a paste gathered whole.
#[derive(Default)]
struct Keys {
    bytes: Vec<u8>,
}

impl Keys {
    /// The keys of what arrived within 100 ms (none if nothing did).
    fn read(&mut self) -> Vec<Key> {
        if !ready(Duration::from_millis(100)) {
            return Vec::new();
        }
        let Some(more) = read_some() else {
            std::thread::sleep(Duration::from_millis(100));
            return Vec::new();
        };
        self.bytes.extend(more);
        // A lone Esc at the end may be the start of a sequence still coming.
        while self.bytes.ends_with(b"\x1b") && ready(ESC_WAIT) {
            match read_some() {
                Some(more) => self.bytes.extend(more),
                None => break,
            }
        }
        // A paste still coming: wait for its end.
        while self.open_paste() && ready(Duration::from_millis(500)) {
            match read_some() {
                Some(more) => self.bytes.extend(more),
                None => break,
            }
        }
        keys(&std::mem::take(&mut self.bytes))
    }

    fn open_paste(&self) -> bool {
        let start = find(&self.bytes, b"\x1b[200~");
        start.is_some_and(|s| find(&self.bytes[s..], b"\x1b[201~").is_none())
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The keys in `bytes`, all of which have arrived.
fn keys(bytes: &[u8]) -> Vec<Key> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' | b'\n' => {
                out.push(Key::Enter);
                i += 1;
            }
            0x7f | 0x08 => {
                out.push(Key::Backspace);
                i += 1;
            }
            0x15 => {
                out.push(Key::Clear);
                i += 1;
            }
            0x1b => {
                let rest = &bytes[i + 1..];
                if let Some(body) = rest.strip_prefix(b"[200~") {
                    let end = find(body, b"\x1b[201~").unwrap_or(body.len());
                    let text = String::from_utf8_lossy(&body[..end]).replace("\r\n", "\n");
                    out.push(Key::Paste(text.replace('\r', "\n")));
                    i += 1 + 5 + end + 6;
                    continue;
                }
                match rest.first() {
                    // CSI: parameters, then one final byte.
                    Some(b'[') => {
                        let len = rest[1..]
                            .iter()
                            .position(|b| (0x40..=0x7e).contains(b))
                            .map_or(rest.len(), |p| p + 2);
                        i += 1 + len;
                    }
                    // SS3 (some terminals' arrows and F1-F4): one byte more.
                    Some(b'O') => i += 1 + rest.len().min(2),
                    // Alt and a key: passed over.
                    Some(_) => i += 2,
                    None => {
                        out.push(Key::Esc);
                        i += 1;
                    }
                }
            }
            b if b < 0x20 => i += 1,
            _ => {
                let (c, len) = decode(&bytes[i..]);
                out.push(Key::Char(c));
                i += len;
            }
        }
    }
    out
}

/// The character `bytes` start with and its length; a byte that does not
/// start a whole UTF-8 character is U+FFFD, one byte long.
fn decode(bytes: &[u8]) -> (char, usize) {
    let len = match bytes[0] {
        b if b < 0x80 => 1,
        b if b >> 5 == 0b110 => 2,
        b if b >> 4 == 0b1110 => 3,
        b if b >> 3 == 0b11110 => 4,
        _ => return (char::REPLACEMENT_CHARACTER, 1),
    };
    match bytes
        .get(..len)
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|s| s.chars().next())
    {
        Some(c) => (c, len),
        None => (char::REPLACEMENT_CHARACTER, 1),
    }
}

/// Whether stdin has bytes within `wait`.
#[cfg(unix)]
fn ready(wait: Duration) -> bool {
    let mut pfd = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = i32::try_from(wait.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: one valid pollfd, a bounded timeout.
    let n = unsafe { libc::poll(&mut pfd, 1, ms) };
    n > 0 && pfd.revents & libc::POLLIN != 0
}

#[cfg(unix)]
fn read_some() -> Option<Vec<u8>> {
    let mut buf = [0u8; 4096];
    // SAFETY: reads into a buffer we own.
    let r = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
    (r > 0).then(|| buf[..r as usize].to_vec())
}

#[cfg(not(unix))]
fn ready(wait: Duration) -> bool {
    std::thread::sleep(wait);
    false
}

#[cfg(not(unix))]
fn read_some() -> Option<Vec<u8>> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_become_keys_escapes_and_pastes_whole() {
        assert_eq!(
            keys(b"ab\x7fc\r"),
            [
                Key::Char('a'),
                Key::Char('b'),
                Key::Backspace,
                Key::Char('c'),
                Key::Enter
            ]
        );
        // An arrow key is passed over; a lone Esc stops.
        assert_eq!(keys(b"\x1b[Ax\x1b"), [Key::Char('x'), Key::Esc]);
        assert_eq!(
            keys(b"\x1b[200~one\r\ntwo\x1b[201~!"),
            [Key::Paste("one\ntwo".into()), Key::Char('!')]
        );
    }

    #[test]
    fn a_byte_that_is_not_utf8_is_replaced_and_what_follows_kept() {
        let got: String = keys(b"caf\xe9 au lait")
            .into_iter()
            .map(|k| match k {
                Key::Char(c) => c,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(got, "caf\u{FFFD} au lait");
        assert_eq!(keys("é".as_bytes()), [Key::Char('é')]);
    }
}
