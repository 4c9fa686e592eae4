//! The conversation's values, shared by everything that handles them: the
//! messages and tool calls hermes keeps (independent of any provider's
//! wire format), a provider's own block list, and the tools offered. A
//! leaf: it uses nothing of hermes, so providers, tools and the session
//! file can all use it without using each other.

mod message;
mod native;
mod tool;
mod tool_call;

pub use message::{Image, Message, ToolResult};
pub use native::{BlockApi, Input, NativeBlocks, ToolUse};
pub use tool::{OfferedTool, ToolSpec};
pub use tool_call::ToolCall;
