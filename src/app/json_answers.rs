//! `--json-answers`: a script that reads the `--json` event stream answers
//! the approval questions in it. Each `approval_asked` event waits for one
//! line on stdin naming its call id and the answer:
//!
//! ```text
//! {"id":"call_9f2…","answer":"once"}
//! {"id":"call_4b1…","answer":"deny","reason":"not on main"}
//! ```
//!
//! `answer` is `once`, `session`, `always` (written to config.toml as the
//! REPL's `a` is) or `deny`. A line that is not such an answer, or names a
//! call no question waits for, is reported on stderr and changes nothing.

use serde::Deserialize;

use crate::policy::{Answer, Answers};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    /// Optional: `approval_answer`, for scripts that tag what they write.
    #[serde(default, rename = "type")]
    kind: Option<String>,
    id: String,
    answer: String,
    #[serde(default)]
    reason: Option<String>,
}

/// Reads answers from stdin until it closes, on a thread of its own (a
/// blocked read must not hold the runtime's shutdown).
pub(super) fn read_stdin(answers: Answers) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if line.trim().is_empty() {
                continue;
            }
            match parse(&line) {
                Ok((id, answer)) => {
                    if let Err(e) = answers.answer(&id, answer) {
                        errln!(
                            "warning: --json-answers: {e}; waiting: {:?}",
                            answers.waiting()
                        );
                    }
                }
                Err(e) => errln!("warning: --json-answers: {e}"),
            }
        }
    });
}

/// One line of stdin as the call id it answers and the answer.
fn parse(line: &str) -> Result<(String, Answer), String> {
    const SHAPE: &str =
        r#"write {"id":"CALL_ID","answer":"once|session|always|deny","reason":"…"}"#;
    let l: Line =
        serde_json::from_str(line).map_err(|e| format!("not an answer ({e}); {SHAPE}"))?;
    if l.kind.as_deref().is_some_and(|k| k != "approval_answer") {
        return Err(format!("`type` is `approval_answer` when given; {SHAPE}"));
    }
    let answer = match l.answer.as_str() {
        "once" => Answer::Once,
        "session" => Answer::Session,
        "always" => Answer::Always,
        "deny" => Answer::Deny(l.reason.filter(|r| !r.trim().is_empty())),
        other => return Err(format!("unknown answer `{other}`; {SHAPE}")),
    };
    Ok((l.id, answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_by_id_and_bad_lines_say_what_to_write() {
        assert_eq!(
            parse(r#"{"id":"call_1","answer":"once"}"#).unwrap(),
            ("call_1".to_string(), Answer::Once)
        );
        assert_eq!(
            parse(r#"{"type":"approval_answer","id":"c","answer":"deny","reason":"not main"}"#)
                .unwrap()
                .1,
            Answer::Deny(Some("not main".into()))
        );
        for bad in [
            "y",
            r#"{"id":"c","answer":"yes"}"#,
            r#"{"id":"c"}"#,
            r#"{"id":"c","answer":"once","extra":1}"#,
            r#"{"type":"other","id":"c","answer":"once"}"#,
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(r#"{"id":"CALL_ID""#), "{bad}: {e}");
        }
    }
}
