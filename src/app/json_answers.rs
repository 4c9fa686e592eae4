//! `--json-answers`: a script that reads the `--json` event stream answers
//! the questions in it. Each `approval_asked` event waits for one line on
//! stdin naming its call id and the answer, each `form_asked` (a server's
//! form) one naming the form's id:
//!
//! ```text
//! {"id":"call_9f2…","answer":"once"}
//! {"id":"call_4b1…","answer":"deny","reason":"not on main"}
//! {"id":"form_1","answer":"accept","content":{"name":"Ada","age":36}}
//! ```
//!
//! For a call, `answer` is `once`, `session`, `always` (written to
//! config.toml as the REPL's `a` is) or `deny`; for a form, `accept` (with
//! `content`, checked against the form's fields: an optional field left
//! out takes its default), `decline` or `cancel`. A line that is not such
//! an answer, names nothing that waits, or gives content the form does not
//! take, is reported on stderr and changes nothing — the question still
//! waits. When stdin closes, nothing more will be answered: whatever still
//! waits ends unanswered.

use serde::Deserialize;

use crate::policy::{Answer, Answers, FormAnswer};

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
    /// A form's content, with `accept`.
    #[serde(default)]
    content: Option<serde_json::Map<String, serde_json::Value>>,
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
        answers.none_will_come();
    });
}

/// One line of stdin as the call id it answers and the answer.
fn parse(line: &str) -> Result<(String, Answer), String> {
    const SHAPE: &str = r#"write {"id":"CALL_ID","answer":"once|session|always|deny","reason":"…"} or {"id":"FORM_ID","answer":"accept|decline|cancel","content":{…}}"#;
    let l: Line =
        serde_json::from_str(line).map_err(|e| format!("not an answer ({e}); {SHAPE}"))?;
    if l.kind
        .as_deref()
        .is_some_and(|k| k != "approval_answer" && k != "form_answer")
    {
        return Err(format!(
            "`type` is `approval_answer` or `form_answer` when given; {SHAPE}"
        ));
    }
    if l.content.is_some() && l.answer != "accept" {
        return Err(format!("`content` goes with `accept` only; {SHAPE}"));
    }
    let answer = match l.answer.as_str() {
        "once" => Answer::Once,
        "session" => Answer::Session,
        "always" => Answer::Always,
        "deny" => Answer::Deny(l.reason.filter(|r| !r.trim().is_empty())),
        "accept" => Answer::Form(FormAnswer::Accept(l.content.unwrap_or_default())),
        "decline" => Answer::Form(FormAnswer::Decline),
        "cancel" => Answer::Form(FormAnswer::Cancel),
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

    #[test]
    fn a_forms_answer_carries_its_content_with_accept_only() {
        let (id, a) =
            parse(r#"{"id":"form_1","answer":"accept","content":{"name":"Ada"}}"#).unwrap();
        assert_eq!(id, "form_1");
        let content = serde_json::json!({"name": "Ada"})
            .as_object()
            .unwrap()
            .clone();
        assert_eq!(a, Answer::Form(FormAnswer::Accept(content)));
        assert_eq!(
            parse(r#"{"type":"form_answer","id":"form_1","answer":"decline"}"#)
                .unwrap()
                .1,
            Answer::Form(FormAnswer::Decline)
        );
        let e = parse(r#"{"id":"form_1","answer":"decline","content":{}}"#).unwrap_err();
        assert!(e.contains("`content` goes with `accept` only"), "{e}");
    }
}
