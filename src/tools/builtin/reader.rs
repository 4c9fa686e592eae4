//! The one reader of files for the model: `read_file` and the person's `@`
//! attachments both read through it, so a file reaches the model the same
//! way whoever brought it — opened without following a link, refused when
//! binary, numbered lines from an offset, each line and the whole held to
//! a budget, and a last line that says how to read on. It blocks: callers
//! run it on the blocking pool.

use std::io::{BufRead, Read};
use std::path::Path;

/// Lines shown when no `limit` is given.
pub(crate) const READ_LINES: usize = 2000;
/// Characters of one line shown; the rest is named.
const LINE_CHARS: usize = 2000;
/// Up to this size a file's lines are all counted, to say "of N".
const COUNT_ALL_BELOW: u64 = 16 << 20;
/// How much of a file's head tells text from binary (a NUL byte).
pub(crate) const SNIFF: usize = 8192;

/// Why a file could not be read as text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unreadable {
    Missing,
    Folder,
    Binary {
        bytes: u64,
    },
    /// The path (or a folder on its way) is a link now: it was resolved
    /// before, and is not followed.
    Link,
    PastEnd {
        offset: usize,
        lines: usize,
    },
    Io(String),
}

impl Unreadable {
    /// What the model is told, with what to do instead.
    pub(crate) fn for_model(&self, shown: &str) -> String {
        match self {
            Unreadable::Missing => format!("{shown} does not exist"),
            Unreadable::Folder => {
                format!("{shown} is a folder; list it with glob (pattern \"{shown}/*\")")
            }
            Unreadable::Binary { bytes } => format!(
                "{shown} is a binary file ({bytes} bytes); read_file shows text — look at it \
                 with shell (e.g. `file {shown}`, `xxd {shown} | head`)"
            ),
            Unreadable::Link => changed_to_link(shown),
            Unreadable::PastEnd { offset, lines } => {
                format!("offset {offset} is past the end of {shown}, which has {lines} lines")
            }
            Unreadable::Io(e) => format!("cannot read {shown}: {e}"),
        }
    }

    /// What the person who attached it is told.
    pub(crate) fn for_person(&self, shown: &str) -> String {
        match self {
            Unreadable::Binary { bytes } => format!(
                "{shown} is a binary file ({bytes} bytes); only text and PNG, JPEG, GIF or \
                 WebP images can be attached"
            ),
            Unreadable::Link => format!("{shown} became a symbolic link; nothing was attached"),
            other => other.for_model(shown),
        }
    }
}

/// What was read: numbered lines, and where they stop.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lines {
    text: String,
    offset: usize,
    last: usize,
    /// The file's lines, when they were counted.
    total: Option<usize>,
    /// Lines were left out (past `limit` or the budget).
    more: bool,
}

impl Lines {
    /// The lines as the model reads them: numbered, and a last line that
    /// says how to read on when some were left out.
    pub(crate) fn shown(&self, shown: &str) -> String {
        if self.text.is_empty() && !self.more {
            return format!("{shown} is empty");
        }
        let mut out = self.text.clone();
        if self.more {
            let of = self.total.map(|n| format!(" of {n}")).unwrap_or_default();
            out.push_str(&format!(
                "[lines {}–{}{of} of {shown}; read on with offset={}]\n",
                self.offset,
                self.last,
                self.last + 1
            ));
        }
        out
    }
}

/// The lines `offset..offset+limit` of a text file, numbered, within
/// `budget` bytes.
pub(crate) fn read_lines(
    path: &Path,
    offset: usize,
    limit: usize,
    budget: usize,
) -> Result<Lines, Unreadable> {
    let (reader, size) = open_text(path)?;
    lines_of(reader, size, offset, limit, budget)
}

/// [`read_lines`] of a text already in hand (an editor's buffer).
pub(crate) fn text_lines(
    text: &str,
    offset: usize,
    limit: usize,
    budget: usize,
) -> Result<Lines, Unreadable> {
    lines_of(text.as_bytes(), text.len() as u64, offset, limit, budget)
}

fn lines_of(
    mut reader: impl BufRead,
    size: u64,
    offset: usize,
    limit: usize,
    budget: usize,
) -> Result<Lines, Unreadable> {
    let mut out = String::new();
    let mut line = Vec::new();
    let (mut n, mut last) = (0usize, 0usize);
    let mut full = true;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(Unreadable::Io(e.to_string())),
        }
        n += 1;
        if n < offset {
            continue;
        }
        if n >= offset + limit || out.len() >= budget {
            full = false;
            if size > COUNT_ALL_BELOW {
                n = 0;
                break;
            }
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        let cut = cut_line(text);
        out.push_str(&format!("{n:>6}\t{cut}\n"));
        last = n;
    }
    if n > 0 && offset > n {
        return Err(Unreadable::PastEnd { offset, lines: n });
    }
    Ok(Lines {
        text: out,
        offset,
        last,
        total: (n > 0).then_some(n),
        more: !full,
    })
}

/// A whole file as an `@` attachment sends it: [`read_lines`] from the
/// first line, as the model would read it with `read_file`.
pub(crate) fn read_attached(path: &Path, shown: &str, budget: usize) -> Result<String, Unreadable> {
    read_lines(path, 1, READ_LINES, budget).map(|l| l.shown(shown))
}

fn cut_line(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(LINE_CHARS) {
        None => text.into(),
        Some((at, _)) => format!(
            "{}… [{} more characters]",
            &text[..at],
            text[at..].chars().count()
        )
        .into(),
    }
}

/// The bytes of a text file: what was read to tell it is not binary, then
/// the rest — read on, never sought back, so a FIFO or a character device
/// reads as a file does.
type TextReader = std::io::BufReader<std::io::Chain<std::io::Cursor<Vec<u8>>, std::fs::File>>;

/// A file opened for reading as text (not a folder, not binary), and its
/// size as the file system says (0 for a FIFO).
fn open_text(path: &Path) -> Result<(TextReader, u64), Unreadable> {
    let io = |e: std::io::Error| Unreadable::Io(e.to_string());
    let mut file = crate::util::beneath::open_file(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Unreadable::Missing,
        _ if crate::util::beneath::is_link_error(&e) => Unreadable::Link,
        _ => io(e),
    })?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(Unreadable::Folder);
    }
    let mut head = vec![0u8; SNIFF];
    let n = read_up_to(&mut file, &mut head).map_err(io)?;
    if head[..n].contains(&0) {
        return Err(Unreadable::Binary { bytes: meta.len() });
    }
    head.truncate(n);
    let reader = std::io::BufReader::new(std::io::Cursor::new(head).chain(file));
    Ok((reader, meta.len()))
}

/// What a path that became a link since it was resolved gets.
pub(crate) fn changed_to_link(shown: &str) -> String {
    format!(
        "{shown} (or a folder on its way) is a symbolic link now, not what was approved; \
         nothing was done — resolve the link and ask again"
    )
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
