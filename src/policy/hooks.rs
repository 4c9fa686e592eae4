//! Hook commands. A hook gets one JSON object on stdin —
//! `{"event", "tool", "call_id", "arguments", "output"?}` — and `HERMES_TOOL`,
//! `HERMES_CALL_ID` in its environment. Exit 0 allows; exit 2 blocks, with
//! its stderr as the reason; any other failure (exit code, timeout, cannot
//! start) also blocks, naming the hook and its last stderr lines — a broken
//! guardrail must not silently let everything through.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use super::Verdict;
use crate::call::ToolOutput;
use crate::config::HookSettings;
use crate::util::glob::glob_match;
use crate::util::text::excerpt;

#[derive(Debug, Clone)]
pub(crate) struct Hook {
    matcher: String,
    command: String,
    timeout: Duration,
}

impl Hook {
    pub(crate) fn from_settings(e: &HookSettings) -> Hook {
        Hook {
            matcher: e.matcher.clone(),
            command: e.command.clone(),
            timeout: e.timeout,
        }
    }

    pub(crate) fn matches(&self, tool: &str) -> bool {
        glob_match(&self.matcher, tool)
    }

    pub(crate) async fn run(
        &self,
        event: &str,
        tool: &str,
        call_id: &str,
        args: &Value,
        output: Option<&ToolOutput>,
        cancel: &CancellationToken,
    ) -> Verdict {
        let mut input =
            json!({"event": event, "tool": tool, "call_id": call_id, "arguments": args});
        if let Some(o) = output {
            input["output"] = json!({"content": o.content, "is_error": o.is_error});
        }
        let name = excerpt(&self.command, 60);
        let mut child = match tokio::process::Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .env("HERMES_TOOL", tool)
            .env("HERMES_CALL_ID", call_id)
            .env("HERMES_HOOK_EVENT", event)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
        {
            Ok(c) => c,
            Err(e) => return Verdict::Block(format!("{event} hook `{name}` could not start: {e}")),
        };
        // Written beside the wait, not before it: a hook that does not read
        // its stdin must not hold the call past its timeout or a stop.
        if let Some(mut stdin) = child.stdin.take() {
            let bytes = format!("{input}\n").into_bytes();
            tokio::spawn(async move {
                let _ = stdin.write_all(&bytes).await;
            });
        }
        let waited = tokio::select! {
            _ = cancel.cancelled() => return Verdict::Block("cancelled before it started".into()),
            r = tokio::time::timeout(self.timeout, child.wait_with_output()) => r,
        };
        let out = match waited {
            Err(_) => {
                return Verdict::Block(format!(
                    "{event} hook `{name}` gave no answer within {} ms",
                    self.timeout.as_millis()
                ))
            }
            Ok(Err(e)) => return Verdict::Block(format!("{event} hook `{name}` failed: {e}")),
            Ok(Ok(o)) => o,
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = stderr
            .lines()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        match out.status.code() {
            Some(0) => Verdict::Allow,
            Some(2) => Verdict::Block(if stderr.trim().is_empty() {
                format!("blocked by the {event} hook `{name}`")
            } else {
                format!(
                    "blocked by the {event} hook: {}",
                    excerpt(stderr.trim(), 500)
                )
            }),
            code => Verdict::Block(format!(
                "{event} hook `{name}` failed ({}){}",
                code.map(|c| format!("exit code {c}"))
                    .unwrap_or_else(|| "killed by a signal".into()),
                if last.is_empty() {
                    String::new()
                } else {
                    format!("; last stderr: {}", last.join(" | "))
                }
            )),
        }
    }
}
