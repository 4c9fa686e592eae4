//! Asking the user about one entry, when the decision is `ask` and someone
//! can answer (the REPL on a terminal). One question at a time, in entry
//! order: entry *i* is asked only once every entry before it has settled its
//! checks, and no entry of the round runs before all are settled.

use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio::sync::watch;

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
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    Once,
    /// This tool, for the rest of the session.
    Session,
    /// This tool, from now on: written to config.toml by the asker.
    Always,
    /// Not this call; the reason, if any, goes to the model.
    Deny(Option<String>),
}

/// Someone who can answer. `None`: nobody will (the turn was stopped).
pub(crate) trait Asker: Send + Sync {
    fn ask(&self, q: Question) -> BoxFuture<'_, Option<Answer>>;
}

/// What this session allowed by answer, and `/yolo`.
#[derive(Debug, Default)]
pub(crate) struct SessionApprovals {
    pub allowed: Vec<Grant>,
    pub yolo: bool,
}

/// What an answer of "this session" or "always" lets run from then on: a
/// tool — and for `shell`, exactly the command line asked about, nothing
/// more: an answer to `bash run_tests.sh` does not cover `bash -c "rm -rf
/// src"`, nor one to `git status` cover `git status; curl …`. A wrapper
/// (`env`, `timeout`, `xargs`, `find -exec`, `tar --to-command`, `git -c`)
/// runs whatever its arguments say, so no prefix of a command is safe to
/// stand for the rest. Broader standing permission is a rule in the config,
/// written by hand.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Grant {
    pub tool: String,
    /// The one command line a `shell` grant covers (trimmed).
    pub command: Option<String>,
}

impl Grant {
    /// The standing grant an answer about this call gives; `None` for a
    /// `shell` call without a command.
    pub(crate) fn for_call(tool: &str, args: &Value) -> Option<Grant> {
        if tool != "shell" {
            return Some(Grant {
                tool: tool.to_string(),
                command: None,
            });
        }
        let command = args["command"].as_str()?.trim();
        if command.is_empty() {
            return None;
        }
        Some(Grant {
            tool: tool.to_string(),
            command: Some(command.to_string()),
        })
    }

    pub(crate) fn covers(&self, tool: &str, args: &Value) -> bool {
        if self.tool != tool {
            return false;
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
        match &self.command {
            Some(c) => write!(f, "{} `{c}` (exactly)", self.tool),
            None => f.write_str(&self.tool),
        }
    }
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
