//! Asking the user about one entry, when the decision is `ask` and someone
//! can answer (the REPL on a terminal, a `--json-answers` script). The
//! round emits the question as an event and waits on [`Answers`] for a
//! typed answer to that call id; a front end only draws the question and
//! hands back what the person said. One question at a time, in entry
//! order: entry *i* is asked only once every entry before it has settled
//! its checks, and no entry of the round runs before all are settled. A
//! server's form is answered through the same [`Answers`], by its id.

use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tokio::sync::{oneshot, watch};

/// What the user is asked.
#[derive(Debug, Clone)]
pub(crate) struct Question {
    pub call_id: String,
    /// The underlying tool (`mcp__files__write_file`).
    pub tool: String,
    /// This entry's own arguments.
    pub arguments: Value,
    /// The arguments its tool's schema marks required, in the schema's
    /// order: the target (path, command, URL), shown first.
    pub required: Vec<String>,
    /// What the call would change (a built-in edit's diff), shown in
    /// place of its arguments' bodies.
    pub preview: Option<String>,
    /// What made it a question (`mode ask`, `annotation destructiveHint`,
    /// `hook`), and any reason given.
    pub why: String,
    /// Only "once" may answer it: the call is one that is always asked (a
    /// write outside the folder, to a control path, a command run without
    /// the sandbox), which no standing answer may cover — "this session"
    /// or "always" for the tool would also let every later call of it run
    /// unasked, more than the question was about.
    pub once_only: bool,
    /// What "this session" and "always" allow, when not the call's own
    /// grant (a question about hosts a command was refused).
    pub grants: Option<String>,
}

/// A person's answer to one question.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    Once,
    /// This tool, for the rest of the session.
    Session,
    /// This tool, from now on: written to config.toml by the round.
    Always,
    /// Not this call; the reason, if any, goes to the model.
    Deny(Option<String>),
    /// The answer to a server's form.
    Form(FormAnswer),
}

/// How a server's form (elicitation) was answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FormAnswer {
    /// Filled in: the content, checked against the form's fields.
    Accept(Map<String, Value>),
    Decline,
    /// Dismissed without a choice (a stop, `!cancel`).
    Cancel,
}

/// Where answers to questions arrive, by the id asked about: an entry's
/// call id, or a server form's id. The round registers a question before
/// it emits `approval_asked` (a form before `form_asked`) and waits for its
/// answer (or the turn's stop); a front end holds a clone and answers.
/// Cloned, it is the same place.
#[derive(Clone, Default)]
pub(crate) struct Answers {
    waiting: Arc<Mutex<Vec<Waiting>>>,
}

/// Checks a form's content and completes it (defaults put in); `Err`
/// names the field and what would fit.
pub(crate) type FormCheck =
    Box<dyn Fn(&Map<String, Value>) -> Result<Map<String, Value>, String> + Send + Sync>;

/// What a waiting question takes: an approval's answers, or a form's.
enum Takes {
    Approval,
    Form(FormCheck),
}

/// A question's id, what it takes, and where its answer goes.
type Waiting = (String, Takes, oneshot::Sender<Answer>);

/// An answer that cannot be taken; the question, if one waits, still does.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum NotTaken {
    /// Answered already, never asked, or its turn ended.
    #[error("no question waits for an answer about call `{0}`")]
    NotAsked(String),
    #[error("`{0}` asks about a call: answer once, session, always or deny")]
    Approval(String),
    #[error("`{0}` is a server's form: answer accept (with its content), decline or cancel")]
    Form(String),
    #[error("the form `{0}` does not take that content: {1}")]
    Content(String, String),
}

impl Answers {
    /// A question about `call_id` now waits: its answer comes on the
    /// receiver (closed if the question is dropped unanswered).
    pub(crate) fn wait_for(&self, call_id: &str) -> oneshot::Receiver<Answer> {
        self.wait(call_id, Takes::Approval)
    }

    /// A server's form `id` now waits: its answer comes on the receiver, an
    /// accepted content only once `check` takes it.
    pub(crate) fn wait_for_form(&self, id: &str, check: FormCheck) -> oneshot::Receiver<Answer> {
        self.wait(id, Takes::Form(check))
    }

