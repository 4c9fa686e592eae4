//! The MCP and connector tools a session offers the model directly (when
//! they are not deferred behind the bridge): taken once, at its first
//! request — after the catalogs not known yet were listed, so that request
//! already sees them — or kept from the session's record on resume, and
//! sent as they are for the rest of the session. A catalog that changes
//! later (a `list_changed`, a background fill) never changes the list under
//! the prompt cache; the model is told of the change in a message instead.

use std::collections::BTreeSet;
use std::time::Duration;

use super::{CatalogTool, Registry};
use crate::call::names;
use crate::model::OfferedTool;

/// How long the connector gateway's listing is waited for, as a search
/// waits for it.
const GATEWAY_WAIT: Duration = Duration::from_secs(15);

impl Registry {
    /// The session's directly offered tools, taken from the catalogs now if
    /// this is the first time they are asked for.
    pub(super) fn offered(&self) -> Vec<CatalogTool> {
        let mut slot = self
            .shared
            .offered
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| self.catalog().tools.clone())
            .clone()
    }

    /// The offered list as the session file records it; `None` while it is
    /// not taken yet, or when the tools are deferred.
    pub(crate) fn offered_record(&self) -> Option<Vec<OfferedTool>> {
        if self.deferred() {
            return None;
        }
        let slot = self.shared.offered.lock().ok()?;
        Some(
            slot.as_ref()?
                .iter()
                .map(|t| OfferedTool {
                    description: t.description.clone(),
                    name: t.name.clone(),
                    parameters: t.schema.clone(),
                    source: t.source.clone(),
                })
                .collect(),
        )
    }

    /// The names offered, once taken.
    pub(crate) fn offered_names(&self) -> Option<BTreeSet<String>> {
        let slot = self.shared.offered.lock().ok()?;
        Some(slot.as_ref()?.iter().map(|t| t.name.clone()).collect())
    }

    /// Offers what a resumed session recorded — less the tools of a server
    /// (or gateway) no longer configured, which a deliberate change of the
    /// config takes away — or, with `None` (a new session), whatever the
    /// catalogs hold at its first request.
    pub(crate) fn keep_offered(&self, recorded: Option<Vec<OfferedTool>>) {
        let kept = recorded.map(|tools| {
            tools
                .into_iter()
                .filter(|t| self.source_configured(&t.source, &t.name))
                .map(|t| CatalogTool {
                    name: t.name,
                    source: t.source,
                    description: t.description,
                    schema: t.parameters,
                })
                .collect()
        });
        *self
            .shared
            .offered
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = kept;
    }

    fn source_configured(&self, source: &str, name: &str) -> bool {
        if names::is_connector(name) {
            return self.gateway.is_some();
        }
        self.mcp
            .as_ref()
            .is_some_and(|m| m.servers().iter().any(|s| s.name == source))
    }

    /// Before a session that will offer its tools directly makes its first
    /// request: lists what is not known yet — the gateway's tools, servers
    /// with no cached catalog — each bounded (the gateway as a search waits
    /// for it, each server by its start-up timeout), so the first request
    /// offers every tool and the list need not change later. Nothing to do
    /// when the tools are deferred or every catalog is cached.
    pub(crate) async fn list_before_first_request(&self) {
        if !self.has_deferrable_sources() || self.would_defer() {
            return;
        }
        if let Some(g) = &self.gateway {
            let _ = tokio::time::timeout(GATEWAY_WAIT, g.tools()).await;
        }
        if let Some(mcp) = &self.mcp {
            if mcp.summaries().iter().any(Option::is_none) {
                mcp.load_unlisted_catalogs().await;
            }
        }
    }
}
