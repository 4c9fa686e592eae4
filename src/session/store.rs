//! The session file's single writer. One task owns the file; everyone else holds a
//! cheap [`SessionHandle`] and awaits each append, which answers once the record's
//! line has been handed to the kernel in one `write` — so a crash of hermes loses
//! nothing that was acknowledged. `sync` adds an fsync at the end of each turn.
//!
//! The writer holds an exclusive advisory lock (`flock`) on the file for as
//! long as it runs: two hermes processes appending to one session would
//! interleave their records and break the tool-call pairing of every later
//! request. The holder's pid is kept beside the file (`<file>.lock`) so a
//! second opener can say who has it; the lock itself is the kernel's, released
//! however the holder ends.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use tokio::sync::{mpsc, oneshot};

use super::lock;
use super::record::Record;
use super::SessionError;

enum Cmd {
    Append(Vec<u8>, oneshot::Sender<std::io::Result<()>>),
    Sync(oneshot::Sender<std::io::Result<()>>),
    Close(oneshot::Sender<std::io::Result<()>>),
}

#[derive(Clone, Debug)]
pub(crate) struct SessionHandle {
    tx: mpsc::Sender<Cmd>,
    path: PathBuf,
    id: String,
    /// A subagent's records go in its parent's file under its id:
    /// `{"agent":ID,…}`, first, so a loader tells them from the parent's
    /// by their first bytes ([`AGENT_PREFIX`]).
    agent: Option<String>,
}

/// How every line of a subagent's record begins.
pub(crate) const AGENT_PREFIX: &[u8] = br#"{"agent":"#;

impl SessionHandle {
    /// Creates a new session file (owner-only permissions) and starts its writer.
    pub(crate) fn create(path: &Path, id: &str) -> Result<SessionHandle, SessionError> {
        if let Some(dir) = path.parent() {
            crate::util::private::create_dir_all(dir).map_err(|e| SessionError::io(dir, e))?;
            super::guard_folder(dir)?;
        }
        let mut opts = crate::util::private::options();
        opts.create_new(true).append(true);
        crate::util::private::no_follow(&mut opts);
        let file = opts.open(path).map_err(|e| SessionError::io(path, e))?;
        Self::spawn(file, path, id)
    }

    /// Opens an existing session file for appending, if no other hermes has
    /// it — never through a symlink, never another user's file.
    pub(crate) fn append_to(path: &Path, id: &str) -> Result<SessionHandle, SessionError> {
        if !crate::util::private::own_file(path) {
            return Err(SessionError::NotOurs {
                path: path.to_path_buf(),
            });
        }
        let mut opts = OpenOptions::new();
        opts.append(true);
        let file = crate::util::private::no_follow(&mut opts)
            .open(path)
            .map_err(|e| SessionError::io(path, e))?;
        Self::spawn(file, path, id)
    }

    fn spawn(file: File, path: &Path, id: &str) -> Result<SessionHandle, SessionError> {
        let lock = lock::Held::take(&file, path, id)?;
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(writer(file, rx, lock));
        Ok(SessionHandle {
            tx,
            path: path.to_path_buf(),
            id: id.to_string(),
            agent: None,
        })
    }

    /// A session kept nowhere (`--ephemeral`): every record is taken and
    /// dropped, so the agent runs exactly as it would over a file.
    pub(crate) fn ephemeral(id: &str) -> SessionHandle {
        let (tx, mut rx) = mpsc::channel(64);
        tokio::spawn(async move {
            while let Some(cmd) = rx.recv().await {
                match cmd {
                    Cmd::Append(_, ack) | Cmd::Sync(ack) => {
                        let _ = ack.send(Ok(()));
                    }
                    Cmd::Close(ack) => {
                        let _ = ack.send(Ok(()));
                        return;
                    }
                }
            }
        });
        SessionHandle {
            tx,
            path: PathBuf::new(),
            id: id.to_string(),
            agent: None,
        }
    }

    /// The same file, for subagent `agent`'s records.
    pub(crate) fn for_agent(&self, agent: &str) -> SessionHandle {
        SessionHandle {
            agent: Some(agent.to_string()),
            ..self.clone()
        }
    }