    fn wait(&self, asked: &str, takes: Takes) -> oneshot::Receiver<Answer> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut w) = self.waiting.lock() {
            w.retain(|(id, _, tx)| id != asked && !tx.is_closed());
            w.push((asked.to_string(), takes, tx));
        }
        rx
    }

    /// Nobody will answer from now on (a script's stdin closed): every
    /// question waiting ends unanswered.
    pub(crate) fn none_will_come(&self) {
        if let Ok(mut w) = self.waiting.lock() {
            w.clear();
        }
    }

    /// The answer to the question about `asked` (a call id or a form's id):
    /// refused, the question still waiting, when it is not the kind of
    /// answer the question takes or a form's content does not fit it.
    pub(crate) fn answer(&self, asked: &str, answer: Answer) -> Result<(), NotTaken> {
        let not_asked = || NotTaken::NotAsked(asked.to_string());
        let mut w = self.waiting.lock().map_err(|_| not_asked())?;
        let i = w
            .iter()
            .position(|(id, _, tx)| id == asked && !tx.is_closed())
            .ok_or_else(not_asked)?;
        let answer = match (&w[i].1, answer) {
            (Takes::Approval, Answer::Form(_)) => return Err(NotTaken::Approval(asked.into())),
            (Takes::Form(_), Answer::Once | Answer::Session | Answer::Always | Answer::Deny(_)) => {
                return Err(NotTaken::Form(asked.into()))
            }
            (Takes::Form(check), Answer::Form(FormAnswer::Accept(content))) => {
                let full = check(&content).map_err(|why| NotTaken::Content(asked.into(), why))?;
                Answer::Form(FormAnswer::Accept(full))
            }
            (_, answer) => answer,
        };
        let (_, _, tx) = w.remove(i);
        tx.send(answer).map_err(|_| not_asked())
    }

    /// The questions waiting, oldest first.
    pub(crate) fn waiting(&self) -> Vec<String> {
        self.waiting
            .lock()
            .map(|w| {
                w.iter()
                    .filter(|(_, _, tx)| !tx.is_closed())
                    .map(|(id, _, _)| id.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// What this session allowed by answer, and `/yolo`.
#[derive(Debug, Default, Clone)]
pub(crate) struct SessionApprovals {
    pub allowed: Vec<Grant>,
    pub yolo: bool,
    /// `/yolo` turned off what `--yolo` turned on.
    pub flag_yolo_off: bool,
    /// The mode the person switched to (`--mode`, `/mode`, Shift-Tab);
    /// `None`: the configured one.
    pub mode: Option<crate::config::ApprovalMode>,
}

/// What an answer of "this session" or "always" lets run from then on: a
/// tool — and for `shell`, exactly the command line asked about, nothing
/// more: an answer to `bash run_tests.sh` does not cover `bash -c "rm -rf
/// src"`, nor one to `git status` cover `git status; curl …`. A wrapper
/// (`env`, `timeout`, `xargs`, `find -exec`, `tar --to-command`, `git -c`)
/// runs whatever its arguments say, so no prefix of a command is safe to
/// stand for the rest. Broader standing permission is a rule in the config,
/// written by hand.
///
/// A `web_fetch` grant covers one host (its domain as the URL names it):
/// "always" writes that host to `[network] allow`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Grant {
    pub tool: String,
    /// The one command line a `shell` grant covers (trimmed).
    pub command: Option<String>,
    /// The one host a `web_fetch` grant covers.
    pub domain: Option<String>,
}

impl Grant {
    /// The standing grant an answer about this call gives; `None` for a
    /// `shell` call without a command.
    pub(crate) fn for_call(tool: &str, args: &Value) -> Option<Grant> {
        if tool == "web_fetch" {
            return Some(Grant {
                tool: tool.to_string(),
                command: None,
                domain: Some(domain_of(args)?),
            });
        }
        if tool != "shell" {
            return Some(Grant {
                tool: tool.to_string(),
                command: None,
                domain: None,
            });
        }
        let command = args["command"].as_str()?.trim();
        if command.is_empty() {
            return None;
        }
        Some(Grant {
            tool: tool.to_string(),
            command: Some(command.to_string()),
            domain: None,
        })
    }

    pub(crate) fn covers(&self, tool: &str, args: &Value) -> bool {
        if self.tool != tool {
            return false;
        }
        if let Some(d) = &self.domain {
            return domain_of(args).as_ref() == Some(d);
        }
        match (&self.command, args["command"].as_str()) {
            (None, _) => true,
            (Some(granted), Some(c)) => c.trim() == granted,
            (Some(_), None) => false,
        }
    }

    /// The argument condition of a `shell` grant, as a rule's regex: the
    /// command line exactly.
    pub(crate) fn pattern(command: &str) -> String {
        crate::config::edit::exact_command_pattern(command)
    }
}

impl std::fmt::Display for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.command, &self.domain) {
            (Some(c), _) => write!(f, "{} `{c}` (exactly)", self.tool),
            (_, Some(d)) => write!(f, "{} on {d}", self.tool),
            _ => f.write_str(&self.tool),
        }
    }
}

/// The host a `web_fetch` call's URL names, as `[network]` rules name it.
fn domain_of(args: &Value) -> Option<String> {
    let url = crate::net::parse(args["url"].as_str()?).ok()?;
    crate::net::host_port(&url).map(|(h, _)| h)
}

pub(crate) type Shared = Arc<Mutex<SessionApprovals>>;

/// Entry order for questions within one round: slot *i* may ask once
/// every slot before it is done.
pub(crate) struct Gate {
    done: Mutex<Vec<bool>>,
    next: watch::Sender<usize>,
}

impl Gate {
    pub(crate) fn new(slots: usize) -> Gate {
        Gate {
            done: Mutex::new(vec![false; slots]),
            next: watch::channel(0).0,
        }
    }

