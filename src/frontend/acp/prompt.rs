//! A `session/prompt`'s content blocks as hermes' user message: text as it
//! is, an embedded resource or a linked file as an `<attachment>` block —
//! the same form an `@` mention takes in the REPL — and images as the
//! message's images, checked as an attached image file is.

use serde_json::Value;

use super::wire::RpcError;
use crate::model::Image;

/// The most of one linked or embedded text the message carries.
const ATTACHED_BYTES: usize = 256 * 1024;

/// The user message the blocks make: its text and its images.
pub(crate) fn message(blocks: &Value) -> Result<(String, Vec<Image>), RpcError> {
    let Some(blocks) = blocks.as_array() else {
        return Err(RpcError::params(
            "\"prompt\" must be an array of content blocks",
        ));
    };
    let mut text = String::new();
    let mut attached = String::new();
    let mut images = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let s = |k: &str| b.get(k).and_then(Value::as_str);
        let bad = |what: &str| RpcError::params(format!("prompt[{i}]: {what}"));
        match s("type") {
            Some("text") => {
                let t = s("text").ok_or_else(|| bad("a text block needs \"text\""))?;
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(t);
            }
            Some("image") => images.push(image(b).map_err(|e| bad(&e))?),
            Some("resource") => {
                let r = b
                    .get("resource")
                    .ok_or_else(|| bad("a resource block needs \"resource\""))?;
                let uri = r.get("uri").and_then(Value::as_str).unwrap_or("resource");
                match r.get("text").and_then(Value::as_str) {
                    Some(body) => attach(&mut attached, &shown(uri), body),
                    None => {
                        return Err(bad(
                            "a binary resource (\"blob\") cannot be attached; hermes takes text and images",
                        ))
                    }
                }
            }
            Some("resource_link") => {
                let uri = s("uri").ok_or_else(|| bad("a resource_link needs \"uri\""))?;
                let Some(path) = uri.strip_prefix("file://") else {
                    return Err(bad(&format!("{uri}: hermes reads file:// links only")));
                };
                let path = percent_decoded(path);
                match linked(&path).map_err(|e| bad(&e))? {
                    Linked::Text(t) => attach(&mut attached, &path, &t),
                    Linked::Image(image) => images.push(image),
                }
            }
            Some(other) => {
                return Err(bad(&format!(
                    "hermes does not take \"{other}\" blocks (text, image, resource, resource_link)"
                )))
            }
            None => return Err(bad("a content block needs \"type\"")),
        }
    }
    if images.len() > Image::MAX_PER_MESSAGE {
        return Err(RpcError::params(format!(
            "{} images in one prompt; the APIs take at most {}",
            images.len(),
            Image::MAX_PER_MESSAGE
        )));
    }
    text.push_str(&attached);
    if text.trim().is_empty() && images.is_empty() {
        return Err(RpcError::params("the prompt is empty"));
    }
    Ok((text, images))
}

/// What a linked file gives the message.
enum Linked {
    Text(String),
    Image(Image),
}

/// The linked file at `path`, read only as far as the message takes it
/// (a 200 MiB log costs its first 256 KiB, not 200 MiB): an image within
/// the APIs' size, as an inline one must be; text, cut and saying so.
fn linked(path: &str) -> Result<Linked, String> {
    use crate::util::inside::{read_head, real_path};
    let real = real_path(std::path::Path::new(path));
    let read = |max: usize| read_head(&real, max).map_err(|e| format!("{path}: {e}"));
    let (head, size) = read(16)?;
    if let Some(media_type) = Image::sniff(&head) {
        if size as usize > Image::MAX_BYTES {
            return Err(format!(
                "{path} is an image of {} MiB; the APIs take images up to {} MiB (make it smaller)",
                size >> 20,
                Image::MAX_BYTES >> 20
            ));
        }
        let (bytes, _) = read(Image::MAX_BYTES)?;
        return Ok(Linked::Image(Image {
            media_type: media_type.to_string(),
            data: base64(&bytes),
        }));
    }
    // Room left for the line that says it was cut.
    let (bytes, size) = read(ATTACHED_BYTES - 256)?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        // Cut inside a character at the end of what was read.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return Err(format!("{path} is neither text nor an image")),
    };
    let mut text = text.to_string();
    if size > bytes.len() as u64 {
        text.push_str(&format!(
            "\n[… cut: the file is {size} bytes; the first {} are attached — read_file reads on]",
            bytes.len()
        ));
    }
    Ok(Linked::Text(text))
}

