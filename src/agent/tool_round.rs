//! One tool round (deferred-tools contract §6–§8). Every call of the
//! assistant message — a directly listed tool or a split `tool_call` child —
//! goes down the same per-entry path:
//!
//! scope check → argument schema validation → `pre_tool_call` hooks →
//! approval → the server's concurrency gate → the call → its result appended
//! to the session file as soon as it exists → `post_tool_call` hooks.
//!
//! The checks run for all entries first; then every approved entry starts at
//! once, in entry order, so a serial server's FIFO gate takes them in that
//! order while a parallel one runs them together. Results go back to the
//! model in entry order whatever order they finished in. A stop cancels the
//! round: entries not yet sent never are, running ones are cancelled, and
//! every call id still gets a result.

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::protocol::{Event, EventTx};
use crate::policy::{Policy, Verdict};
use crate::session::{Record, SessionError, SessionHandle, ToolCall, ToolResult};
use crate::tools::catalog::CONNECTOR_PREFIX;
use crate::tools::{bridge, parse_arguments, validation, Registry, ToolOutput};
use crate::util::time::Utc;

/// How a call of the message is run.
enum Plan {
    /// Down the per-entry path: the underlying tool and its arguments.
    Entry { tool: String, args: Value },
    /// A `connectors__`-only batch: each entry checked (scope, schema, hooks,
    /// approval) like any other, the allowed ones sent in one dispatch.
    Batch {
        entries: Vec<validation::Entry>,
        refused: Vec<Option<String>>,
    },
    /// As it is: `tool_search`, `tool_describe`, or a `tool_call` the
    /// dispatcher answers whole (malformed, too many).
    Whole,
    /// Settled before running.
    Done(ToolOutput),
}

fn plan(call: &ToolCall) -> Plan {
    let args = match parse_arguments(&call.arguments) {
        Ok(a) => a,
        Err(e) => return Plan::Done(ToolOutput::error(e)),
    };
    match call.name.as_str() {
        bridge::SEARCH | bridge::DESCRIBE => Plan::Whole,
        bridge::CALL => match validation::parse_calls(&args) {
            Ok(mut entries) if entries.len() == 1 && !bridge::is_bridge(&entries[0].name) => {
                let e = entries.remove(0);
                Plan::Entry {
                    tool: e.name,
                    args: e.arguments,
                }
            }
            Ok(entries)
                if entries.len() <= validation::MAX_CALLS_PER_DISPATCH
                    && entries.iter().all(|e| e.name.starts_with(CONNECTOR_PREFIX)) =>
            {
                Plan::Batch {
                    refused: vec![None; entries.len()],
                    entries,
                }
            }
            _ => Plan::Whole,
        },
        name => Plan::Entry {
            tool: name.to_string(),
            args,
        },
    }
}

pub struct Round<'a> {
    pub tools: &'a Registry,
    pub policy: &'a Policy,
    pub session: &'a SessionHandle,
    pub events: &'a EventTx,
    pub cancel: &'a CancellationToken,
}

impl Round<'_> {
    pub async fn run(&self, calls: &[ToolCall]) -> Result<Vec<ToolResult>, SessionError> {
        // Scope, schema, hooks and approval for every entry, concurrently.
        let checks = calls.iter().map(|c| self.check(c));
        let plans: Vec<Plan> = futures_util::future::join_all(checks).await;
        // Then run: futures are first polled in entry order, which is the
        // order they queue at a server's gate.
        let runs = calls.iter().zip(plans).map(|(c, p)| self.execute(c, p));
        let results = futures_util::future::join_all(runs).await;
        results.into_iter().collect()
    }

    async fn check(&self, call: &ToolCall) -> Plan {
        if self.cancel.is_cancelled() {
            return Plan::Done(ToolOutput::error("cancelled before it started"));
        }
        match plan(call) {
            Plan::Entry { tool, args } => match self.check_one(&tool, &call.id, &args).await {
                Some(why) => Plan::Done(ToolOutput::error(why)),
                None => Plan::Entry { tool, args },
            },
            Plan::Batch { entries, .. } => {
                let ids = Registry::batch_ids(&call.id, &entries);
                let checks = entries
                    .iter()
                    .zip(&ids)
                    .map(|(e, id)| self.check_one(&e.name, id, &e.arguments));
                let refused = futures_util::future::join_all(checks).await;
                Plan::Batch { entries, refused }
            }
            other => other,
        }
    }

    /// Scope, schema, `pre_tool_call` hooks and approval for one entry:
    /// `Some(reason)` when it must not run.
    async fn check_one(&self, tool: &str, id: &str, args: &Value) -> Option<String> {
        if tool.starts_with(CONNECTOR_PREFIX) {
            self.tools.load_connectors().await;
        }
        if let Some(err) = self.tools.check_entry(tool, args) {
            return Some(err);
        }
        if let Verdict::Block(why) = self.policy.pre_tool_call(tool, id, args, self.cancel).await {
            return Some(why);
        }
        match self.policy.approve(tool) {
            Verdict::Block(why) => Some(why),
            Verdict::Allow => None,
        }
    }

    async fn execute(&self, call: &ToolCall, plan: Plan) -> Result<ToolResult, SessionError> {
        let started = |tool: &str| {
            let _ = self.events.send(Event::ToolCallStarted {
                id: call.id.clone(),
                name: tool.to_string(),
                arguments: call.arguments.clone(),
            });
        };
        let (tool, output) = match plan {
            Plan::Done(out) => (call.name.clone(), out),
            Plan::Batch { entries, refused } => {
                started(&call.name);
                let out = self
                    .tools
                    .gateway_batch(&call.id, &entries, &refused, self.cancel)
                    .await;
                (call.name.clone(), out)
            }
            Plan::Whole => {
                started(&call.name);
                let out = tokio::select! {
                    out = self.tools.execute(call, self.cancel) => out,
                    _ = self.cancel.cancelled() => ToolOutput::error("interrupted by the user while running"),
                };
                (call.name.clone(), out)
            }
            Plan::Entry { tool, args } => {
                if self.cancel.is_cancelled() {
                    (tool, ToolOutput::error("cancelled before it started"))
                } else {
                    started(&tool);
                    let out = self
                        .tools
                        .call_checked(&tool, &call.id, args.clone(), self.cancel)
                        .await;
                    for problem in self
                        .policy
                        .post_tool_call(&tool, &call.id, &args, &out, &CancellationToken::new())
                        .await
                    {
                        let _ = self.events.send(Event::Warning { message: problem });
                    }
                    (tool, out)
                }
            }
        };
        let result = ToolResult {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: output.content,
            is_error: output.is_error,
        };
        // Persisted the moment it exists: a crash keeps every finished result.
        self.session
            .append(&Record::ToolResult {
                ts: Utc::now().rfc3339(),
                result: result.clone(),
            })
            .await?;
        let _ = self.events.send(Event::ToolCallFinished {
            id: result.tool_call_id.clone(),
            name: tool,
            is_error: result.is_error,
            content: result.content.clone(),
        });
        Ok(result)
    }
}