    /// Waits until every slot before `slot` is done.
    pub(crate) async fn wait_turn(&self, slot: usize) {
        let mut rx = self.next.subscribe();
        let _ = rx.wait_for(|next| *next >= slot).await;
    }

    pub(crate) fn done(&self, slot: usize) {
        let Ok(mut done) = self.done.lock() else {
            return;
        };
        if let Some(d) = done.get_mut(slot) {
            *d = true;
        }
        let next = done.iter().take_while(|d| **d).count();
        self.next.send_replace(next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_takes_a_forms_answer_whose_content_fits_and_a_call_a_calls() {
        let answers = Answers::default();
        let mut call = answers.wait_for("call_a");
        let check: FormCheck = Box::new(|c| match c.get("n") {
            Some(Value::Number(_)) => Ok(c.clone()),
            _ => Err("field `n` is required".into()),
        });
        let mut form = answers.wait_for_form("form_1", check);
        let accept = |v: Value| Answer::Form(FormAnswer::Accept(v.as_object().unwrap().clone()));
        assert_eq!(
            answers.answer("call_a", Answer::Form(FormAnswer::Decline)),
            Err(NotTaken::Approval("call_a".into()))
        );
        assert_eq!(
            answers.answer("form_1", Answer::Once),
            Err(NotTaken::Form("form_1".into()))
        );
        assert_eq!(
            answers.answer("form_1", accept(serde_json::json!({}))),
            Err(NotTaken::Content(
                "form_1".into(),
                "field `n` is required".into()
            ))
        );
        // Refused answers leave both waiting.
        assert_eq!(answers.waiting(), ["call_a", "form_1"]);
        answers
            .answer("form_1", accept(serde_json::json!({"n": 1})))
            .unwrap();
        assert_eq!(
            form.try_recv().unwrap(),
            accept(serde_json::json!({"n": 1}))
        );
        answers.none_will_come();
        assert!(call.try_recv().is_err(), "nobody will answer it now");
    }

    #[test]
    fn a_shell_grant_covers_exactly_the_command_asked_and_no_wrapper() {
        let shell = |c: &str| serde_json::json!({ "command": c });
        let g = Grant::for_call("shell", &shell(" bash run_tests.sh ")).unwrap();
        assert_eq!(g.command.as_deref(), Some("bash run_tests.sh"));
        assert!(g.covers("shell", &shell("bash run_tests.sh")));
        for other in [
            "bash -c \"rm -rf src\"",
            "bash run_tests.sh; rm -rf src",
            "bash run_tests.sh --all",
            "timeout 5 bash run_tests.sh",
            "env X=1 bash run_tests.sh",
        ] {
            assert!(!g.covers("shell", &shell(other)), "{other}");
        }
        let git = Grant::for_call("shell", &shell("git status")).unwrap();
        for other in [
            "git status -s",
            "git -c core.fsmonitor=touch\\ x status",
            "find . -exec rm {} +",
            "tar -xf a.tar --to-command=sh",
            "xargs rm",
        ] {
            assert!(!git.covers("shell", &shell(other)), "{other}");
        }
        let re = regex::Regex::new(&Grant::pattern("git status")).unwrap();
        assert!(re.is_match("git status") && !re.is_match("git status; rm -rf ~"));
        let any = Grant::for_call("mcp__files__write_file", &serde_json::json!({})).unwrap();
        assert!(any.covers("mcp__files__write_file", &serde_json::json!({"path": "x"})));
    }

    #[tokio::test]
    async fn an_answer_reaches_the_question_about_its_call_and_only_that_one() {
        let answers = Answers::default();
        let first = answers.wait_for("call_a");
        let second = answers.wait_for("call_b");
        assert_eq!(answers.waiting(), ["call_a", "call_b"]);
        assert_eq!(
            answers.answer("call_z", Answer::Once),
            Err(NotTaken::NotAsked("call_z".into()))
        );
        answers.answer("call_b", Answer::Deny(None)).unwrap();
        assert_eq!(second.await.unwrap(), Answer::Deny(None));
        assert_eq!(answers.waiting(), ["call_a"]);
        assert!(
            answers.answer("call_b", Answer::Once).is_err(),
            "answered once"
        );
        // The round gave up on it (its turn stopped): nothing waits.
        drop(first);
        assert!(answers.waiting().is_empty());
        assert!(answers.answer("call_a", Answer::Once).is_err());
    }

    #[tokio::test]
    async fn slots_take_their_turn_in_order_whatever_order_they_finish() {
        let gate = Arc::new(Gate::new(3));
        let g = gate.clone();
        let third = tokio::spawn(async move {
            g.wait_turn(2).await;
        });
        gate.done(1);
        tokio::task::yield_now().await;
        assert!(!third.is_finished(), "slot 0 is not done yet");
        gate.done(0);
        tokio::time::timeout(std::time::Duration::from_secs(1), third)
            .await
            .expect("slot 2 may go once 0 and 1 are done")
            .unwrap();
        gate.wait_turn(0).await;
    }
}
