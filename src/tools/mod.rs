//! Tools behind one trait, collected in a registry. The turn loop only knows the
//! registry; MCP servers and built-ins plug in as `Tool`s.

mod builtin;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

pub use builtin::Echo;

use crate::mcp::McpRegistry;
use crate::provider::ToolSpec;
use crate::session::ToolCall;

/// What a tool gives back. `is_error` marks a failure the model should read and
/// act on; it never ends the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: true,
        }
    }
}

pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    fn call<'a>(
        &'a self,
        args: serde_json::Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutput>;
}

/// Every tool a run can offer: the built-ins the config names and the tools of
/// the configured MCP servers (whose list can grow as catalogs arrive).
#[derive(Default, Clone)]
pub struct Registry {
    tools: Vec<Arc<dyn Tool>>,
    mcp: Option<Arc<McpRegistry>>,
}

#[derive(Debug, thiserror::Error)]
#[error("unknown built-in tool `{0}` in tools.builtin (known: echo)")]
pub struct UnknownBuiltin(pub String);

impl Registry {
    /// The registry for a run: the built-ins the config names.
    pub fn with_builtins(names: &[String]) -> Result<Registry, UnknownBuiltin> {
        let mut r = Registry::default();
        for n in names {
            match n.as_str() {
                "echo" => r.add(Arc::new(Echo)),
                other => return Err(UnknownBuiltin(other.to_string())),
            }
        }
        Ok(r)
    }

    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        self.tools.push(tool);
    }

    pub fn with_mcp(mut self, mcp: Arc<McpRegistry>) -> Registry {
        self.mcp = Some(mcp);
        self
    }

    pub fn mcp(&self) -> Option<&Arc<McpRegistry>> {
        self.mcp.as_ref()
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = self.tools.iter().map(|t| t.spec()).collect();
        if let Some(mcp) = &self.mcp {
            specs.extend(mcp.index().tools.iter().map(|t| ToolSpec {
                name: t.name.clone(),
                description: t.tool.description.clone(),
                parameters: t.tool.input_schema.clone(),
            }));
        }
        specs
    }

    fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.spec().name == name)
    }

    /// Runs one call. Every failure is a result for the model, never an `Err`.
    pub async fn execute(&self, call: &ToolCall, cancel: &CancellationToken) -> ToolOutput {
        let args = match parse_arguments(&call.arguments) {
            Ok(a) => a,
            Err(e) => return ToolOutput::error(e),
        };
        if let Some(tool) = self.get(&call.name) {
            return tool.call(args, cancel).await;
        }
        if let Some(mcp) = &self.mcp {
            if let Some(out) = mcp.call(&call.name, args, cancel).await {
                return out;
            }
        }
        let known: Vec<String> = self.specs().into_iter().map(|s| s.name).collect();
        ToolOutput::error(format!(
            "unknown tool `{}`; available tools: {}",
            call.name,
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ))
    }
}

/// Arguments as models send them: a JSON object, an empty string for none, or a
/// JSON string that itself holds the object.
pub fn parse_arguments(raw: &str) -> Result<serde_json::Value, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(serde_json::json!({}));
    }
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::Object(m)) => Ok(serde_json::Value::Object(m)),
        Ok(serde_json::Value::String(inner)) => parse_arguments(&inner),
        Ok(serde_json::Value::Null) => Ok(serde_json::json!({})),
        Ok(other) => Err(format!(
            "arguments must be a JSON object, got {}",
            crate::util::text::excerpt(&other.to_string(), 80)
        )),
        Err(e) => Err(format!(
            "arguments are not valid JSON ({e}); send a JSON object"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_parsed_leniently() {
        assert_eq!(parse_arguments("").unwrap(), serde_json::json!({}));
        assert_eq!(parse_arguments("{\"a\":1}").unwrap()["a"], 1);
        assert_eq!(parse_arguments("\"{\\\"a\\\":2}\"").unwrap()["a"], 2);
        assert!(parse_arguments("[1]").is_err());
        assert!(parse_arguments("{oops")
            .unwrap_err()
            .contains("not valid JSON"));
    }

    #[tokio::test]
    async fn unknown_tools_are_error_results_naming_the_known_ones() {
        let r = Registry::with_builtins(&["echo".into()]).unwrap();
        let out = r
            .execute(
                &ToolCall {
                    id: "1".into(),
                    name: "nope".into(),
                    arguments: String::new(),
                },
                &CancellationToken::new(),
            )
            .await;
        assert!(out.is_error);
        assert!(
            out.content.contains("available tools: echo"),
            "{}",
            out.content
        );
    }
}
