//! hermes' own tools, offered directly (never deferred) so a model can work
//! on the folder hermes starts in with no MCP server: `read_file`,
//! `write_file`, `edit_file`, `glob`, `grep` and `shell`, and
//! `update_plan`, its task list. They are tools
//! like any other — each entry of a batch gets its schema check, hooks,
//! approval and result — with a concurrency of their own: entries that
//! touch what an earlier one touches wait for it (`order`), the rest run
//! together; `shell` one at a time unless configured. `echo` is for tests.

mod control;
mod echo;
mod files;
mod find;
mod order;
pub(crate) mod plan;
mod reader;
mod shell;
mod workspace;

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::Semaphore;

pub(crate) use order::Touch;
pub(crate) use reader::read_attached;

use echo::Echo;
use workspace::Workspace;

use super::Tool;
use crate::call::ToolOutput;
use crate::config::{BuiltinSettings, Concurrency};
use crate::policy::Hints;

#[derive(Debug, thiserror::Error)]
#[error("unknown built-in tool `{0}` in tools.builtin (known: read_file, write_file, edit_file, glob, grep, shell, update_plan, agent)")]
pub struct UnknownBuiltin(pub String);

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
        }
    }

    /// `args` with its path argument `key` resolved once: absolute, `.`
    /// and `..` resolved, and every symlink on the way followed (a link in
    /// the folder that points out is then plainly outside). `None` when
    /// there is nothing to change.
    fn normalize(&self, args: &Value, key: &str) -> Option<Value> {
        let given = args.get(key)?.as_str()?;
        if given.is_empty() {
            return None;
        }
        let real = workspace::real_path(&self.workspace.resolve(given));
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
    fn read_hints(&self, args: &Value) -> Hints {
        let path = files::path_arg(self, args, "path");
        Hints {
            read_only: self.workspace.contains(&path),
            investigates: true,
            ..Hints::default()
        }
    }

    /// A write outside the working folder (symlinks followed), or to a
    /// control path inside it (`.git/config`, `.hermes/`, a hook's script),
    /// is always asked, whatever the mode and the allow rules say.
    fn write_hints(&self, args: &Value) -> Hints {
        let path = files::path_arg(self, args, "path");
        let always_ask = if !self.workspace.contains(&path) {
            Some("a write outside the working folder")
        } else {
            self.control
                .why(&path)
                .or_else(|| self.control.why(&workspace::real_path(&path)))
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
    fn new(shell: Concurrency) -> Gates {
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

/// A turn begins: what its checkpoints may keep starts again.
pub(crate) fn new_turn() {
    crate::sandbox::kept::new_turn();
}

/// The built-in tools `settings` names, working in `cwd`; `read_only`:
/// plan mode, when set.
pub(crate) fn tools(
    settings: &BuiltinSettings,
    cwd: &Path,
    output_limit: usize,
    read_only: Arc<std::sync::atomic::AtomicBool>,
) -> Result<Vec<Arc<dyn Tool>>, UnknownBuiltin> {
    let ctx = Arc::new(Context {
        workspace: Workspace::new(cwd).with_roots(&settings.roots),
        output_limit,
        gates: Gates::new(settings.shell.concurrency),
        shell: settings.shell.clone(),
        control: control::ControlPaths::new(
            settings.own_folders.clone(),
            settings.run_files.clone(),
        ),
        keep: settings
            .checkpoints
            .clone()
            .map(|(dir, max_mb)| crate::sandbox::kept::Keep::new(dir, max_mb)),
        editor: settings.editor.clone(),
        read_only,
    });
    if ctx.shell.sandbox {
        let (for_policy, for_control) = (ctx.clone(), ctx.control.clone());
        crate::sandbox::for_hooks::set(crate::sandbox::for_hooks::Template {
            policy: Box::new(move || shell::policy(&for_policy).0),
            control: Box::new(move |p| for_control.why(p)),
            project: ctx.workspace.root().to_path_buf(),
        });
    }
    settings
        .names
        .iter()
        // A subagent: the agent layer runs it (`ToolRef::Subagent`).
        .filter(|n| *n != "agent")
        .map(|n| -> Result<Arc<dyn Tool>, UnknownBuiltin> {
            Ok(match n.as_str() {
                "read_file" => Arc::new(files::ReadFile(ctx.clone())),
                "write_file" => Arc::new(files::WriteFile(ctx.clone())),
                "edit_file" => Arc::new(files::EditFile(ctx.clone())),
                "glob" => Arc::new(find::Glob(ctx.clone())),
                "grep" => Arc::new(find::Grep(ctx.clone())),
                "shell" => Arc::new(shell::Shell(ctx.clone())),
                plan::NAME => Arc::new(plan::UpdatePlan),
                "echo" => Arc::new(Echo),
                other => return Err(UnknownBuiltin(other.to_string())),
            })
        })
        .collect()
}

pub(crate) use files::diff;

/// A string argument, `""` when missing (the schema check has run).
fn arg_str<'a>(args: &'a Value, key: &str) -> &'a str {
    args[key].as_str().unwrap_or("")
}

/// File and tree work off the runtime's one thread.
async fn blocking(f: impl FnOnce() -> ToolOutput + Send + 'static) -> ToolOutput {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| ToolOutput::error(format!("the tool stopped: {e}")))
}
