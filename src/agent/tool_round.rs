//! One tool round: every call of an assistant message gets exactly one result,
//! appended to the session file as soon as it exists, returned in call order.
//! A stopped round still pairs every call ("cancelled before it started").

use tokio_util::sync::CancellationToken;

use super::protocol::{Event, EventTx};
use crate::session::{Record, SessionError, SessionHandle, ToolCall, ToolResult};
use crate::tools::{Registry, ToolOutput};
use crate::util::time::Utc;

pub async fn run(
    tools: &Registry,
    calls: &[ToolCall],
    session: &SessionHandle,
    events: &EventTx,
    cancel: &CancellationToken,
) -> Result<Vec<ToolResult>, SessionError> {
    let mut results = Vec::with_capacity(calls.len());
    for call in calls {
        let output = if cancel.is_cancelled() {
            ToolOutput::error("cancelled before it started")
        } else {
            let _ = events.send(Event::ToolCallStarted {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            tokio::select! {
                out = tools.execute(call, cancel) => out,
                _ = cancel.cancelled() => ToolOutput::error("interrupted by the user while running"),
            }
        };
        let result = ToolResult {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: output.content,
            is_error: output.is_error,
        };
        session
            .append(&Record::ToolResult {
                ts: Utc::now().rfc3339(),
                result: result.clone(),
            })
            .await?;
        let _ = events.send(Event::ToolCallFinished {
            id: result.tool_call_id.clone(),
            name: result.name.clone(),
            is_error: result.is_error,
            content: result.content.clone(),
        });
        results.push(result);
    }
    Ok(results)
}