    /// The subagent whose records this handle writes; `None` for the
    /// session's own.
    pub(crate) fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    pub(crate) async fn append(&self, record: &Record) -> Result<(), SessionError> {
        let stowed;
        let record = match super::index::folder_of(&self.path) {
            Some(sessions) if super::blobs::wanted(record) => {
                let (record, dir) = (record.clone(), super::blobs::folder(sessions));
                stowed = tokio::task::spawn_blocking(move || super::blobs::stow(record, &dir))
                    .await
                    .map_err(|e| SessionError::Encode(e.to_string()))??;
                &stowed
            }
            _ => record,
        };
        let mut line =
            serde_json::to_vec(record).map_err(|e| SessionError::Encode(e.to_string()))?;
        if let Some(agent) = &self.agent {
            // `{"agent":"ID",` then the record's own fields.
            let id = serde_json::to_vec(agent).map_err(|e| SessionError::Encode(e.to_string()))?;
            let mut tagged = AGENT_PREFIX.to_vec();
            tagged.extend(id);
            if line.len() > 2 {
                tagged.push(b',');
            }
            tagged.extend_from_slice(&line[1..]);
            line = tagged;
        }
        line.push(b'\n');
        self.send(|ack| Cmd::Append(line, ack)).await
    }

    /// Raw bytes, used once to end a torn last line before new records follow it.
    pub(crate) async fn append_raw(&self, bytes: Vec<u8>) -> Result<(), SessionError> {
        self.send(|ack| Cmd::Append(bytes, ack)).await
    }

    pub(crate) async fn sync(&self) -> Result<(), SessionError> {
        self.send(Cmd::Sync).await
    }

    /// Flushes and closes the file and releases its lock, and waits until
    /// it is done: the session can be opened again at once (`/resume`).
    pub(crate) async fn close(self) -> Result<(), SessionError> {
        // A subagent's handle shares its parent's writer: the parent closes.
        if self.agent.is_some() {
            return Ok(());
        }
        self.send(Cmd::Close).await
    }

    /// Closes the file and removes it (and its pid note): a new session
    /// that never got an answer is not kept.
    pub(crate) async fn discard(self) -> Result<(), SessionError> {
        if self.agent.is_some() {
            return Ok(());
        }
        let path = self.path.clone();
        self.close().await?;
        if path.as_os_str().is_empty() {
            return Ok(());
        }
        std::fs::remove_file(&path).map_err(|e| SessionError::io(&path, e))
    }

    async fn send(
        &self,
        cmd: impl FnOnce(oneshot::Sender<std::io::Result<()>>) -> Cmd,
    ) -> Result<(), SessionError> {
        let (ack, done) = oneshot::channel();
        let closed =
            || SessionError::io(&self.path, std::io::Error::other("session writer stopped"));
        self.tx.send(cmd(ack)).await.map_err(|_| closed())?;
        done.await
            .map_err(|_| closed())?
            .map_err(|e| SessionError::io(&self.path, e))
    }
}

/// Owns the file and its lock until every handle is gone.
async fn writer(mut file: File, mut rx: mpsc::Receiver<Cmd>, lock: lock::Held) {
    // Where the file ends: only this task writes to it (the lock keeps
    // other processes out), so it is known without asking the kernel.
    let mut end = file.metadata().map(|m| m.len()).ok();
    while let Some(cmd) = rx.recv().await {
        match cmd {
            // Lines are small; a blocking write of a few hundred bytes to the page
            // cache is cheaper than a hop to the blocking pool.
            Cmd::Append(bytes, ack) => {
                let written = file.write_all(&bytes);
                match (&written, end) {
                    (Ok(()), Some(e)) => end = Some(e + bytes.len() as u64),
                    // A full disk (or a file-size limit) can take part of a
                    // record: cut it off, so the file holds whole records only.
                    (Err(_), Some(e)) => {
                        if file.set_len(e).is_err() {
                            end = None;
                        }
                    }
                    (_, None) => {}
                }
                let _ = ack.send(written);
            }
            Cmd::Sync(ack) => {
                let _ = ack.send(file.sync_data());
            }
            Cmd::Close(ack) => {
                let synced = file.sync_data();
                drop(file);
                drop(lock);
                let _ = ack.send(synced);
                return;
            }
        }
    }
}
