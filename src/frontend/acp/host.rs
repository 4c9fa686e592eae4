//! What the ACP server needs from the binary's edge, and what passes
//! between them: a session opened from the editor's folder and servers,
//! and how the provider is signed in to.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

use super::wire::RpcError;
use crate::agent::{Agent, Event};
use crate::mcp::McpRegistry;

/// An MCP server the editor gives a session.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Server {
    Stdio {
        name: String,
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    Remote {
        name: String,
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// What a session is opened with.
#[derive(Debug, Clone)]
pub(crate) struct Open {
    pub cwd: PathBuf,
    pub servers: Vec<Server>,
    /// `additionalDirectories`: more folders its commands may write.
    pub dirs: Vec<PathBuf>,
    /// `session/load`: the hermes session id to resume.
    pub load: Option<String>,
    /// Where the file tools read and write through the editor, when it
    /// offers `fs.readTextFile` or `fs.writeTextFile`.
    pub editor: Option<crate::util::editor_files::EditorFiles>,
}

/// A kept session as `session/list` tells it.
pub(crate) struct Listed {
    pub id: String,
    pub cwd: String,
    /// Its first message, cut to a line.
    pub title: String,
    /// When it was last written (RFC 3339), if the file says.
    pub updated: Option<String>,
}

/// A session, opened.
pub(crate) struct Opened {
    pub agent: Agent,
    pub events: UnboundedReceiver<Event>,
    pub mcp: Arc<McpRegistry>,
    /// Where "always" answers are written.
    pub config_file: PathBuf,
    /// hermes' worktree the session's folder is, when it is one.
    pub worktree: Option<crate::worktree::Worktree>,
}

pub(crate) type Opening<'a> = Pin<Box<dyn Future<Output = Result<Opened, RpcError>> + 'a>>;

/// What the binary's edge does for the protocol: open sessions, and say
/// how the provider is signed in to.
pub(crate) trait Host {
    /// ACP `authMethods`: one per provider key hermes may use.
    fn auth_methods(&self) -> Vec<Value>;
    /// Whether the key `method` names is there; what to set if not.
    fn authenticate(&self, method: &str) -> Result<(), RpcError>;
    fn open(&self, open: Open) -> Opening<'_>;
    /// The sessions kept, newest first — those started in `cwd` when it
    /// is given: (id, folder, title, last written).
    fn sessions(&self, cwd: Option<&std::path::Path>) -> Vec<Listed>;
    /// hermes' version, for `agentInfo`.
    fn version(&self) -> String;
}
