//! MCP tool results as the model sees them: text parts joined in order,
//! structured content kept when there is no text, binary parts as one-line
//! placeholders (Chat Completions tool messages carry text only), and output
//! past the size limit cut with a note saying how much was cut.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

use crate::call::ToolOutput;

use crate::call::cut_text as truncate;

pub(super) fn to_output(r: CallToolResult, max_bytes: usize) -> ToolOutput {
    let parts: Vec<String> = r.content.into_iter().map(block_text).collect();
    let mut text = parts.join("\n");
    if text.is_empty() {
        if let Some(s) = &r.structured_content {
            text = s.to_string();
        }
    }
    ToolOutput {
        content: truncate(text, max_bytes),
        is_error: r.is_error.unwrap_or(false),
        diff: None,
        stale: false,
    }
}

/// One content block as text (a prompt's message is one block too).
pub(super) fn block_text(block: ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text,
        ContentBlock::Image(i) => placeholder("image", &i.mime_type, base64_len(&i.data)),
        ContentBlock::Audio(a) => placeholder("audio", &a.mime_type, base64_len(&a.data)),
        ContentBlock::Resource(e) => match e.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            other => resource_text(other),
        },
        ContentBlock::ResourceLink(l) => format!("[resource link {} ({})]", l.uri, l.name),
        _ => "[content of an unknown kind, not shown]".into(),
    }
}

/// A resource's contents as text: its text, or a line saying what binary
/// content was left out.
pub(super) fn resource_text(r: ResourceContents) -> String {
    match r {
        ResourceContents::TextResourceContents { text, .. } => text,
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => format!(
            "[resource {uri}: {}, {}, not shown]",
            mime_type.as_deref().unwrap_or("binary"),
            size(base64_len(&blob))
        ),
        _ => "[resource of an unknown kind, not shown]".into(),
    }
}

fn placeholder(kind: &str, mime: &str, bytes: usize) -> String {
    format!(
        "[{kind} {mime}, {}, not shown: this provider takes text only]",
        size(bytes)
    )
}

fn base64_len(data: &str) -> usize {
    let pad = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(pad)
}

fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / 1024.0 / 1024.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(v: serde_json::Value) -> CallToolResult {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn text_is_joined_and_images_become_placeholders() {
        let out = to_output(
            result(serde_json::json!({"content": [
                {"type": "text", "text": "one"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "text", "text": "two"}
            ]})),
            1000,
        );
        assert_eq!(
            out.content,
            "one\n[image image/png, 3 B, not shown: this provider takes text only]\ntwo"
        );
        assert!(!out.is_error);
    }

    #[test]
    fn errors_and_structured_content_are_kept() {
        let out = to_output(
            result(
                serde_json::json!({"content": [], "structuredContent": {"a": 1}, "isError": true}),
            ),
            1000,
        );
        assert_eq!(out.content, "{\"a\":1}");
        assert!(out.is_error);
    }

    #[test]
    fn large_output_is_cut_with_a_note() {
        let out = truncate("é".repeat(100), 51);
        assert!(
            out.ends_with("[output cut: 150 of 200 bytes not shown]"),
            "{out}"
        );
    }
}
