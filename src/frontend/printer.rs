//! Rendering events: streamed text on stdout, tool activity and retries on stderr
//! (so `hermes -q … > answer.txt` captures only the answer), or JSON Lines.
//! A closed stdout (`| head`) is not an error: output simply stops.

use std::future::Future;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::agent::Event;
use crate::util::text::excerpt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Text,
    Json,
}

pub(crate) struct Printer {
    style: Style,
    /// Whether the last text written to stdout ended a line.
    at_line_start: bool,
    spinner: Option<ProgressBar>,
    spinner_allowed: bool,
}

impl Printer {
    pub(crate) fn new(style: Style) -> Printer {
        Printer {
            style,
            at_line_start: true,
            spinner: None,
            spinner_allowed: style == Style::Text && std::io::stderr().is_terminal(),
        }
    }

    pub(crate) fn handle(&mut self, ev: &Event) {
        if self.style == Style::Json {
            if let Ok(line) = serde_json::to_string(ev) {
                out(format!("{line}\n").as_bytes());
            }
            return;
        }
        match ev {
            Event::ModelRequest { .. } => self.start_spinner(),
            Event::TextDelta { text } => {
                self.stop_spinner();
                out(text.as_bytes());
                self.at_line_start = text.ends_with('\n');
            }
            // The line appears when the entry really starts.
            Event::ToolCallQueued { .. } => {}
            Event::ToolCallStarted {
                name, arguments, ..
            } => {
                self.stop_spinner();
                self.end_line();
                eprintln!("⏺ {name} {}", excerpt(arguments, 120));
            }
            Event::ToolCallFinished {
                is_error, content, ..
            } => {
                let mark = if *is_error { "✗" } else { "✓" };
                eprintln!("  {mark} {}", excerpt(content, 160));
            }
            Event::ToolProgress {
                server,
                progress,
                total,
                message,
            } => {
                let of = total.map(|t| format!("/{t}")).unwrap_or_default();
                let msg = message
                    .as_deref()
                    .map(|m| format!(" {m}"))
                    .unwrap_or_default();
                eprintln!("  … {server}: {progress}{of}{msg}");
            }
            Event::Retrying {
                attempt,
                delay_ms,
                reason,
            } => {
                self.stop_spinner();
                eprintln!(
                    "retrying in {:.1} s (retry {attempt}): {reason}",
                    *delay_ms as f64 / 1000.0
                );
            }
            Event::Warning { message } => {
                self.stop_spinner();
                self.end_line();
                eprintln!("warning: {message}");
            }
            Event::TurnDone { .. } | Event::Error { .. } => {
                self.stop_spinner();
                self.end_line();
            }
            Event::ApprovalAsked {
                name,
                arguments,
                why,
                ..
            } => {
                self.stop_spinner();
                self.end_line();
                let server = name
                    .strip_prefix("mcp__")
                    .and_then(|r| r.split_once("__"))
                    .map(|(s, _)| format!(" (server {s})"))
                    .unwrap_or_default();
                eprintln!("? {name}{server} wants to run — {why}");
                for line in arguments.lines() {
                    eprintln!("    {line}");
                }
                eprintln!(
                    "  y allow once · s allow {name} for this session · a always (config.toml) · n deny (n REASON tells the model why)"
                );
            }
            // A refusal shows its own line; what allows it says how.
            Event::Approval {
                name,
                decision,
                by,
                reason,
                ..
            } if decision == "deny" => {
                self.stop_spinner();
                self.end_line();
                let why = reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default();
                if by.ends_with("(nobody to ask)") {
                    eprintln!(
                        "✗ {name} needs approval ({by}); allow it with --approve '{name}' (a glob, repeatable) or --yolo"
                    );
                } else {
                    eprintln!("✗ {name} denied by {by}{why}");
                }
            }
            Event::SessionStarted { .. } | Event::Usage { .. } | Event::Approval { .. } => {}
        }
    }

    /// Ends a partly written stdout line (and any spinner), so what follows
    /// starts on its own line.
    pub(crate) fn end_line(&mut self) {
        self.stop_spinner();
        if !self.at_line_start {
            out(b"\n");
            self.at_line_start = true;
        }
    }

    fn start_spinner(&mut self) {
        if !self.spinner_allowed || self.spinner.is_some() {
            return;
        }
        let pb = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
            pb.set_style(style);
        }
        pb.set_message("thinking…");
        pb.enable_steady_tick(Duration::from_millis(100));
        self.spinner = Some(pb);
    }

    fn stop_spinner(&mut self) {
        if let Some(pb) = self.spinner.take() {
            pb.finish_and_clear();
        }
    }
}

impl Drop for Printer {
    fn drop(&mut self) {
        self.stop_spinner();
    }
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn out(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes).and_then(|_| stdout.flush());
}

/// Runs `fut` while printing its events as they come, and every event it left
/// queued before returning, so output is complete when this returns.
pub(crate) async fn drive<F: Future>(
    fut: F,
    rx: &mut UnboundedReceiver<Event>,
    printer: &mut Printer,
) -> F::Output {
    tokio::pin!(fut);
    loop {
        tokio::select! {
            biased;
            Some(ev) = rx.recv() => printer.handle(&ev),
            res = &mut fut => {
                while let Ok(ev) = rx.try_recv() {
                    printer.handle(&ev);
                }
                return res;
            }
        }
    }
}
