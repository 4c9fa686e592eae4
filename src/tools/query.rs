//! What a query means before it meets the index: its words (split at
//! case and punctuation, stopwords known), the values it carries read as
//! their kind (`intent`), the thesaurus that widens it, and the one-edit
//! test for typos.

use std::collections::HashMap;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

pub(super) const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "by",
    "for",
    "from",
    "in",
    "into",
    "is",
    "it",
    "of",
    "on",
    "or",
    "that",
    "the",
    "this",
    "to",
    "with",
    "me",
    "my",
    "i",
    "you",
    "your",
    "what",
    "which",
    "how",
    "can",
    "could",
    "would",
    "should",
    "will",
    "please",
    "pls",
    "s",
    "t",
    "do",
    "does",
    "did",
    "we",
    "our",
    "us",
    "they",
    "them",
    "their",
    "he",
    "she",
    "his",
    "her",
    "its",
    "was",
    "were",
    "been",
    "has",
    "have",
    "had",
    "just",
    "so",
    "any",
    "some",
    "there",
    "here",
    "then",
    "than",
    "also",
    "too",
    "very",
    "want",
    "need",
    "like",
    "let",
    "lets",
    "ok",
    "okay",
    "hey",
    "hi",
    "if",
    "but",
    "about",
    "up",
    "out",
    "these",
    "those",
    "one",
    "ll",
    "m",
    "re",
    "ve",
    "d",
    "don",
    "im",
    "yet",
    "again",
    "right",
    "now",
    "currently",
    "whatever",
    "thing",
    "really",
    "actually",
    "maybe",
    "quick",
    "quickly",
    "thanks",
    "know",
    "tell",
    "give",
];

pub(super) fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}

/// Splits into lowercase words at non-alphanumerics and camelCase humps.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_word(text, &mut String::new(), |w| out.push(w.to_string()));
    out
}

/// [`words`] without an allocation per word: each word is built in `buf`
/// and handed to `f` (index builds split hundreds of thousands of words).
pub(super) fn each_word(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    buf.clear();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !buf.is_empty() {
                f(buf);
                buf.clear();
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            if c.is_ascii() {
                buf.push(c.to_ascii_lowercase());
            } else {
                buf.extend(c.to_lowercase());
            }
        } else {
            prev_lower = false;
            if !buf.is_empty() {
                f(buf);
                buf.clear();
            }
        }
    }
    if !buf.is_empty() {
        f(buf);
    }
}

/// The thesaurus: groups of stemmed entries (an entry may be a phrase), and
/// for each entry's stems joined by a space, the groups it is in.
pub(super) struct Thesaurus {
    pub(super) groups: Vec<Vec<Vec<String>>>,
    pub(super) groups_of: HashMap<String, Vec<usize>>,
    pub(super) longest: usize,
}

pub(super) fn thesaurus() -> &'static Thesaurus {
    static T: OnceLock<Thesaurus> = OnceLock::new();
    T.get_or_init(|| {
        let stemmer = Stemmer::create(Algorithm::English);
        let mut t = Thesaurus {
            groups: Vec::new(),
            groups_of: HashMap::new(),
            longest: 1,
        };
        let text = include_str!("thesaurus.txt");
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let g = t.groups.len();
            let mut entries = Vec::new();
            for entry in line.split(',') {
                let stems: Vec<String> = words(entry)
                    .iter()
                    .map(|w| stemmer.stem(w).into_owned())
                    .collect();
                if stems.is_empty() {
                    continue;
                }
                t.longest = t.longest.max(stems.len());
                let groups = t.groups_of.entry(stems.join(" ")).or_default();
                if !groups.contains(&g) {
                    groups.push(g);
                }
                entries.push(stems);
            }
            t.groups.push(entries);
        }
        t
    })
}

