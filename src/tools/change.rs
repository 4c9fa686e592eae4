//! A file change as a built-in plans it before it is approved: what the
//! question shows (a diff), what the round's later entries are planned on,
//! and what the write expects to find when it runs (so a file changed or
//! swapped since the question is not written as approved).

use std::collections::HashMap;

/// What the round's earlier entries will have left in the files they
/// change: path → content.
pub(crate) type Earlier = HashMap<std::path::PathBuf, String>;

/// A file change as planned before it is approved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub path: std::path::PathBuf,
    /// The path as the person reads it.
    pub shown: String,
    /// The content the plan found, as text for the question (`None`: no
    /// file yet).
    pub before: Option<String>,
    pub after: String,
    /// What the write must find when it runs: the bytes the plan found.
    pub expect: Expect,
}

/// Files up to this size are diffed for the approval question.
const PREVIEW_BYTES: usize = 4 << 20;

impl Change {
    /// What the question shows: a diff, or for a large file what happens.
    pub(crate) fn preview(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        if before.len().max(self.after.len()) > PREVIEW_BYTES {
            return format!(
                "(replaces {}, {} bytes, with {} bytes)",
                self.shown,
                before.len(),
                self.after.len()
            );
        }
        diff(&self.shown, before, &self.after)
    }

    pub(crate) fn expect(&self) -> Expect {
        self.expect.clone()
    }
}

/// Puts a change planned at its turn to the person: `Ok` lets it be
/// written; `Err`, the result the model is told instead.
pub(crate) type Confirm<'a> = &'a (dyn Fn(Change) -> futures_util::future::BoxFuture<'a, Result<(), crate::call::ToolOutput>>
         + Send
         + Sync);

/// What the call of a built-in that plans its changes holds to.
pub(crate) enum Planned<'a> {
    /// Nothing planned: written as the arguments say.
    Free,
    /// The file as the plan found it when it was shown: anything else is
    /// not written (the result says it is stale).
    Expect(Expect),
    /// Planned at the entry's turn, on the folder as the entries before it
    /// left it, and put to `confirm` then — its place in entry order held
    /// meanwhile, so what the person is shown is what is written.
    AtTurn(Confirm<'a>),
}

impl From<Option<Expect>> for Planned<'_> {
    fn from(expect: Option<Expect>) -> Self {
        expect.map_or(Planned::Free, Planned::Expect)
    }
}

/// What a planned change expects to find: the digest of the file's content
/// (`None`: no file).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expect {
    pub before: Option<[u8; 32]>,
}

impl Expect {
    /// What finding `bytes` (`None`: no file) expects.
    pub(crate) fn of(bytes: Option<&[u8]>) -> Expect {
        Expect {
            before: bytes.map(digest),
        }
    }

    pub(crate) fn holds_for(&self, now: Option<&[u8]>) -> bool {
        self.before == now.map(digest)
    }
}

fn digest(bytes: impl AsRef<[u8]>) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes.as_ref()).into()
}

/// A unified diff of a file's change, three lines of context.
pub(crate) fn diff(shown: &str, old: &str, new: &str) -> String {
    similar::TextDiff::configure()
        .timeout(std::time::Duration::from_millis(300))
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string()
}
