//! What a fetched body becomes for the model: HTML as Markdown (headings,
//! links with their targets, lists, tables, code — never a script or a
//! style) by htmd, the same bytes always giving the same text; JSON and
//! text as they are; `text` strips the Markdown; `raw` is the body as
//! sent.

use std::sync::OnceLock;

/// How the model asked for a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Markdown,
    Text,
    Raw,
}

impl Format {
    pub(crate) fn parse(s: Option<&str>) -> Result<Format, String> {
        match s {
            None | Some("markdown") => Ok(Format::Markdown),
            Some("text") => Ok(Format::Text),
            Some("raw") => Ok(Format::Raw),
            Some(other) => Err(format!(
                "format `{other}` is not one of markdown, text, raw"
            )),
        }
    }
}

/// What kind of body a `Content-Type` says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Html,
    /// Text, JSON, XML, JavaScript: read as they are.
    Text,
    Image,
    /// Anything else (a PDF, an archive, a binary).
    Other,
}

impl Kind {
    pub(crate) fn of(content_type: &str, body: &[u8]) -> Kind {
        let mime = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match mime.as_str() {
            "text/html" | "application/xhtml+xml" => Kind::Html,
            m if m.starts_with("image/") && m != "image/svg+xml" => Kind::Image,
            m if m.starts_with("text/")
                || m.ends_with("+json")
                || m.ends_with("+xml")
                || m == "application/json"
                || m == "application/xml"
                || m == "application/javascript"
                || m == "image/svg+xml" =>
            {
                Kind::Text
            }
            // No type said: what the bytes look like.
            "" if std::str::from_utf8(body).is_ok() => {
                let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_lowercase();
                if head.contains("<html") || head.contains("<!doctype html") {
                    Kind::Html
                } else {
                    Kind::Text
                }
            }
            _ => Kind::Other,
        }
    }
}

/// The converter, built once: its handlers are the built-in ones, so it is
/// shared safely.
fn converter() -> &'static htmd::HtmlToMarkdown {
    static C: OnceLock<htmd::HtmlToMarkdown> = OnceLock::new();
    C.get_or_init(|| {
        htmd::HtmlToMarkdown::builder()
            .skip_tags(vec![
                "script", "style", "noscript", "template", "iframe", "object", "embed", "svg",
                "canvas", "head",
            ])
            .build()
    })
}

/// `html` as Markdown.
pub(crate) fn markdown(html: &str) -> String {
    match converter().convert(html) {
        Ok(md) => md.trim().to_string(),
        // htmd's reader does not fail on a string; should it, the tags go.
        Err(_) => text_of_markdown(html),
    }
}

/// The words of Markdown, without its marks: a paragraph a line, a table
/// row's cells by tabs, link targets dropped.
pub(crate) fn text_of_markdown(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut out = String::new();
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match ev {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak => out.push(' '),
            Event::HardBreak => out.push('\n'),
            Event::End(TagEnd::TableCell) => out.push('\t'),
            Event::Start(Tag::Item) => out.push_str("- "),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::TableRow
                | TagEnd::TableHead
                | TagEnd::BlockQuote(_),
            ) => {
                while out.ends_with('\t') {
                    out.pop();
                }
                out.push('\n');
            }
            _ => {}
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!doctype html><html><head><title>T</title>
        <style>body { color: red }</style><script>alert("x")</script></head>
        <body><h1>Release notes</h1><p>See <a href="https://example.com/changes">the changes</a>.</p>
        <ul><li>faster</li><li>smaller</li></ul>
        <table><tr><th>Version</th><th>Date</th></tr><tr><td>2.1</td><td>2026-11-30</td></tr></table>
        <pre><code>cargo install hermes</code></pre><noscript>enable JS</noscript></body></html>"#;

    #[test]
    fn html_becomes_markdown_without_scripts_or_styles() {
        let md = markdown(PAGE);
        assert!(md.starts_with("# Release notes"), "{md}");
        assert!(
            md.contains("[the changes](https://example.com/changes)"),
            "{md}"
        );
        assert!(md.contains("*   faster") || md.contains("- faster"), "{md}");
        assert!(md.contains("| 2.1 "), "{md}");
        assert!(md.contains("cargo install hermes"), "{md}");
        for gone in ["alert", "color: red", "enable JS", "<"] {
            assert!(!md.contains(gone), "{gone} in {md}");
        }
        assert_eq!(md, markdown(PAGE));
    }

    #[test]
    fn text_keeps_the_words_and_drops_the_marks() {
        let t = text_of_markdown(&markdown(PAGE));
        assert!(t.starts_with("Release notes\n"), "{t}");
        assert!(t.contains("See the changes."), "{t}");
        assert!(t.contains("2.1\t2026-11-30"), "{t}");
        assert!(!t.contains("https://example.com/changes"), "{t}");
    }

    #[test]
    fn a_body_is_known_by_its_type_or_its_bytes() {
        assert_eq!(Kind::of("text/html; charset=utf-8", b""), Kind::Html);
        assert_eq!(Kind::of("application/json", b"{}"), Kind::Text);
        assert_eq!(Kind::of("application/vnd.api+json", b"{}"), Kind::Text);
        assert_eq!(Kind::of("image/png", b"\x89PNG"), Kind::Image);
        assert_eq!(Kind::of("application/pdf", b"%PDF"), Kind::Other);
        assert_eq!(Kind::of("", b"<!DOCTYPE html><html>"), Kind::Html);
        assert_eq!(Kind::of("", b"\xff\xfe\x00"), Kind::Other);
    }
}
