//! The built-in tools a config names, made once over the context they
//! share.

use std::path::Path;
use std::sync::Arc;

use super::context::{Context, Gates};
use super::echo::Echo;
use super::workspace::Workspace;

use super::super::Tool;
use crate::config::BuiltinSettings;

#[derive(Debug, thiserror::Error)]
#[error("unknown built-in tool `{0}` in tools.builtin (known: read_file, write_file, edit_file, glob, grep, shell, web_fetch, update_plan, agent)")]
pub struct UnknownBuiltin(pub String);

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
    background: Arc<super::background::Background>,
) -> Result<Vec<Arc<dyn Tool>>, UnknownBuiltin> {
    let ctx = Arc::new(Context {
        workspace: Workspace::new(cwd).with_roots(&settings.roots),
        output_limit,
        gates: Gates::new(settings.shell.concurrency),
        shell: settings.shell.clone(),
        control: super::control::ControlPaths::new(
            settings.own_folders.clone(),
            settings.run_files.clone(),
        )
        .opening(
            settings.worktrees_dir.as_deref(),
            std::iter::once(cwd).chain(settings.roots.iter().map(|r| r.as_path())),
        ),
        keep: settings
            .checkpoints
            .clone()
            .map(|(dir, max_mb)| crate::sandbox::kept::Keep::new(dir, max_mb)),
        editor: settings.editor.clone(),
        read_only,
        background,
        network: settings.network.clone(),
    });
    if ctx.shell.sandbox {
        let (for_policy, for_control) = (ctx.clone(), ctx.control.clone());
        crate::sandbox::for_hooks::set(crate::sandbox::for_hooks::Template {
            policy: Box::new(move || super::shell::policy(&for_policy).0),
            control: Box::new(move |p| for_control.why(p)),
            project: ctx.workspace.root().to_path_buf(),
        });
    }
    // `shell` brings the two tools its background processes are read and
    // stopped with.
    let mut names: Vec<&str> = Vec::new();
    for n in &settings.names {
        let with: &[&str] = if n == "shell" {
            &["shell_output", "shell_kill"]
        } else {
            &[]
        };
        for name in std::iter::once(n.as_str()).chain(with.iter().copied()) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
        .into_iter()
        // A subagent: the agent layer runs it (`ToolRef::Subagent`).
        .filter(|n| *n != "agent")
        .map(|n| -> Result<Arc<dyn Tool>, UnknownBuiltin> {
            Ok(match n {
                "read_file" => Arc::new(super::files::ReadFile(ctx.clone())),
                "write_file" => Arc::new(super::files::WriteFile(ctx.clone())),
                "edit_file" => Arc::new(super::files::EditFile(ctx.clone())),
                "glob" => Arc::new(super::find::Glob(ctx.clone())),
                "grep" => Arc::new(super::find::Grep(ctx.clone())),
                "shell" => Arc::new(super::shell::Shell(ctx.clone())),
                "shell_output" => Arc::new(super::background_tools::ShellOutput(ctx.clone())),
                "shell_kill" => Arc::new(super::background_tools::ShellKill(ctx.clone())),
                super::web_fetch::NAME => Arc::new(super::web_fetch::WebFetch {
                    ctx: ctx.clone(),
                    fetcher: crate::net::Fetcher::new(
                        settings.network.clone(),
                        settings.web_fetch.clone(),
                    ),
                }),
                super::plan::NAME => Arc::new(super::plan::UpdatePlan),
                "echo" => Arc::new(Echo),
                other => return Err(UnknownBuiltin(other.to_string())),
            })
        })
        .collect()
}