/// The words of a request that say what it wants, without the values it
/// carries: quoted text, URLs and paths stand for the kind of thing they
/// are ("url", "file", "directory"), not for their own words.
pub fn intent(text: &str) -> String {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let trim_end = |t: &'_ str| {
        t.trim_end_matches(['.', ',', '?', '!', ':', ';', ')'])
            .to_string()
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        i += 1;
        let first = token.chars().next().unwrap_or(' ');
        let close = match first {
            '"' | '`' | '\'' => Some(first),
            '\u{2018}' => Some('\u{2019}'),
            '\u{201c}' => Some('\u{201d}'),
            _ => None,
        };
        if let Some(close) = close {
            // Quoted only if the quote closes, in this word or a later one
            // (an apostrophe that never closes is just a word).
            let here = token.chars().count() > 1 && trim_end(token).ends_with(close);
            let ends = if here {
                Some(i)
            } else {
                tokens[i..]
                    .iter()
                    .position(|t| trim_end(t).ends_with(close))
                    .map(|p| i + p + 1)
            };
            if let Some(end) = ends {
                // A quoted name of a tool is the best clue there is.
                let inner = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
                if here && inner.contains('_') {
                    out.push(' ');
                    out.push_str(inner);
                } else {
                    out.push_str(" text ");
                }
                i = end;
                continue;
            }
        }
        let bare =
            token.trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '~' && c != '.');
        let bare = bare.trim_end_matches('.');
        let slashes = bare.matches('/').count();
        let ext = bare.rsplit_once('.').filter(|(name, x)| {
            name.chars().count() > 1
                && !name.contains('.')
                && (1..=4).contains(&x.len())
                && x.chars().all(|c| c.is_ascii_alphabetic())
        });
        if bare.contains("://") {
            out.push_str(" url ");
        } else if bare.starts_with(['/', '~'])
            || bare.starts_with("./")
            || bare.starts_with("../")
            || slashes >= 2
            || (slashes == 1 && ext.is_some())
        {
            out.push_str(if token.ends_with('/') {
                " directory "
            } else {
                " path "
            });
        } else if let Some(kind) = value_kind(token, bare) {
            out.push(' ');
            out.push_str(kind);
            out.push(' ');
        } else if ext.is_some() && slashes == 0 {
            out.push_str(" file ");
        } else if NEGATIONS.contains(&token.to_lowercase().as_str()) {
            // "without re-applying the manifest": what follows is what the
            // request does not want, up to the clause's end.
            let mut n = 0;
            while i < tokens.len() && n < NEGATED_WORDS {
                let t = tokens[i];
                if CLAUSE_WORDS.contains(&t.to_lowercase().as_str()) {
                    break;
                }
                i += 1;
                n += 1;
                if t.ends_with([',', '.', ';', '?', '!', ':']) {
                    break;
                }
            }
        } else {
            out.push(' ');
            out.push_str(token);
        }
    }
    out
}

/// Words after which a request says what it does not want.
const NEGATIONS: &[&str] = &["without", "excluding"];
/// Words that start a new clause, which a negation does not reach.
const CLAUSE_WORDS: &[&str] = &["and", "then", "but", "so", "or"];
/// Words after `#` that are C, not a chat channel.
const PREPROCESSOR: &[&str] = &[
    "include",
    "define",
    "if",
    "ifdef",
    "ifndef",
    "endif",
    "else",
    "elif",
    "pragma",
    "undef",
    "region",
    "endregion",
];
/// Objects a code expression starts from.
const CODE_ROOTS: &[&str] = &[
    "window",
    "document",
    "globalThis",
    "process",
    "this",
    "navigator",
    "localStorage",
    "sessionStorage",
    "console",
    "location",
];
/// How far a negation reaches when no punctuation ends it first.
const NEGATED_WORDS: usize = 4;

/// The kind of value a word is, when its shape says so: a chat channel
/// (`#deploys`), an emoji (`:tada:`), a mention (`@dana`), an email
/// address, a commit hash (`a1b2c3d`) or a code expression
/// (`document.title`, `window.__APP__`).
fn value_kind(token: &str, bare: &str) -> Option<&'static str> {
    let ident = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    let word = token.trim_end_matches(['.', ',', '?', '!', ';', ')']);
    let name = |w: &str| {
        w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    };
    let all_hex = |w: &str| w.chars().all(|c| c.is_ascii_hexdigit());
    if let Some(rest) = word.strip_prefix('#') {
        let colour = matches!(rest.len(), 3 | 4 | 6 | 8) && all_hex(rest);
        let c = PREPROCESSOR.contains(&rest);
        return (name(rest) && !colour && !c).then_some("channel");
    }
    if let Some(rest) = word.strip_prefix(':').and_then(|w| w.strip_suffix(':')) {
        let emoji = !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_+-".contains(c));
        return emoji.then_some("emoji");
    }
    if let Some(rest) = word.strip_prefix('@') {
        // `@app.route`, `@pytest.fixture`: a decorator, not a person.
        return (name(rest) && !rest.contains('.')).then_some("user");
    }
    if let Some((user, host)) = word.split_once('@') {
        // The host ends in a top-level domain (`lodash@v4.17.21` is a version).
        let tld = host
            .rsplit_once('.')
            .is_some_and(|(_, t)| t.len() >= 2 && t.chars().all(|c| c.is_ascii_alphabetic()));
        let email = !user.is_empty() && tld && name(host) && !user.contains(['/', ':']);
        return email.then_some("email");
    }
    // Letters only as a short prefix make a name (`ed25519`), not a hash.
    let named = bare
        .find(|c: char| c.is_ascii_digit())
        .is_some_and(|at| at <= 2 && bare[at..].chars().all(|c| c.is_ascii_digit()));
    let hex = (7..=40).contains(&bare.len())
        && bare
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        && bare.chars().any(|c| c.is_ascii_digit())
        && bare.chars().any(|c| c.is_ascii_alphabetic())
        && !named;
    if hex {
        return Some("commit");
    }
    let code = word.trim_end_matches(['(', ')']);
    let parts: Vec<&str> = code.split('.').collect();
    // Only what reads as code: a known root, a call, `_`/`$`, or camelCase
    // (`main.swift`, `acme.cloud` and `build.gradle` are names).
    let camel = |p: &str| {
        p.as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
    };
    let signal = CODE_ROOTS.contains(&parts[0])
        || word.ends_with('(')
        || word.contains("()")
        || code.contains(['_', '$'])
        || parts.iter().any(|p| camel(p));
    // `old_report.pdf`, `app.log`: a file name, whatever its stem.
    let extension = parts
        .last()
        .is_some_and(|x| (1..=4).contains(&x.len()) && x.chars().all(|c| c.is_ascii_alphabetic()));
    let expression = parts.len() >= 2 && signal && !extension && parts.iter().all(|p| ident(p));
    expression.then_some("expression")
}

