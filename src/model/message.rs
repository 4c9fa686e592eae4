//! The conversation as hermes keeps it, independent of any provider's wire format.
//! Providers translate these into their own JSON; the translation must be a pure
//! function of the message so a resumed session sends the same bytes again.

use serde::{Deserialize, Serialize};

use super::native::NativeBlocks;
use super::tool_call::ToolCall;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    System {
        content: String,
    },
    User {
        content: String,
        /// Images the person attached (`@shot.png`, a pasted path), sent
        /// after the text as the API's image blocks.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<Image>,
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

impl Message {
    /// A user message of text only.
    pub fn user(content: impl Into<String>) -> Message {
        Message::User {
            content: content.into(),
            images: Vec::new(),
        }
    }

    /// The images this message carries: the person's, or a tool's.
    pub fn images(&self) -> &[Image] {
        match self {
            Message::User { images, .. } | Message::Tool(ToolResult { images, .. }) => images,
            _ => &[],
        }
    }

    pub fn images_mut(&mut self) -> Option<&mut Vec<Image>> {
        match self {
            Message::User { images, .. } | Message::Tool(ToolResult { images, .. }) => Some(images),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub tool_call_id: String,
    pub name: String,
    pub content: String,
    #[serde(default)]
    pub is_error: bool,
    /// Images the tool gave back (an MCP screenshot), sent to the model as
    /// the API's image blocks; `content` names each where it was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
}

/// An image as every API takes one: its media type and its bytes in base64.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Image {
    pub media_type: String,
    pub data: String,
}

impl Image {
    /// The media types all three APIs take in an image block.
    pub const TYPES: [&'static str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
    /// The largest image sent (Anthropic's limit per image, decoded).
    pub const MAX_BYTES: usize = 5 * 1024 * 1024;

    /// The most images one message (a tool result, the person's) sends.
    pub const MAX_PER_MESSAGE: usize = 8;

    /// The media type of an image file from its first bytes, for the types
    /// every API takes; `None` for anything else (a name says nothing).
    pub fn sniff(head: &[u8]) -> Option<&'static str> {
        match head {
            [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, ..] => Some("image/png"),
            [0xff, 0xd8, 0xff, ..] => Some("image/jpeg"),
            [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => Some("image/gif"),
            [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some("image/webp"),
            _ => None,
        }
    }

    /// How many bytes base64 `data` decodes to.
    pub fn decoded_len(data: &str) -> usize {
        let pad = data.bytes().rev().take_while(|b| *b == b'=').count();
        (data.len() / 4 * 3).saturating_sub(pad)
    }

    /// The format name Bedrock wants (`png`, `jpeg`, …).
    pub fn format(&self) -> &str {
        self.media_type.strip_prefix("image/").unwrap_or("png")
    }
}
