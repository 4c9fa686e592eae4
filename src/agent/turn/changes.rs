//! Tools that appeared or went away since the session's prompt was
//! written (a server's `list_changed`, a catalog filled later): told to the
//! model at the start of its next turn, in that turn's own message — the
//! bytes already sent, the system prompt among them, are never rewritten.

use std::collections::BTreeSet;

use super::super::core::Agent;

/// How long a turn's start waits for listings under way.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

/// Names listed in one note, at most; the rest are counted.
const MAX_NAMED: usize = 30;

impl Agent {
    /// Waits (bounded) for the listings servers' `list_changed` started, so
    /// what is read next — tools, prompts, resources — is what they
    /// announced.
    pub(crate) async fn settle_listings(&self) {
        if let Some(mcp) = self.tools.mcp_registry() {
            mcp.settle(SETTLE).await;
        }
    }

    /// The note for this turn, if the MCP and connector tools changed
    /// since the last one looked. The first look of deferred tools only
    /// takes stock, from the catalog summaries the prompt was written from
    /// — no catalog is parsed before the first request — and a session that
    /// offers its tools directly compares with the list it offers, so a
    /// change between runs is told too.
    pub(super) async fn tool_changes(&mut self) -> Option<String> {
        if !self.tools.has_deferrable_sources() {
            return None;
        }
        let deferred = self.tools.deferred();
        // A change a server just announced is told now, not a turn late.
        self.settle_listings().await;
        let before = match self.state.told_tools.take() {
            Some(before) => before,
            None if deferred => {
                self.state.told_tools = Some(self.tools.stock_names());
                return None;
            }
            None => match self.tools.offered_names() {
                Some(offered) => offered,
                None => {
                    self.state.told_tools = Some(self.tool_names().into_iter().collect());
                    return None;
                }
            },
        };
        let now: BTreeSet<String> = self.tool_names().into_iter().collect();
        self.state.told_tools = Some(now.clone());
        let added: Vec<&String> = now.difference(&before).collect();
        let removed: Vec<&String> = before.difference(&now).collect();
        let list = |names: &[&String]| {
            let mut s = names
                .iter()
                .take(MAX_NAMED)
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            if names.len() > MAX_NAMED {
                s.push_str(&format!(" and {} more", names.len() - MAX_NAMED));
            }
            s
        };
        let mut parts = Vec::new();
        if !added.is_empty() {
            parts.push(format!("new: {}", list(&added)));
        }
        if !removed.is_empty() {
            parts.push(format!("gone: {}", list(&removed)));
        }
        let after = if deferred {
            "tool_search and tool_describe know the new ones."
        } else {
            "Your tool list stays as it is for this session: a new tool is not in it but can be called by its full name; a call to a gone one fails."
        };
        (!parts.is_empty()).then(|| {
            format!(
                "[hermes: the MCP tools changed since your last turn — {}. {after}]",
                parts.join("; ")
            )
        })
    }
}
