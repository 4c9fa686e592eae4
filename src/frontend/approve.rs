//! Asking the user in the REPL: the question is printed (an event, so the
//! printer clears its spinner first) and the next line typed on the
//! terminal is the answer — `y` allow once, `s` this tool for the session,
//! `a` always (written to config.toml), `n` deny, `n REASON` deny and tell
//! the model why. The line comes through the type-ahead reader, which owns
//! the terminal during a turn.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use tokio::sync::oneshot;

use crate::agent::{Event, EventTx};
use crate::policy::{Answer, Asker, Question};

/// Where the type-ahead reader sends the next line when a question waits.
pub(crate) type AnswerSlot = Arc<Mutex<Option<oneshot::Sender<String>>>>;

pub(crate) struct TerminalAsker {
    pub(crate) events: EventTx,
    pub(crate) answers: AnswerSlot,
    /// The config file an `always` answer is written to.
    pub(crate) config: PathBuf,
}

impl Asker for TerminalAsker {
    fn ask(&self, q: Question) -> BoxFuture<'_, Option<Answer>> {
        Box::pin(async move {
            let _ = self.events.send(Event::ApprovalAsked {
                id: q.call_id.clone(),
                name: q.tool.clone(),
                arguments: shown(&q.arguments),
                why: q.why.clone(),
            });
            loop {
                let (tx, rx) = oneshot::channel();
                if let Ok(mut slot) = self.answers.lock() {
                    *slot = Some(tx);
                }
                // The turn ended (a stop): nobody will answer.
                let line = rx.await.ok()?;
                match parse(&line) {
                    Some(Answer::Always) => {
                        if let Err(e) = crate::config::edit::allow_always(&self.config, &q.tool) {
                            let _ = self.events.send(Event::Warning {
                                message: format!(
                                    "could not add {} to {}: {e}; allowed for this session only",
                                    q.tool,
                                    self.config.display()
                                ),
                            });
                            return Some(Answer::Session);
                        }
                        return Some(Answer::Always);
                    }
                    Some(a) => return Some(a),
                    None => {
                        let _ = self.events.send(Event::Warning {
                            message: "answer y (once), s (this session), a (always) or n [reason]"
                                .into(),
                        });
                    }
                }
            }
        })
    }
}

/// The entry's arguments, pretty-printed and cut to fit a screen. A long
/// line keeps its head and its tail (what follows `…; ` may be the part
/// that matters), and invisible format characters (bidi overrides, zero
/// widths) are shown as `\u{…}` so nothing reads other than it is.
fn shown(args: &serde_json::Value) -> String {
    let pretty = serde_json::to_string_pretty(args).unwrap_or_else(|_| args.to_string());
    let pretty = visible(&pretty);
    let lines: Vec<&str> = pretty.lines().collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(20)
        .map(|l| {
            let body = l.trim_start();
            format!("{}{}", &l[..l.len() - body.len()], head_and_tail(body, 160))
        })
        .collect();
    if lines.len() > 20 {
        out.push(format!("… {} more lines", lines.len() - 20));
    }
    out.join("\n")
}

/// One word for y / s / a (a typed-ahead sentence such as "a small fix"
/// must not become "always"); `n` may be followed by a reason.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            let invisible = matches!(c as u32,
                0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xFEFF);
            if invisible {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn head_and_tail(s: &str, max: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= max {
        return s.to_string();
    }
    let half = max / 2;
    let head: String = chars[..half].iter().collect();
    let tail: String = chars[chars.len() - half..].iter().collect();
    format!("{head} … {tail}")
}

fn parse(line: &str) -> Option<Answer> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let alone = rest.trim().is_empty();
    match word.to_ascii_lowercase().as_str() {
        "y" | "yes" if alone => Some(Answer::Once),
        "s" | "session" if alone => Some(Answer::Session),
        "a" | "always" if alone => Some(Answer::Always),
        "n" | "no" | "d" | "deny" => {
            let reason = rest.trim();
            Some(Answer::Deny(
                (!reason.is_empty()).then(|| reason.to_string()),
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_one_word_and_a_denial_may_say_why() {
        assert_eq!(parse("y\n"), Some(Answer::Once));
        assert_eq!(parse("S"), Some(Answer::Session));
        assert_eq!(parse("a"), Some(Answer::Always));
        assert_eq!(parse("n"), Some(Answer::Deny(None)));
        assert_eq!(
            parse("n  not on main, use a branch\n"),
            Some(Answer::Deny(Some("not on main, use a branch".into())))
        );
        assert_eq!(parse(""), None);
        assert_eq!(
            parse("a small fix please"),
            None,
            "a sentence is not an answer"
        );
        assert_eq!(parse("maybe"), None);
    }

    #[test]
    fn nothing_hides_in_a_long_line_or_behind_invisible_characters() {
        let cmd = format!("echo hi{}; rm -rf ~", " ".repeat(300));
        let s = shown(&serde_json::json!({ "command": cmd }));
        assert!(s.contains("rm -rf ~"), "{s}");
        let s = shown(&serde_json::json!({"path": "/tmp/\u{202e}txt.exe"}));
        assert!(s.contains("\\u{202e}"), "{s}");
    }

    #[test]
    fn long_arguments_are_cut_to_fit() {
        let args = serde_json::json!({"lines": (0..40).collect::<Vec<_>>()});
        let s = shown(&args);
        assert!(s.lines().count() <= 21);
        assert!(s.ends_with("more lines"), "{s}");
    }
}