/// Whether two words are at most one edit apart (a swap of neighbours
/// counting as one).
pub(super) fn within_one(a: &str, b: &str) -> bool {
    // One character is at most four bytes: most pairs end here, unallocated.
    if a.len().abs_diff(b.len()) > 4 {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (mut i, mut j, mut edits) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            i += 1;
            j += 1;
            continue;
        }
        edits += 1;
        if edits > 1 {
            return false;
        }
        match a.len().cmp(&b.len()) {
            std::cmp::Ordering::Greater => i += 1,
            std::cmp::Ordering::Less => j += 1,
            std::cmp::Ordering::Equal => {
                // A swap of two neighbours counts as one edit.
                if i + 1 < a.len() && a[i] == b[j + 1] && a[i + 1] == b[j] {
                    i += 1;
                    j += 1;
                }
                i += 1;
                j += 1;
            }
        }
    }
    edits + (a.len() - i) + (b.len() - j) <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_snake_kebab_and_camel_case() {
        assert_eq!(words("read_text-file"), ["read", "text", "file"]);
        assert_eq!(words("getCurrentTime"), ["get", "current", "time"]);
        assert_eq!(words("HTTPServer v2"), ["httpserver", "v2"]);
    }

    #[test]
    fn values_in_a_request_stand_for_their_kind() {
        let got =
            intent("show 'fix: handle empty query' in src/main.rs and https://x.y/z and ~/notes/");
        let words: Vec<&str> = got.split_whitespace().collect();
        assert_eq!(
            words,
            [
                "show",
                "text",
                "in",
                "path",
                "and",
                "url",
                "and",
                "directory"
            ]
        );
        assert_eq!(
            intent("read settings.yaml please")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["read", "file", "please"]
        );
        // A quote that never closes is just a word; slashes inside words,
        // abbreviations and a quoted tool name stay what they are.
        assert_eq!(
            intent("say 'unclosed words")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["say", "'unclosed", "words"]
        );
        assert_eq!(
            intent("the read/write CI/CD step, e.g. `read_text_file`")
                .split_whitespace()
                .collect::<Vec<_>>(),
            [
                "the",
                "read/write",
                "CI/CD",
                "step,",
                "e.g.",
                "read_text_file"
            ]
        );
    }

    #[test]
    fn shapes_of_values_say_their_kind() {
        let kinds = |t: &str| {
            intent(t)
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            kinds("ping #deploys and put :white_check_mark: on it for @dana."),
            ["ping", "channel", "and", "put", "emoji", "on", "it", "for", "user"]
        );
        assert_eq!(
            kinds("mail ops@acme.io what a1b2c3d changed"),
            ["mail", "email", "what", "commit", "changed"]
        );
        assert_eq!(
            kinds("run document.title() and window.__APP_VERSION__?"),
            ["run", "expression", "and", "expression"]
        );
        // Not values: words, a version, an abbreviation, a plain number,
        // hex without a digit, a bare hash sign, a colour, C, a key type,
        // a decorator, a package version, file and host names.
        assert_eq!(
            kinds("deadbeefcafe v1.2.3 e.g. 1234567 # ok #ff5733 #include ed25519"),
            [
                "deadbeefcafe",
                "v1.2.3",
                "e.g.",
                "1234567",
                "#",
                "ok",
                "#ff5733",
                "#include",
                "ed25519"
            ]
        );
        assert_eq!(
            kinds("@app.route lodash@v4.17.21 main.swift acme.cloud"),
            ["@app.route", "lodash@v4.17.21", "main.swift", "acme.cloud"]
        );
        assert_eq!(kinds("call api.fetchUser()"), ["call", "expression"]);
        assert_eq!(kinds("move old_report.pdf"), ["move", "file"]);
    }

    #[test]
    fn what_a_request_does_not_want_is_left_out() {
        assert_eq!(
            intent("patch the deployment without re-applying the whole manifest, then list pods")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["patch", "the", "deployment", "then", "list", "pods"]
        );
        // A new clause is wanted again; `except` is a word of Python.
        assert_eq!(
            intent("deploy without tests and then restart the service")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["deploy", "and", "then", "restart", "the", "service"]
        );
        assert_eq!(
            intent("fix the except clause")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["fix", "the", "except", "clause"]
        );
    }

    #[test]
    fn one_edit_apart() {
        assert!(within_one("commits", "comits"));
        assert!(within_one("screenshot", "screenshto"));
        assert!(within_one("branch", "bracnh") || within_one("bracnh", "branch"));
        assert!(!within_one("branch", "brunches"));
        assert!(!within_one("delete", "create"));
    }
}
