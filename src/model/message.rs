//! The conversation as hermes keeps it, independent of any provider's wire format.
//! Providers translate these into their own JSON; the translation must be a pure
//! function of the message so a resumed session sends the same bytes again.

use serde::{Deserialize, Serialize};

use super::native::NativeBlocks;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        #[serde(default, skip_serializing_if = "String::is_empty")]
        content: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// The provider's own block list, for providers that have one; the
        /// fields above are its neutral view, used by everything else and by
        /// a different provider replaying this message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        native: Option<NativeBlocks>,
    },
    Tool(ToolResult),
}

/// One tool invocation as it is replayed to the provider. `arguments` is kept
/// as an exact string — the one the model sent, or for a split child the one
/// hermes wrote when it split the batch: re-serialising parsed JSON on replay
/// could reorder keys and change the bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub tool_call_id: String,
    pub name: String,
    pub content: String,
    #[serde(default)]
    pub is_error: bool,
}
