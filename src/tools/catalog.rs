//! The deferred tools of a run (today: every exposed MCP tool) with their
//! search index, rebuilt only when a server's catalog changes.

use std::collections::HashMap;

use super::search::{Doc, SearchIndex};
use crate::mcp::Index as McpIndex;

#[derive(Debug, Clone)]
pub struct CatalogTool {
    pub name: String,
    /// The server (or gateway) that serves it.
    pub source: String,
    pub description: String,
    pub schema: serde_json::Value,
}

impl CatalogTool {
    /// The name after its `mcp__server__` or `connectors__` prefix.
    pub fn bare_name(&self) -> &str {
        bare(&self.name)
    }

    pub fn is_connector(&self) -> bool {
        self.name.starts_with(CONNECTOR_PREFIX)
    }

    /// Top-level required parameters, as the schema lists them.
    pub fn required(&self) -> Vec<String> {
        self.schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    }
}

pub const CONNECTOR_PREFIX: &str = "connectors__";

pub fn bare(name: &str) -> &str {
    if let Some(rest) = name.strip_prefix(crate::mcp::naming::PREFIX) {
        return rest.split_once("__").map(|(_, t)| t).unwrap_or(rest);
    }
    name.strip_prefix(CONNECTOR_PREFIX).unwrap_or(name)
}

#[derive(Debug)]
pub struct ToolCatalog {
    pub tools: Vec<CatalogTool>,
    by_name: HashMap<String, usize>,
    pub index: SearchIndex,
}

impl ToolCatalog {
    pub fn new(tools: Vec<CatalogTool>) -> ToolCatalog {
        let docs: Vec<Doc<'_>> = tools
            .iter()
            .map(|t| Doc {
                name: &t.name,
                bare_name: t.bare_name(),
                source: &t.source,
                description: &t.description,
                params: t
                    .schema
                    .get("properties")
                    .and_then(|p| p.as_object())
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default(),
            })
            .collect();
        let index = SearchIndex::build(&docs);
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        ToolCatalog {
            tools,
            by_name,
            index,
        }
    }

    pub fn from_mcp(idx: &McpIndex, server_names: &[String]) -> ToolCatalog {
        ToolCatalog::new(
            idx.tools
                .iter()
                .map(|t| CatalogTool {
                    name: t.name.clone(),
                    source: server_names.get(t.server).cloned().unwrap_or_default(),
                    description: t.tool.description.clone(),
                    schema: t.tool.input_schema.clone(),
                })
                .collect(),
        )
    }

    pub fn get(&self, name: &str) -> Option<&CatalogTool> {
        self.by_name.get(name).map(|i| &self.tools[*i])
    }

    /// Full names whose bare part is `name` (a model that dropped the prefix).
    pub fn bare_matches(&self, name: &str) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .tools
            .iter()
            .filter(|t| t.bare_name() == name)
            .map(|t| t.name.as_str())
            .collect();
        v.sort();
        v
    }

    /// The names most like `name`, for "did you mean" messages.
    pub fn closest(&self, name: &str, n: usize) -> Vec<&str> {
        let query = super::search::words(bare(name)).join(" ");
        self.index.search(&query, n)
    }
}
