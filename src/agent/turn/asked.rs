//! What a front end asks of the agent beside a turn: the provider's
//! models, the model in use, the session's usage, and what the catalogs
//! hold (`/model`, `/usage`, `/tools`, `/mcp`, Tab).

use super::super::core::Agent;
use super::super::session::UsageTotals;

impl Agent {
    /// The models the provider lists (`None` when it lists none or cannot
    /// be asked), as a task of its own: the REPL asks while the user types.
    pub(crate) fn models_listed(
        &self,
    ) -> impl std::future::Future<Output = Option<Vec<String>>> + Send {
        let provider = self.provider.clone();
        async move { provider.models().await }
    }

    /// The model of the following requests (`/model NAME`).
    pub(crate) fn set_model(&mut self, model: &str) {
        self.model = model.to_string();
    }

    pub(crate) fn usage_totals(&self) -> &UsageTotals {
        &self.state.usage
    }

    /// `/tools QUERY`: what `tool_search` would find over every catalog,
    /// best first (`None` for an empty query: every tool), and the sources
    /// not searched because their catalogs are not in yet.
    pub(crate) async fn find_tools(
        &self,
        query: &str,
    ) -> (Vec<crate::tools::CatalogTool>, Vec<String>) {
        self.tools.find(query, 15).await
    }

    /// Each tool of the catalogs with its description's first line, for Tab.
    pub(crate) fn tool_summaries(&self) -> Vec<(String, String)> {
        self.tools
            .catalog()
            .tools
            .iter()
            .map(|t| {
                let first = t.description.lines().next().unwrap_or("");
                (t.name.clone(), first.to_string())
            })
            .collect()
    }

    pub(crate) fn tool_names(&self) -> Vec<String> {
        self.tools
            .catalog()
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    /// `/mcp`: each server, whether it runs, how many tools it exposes,
    /// and how many servers were started ahead of a call and never called.
    pub(crate) async fn mcp_overview(&self) -> (Vec<crate::mcp::ServerStatus>, (usize, usize)) {
        match self.tools.mcp_registry() {
            Some(mcp) => (mcp.statuses().await, mcp.warm_stats()),
            None => (Vec::new(), (0, 0)),
        }
    }
}
