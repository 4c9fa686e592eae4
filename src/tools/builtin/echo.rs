//! `echo`, for tests: it exercises the turn loop end to end without an MCP
//! server, and is offered only when `[tools] builtin` names it.

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::model::ToolSpec;
use crate::tools::{OnStart, Tool, ToolOutput};

pub(crate) struct Echo;

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
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            on_start();
            match args.get("text").and_then(|t| t.as_str()) {
                Some(t) => ToolOutput::ok(t),
                None => ToolOutput::error("missing required string argument `text`"),
            }
        })
    }
}