fn attach(out: &mut String, name: &str, body: &str) {
    let body = crate::call::cut_text(body.to_string(), ATTACHED_BYTES);
    out.push_str(&format!(
        "\n\n<attachment name=\"{name}\">\n{}\n</attachment>",
        body.trim_end_matches('\n')
    ));
}

fn shown(uri: &str) -> String {
    uri.strip_prefix("file://")
        .map_or(uri.to_string(), percent_decoded)
}

fn image(b: &Value) -> Result<Image, String> {
    let media_type = b.get("mimeType").and_then(Value::as_str).unwrap_or("");
    let data = b.get("data").and_then(Value::as_str).unwrap_or("");
    if !Image::TYPES.contains(&media_type) {
        return Err(format!(
            "an image of type \"{media_type}\"; the APIs take {}",
            Image::TYPES.join(", ")
        ));
    }
    if data.is_empty() {
        return Err("an image block needs its base64 \"data\"".into());
    }
    if Image::decoded_len(data) > Image::MAX_BYTES {
        return Err(format!(
            "an image past {} MiB; make it smaller",
            Image::MAX_BYTES >> 20
        ));
    }
    Ok(Image {
        media_type: media_type.to_string(),
        data: data.to_string(),
    })
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// `%20` and friends in a file URI's path, as the bytes they stand for.
fn percent_decoded(p: &str) -> String {
    let b = p.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_become_text_attachments_and_images() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("my notes.md");
        std::fs::write(&file, "# Notes\nship it\n").unwrap();
        let uri = format!("file://{}", file.display()).replace(' ', "%20");
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
        let (text, images) = message(&json!([
            {"type": "text", "text": "Fix the bug in"},
            {"type": "resource", "resource": {"uri": "file:///p/src/lib.rs", "mimeType": "text/x-rust", "text": "fn main() {}\n"}},
            {"type": "resource_link", "name": "my notes.md", "uri": uri},
            {"type": "image", "mimeType": "image/png", "data": png},
        ]))
        .unwrap();
        assert!(text.starts_with("Fix the bug in\n\n<attachment name=\"/p/src/lib.rs\">\nfn main() {}\n</attachment>"), "{text}");
        assert!(
            text.contains(&format!(
                "<attachment name=\"{}\">\n# Notes\nship it\n</attachment>",
                file.display()
            )),
            "{text}"
        );
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].media_type, "image/png");
    }

    #[test]
    fn a_large_linked_file_is_read_only_as_far_as_it_is_attached_and_a_large_image_refused() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("big.log");
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&log).unwrap();
            let line = "2026-12-07 12:00:00 INFO request served in 3 ms\n".repeat(1024);
            for _ in 0..100 {
                f.write_all(line.as_bytes()).unwrap();
            }
        }
        let size = std::fs::metadata(&log).unwrap().len();
        let (text, _) = message(&json!([
            {"type": "resource_link", "name": "big.log", "uri": format!("file://{}", log.display())},
        ]))
        .unwrap();
        assert!(text.len() < ATTACHED_BYTES + 1024, "{}", text.len());
        assert!(
            text.contains(&format!("the file is {size} bytes")),
            "{}",
            &text[text.len() - 200..]
        );
        // An image past the APIs' size: refused, as an inline one is.
        let png = dir.path().join("shot.png");
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.resize(Image::MAX_BYTES + 2 * 1024 * 1024, 0);
        std::fs::write(&png, bytes).unwrap();
        let err = message(&json!([
            {"type": "resource_link", "name": "shot.png", "uri": format!("file://{}", png.display())},
        ]))
        .unwrap_err();
        assert!(
            err.message.contains("the APIs take images up to"),
            "{}",
            err.message
        );
    }

    #[test]
    fn what_cannot_be_sent_is_named() {
        for (blocks, says) in [
            (json!("hi"), "must be an array"),
            (
                json!([{"type": "audio", "data": "x", "mimeType": "audio/wav"}]),
                "prompt[0]: hermes does not take \"audio\"",
            ),
            (
                json!([{"type": "image", "mimeType": "image/bmp", "data": "x"}]),
                "image/bmp",
            ),
            (
                json!([{"type": "resource_link", "uri": "https://e.x/a", "name": "a"}]),
                "file:// links only",
            ),
            (
                json!([{"type": "text", "text": "  "}]),
                "the prompt is empty",
            ),
        ] {
            let e = message(&blocks).unwrap_err();
            assert!(e.message.contains(says), "{blocks}: {}", e.message);
        }
    }
}
