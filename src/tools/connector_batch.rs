//! A batch of `connectors__` entries: one gateway dispatch for all of
//! them (the gateway runs them), the entries refused on the way kept out of
//! it, and the results back in entry order, each cut as a single call's.

use std::collections::HashSet;

use tokio_util::sync::CancellationToken;

use super::{Registry, ToolOutput};
use crate::call::{ids, Entry};
use crate::connectors::DispatchCall;

impl Registry {
    /// Ids of a `connectors__` batch's entries: the call's own id for the
    /// first, child ids after it (as a split would give).
    pub fn batch_ids(call_id: &str, entries: &[Entry]) -> Vec<String> {
        ids::entry_ids(call_id, entries, &mut HashSet::new())
    }

    /// A `connectors__`-only batch: ONE gateway dispatch for the entries not
    /// `refused` (by scope, schema, hooks or approval), results in entry order.
    pub async fn gateway_batch(
        &self,
        call_id: &str,
        entries: &[Entry],
        refused: &[Option<String>],
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let outs = self
            .gateway_batch_outputs(call_id, entries, refused, cancel)
            .await;
        batch_output(entries, &outs)
    }

    /// Each entry's output of a `connectors__` batch's one dispatch, in entry
    /// order: refused entries carry their reason and are not sent.
    pub async fn gateway_batch_outputs(
        &self,
        call_id: &str,
        entries: &[Entry],
        refused: &[Option<String>],
        cancel: &CancellationToken,
    ) -> Vec<ToolOutput> {
        let Some(g) = &self.gateway else {
            let none = "no connector gateway is configured ([connectors] url in config.toml)";
            return entries.iter().map(|_| ToolOutput::error(none)).collect();
        };
        let ids = Self::batch_ids(call_id, entries);
        let calls: Vec<DispatchCall<'_>> = entries
            .iter()
            .zip(&ids)
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
            g.dispatch(&calls, cancel).await
        }
        .into_iter();
        entries
            .iter()
            .zip(refused)
            .map(|(e, r)| {
                let out = match (r, &e.arguments) {
                    (Some(why), _) | (None, Err(why)) => ToolOutput::error(why.clone()),
                    (None, Ok(_)) => outs
                        .next()
                        .unwrap_or_else(|| ToolOutput::error("no result")),
                };
                // Each entry gets the cut a single call would.
                out.cut(self.output_limit)
            })
            .collect()
    }
}

/// A batch's one result: `{"count", "results": [{name, is_error, content}]}`.
pub fn batch_output(entries: &[Entry], outs: &[ToolOutput]) -> ToolOutput {
    ToolOutput {
        diff: None,
        is_error: outs.iter().all(|o| o.is_error),
        content: serde_json::json!({
            "count": outs.len(),
            "results": entries
                .iter()
                .zip(outs)
                .map(|(e, o)| serde_json::json!({"name": e.name, "is_error": o.is_error, "content": o.content}))
                .collect::<Vec<_>>(),
        })
        .to_string(),
    }
}
