//! Starting MCP servers before a call needs them: on the hits of a
//! tool_search or tool_describe answer, on the user's own words when a turn
//! starts, and on resume for the tools the last turn used
//! (`[tools] warm_up`). The registry side — which servers, how many at once
//! — is `McpRegistry::warm`.

use std::time::Duration;

use super::{search, Registry};
use crate::call::{classify, CallClass};
use crate::config::WarmUp;
use crate::model::ToolCall;

/// How long after a turn starts its servers are guessed and started: the
/// first request goes out first, and a server's start (often 0.3–0.5 s of
/// node or python start-up) should overlap the first reply's wait.
const PREDICT_DELAY: Duration = Duration::from_millis(5);

/// How much of a message the turn-start guess reads.
const PREDICT_CHARS: usize = 600;

/// Servers started for one tool_search or tool_describe answer, at most.
const WARM_PER_SEARCH: usize = 3;

impl Registry {
    /// Starts, in the background, the servers of these tools (best first)
    /// that are at rest: the model named them, a call is likely next.
    pub(super) fn warm_tools<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        let Some(mcp) = &self.mcp else { return };
        let names: Vec<String> = names.into_iter().map(str::to_string).collect();
        let mut servers = mcp.servers_of(names.iter().map(String::as_str));
        servers.truncate(WARM_PER_SEARCH);
        mcp.warm(&servers);
        // Their argument checks too: compiling a schema is a few ms that
        // would otherwise fall between the model's reply and the call.
        let registry = self.clone();
        tokio::spawn(async move {
            let cat = registry.catalog();
            for n in names.iter().take(WARM_PER_SEARCH * 2) {
                if let Some(t) = cat.get(n) {
                    registry.validator(n, &t.schema);
                }
            }
        });
    }

    /// When a turn starts: ranks the catalogs against the user's own words
    /// and starts the servers of the strongest hits while the model thinks.
    /// Local work only (the index); nothing when the words point nowhere.
    pub(crate) fn warm_for_words(&self, text: &str) {
        let has_servers = self.mcp.as_ref().is_some_and(|m| !m.servers().is_empty());
        if self.policy.warm_up != WarmUp::Predict || !has_servers {
            return;
        }
        let registry = self.clone();
        // What a request asks for is in its first words; a pasted log or
        // file after them would only cost time.
        let text: String = text.chars().take(PREDICT_CHARS).collect();
        tokio::spawn(async move {
            // After the turn's first request is on its way: this task runs
            // once the turn waits on the network.
            tokio::time::sleep(PREDICT_DELAY).await;
            let cat = registry.catalog();
            let hits = search::predict(cat.index(), &text);
            registry.warm_tools(hits.iter().map(String::as_str));
        });
    }

    /// On resume: the servers of the tools the last turn used.
    pub(crate) fn warm_for_resume(&self, calls: &[ToolCall]) {
        let has_servers = self.mcp.as_ref().is_some_and(|m| !m.servers().is_empty());
        if self.policy.warm_up == WarmUp::Off || !has_servers {
            return;
        }
        let names: Vec<String> = calls
            .iter()
            .flat_map(|c| match classify(&c.name, &c.arguments) {
                CallClass::Split(entries) => entries.into_iter().map(|e| e.name).collect(),
                CallClass::Direct { tool, .. } => vec![tool],
                _ => Vec::new(),
            })
            .collect();
        if names.is_empty() {
            return;
        }
        let registry = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(crate::mcp::FILL_DELAY).await;
            registry.warm_tools(names.iter().map(String::as_str));
        });
    }
}
