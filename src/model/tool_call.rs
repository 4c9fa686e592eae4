//! A tool call as the model made it: the leaf both a message and a
//! provider's native blocks refer to.

use serde::{Deserialize, Serialize};

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
