//! Built-in tools. `echo` exists so the turn loop can be exercised end to end
//! without an MCP server; it is offered only when `tools.builtin` names it.

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::{Tool, ToolOutput};
use crate::provider::ToolSpec;

pub struct Echo;

impl Tool for Echo {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "echo".into(),
            description: "Returns the given text unchanged.".into(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "Text to return"}},
                "required": ["text"]
            }),
        }
    }

    fn call<'a>(
        &'a self,
        args: serde_json::Value,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            match args.get("text").and_then(|t| t.as_str()) {
                Some(t) => ToolOutput::ok(t),
                None => ToolOutput::error("missing required string argument `text`"),
            }
        })
    }
}
