//! Files as an editor has them: when hermes serves an editor (`hermes
//! acp`) that offers to read and write files, `read_file` asks it first,
//! so the model reads the buffer the person sees — unsaved changes
//! included — and `write_file`/`edit_file` write through it once hermes'
//! own checks, question and checkpoint are done, so the editor's buffer is
//! the file. When the editor cannot say, the disk serves. A handle any
//! thread may hold; the front end that speaks to the editor answers what
//! it is asked.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

/// How long a read or write waits for the editor before the disk serves.
const WAIT: Duration = Duration::from_secs(10);

/// What the front end is to ask the editor.
pub(crate) enum Ask {
    /// The text, or `None` (the editor could not say).
    Read {
        path: PathBuf,
        answer: oneshot::Sender<Option<String>>,
    },
    /// Written, or why not.
    Write {
        path: PathBuf,
        text: String,
        answer: std::sync::mpsc::Sender<Result<(), String>>,
    },
}

/// Where reads and writes go to the editor.
#[derive(Clone)]
pub struct EditorFiles {
    tx: mpsc::UnboundedSender<Ask>,
    reads: bool,
    writes: bool,
}

impl EditorFiles {
    /// The handle — reading, writing, or both through the editor — and
    /// what it asks for.
    pub(crate) fn new(reads: bool, writes: bool) -> (EditorFiles, mpsc::UnboundedReceiver<Ask>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (EditorFiles { tx, reads, writes }, rx)
    }

    /// `path` as the editor has it; `None` when it does not read, or
    /// cannot say in time.
    pub(crate) async fn read(&self, path: &Path) -> Option<String> {
        if !self.reads {
            return None;
        }
        let (answer, rx) = oneshot::channel();
        self.tx
            .send(Ask::Read {
                path: path.to_path_buf(),
                answer,
            })
            .ok()?;
        tokio::time::timeout(WAIT, rx).await.ok()?.ok()?
    }

    /// `path` as the editor has it, from a blocking thread (a change is
    /// made off the runtime); `None` as [`EditorFiles::read`].
    pub(crate) fn read_blocking(&self, path: &Path) -> Option<String> {
        if !self.reads {
            return None;
        }
        let (answer, mut rx) = oneshot::channel();
        self.tx
            .send(Ask::Read {
                path: path.to_path_buf(),
                answer,
            })
            .ok()?;
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            match rx.try_recv() {
                Ok(text) => return text,
                Err(oneshot::error::TryRecvError::Empty)
                    if std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(_) => return None,
            }
        }
    }

    /// Whether writes go through the editor.
    pub(crate) fn writes(&self) -> bool {
        self.writes
    }

    /// Writes `text` to `path` through the editor, from a blocking thread
    /// (the file tools write off the runtime). `None`: the editor does
    /// not write; `Some(Err)`: it could not, or not in time.
    pub(crate) fn write_blocking(&self, path: &Path, text: &str) -> Option<Result<(), String>> {
        if !self.writes {
            return None;
        }
        let (answer, rx) = std::sync::mpsc::channel();
        let asked = self.tx.send(Ask::Write {
            path: path.to_path_buf(),
            text: text.to_string(),
            answer,
        });
        if asked.is_err() {
            return Some(Err("the editor has gone".into()));
        }
        Some(
            rx.recv_timeout(WAIT)
                .unwrap_or_else(|_| Err("the editor did not answer in time".into())),
        )
    }
}

impl std::fmt::Debug for EditorFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EditorFiles")
    }
}

impl PartialEq for EditorFiles {
    fn eq(&self, other: &EditorFiles) -> bool {
        self.tx.same_channel(&other.tx)
    }
}
