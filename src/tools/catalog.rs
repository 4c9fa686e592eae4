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
        crate::call::names::is_connector(&self.name)
    }

    /// Top-level required parameters, as the schema lists them.
    pub fn required(&self) -> Vec<String> {
        self.schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub(crate) use crate::call::names::bare;

#[derive(Debug)]
pub struct ToolCatalog {
    pub tools: Vec<CatalogTool>,
    by_name: HashMap<String, usize>,
    index: std::sync::OnceLock<SearchIndex>,
}

impl ToolCatalog {
    pub fn new(tools: Vec<CatalogTool>) -> ToolCatalog {
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        ToolCatalog {
            tools,
            by_name,
            index: std::sync::OnceLock::new(),
        }
    }

    /// The search index, built on the first search: listing tools or checking
    /// a call never pays for it.
    pub fn index(&self) -> &SearchIndex {
        self.index.get_or_init(|| {
            let docs: Vec<Doc<'_>> = self
                .tools
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
                        .map(|p| {
                            p.iter()
                                .flat_map(|(k, v)| {
                                    let d = v.get("description").and_then(|d| d.as_str());
                                    std::iter::once(k.as_str()).chain(d)
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                })
                .collect();
            SearchIndex::build(&docs)
        })
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

    /// The names most like `name`, for "did you mean" messages: near-misses
    /// in spelling first, then what a search for its words finds.
    pub fn closest(&self, name: &str, n: usize) -> Vec<&str> {
        let want = bare(name).to_lowercase();
        let budget = (want.chars().count() / 3).max(2);
        let mut near: Vec<(usize, &str)> = self
            .tools
            .iter()
            .filter_map(|t| {
                let d = edit_distance(&want, &t.bare_name().to_lowercase());
                (d <= budget).then_some((d, t.name.as_str()))
            })
            .collect();
        near.sort();
        let mut out: Vec<&str> = near.into_iter().map(|(_, n)| n).collect();
        let query = super::search::words(&want).join(" ");
        for found in self.index().search(&query, n) {
            if !out.contains(&found) {
                out.push(found);
            }
        }
        out.truncate(n);
        out
    }
}

/// Levenshtein distance, for names only (short strings).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> CatalogTool {
        CatalogTool {
            name: name.into(),
            source: "s".into(),
            description: String::new(),
            schema: serde_json::json!({}),
        }
    }

    #[test]
    fn closest_finds_misspellings_and_bare_suffixes() {
        let c = ToolCatalog::new(vec![
            tool("mcp__s__echo"),
            tool("mcp__s__read_file"),
            tool("mcp__g__git_status"),
        ]);
        assert_eq!(c.closest("mcp__s__echoo", 3)[0], "mcp__s__echo");
        assert_eq!(c.closest("readfile", 3)[0], "mcp__s__read_file");
        assert_eq!(c.bare_matches("git_status"), ["mcp__g__git_status"]);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
