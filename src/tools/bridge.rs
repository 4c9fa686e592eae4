//! The bridge tools — `tool_search`, `tool_describe`, `tool_call` — through
//! which a model finds and calls deferred tools. Their definitions are
//! constants: byte-identical in every request of every session, so a
//! provider's prompt cache keeps working.

use serde_json::{json, Value};

use super::catalog::ToolCatalog;
use crate::model::ToolSpec;
use crate::util::text::excerpt;

pub use crate::call::names::{is_bridge, CALL, DESCRIBE, SEARCH};

pub fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: SEARCH.into(),
            description: "Search the tools you can run with tool_call (from MCP servers and connectors). \
                Returns, for each query, matching tool names best first, and for every matched tool its \
                source, a short description and its required parameters. Use tool_describe for a full \
                input schema."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "queries": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 1,
                        "maxItems": 7,
                        "description": "What you need, in a few words each, e.g. \"read a file\"."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 25,
                        "description": "Matches per query (default 5)."
                    }
                },
                "required": ["queries"]
            }),
        },
        ToolSpec {
            name: DESCRIBE.into(),
            description: "The full input schema of tools found with tool_search.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "names": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 1,
                        "maxItems": 10,
                        "description": "Full tool names, e.g. mcp__files__read_text_file."
                    }
                },
                "required": ["names"]
            }),
        },
        ToolSpec {
            name: CALL.into(),
            description: "Run tools found with tool_search. You may send several entries at once: \
                the agent splits local entries (mcp__…) into individual calls, each following its own \
                server's concurrency policy, and returns every result in entry order; only \
                connectors__ entries are sent together, to the connector gateway. At most 10 entries."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "calls": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 10,
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string", "description": "Full tool name."},
                                "arguments": {"type": "object", "description": "Arguments matching the tool's input schema."}
                            },
                            "required": ["name", "arguments"]
                        }
                    }
                },
                "required": ["calls"]
            }),
        },
    ]
}

/// A list of strings from `key`: an array, or a single string as one item.
pub(crate) fn strings(input: &Value, key: &str) -> Vec<String> {
    match input.get(key) {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// A `tool_search` answer, and its best hits for the warm-up: each query's
/// first match, then each one's second, and so on.
pub struct Found {
    pub text: String,
    pub best: Vec<String>,
}

/// `tool_search`. `unsearched` names servers whose tools are not known yet.
pub fn search(
    input: &Value,
    catalog: &ToolCatalog,
    unsearched: &[String],
) -> Result<Found, String> {
    let queries = strings(input, "queries");
    let queries = if queries.is_empty() {
        strings(input, "query")
    } else {
        queries
    };
    if queries.is_empty() {
        return Err(
            "tool_search: give `queries`, a list of 1 to 7 short descriptions of what you need"
                .into(),
        );
    }
    if queries.len() > 7 {
        return Err(format!(
            "tool_search: at most 7 queries, you sent {}",
            queries.len()
        ));
    }
    let limit = input
        .get("limit")
        .and_then(|l| l.as_i64())
        .unwrap_or(5)
        .clamp(1, 25) as usize;
    let mut results = Vec::new();
    let mut tools = serde_json::Map::new();
    let mut ranked: Vec<Vec<String>> = Vec::new();
    for q in &queries {
        let names = catalog.index().search(q, limit);
        ranked.push(names.iter().map(|n| n.to_string()).collect());
        for n in &names {
            if let Some(t) = catalog.get(n) {
                tools.entry(n.to_string()).or_insert_with(|| {
                    json!({
                        "source": t.source,
                        "description": excerpt(&t.description, 500),
                        "required": t.required(),
                    })
                });
            }
        }
        results.push(json!({"query": q, "matches": names}));
    }
    let mut out = json!({"results": results, "tools": tools});
    if !unsearched.is_empty() {
        out["not_searched"] = json!(format!(
            "tools of these servers are not known yet (their catalogs are still loading or they failed to start): {}",
            unsearched.join(", ")
        ));
    }
    let depth = ranked.iter().map(Vec::len).max().unwrap_or(0);
    let best = (0..depth)
        .flat_map(|rank| ranked.iter().filter_map(move |r| r.get(rank).cloned()))
        .collect();
    Ok(Found {
        text: out.to_string(),
        best,
    })
}

/// `tool_describe`: each name's full schema, or an error entry.
pub fn describe(input: &Value, catalog: &ToolCatalog) -> Result<String, String> {
    let names = strings(input, "names");
    let names = if names.is_empty() {
        strings(input, "name")
    } else {
        names
    };
    if names.is_empty() || names.len() > 10 {
        return Err(format!(
            "tool_describe: give `names`, a list of 1 to 10 full tool names (got {})",
            names.len()
        ));
    }
    let tools: Vec<Value> = names
        .iter()
        .map(|n| match catalog.get(n) {
            Some(t) => json!({
                "name": t.name,
                "source": t.source,
                "description": t.description,
                "input_schema": t.schema,
            }),
            None => json!({
                "name": n,
                "error": super::validation::unknown_tool(n, catalog, &[]),
            }),
        })
        .collect();
    Ok(json!({ "tools": tools }).to_string())
}
