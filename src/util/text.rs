//! Cutting text for one-line messages without splitting a UTF-8 character.

/// The first `max` bytes of `s` (backed off to a char boundary), with `…` when cut.
pub(crate) fn excerpt(s: &str, max: usize) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let t = one_line.trim();
    if t.len() <= max {
        return t.to_string();
    }
    let mut end = max;
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &t[..end])
}

/// `s` without the Rust type names libraries put in their messages
/// (`Transport [rmcp::transport::worker::WorkerTransport<…>] error: …`):
/// a person cannot act on them. A bracketed part or a word that names a
/// path (`::`) or a generic type (`<`) goes, with the space before it.
pub(crate) fn without_type_names(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        // The next word, or bracketed part, with its nested brackets.
        let (word, tail) = next_word(rest);
        let generic = word
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_alphanumeric() && w[1] == b'<');
        let rusty = names_a_path(word) || (generic && word.contains('>'));
        if rusty {
            if out.ends_with(' ') {
                out.pop();
            }
        } else {
            out.push_str(word);
        }
        rest = tail;
    }
    out
}

/// Whether `word` holds `ident::ident` (not `[::1]`, not `http://`).
fn names_a_path(word: &str) -> bool {
    let b = word.as_bytes();
    b.windows(4).any(|w| {
        (w[0].is_ascii_alphanumeric() || w[0] == b'_' || w[0] == b'>')
            && w[1] == b':'
            && w[2] == b':'
            && (w[3].is_ascii_alphabetic() || w[3] == b'_')
    })
}

/// One word of `s` (up to a space outside brackets) or one space.
fn next_word(s: &str) -> (&str, &str) {
    if let Some(t) = s.strip_prefix(' ') {
        return (&s[..1], t);
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '[' | '<' | '(' => depth += 1,
            ']' | '>' | ')' => depth -= 1,
            ' ' if depth <= 0 => return (&s[..i], &s[i..]),
            _ => {}
        }
    }
    (s, "")
}

/// A name as one line: a newline, tab and every other control character
/// written as an escape (`\n`, `\u{1b}`), so a file named to look like
/// two lines of a question shows as the one name it is.
pub(crate) fn escaped(name: &str) -> String {
    if !name.chars().any(char::is_control) {
        return name.to_string();
    }
    name.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A size as people read it: `512 B`, `12.1 KiB`, `4.8 MiB`.
pub(crate) fn byte_size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / 1024.0 / 1024.0)
    }
}

/// The innermost cause of an error, where the useful words are.
pub(crate) fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    let mut last = e.to_string();
    while let Some(next) = cur.source() {
        let text = next.to_string();
        if !text.is_empty() {
            last = text;
        }
        cur = next;
    }
    excerpt(&without_type_names(&last), 300)
}

/// How many terminal columns `s` takes (no escapes in it).
pub(crate) fn columns_of(s: &str) -> usize {
    use unicode_width::UnicodeWidthChar;
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `s` cut to `max` columns, with `…` where it was cut.
pub(crate) fn cut_to_columns(s: &str, max: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    if columns_of(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn excerpt_cuts_on_char_boundary_and_flattens_lines() {
        assert_eq!(super::excerpt("a\nb", 10), "a b");
        assert_eq!(super::excerpt("héllo", 2), "h…");
        assert_eq!(super::excerpt("hello", 5), "hello");
    }

    #[test]
    fn rust_type_names_are_left_out_of_messages() {
        let rmcp = "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<rmcp::transport::auth::AuthClient<reqwest::async_impl::client::Client>>>] error: Client error: error sending request for url (http://[::1]:8080/mcp), when send initialize request";
        assert_eq!(
            super::without_type_names(rmcp),
            "Send message error Transport error: Client error: error sending request for url (http://[::1]:8080/mcp), when send initialize request"
        );
        assert_eq!(super::without_type_names("a <b> c"), "a <b> c");
    }

    #[test]
    fn a_name_with_a_newline_stays_one_line() {
        assert_eq!(super::escaped("a\nb\u{1b}[2J\tc"), "a\\nb\\u{1b}[2J\\tc");
        assert_eq!(super::escaped("plain ü.rs"), "plain ü.rs");
    }
}
