//! Running what the tool round has checked: one entry on its tool (a
//! built-in, an MCP server's, or the gateway's), or a `connectors__` batch
//! as ONE gateway dispatch — the entries refused on the way kept out of it,
//! the results back in entry order, each cut as a single call's. The round
//! is the only caller: scope, schema, hooks and approval come before.

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{OnStart, Registry, ToolOutput};
use crate::call::{Entry, ToolRef};
use crate::connectors::DispatchCall;

impl Registry {
    /// Runs an entry that passed [`Registry::check_args`]. `on_start` is
    /// called when it is about to be sent; an entry cancelled before that is
    /// never sent.
    pub(crate) async fn call_checked(
        &self,
        tool: &ToolRef,
        call_id: &str,
        args: Value,
        planned: super::Planned<'_>,
        cancel: &CancellationToken,
        on_start: OnStart<'_>,
    ) -> ToolOutput {
        match tool {
            ToolRef::Builtin(name) => {
                let Some(t) = self.builtin(name) else {
                    return ToolOutput::error(format!("unknown tool `{name}`"));
                };
                if cancel.is_cancelled() {
                    return ToolOutput::not_started();
                }
                // The tool says when it starts (after its own gate); a stop
                // before that never ran it.
                let started = std::sync::atomic::AtomicBool::new(false);
                let on_start = || {
                    started.store(true, std::sync::atomic::Ordering::SeqCst);
                    on_start();
                };
                tokio::select! {
                    biased;
                    _ = cancel.cancelled() => ToolOutput::stopped(
                        started.load(std::sync::atomic::Ordering::SeqCst)
                    ),
                    out = t.call_expecting(args, planned, cancel, &on_start) => out.cut(self.output_limit),
                }
            }
            ToolRef::Connector(name) => {
                let call = [DispatchCall {
                    id: call_id,
                    name,
                    arguments: &args,
                }];
                let mut outs = self.send_to_gateway(&call, cancel, on_start).await;
                outs.pop().unwrap_or_else(ToolOutput::no_gateway)
            }
            ToolRef::Subagent => ToolOutput::error("a subagent runs in the tool round, not here"),
            ToolRef::Mcp { server, tool, .. } => {
                match self.mcp.as_ref().and_then(|m| m.server(server)) {
                    Some(s) => s.call(call_id, tool, args, cancel, on_start).await,
                    None => ToolOutput::error(format!("server `{server}` is not configured")),
                }
            }
        }
    }

    /// Each entry's output of a `connectors__` batch's one dispatch, in entry
    /// order: entries `refused` (by scope, schema, hooks or approval) carry
    /// their reason and are not sent. `ids`: the entries' own ids.
    pub(crate) async fn run_batch(
        &self,
        entries: &[Entry],
        ids: &[String],
        refused: &[Option<String>],
        cancel: &CancellationToken,
    ) -> Vec<ToolOutput> {
        let calls: Vec<DispatchCall<'_>> = entries
            .iter()
            .zip(ids)
            .zip(refused)
            .filter_map(|((e, id), r)| match (&e.arguments, r) {
                (Ok(arguments), None) => Some(DispatchCall {
                    id,
                    name: &e.name,
                    arguments,
                }),
                _ => None,
            })
            .collect();
        let mut outs = if calls.is_empty() {
            Vec::new()
        } else {
            self.send_to_gateway(&calls, cancel, &|| {}).await
        }
        .into_iter();
        entries
            .iter()
            .zip(refused)
            .map(|(e, r)| match (r, &e.arguments) {
                (Some(why), _) | (None, Err(why)) => ToolOutput::error(why.clone()),
                (None, Ok(_)) => outs.next().unwrap_or_else(ToolOutput::no_gateway),
            })
            .collect()
    }

    /// One dispatch to the gateway, each result cut as a single call's; a
    /// result for every call (the gateway's, or why there is none).
    async fn send_to_gateway(
        &self,
        calls: &[DispatchCall<'_>],
        cancel: &CancellationToken,
        on_start: OnStart<'_>,
    ) -> Vec<ToolOutput> {
        let Some(g) = &self.gateway else {
            return calls.iter().map(|_| ToolOutput::no_gateway()).collect();
        };
        if cancel.is_cancelled() {
            return calls.iter().map(|_| ToolOutput::not_started()).collect();
        }
        on_start();
        g.dispatch(calls, cancel)
            .await
            .into_iter()
            .map(|o| o.cut(self.output_limit))
            .collect()
    }
}
