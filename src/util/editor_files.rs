//! Files as an editor has them: when hermes serves an editor (`hermes
//! acp`) that offers to read files, `read_file` asks it first, so the model
//! reads the buffer the person sees — unsaved changes included — and falls
//! back to the disk when the editor cannot say. A handle any thread may
//! hold; the front end that speaks to the editor answers what it is asked.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

/// How long a read waits for the editor before it reads the disk.
const WAIT: Duration = Duration::from_secs(10);

/// One read the front end is to ask the editor for: the text, or `None`
/// (the editor could not say).
pub(crate) struct Read {
    pub path: PathBuf,
    pub answer: oneshot::Sender<Option<String>>,
}

/// Where reads go to the editor.
#[derive(Clone)]
pub struct EditorFiles {
    tx: mpsc::UnboundedSender<Read>,
}

impl EditorFiles {
    /// The handle, and the reads it asks for.
    pub(crate) fn new() -> (EditorFiles, mpsc::UnboundedReceiver<Read>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (EditorFiles { tx }, rx)
    }

    /// `path` as the editor has it; `None` when it cannot say in time.
    pub(crate) async fn read(&self, path: &Path) -> Option<String> {
        let (answer, rx) = oneshot::channel();
        self.tx
            .send(Read {
                path: path.to_path_buf(),
                answer,
            })
            .ok()?;
        tokio::time::timeout(WAIT, rx).await.ok()?.ok()?
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
