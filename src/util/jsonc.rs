//! JSON with comments, as VS Code reads its own files (`.vscode/mcp.json`):
//! `//` and `/* */` comments and a comma before a closing bracket are
//! allowed. They are blanked out — newlines kept, so a parse error still
//! names the line and column the person sees — and the rest is parsed as
//! JSON.

/// `text` with its comments and trailing commas made spaces.
pub(crate) fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' && *c != b'\r' {
                *c = b' ';
            }
        }
    };
    // The last comma seen outside strings and comments, cleared by any
    // other character that is not blank.
    let mut comma: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                comma = None;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |n| i + 2 + n + 2);
                blank(&mut out, i, end);
                i = end;
            }
            b',' => {
                comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(at) = comma.take() {
                    out[at] = b' ';
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                comma = None;
                i += 1;
            }
        }
    }
    // Only ASCII bytes were replaced by ASCII spaces.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_go_and_lines_stay() {
        let text = "{\n  // the servers\n  \"servers\": {\n    \"a\": {\"url\": \"http://x//y\", /* inline */ \"args\": [\"1\", \"2\",],},\n  },\n}\n";
        let v: serde_json::Value = serde_json::from_str(&strip(text)).unwrap();
        assert_eq!(v["servers"]["a"]["url"], "http://x//y");
        assert_eq!(v["servers"]["a"]["args"], serde_json::json!(["1", "2"]));
        assert_eq!(strip(text).lines().count(), text.lines().count());
    }

    #[test]
    fn a_real_error_keeps_its_line() {
        let text = "{\n  // a comment\n  \"servers\": {\n    \"a\": {\"url\" \"x\"}\n  }\n}\n";
        let e = serde_json::from_str::<serde_json::Value>(&strip(text)).unwrap_err();
        assert_eq!(e.line(), 4);
    }

    #[test]
    fn strings_with_slashes_quotes_and_commas_are_left_alone() {
        let text = r#"{"a": "he said \"x, }\" // not a comment", "b": "/* nor this */"}"#;
        assert_eq!(strip(text), text);
    }
}
