//! MCP tool results as the model sees them: text parts joined in order,
//! structured content kept when there is no text, images (a screenshot) kept
//! for the API's image blocks with a line in the text where each was, other
//! binary parts as one-line placeholders, and output past the size limit cut
//! with a note saying how much was cut.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

use base64::Engine;

use crate::call::ToolOutput;
use crate::model::Image;

use crate::call::cut_text as truncate;
use crate::util::text::byte_size as size;

/// The most images one result sends; the rest are named in the text.
const MAX_IMAGES: usize = Image::MAX_PER_MESSAGE;

pub(super) fn to_output(r: CallToolResult, max_bytes: usize) -> ToolOutput {
    let mut images = Vec::new();
    let parts: Vec<String> = r
        .content
        .into_iter()
        .map(|block| match block {
            ContentBlock::Image(i) => image(i.mime_type, i.data, &mut images),
            other => block_text(other),
        })
        .collect();
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
        images,
        changes: None,
        held_back: None,
        refused: Vec::new(),
    }
}

/// An image part: kept for the model when every API takes it (its type,
/// its size, valid base64), with a line saying so; else the line says why
/// it was left out.
fn image(mime: String, data: String, images: &mut Vec<Image>) -> String {
    let bytes = Image::decoded_len(&data);
    let why = if !Image::TYPES.contains(&mime.as_str()) {
        Some("not a type the APIs take (PNG, JPEG, GIF, WebP)".to_string())
    } else if bytes > Image::MAX_BYTES {
        Some(format!(
            "over the {} an image may be",
            size(Image::MAX_BYTES)
        ))
    } else if base64::engine::general_purpose::STANDARD
        .decode(&data)
        .is_err()
    {
        Some("its data is not valid base64".to_string())
    } else if images.len() >= MAX_IMAGES {
        Some(format!("past the {MAX_IMAGES} images one result sends"))
    } else {
        None
    };
    match why {
        None => {
            images.push(Image {
                media_type: mime.clone(),
                data,
            });
            format!("[image {mime}, {}, attached]", size(bytes))
        }
        Some(why) => format!("[image {mime}, {}, not shown: {why}]", size(bytes)),
    }
}

/// One content block as text (a prompt's message is one block too).
pub(super) fn block_text(block: ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text,
        ContentBlock::Image(i) => placeholder("image", &i.mime_type, Image::decoded_len(&i.data)),
        ContentBlock::Audio(a) => format!(
            "[audio {}, {}, not shown: hermes sends audio to no API yet]",
            a.mime_type,
            size(Image::decoded_len(&a.data))
        ),
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
            size(Image::decoded_len(&blob))
        ),
        _ => "[resource of an unknown kind, not shown]".into(),
    }
}

/// An image where no image can go (a prompt's message, a resource).
fn placeholder(kind: &str, mime: &str, bytes: usize) -> String {
    format!("[{kind} {mime}, {}, not shown here]", size(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(v: serde_json::Value) -> CallToolResult {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn text_is_joined_and_images_are_kept_for_the_model() {
        let out = to_output(
            result(serde_json::json!({"content": [
                {"type": "text", "text": "one"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "text", "text": "two"}
            ]})),
            1000,
        );
        assert_eq!(out.content, "one\n[image image/png, 3 B, attached]\ntwo");
        assert_eq!(out.images.len(), 1);
        assert_eq!(out.images[0].data, "AAAA");
        assert!(!out.is_error);
        let odd = to_output(
            result(serde_json::json!({"content": [
                {"type": "image", "data": "AAAA", "mimeType": "image/tiff"},
                {"type": "image", "data": "%%%", "mimeType": "image/png"}
            ]})),
            1000,
        );
        assert!(odd.images.is_empty());
        assert!(
            odd.content.contains("not a type the APIs take"),
            "{}",
            odd.content
        );
        assert!(odd.content.contains("not valid base64"), "{}", odd.content);
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
