//! A tool as the model is offered it: its name, description and input
//! schema — in a request, and, for tools offered directly, in the session's
//! record of what it offered.

use serde::{Deserialize, Serialize};

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// A tool a session offered the model directly (not behind the bridge), as
/// it was sent. Fields in alphabetical order, as every record writes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OfferedTool {
    pub description: String,
    pub name: String,
    pub parameters: serde_json::Value,
    /// The server it came from, or `connectors`.
    pub source: String,
}
