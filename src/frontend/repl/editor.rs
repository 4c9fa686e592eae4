//! Reading a line: rustyline on a terminal (on the blocking pool: it
//! blocks on the terminal), bytes off one; a line typed during the last
//! turn comes first.

use std::io::IsTerminal;
use std::sync::Mutex;

use rustyline::error::ReadlineError;

use super::context::ReplError;
use crate::frontend::complete::Completion;

pub(super) type Editor = rustyline::Editor<Completion, rustyline::history::FileHistory>;

/// The prompt: `›`, after `(plan)` (or `(deny)`) and after `(yolo)` when
/// that is on. `ask` and `auto` are the status line's to say.
pub(super) fn prompt(yolo: bool, mode: crate::config::ApprovalMode) -> String {
    use crate::config::ApprovalMode;
    let mode = match mode {
        ApprovalMode::Ask | ApprovalMode::Auto => String::new(),
        m => format!("({}) ", m.name()),
    };
    let yolo = if yolo { "(yolo) " } else { "" };
    format!("{mode}{yolo}› ")
}

/// The next line: one typed during the last turn, else one read from the
/// line editor (on the blocking pool: it blocks on the terminal), starting
/// from `initial` if given. Off a terminal, lines are read as bytes, with
/// what is not UTF-8 replaced.
pub(super) async fn next_line(
    mut editor: Editor,
    queued: &Mutex<Vec<String>>,
    prompt: String,
    initial: Option<String>,
) -> Result<(Editor, Result<String, ReadlineError>), ReplError> {
    let typed = queued
        .lock()
        .ok()
        .and_then(|mut q| (!q.is_empty()).then(|| q.remove(0)));
    if let Some(t) = typed {
        errln!("› {t}");
        return Ok((editor, Ok(t)));
    }
    Ok(tokio::task::spawn_blocking(move || {
        if !std::io::stdin().is_terminal() {
            return (editor, piped_line());
        }
        let r = match initial {
            Some(line) => editor.readline_with_initial(&prompt, (&line, "")),
            None => editor.readline(&prompt),
        };
        if r.as_ref()
            .is_ok_and(|l| l.contains(char::REPLACEMENT_CHARACTER))
        {
            errln!("warning: {}", crate::frontend::NOT_UTF8);
        }
        (editor, r)
    })
    .await?)
}

/// One line of piped input, without its line ending; bytes that are not
/// UTF-8 become U+FFFD, with a warning.
fn piped_line() -> Result<String, ReadlineError> {
    use std::io::BufRead;
    let mut buf = Vec::new();
    if std::io::stdin().lock().read_until(b'\n', &mut buf)? == 0 {
        return Err(ReadlineError::Eof);
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    let line = String::from_utf8_lossy(&buf).into_owned();
    if std::str::from_utf8(&buf).is_err() {
        errln!("warning: a line on stdin has bytes that are not UTF-8; each was replaced with \u{FFFD}");
    }
    Ok(line)
}
