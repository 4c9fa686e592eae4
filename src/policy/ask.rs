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
/// tool — and for `shell`, only commands that start as the asked one did
/// and chain nothing after (`git status` covers `git status -s`, never
/// `git status; rm -rf ~`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Grant {
    pub tool: String,
    /// The command prefix of a `shell` grant.
    pub prefix: Option<String>,
}

/// Characters after which a shell command could do anything else.
const CHAINING: &[char] = &[';', '&', '|', '`', '$', '<', '>', '(', ')', '\n', '\\'];

impl Grant {
    /// The standing grant an answer about this call gives; `None` for a
    /// `shell` command that chains or substitutes (allowed once only).
    pub(crate) fn for_call(tool: &str, args: &Value) -> Option<Grant> {
        if tool != "shell" {
            return Some(Grant {
                tool: tool.to_string(),
                prefix: None,
            });
        }
        let command = args["command"].as_str()?.trim();
        if command.is_empty() || command.contains(CHAINING) {
            return None;
        }
        // The program and, unless it is an option or a path, its subcommand.
        let mut words = command.split_whitespace();
        let program = words.next()?;
        let prefix = match words.next() {
            Some(sub) if !sub.starts_with('-') && !sub.contains(['/', '.', '=', '*']) => {
                format!("{program} {sub}")
            }
            _ => program.to_string(),
        };
        Some(Grant {
            tool: tool.to_string(),
            prefix: Some(prefix),
        })
    }

    pub(crate) fn covers(&self, tool: &str, args: &Value) -> bool {
        if self.tool != tool {
            return false;
        }
        match (&self.prefix, args["command"].as_str()) {
            (None, _) => true,
            (Some(p), Some(c)) => {
                regex::Regex::new(&Grant::pattern(p)).is_ok_and(|re| re.is_match(c.trim()))
            }
            (Some(_), None) => false,
        }
    }

    /// The argument condition of a `shell` grant, as a rule's regex.
    pub(crate) fn pattern(prefix: &str) -> String {
        crate::config::edit::command_prefix_pattern(prefix)
    }
}

impl std::fmt::Display for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.prefix {
            Some(p) => write!(f, "{} `{p} …`", self.tool),
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
    fn a_shell_grant_covers_its_prefix_and_nothing_chained() {
        let shell = |c: &str| serde_json::json!({ "command": c });
        let g = Grant::for_call("shell", &shell("git status -s")).unwrap();
        assert_eq!(g.prefix.as_deref(), Some("git status"));
        assert!(g.covers("shell", &shell("git status")));
        assert!(g.covers("shell", &shell("git status --short src")));
        assert!(!g.covers("shell", &shell("git status; rm -rf ~")));
        assert!(!g.covers("shell", &shell("git status $(curl x)")));
        assert!(!g.covers("shell", &shell("git push")));
        assert!(!g.covers("shell", &shell("git statusx")));
        assert_eq!(
            Grant::for_call("shell", &shell("ls -la"))
                .unwrap()
                .prefix
                .as_deref(),
            Some("ls")
        );
        assert_eq!(
            Grant::for_call("shell", &shell("make && make install")),
            None
        );
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
