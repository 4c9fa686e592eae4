//! Whether a URL carries what looks like a key. A fetch is a way out for
//! whatever the model read: an allowed domain that logs its query strings
//! (an analytics endpoint, a paste site, anyone's server) receives a key
//! put in one. Such a URL is put to the person every time — an allowed
//! domain, an answer for the session and `--yolo` do not cover it — and is
//! refused in a run nobody answers.

use reqwest::Url;

/// Why `url` looks like it carries a secret, or `None`.
pub(crate) fn secret_in(url: &Url) -> Option<String> {
    if !url.username().is_empty() || url.password().is_some() {
        return Some("it carries a user name or password".into());
    }
    for (k, v) in url.query_pairs() {
        if !v.is_empty() && crate::util::secrets::looks_secret(&k) {
            return Some(format!("its query's `{k}` looks like a credential"));
        }
        if let Some(why) = secret_value(&v) {
            return Some(format!("its query's `{k}` holds {why}"));
        }
    }
    let parts = url
        .path_segments()
        .into_iter()
        .flatten()
        .chain(url.fragment());
    for part in parts {
        let part = percent_decoded(part);
        if let Some(why) = secret_value(&part) {
            return Some(format!("its path holds {why}"));
        }
    }
    None
}

/// A value of a known key's shape, or a long high-entropy token.
fn secret_value(v: &str) -> Option<&'static str> {
    if crate::util::secrets::mask(v) != v {
        return Some("a key's shape");
    }
    v.split(|c: char| !(c.is_ascii_alphanumeric() || "+/=_-".contains(c)))
        .any(random_looking)
        .then_some("a long random-looking value")
}

/// A token of 24 characters or more that mixes upper case, lower case and
/// digits with a high entropy: what keys and tokens look like and words,
/// slugs, version numbers and commit hashes (one case) do not.
fn random_looking(t: &str) -> bool {
    if t.len() < 24 {
        return false;
    }
    let has = |f: fn(&u8) -> bool| t.as_bytes().iter().any(f);
    if !(has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase) && has(u8::is_ascii_digit)) {
        return false;
    }
    let mut counts = [0u32; 256];
    for b in t.bytes() {
        counts[b as usize] += 1;
    }
    let n = t.len() as f64;
    let bits: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum();
    bits >= 4.0
}

fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, ..) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(u: &str) -> Option<String> {
        secret_in(&Url::parse(u).unwrap())
    }

    #[test]
    fn keys_in_a_query_a_path_or_the_user_part_are_seen() {
        assert!(why("https://example.com/?api_key=abc")
            .unwrap()
            .contains("`api_key`"));
        assert!(why("https://example.com/?q=sk-proj-AbCdEfGhIjKlMnOpQrStUv").is_some());
        assert!(why("https://example.com/log/ghp_abcdefghijklmnopqrstuvwxyz0123").is_some());
        assert!(why("https://example.com/c?d=Zx8Qk2LmP9vR4tW7yB1nH6jF3sD5gA0e").is_some());
        assert!(why("https://u:p@example.com/").is_some());
        assert!(why("https://example.com/x?data=AKIAIOSFODNN7EXAMPLE").is_some());
        assert!(why("https://example.com/%41KIAIOSFODNN7EXAMPLE").is_some());
    }

    #[test]
    fn ordinary_urls_are_not() {
        for u in [
            "https://docs.rs/tokio/1.54.0/tokio/net/struct.TcpListener.html",
            "https://github.com/rust-lang/rust/commit/3f5fd8dd41153bc5fdca9427e9e05be2c767ba23",
            "https://example.com/blog/how-we-made-our-build-twice-as-fast-in-2026?page=2",
            "https://www.example.com/search?q=rust+async+cancellation+safety",
            "https://example.com/items/550e8400-e29b-41d4-a716-446655440000",
        ] {
            assert_eq!(why(u), None, "{u}");
        }
    }
}
