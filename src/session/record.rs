//! One line of a session file. Every record is a JSON object with a `type`.

use serde::{Deserialize, Serialize};

use super::message::{Message, ToolResult};

pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Meta(Meta),
    Message {
        ts: String,
        message: Message,
    },
    ToolResult {
        ts: String,
        #[serde(flatten)]
        result: ToolResult,
    },
    Event {
        ts: String,
        event: String,
        #[serde(default, flatten)]
        data: serde_json::Map<String, serde_json::Value>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub version: u32,
    pub id: String,
    pub created: String,
    pub cwd: String,
    pub provider: String,
    pub model: String,
    pub hermes_version: String,
}

/// Event names written by hermes itself.
pub mod events {
    /// Token counts of one model request.
    pub const USAGE: &str = "usage";
    /// A torn line (crash mid-write) found when a session was resumed; it names the line.
    pub const TORN_LINE: &str = "torn_line";
    pub const RESUMED: &str = "resumed";
    /// Whether this session's MCP and connector tools sit behind the bridge
    /// (`{"deferred": bool}`), decided at its first request and kept for its
    /// whole life, so a resumed session offers the same tool definitions.
    pub const TOOLS: &str = "tools";
}
