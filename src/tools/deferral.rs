//! Deferral: whether a session's MCP and connector tools sit behind the
//! bridge (`tool_search` / `tool_call`) or are offered directly — decided
//! at its first request from the catalogs' sizes and `[tools] defer`, or
//! kept as a resumed session recorded it, and held for that session.

use crate::config::DeferMode;

use super::Registry;

impl Registry {
    /// Whether MCP tools sit behind the bridge for this session.
    pub(crate) fn deferred(&self) -> bool {
        let slot = || {
            self.shared
                .deferred
                .lock()
                .unwrap_or_else(|e| e.into_inner())
        };
        if let Some(decided) = *slot() {
            return decided;
        }
        // Decided without the lock held (it reads the catalogs' sizes);
        // a decision made meanwhile wins.
        let decided = self.decide_deferral();
        *slot().get_or_insert(decided)
    }

    /// Whether they would, as the catalogs stand now, without settling it
    /// (the decision is made at the session's first request).
    pub(crate) fn would_defer(&self) -> bool {
        let decided = *self
            .shared
            .deferred
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        decided.unwrap_or_else(|| self.decide_deferral())
    }

    /// Keeps the decision a resumed session recorded, so it offers the same
    /// tool definitions as before whatever the catalogs look like now.
    /// Returns false when a decision was already made.
    pub(crate) fn keep_deferral(&self, deferred: bool) -> bool {
        let mut slot = self
            .shared
            .deferred
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return false;
        }
        *slot = Some(deferred);
        true
    }

    /// Another session begins: its decision is its own.
    pub(crate) fn forget_deferral(&self) {
        *self
            .shared
            .deferred
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Whether any tool could be deferred (an MCP server or a gateway is
    /// configured); only then is there a decision worth recording.
    pub(crate) fn has_deferrable_sources(&self) -> bool {
        let servers = self.mcp.as_ref().map(|m| m.servers().len()).unwrap_or(0);
        servers > 0 || self.gateway.is_some()
    }

    /// The note for a run whose tools are more than the API takes in one
    /// request, so they are deferred whatever `defer` says.
    pub(crate) fn over_api_limit(&self) -> Option<String> {
        let (limit, api) = self.policy.api_limit?;
        if self.policy.mode == DeferMode::Always || !self.has_deferrable_sources() {
            return None;
        }
        let mcp = self.mcp.as_ref()?;
        let mut listed = self.tools.len();
        for s in mcp.summaries() {
            listed += s?.tools;
        }
        // The summaries count every tool a server lists; only past the limit
        // is it worth counting what its include / exclude let through.
        let tools = if listed > limit {
            self.tools.len() + mcp.exposed_counts().iter().sum::<usize>()
        } else {
            listed
        };
        // `auto` defers that many anyway: nothing to say.
        let auto_defers = self.policy.mode == DeferMode::Auto && tools > self.policy.max_tools;
        (tools > limit && !auto_defers).then(|| {
            format!(
                "{tools} tools are more than {api} takes in one request ({limit}): \
                 MCP tools are behind tool_search this session"
            )
        })
    }

    fn decide_deferral(&self) -> bool {
        if !self.has_deferrable_sources() {
            return false;
        }
        if self.over_api_limit().is_some() {
            return true;
        }
        match self.policy.mode {
            DeferMode::Always => true,
            DeferMode::Never => false,
            DeferMode::Auto => {
                // Decided from catalog sizes alone (one small file), so a
                // deferred run never parses a catalog before its first request.
                // A source whose tools are not known yet could bring any number.
                if self.gateway.is_some() {
                    return true;
                }
                let Some(mcp) = &self.mcp else { return false };
                let mut tools = 0;
                let mut bytes = 0;
                for s in mcp.summaries() {
                    let Some(s) = s else { return true };
                    tools += s.tools;
                    bytes += s.bytes;
                }
                let tokens = bytes / 4;
                tools > self.policy.max_tools
                    || tokens as f64 > self.policy.max_share * self.policy.context_window as f64
            }
        }
    }
}
