//! What every built-in tool shares — the folder, the output limit, the
//! gates that order entries — and the small helpers their calls are made of.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::Semaphore;

use super::workspace::Workspace;
use super::{control, order};
use crate::call::ToolOutput;
#[cfg(test)]
use crate::config::BuiltinSettings;
use crate::config::Concurrency;
use crate::policy::Hints;
#[cfg(test)]
use std::path::Path;

/// What the built-in tools share: the folder, the output limit, the gates.
pub(crate) struct Context {
    pub(crate) workspace: Workspace,
    pub(crate) output_limit: usize,
    pub(crate) gates: Gates,
    pub(crate) shell: crate::config::ShellSettings,
    pub(crate) control: control::ControlPaths,
    /// Where what a tool replaces or removes is kept for `hermes rewind`.
    pub(crate) keep: Option<crate::sandbox::kept::Keep>,
    /// The editor `read_file` asks first (`hermes acp`).
    pub(crate) editor: Option<crate::util::editor_files::EditorFiles>,
    /// Plan mode: commands may write in no working folder.
    pub(crate) read_only: Arc<std::sync::atomic::AtomicBool>,
    /// The session's background processes and its loopback.
    pub(crate) background: Arc<super::background::Background>,
    /// `[network]`: what the shell's proxy lets commands reach.
    pub(crate) network: crate::config::NetworkSettings,
}

impl Context {
    #[cfg(test)]
    pub(crate) fn for_tests(dir: &Path) -> Context {
        Context {
            workspace: Workspace::new(dir),
            output_limit: crate::config::Limits::default().tool_output_bytes,
            gates: Gates::new(Concurrency::Serial),
            shell: BuiltinSettings::default().shell,
            control: control::ControlPaths::default(),
            keep: None,
            editor: None,
            read_only: Arc::default(),
            background: Arc::default(),
            network: Default::default(),
        }
    }

    /// The file `args`' `path` names as the editor's buffer has it, when
    /// an editor that reads files is served.
    pub(super) async fn buffer(&self, args: &Value) -> Option<(std::path::PathBuf, String)> {
        let editor = self.editor.as_ref()?;
        let path = self.workspace.resolve(arg_str(args, "path"));
        let text = editor.read(&path).await?;
        Some((path, text))
    }

    /// `args` with its path argument `key` resolved once: absolute, `.`
    /// and `..` resolved, and every symlink on the way followed (a link in
    /// the folder that points out is then plainly outside). `None` when
    /// there is nothing to change.
    pub(super) fn normalize(&self, args: &Value, key: &str) -> Option<Value> {
        let given = args.get(key)?.as_str()?;
        if given.is_empty() {
            return None;
        }
        let real = crate::util::inside::real_path(&self.workspace.resolve(given));
        let real = real.to_str()?;
        if real == given {
            return None;
        }
        let mut out = args.clone();
        out[key] = Value::String(real.to_string());
        Some(out)
    }

    /// Reads inside the working folder run without asking (as a server's
    /// `readOnlyHint` does); elsewhere the rules and the mode decide.
    pub(super) fn read_hints(&self, args: &Value) -> Hints {
        let path = path_arg(self, args, "path");
        Hints {
            read_only: self.workspace.contains(&path),
            investigates: true,
            ..Hints::default()
        }
    }

    /// A write outside the working folder (symlinks followed), or to a
    /// control path inside it (`.git/config`, `.hermes/`, a hook's script),
    /// is always asked, whatever the mode and the allow rules say.
    pub(super) fn write_hints(&self, args: &Value) -> Hints {
        let path = path_arg(self, args, "path");
        let always_ask = if !self.workspace.contains(&path) {
            Some("a write outside the working folder")
        } else {
            self.control
                .why(&path)
                .or_else(|| self.control.why(&crate::util::inside::real_path(&path)))
        };
        Hints {
            always_ask,
            ..Hints::default()
        }
    }
}

/// Who waits for whom among built-in calls.
pub(crate) struct Gates {
    /// Entry order among the entries that touch the same things.
    order: order::Order,
    shell: Arc<Semaphore>,
}

impl Gates {
    pub(super) fn new(shell: Concurrency) -> Gates {
        Gates {
            order: order::Order::default(),
            shell: Arc::new(Semaphore::new(match shell {
                Concurrency::Serial => 1,
                Concurrency::Parallel => Semaphore::MAX_PERMITS,
                Concurrency::Limit(n) => n as usize,
            })),
        }
    }

    /// An entry's place among the built-in entries started: taken at once
    /// (call it before any wait), its turn awaited.
    pub(crate) fn place(&self, touch: order::Touch) -> order::Place<'_> {
        self.order.take(touch)
    }

    pub(crate) fn shell(&self) -> Arc<Semaphore> {
        self.shell.clone()
    }
}

/// The path argument `key` resolved in the folder; the folder itself when
/// it is missing.
pub(crate) fn path_arg(ctx: &Context, args: &Value, key: &str) -> PathBuf {
    match args[key].as_str() {
        Some(p) if !p.is_empty() => ctx.workspace.resolve(p),
        _ => ctx.workspace.root().to_path_buf(),
    }
}

/// A string argument, `""` when missing (the schema check has run).
pub(super) fn arg_str<'a>(args: &'a Value, key: &str) -> &'a str {
    args[key].as_str().unwrap_or("")
}

/// File and tree work off the runtime's one thread.
pub(super) async fn blocking(f: impl FnOnce() -> ToolOutput + Send + 'static) -> ToolOutput {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| ToolOutput::error(format!("the tool stopped: {e}")))
}
