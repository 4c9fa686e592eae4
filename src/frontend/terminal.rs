//! The terminal hermes talks to: its mode (saved when the REPL begins, the
//! echo off while a turn runs, put back however hermes ends), its size, and
//! what Ctrl-C at the prompt does.

use std::sync::Mutex;

/// The terminal's mode when the REPL began, put back when it ends.
pub(crate) struct TerminalMode(#[cfg(unix)] libc::termios);

#[cfg(unix)]
static FIRST_MODE: Mutex<Option<libc::termios>> = Mutex::new(None);

/// Puts the terminal back as the REPL found it, for an exit that skips
/// destructors (the echo is off while a turn runs).
pub(crate) fn restore_terminal() {
    #[cfg(unix)]
    if let Some(t) = FIRST_MODE.lock().ok().and_then(|m| *m) {
        // SAFETY: sets attributes read earlier from the same descriptor.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &t);
        }
    }
}

impl TerminalMode {
    #[cfg(unix)]
    pub(crate) fn save() -> Option<TerminalMode> {
        // SAFETY: tcgetattr fills a termios for fd 0, a terminal (checked).
        let saved = unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            (libc::tcgetattr(0, &mut t) == 0).then_some(TerminalMode(t))
        }?;
        // The first mode seen is the user's: an exit that skips destructors
        // (a second signal) puts it back through `restore_terminal`.
        if let Ok(mut first) = FIRST_MODE.lock() {
            first.get_or_insert(saved.0);
        }
        Some(saved)
    }

    /// Saves the mode and has the terminal send each key as it is pressed,
    /// without echoing it (Ctrl-C still signals): the reader during a turn
    /// keeps the line and draws it itself, under what is drawn live.
    #[cfg(unix)]
    pub(crate) fn keys() -> Option<TerminalMode> {
        let saved = Self::save()?;
        let mut t = saved.0;
        t.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ECHONL);
        t.c_cc[libc::VMIN] = 1;
        t.c_cc[libc::VTIME] = 0;
        // SAFETY: sets attributes derived from the ones just read.
        unsafe { libc::tcsetattr(0, libc::TCSANOW, &t) };
        Some(saved)
    }

    #[cfg(not(unix))]
    pub(crate) fn keys() -> Option<TerminalMode> {
        None
    }

    #[cfg(not(unix))]
    pub(crate) fn save() -> Option<TerminalMode> {
        None
    }
}

impl Drop for TerminalMode {
    fn drop(&mut self) {
        // SAFETY: restores the attributes read from the same descriptor.
        #[cfg(unix)]
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.0);
        }
    }
}

/// The width of the terminal on `fd`, in columns; `None` when it is not a
/// terminal.
pub(crate) fn columns(fd: i32) -> Option<usize> {
    size(fd).map(|(columns, _)| columns)
}

/// The rows of the terminal on `fd`, if it is one.
pub(crate) fn rows(fd: i32) -> Option<usize> {
    size(fd).map(|(_, rows)| rows).filter(|&r| r > 0)
}

/// Columns and rows of the terminal on `fd`, if it is one.
fn size(fd: i32) -> Option<(usize, usize)> {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ fills a winsize we own.
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) } == 0;
        (ok && ws.ws_col > 0).then_some((usize::from(ws.ws_col), usize::from(ws.ws_row)))
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        None
    }
}

/// How soon a second Ctrl-C at an empty prompt quits.
pub(super) const QUIT_WINDOW: std::time::Duration = std::time::Duration::from_secs(2);

/// Ctrl-C at the prompt: a line with text is cleared (into the kill ring:
/// Ctrl-Y brings it back); at an empty one it is the interrupt the REPL
/// answers, a second one within [`QUIT_WINDOW`] quitting.
pub(super) struct ClearOrInterrupt;

impl rustyline::ConditionalEventHandler for ClearOrInterrupt {
    fn handle(
        &self,
        _: &rustyline::Event,
        _: rustyline::RepeatCount,
        _: bool,
        ctx: &rustyline::EventContext,
    ) -> Option<rustyline::Cmd> {
        (!ctx.line().is_empty()).then_some(rustyline::Cmd::Kill(rustyline::Movement::WholeBuffer))
    }
}

/// What the person is told of a typed byte that was not UTF-8.
pub(crate) const NOT_UTF8: &str = "the line has \u{FFFD} where a typed byte was not UTF-8 \
     (set the terminal to UTF-8 to avoid this)";
