//! `shell`: one command, run by bash in the working folder inside the OS
//! sandbox ([`crate::sandbox`]), in its own process group, with the
//! hook-style scrubbed environment (no API keys), stdin closed, a timeout,
//! and its output — stdout and stderr as they interleave — capped head and
//! tail, with the exit code. A stop, a timeout, or the command ending while
//! something it started still holds its output kills the whole group.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::changes_told::{with_changes, LANDLOCK_ONLY};
use super::context::{arg_str, Context};
use super::process::{self, shell_path, End};
use crate::call::ToolOutput;
use crate::config::defaults;
use crate::model::ToolSpec;
use crate::policy::Hints;
use crate::tools::{OnStart, Tool};

pub(crate) struct Shell(pub(crate) Arc<Context>);

impl Tool for Shell {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "shell".into(),
            description: format!(
                "Run a command with {} -c in the working folder (or `workdir`). It may write \
                 only in the working folder and the temp folder{}. Answers its output (stdout \
                 and stderr, long output cut in the middle) and exit code. Default timeout {} s. \
                 `background: true` (servers, watchers): runs on; answers at once with its id, \
                 or once `wait_for_port` listens (later commands reach 127.0.0.1:PORT) or output \
                 matches regex `wait_for_output`, within `timeout_ms`.",
                shell_path(),
                if self.0.shell.network || !self.0.shell.sandbox {
                    ""
                } else if self.0.shell.proxy {
                    ", and reaches only hosts the person allowed (HTTP_PROXY is set)"
                } else {
                    ", and has no network"
                },
                self.0.shell.timeout.as_secs()
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": defaults::SHELL_MAX_TIMEOUT_MS},
                    "workdir": {"type": "string"},
                    "background": {"type": "boolean"},
                    "wait_for_port": {"type": "integer"},
                    "wait_for_output": {"type": "string"}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        }
    }

    fn hints(&self, args: &Value) -> Hints {
        Hints {
            always_ask: (!self.0.shell.sandbox).then_some("a command run without the sandbox"),
            note: (args["background"].as_bool() == Some(true)).then_some(
                "it keeps running in the background after this call (until shell_kill, /kill \
                 or the session's end)",
            ),
            // In the sandbox, plan mode makes every working folder read-only.
            investigates: self.0.shell.sandbox,
            ..Hints::default()
        }
    }

    fn call<'a>(
        &'a self,
        args: Value,
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            // A command may read and write anything: after every read and
            // write before it in the batch, before those after it.
            let place = self.0.gates.place(super::Touch::Command);
            let gate = self.0.gates.shell();
            let _turn = tokio::select! {
                biased;
                _ = cancel.cancelled() => return ToolOutput::not_started(),
                p = async {
                    place.turn().await;
                    gate.acquire_owned().await
                } => p,
            };
            if cancel.is_cancelled() {
                return ToolOutput::not_started();
            }
            on_start();
            run(&self.0, &args, cancel).await
        })
    }
}

async fn run(ctx: &Arc<Context>, args: &Value, cancel: &CancellationToken) -> ToolOutput {
    let command = arg_str(args, "command");
    let dir = match args["workdir"].as_str().filter(|w| !w.is_empty()) {
        Some(w) => ctx.workspace.resolve(w),
        None => ctx.workspace.root().to_path_buf(),
    };
    if !dir.is_dir() {
        return ToolOutput::error(format!(
            "workdir {} is not a folder",
            ctx.workspace.shown(&dir)
        ));
    }
    let timeout = args["timeout_ms"]
        .as_u64()
        .map(|ms| Duration::from_millis(ms.min(defaults::SHELL_MAX_TIMEOUT_MS)))
        .unwrap_or(ctx.shell.timeout);
    let program: [std::ffi::OsString; 3] = [shell_path().into(), "-c".into(), command.into()];
    let background = args["background"].as_bool() == Some(true);
    if background {
        // Bad input is said before anything starts.
        if let Err(e) = super::background_tools::until(args) {
            return ToolOutput::error(e);
        }
    }
    let (cmd, note, review) = match sandboxed(ctx, &dir, &program).await {
        Ok(c) => c,
        Err(e) => return ToolOutput::error(e),
    };
    if background {
        let seeing = match review {
            Review::Staged(s) => super::background::Seeing::Staged(s),
            Review::Snapshot(s) => super::background::Seeing::Snapshot(s),
            Review::None | Review::TooMuch => super::background::Seeing::Nothing,
        };
        let launched = super::background_tools::Launched {
            cmd,
            dir,
            note,
            seeing,
        };
        return super::background_tools::start(ctx, args, command, launched, cancel).await;
    }
    let limit = ctx.output_limit.saturating_sub(300);
    let watched = match process::start(cmd, &dir, shell_path()) {
        Ok(running) => running.watch(limit, timeout, cancel).await,
        Err(e) => Err(e),
    };
    let (end, text) = match watched {
        Ok(w) => w,
        Err(e) => return ToolOutput::error(e),
    };
    // Its changes, seen before they land: the dangerous ones held back.
    let unreviewed = matches!(review, Review::Snapshot(_) | Review::TooMuch);
    let changes = reviewed(ctx, review).await;
    if let End::Exited(s) = &end {
        if let Some(why) = crate::sandbox::setup_failure(s.code(), &text) {
            return not_set_up(ctx, args, cancel, &why).await;
        }
    }
    let text = match note {
        Some(n) => format!("[{n}]\n{text}"),
        None => text,
    };
    let refused = ctx.background.proxied.take_refused();
    let text = super::refusals::told(text, &refused);
    let body = if text.trim().is_empty() {
        "(no output)\n".to_string()
    } else if text.ends_with('\n') {
        text
    } else {
        format!("{text}\n")
    };
    let out = match end {
        End::Stopped => ToolOutput::error(format!(
            "{body}[{}; the command and what it started were killed]",
            crate::call::INTERRUPTED
        )),
        End::TimedOut(t) => ToolOutput::error(format!(
            "{body}[timed out after {} ms; the command and what it started were killed]",
            t.as_millis()
        )),
        End::Exited(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
            (Some(0), _) => ToolOutput::ok(format!("{body}[exit code 0]")),
            (Some(c), _) => ToolOutput::error(format!("{body}[exit code {c}]")),
            (None, Some(sig)) => ToolOutput::error(format!("{body}[killed by signal {sig}]")),
            _ => ToolOutput::error(format!("{body}[ended]")),
        },
    };
    let mut out = match changes.filter(|(c, _)| !c.is_empty()) {
        Some((changes, stage)) => with_changes(ctx, out, changes, stage, unreviewed),
        None => out,
    };
    out.refused = super::refusals::askable(&refused);
    out
}

/// The command as it runs: in the sandbox, with what the result says of
/// it first and how its changes are seen; or as it is, sandbox off.
async fn sandboxed(
    ctx: &Context,
    dir: &std::path::Path,
    program: &[std::ffi::OsString; 3],
) -> Result<(tokio::process::Command, Option<String>, Review), String> {
    if !ctx.shell.sandbox {
        let mut c = tokio::process::Command::new(&program[0]);
        c.args(&program[1..]);
        return Ok((c, None, Review::None));
    }
    let (mut policy, mut note) = policy(ctx);
    if policy.namespaces && !policy.network {
        match ctx.background.loopback() {
            Ok(net) => {
                if ctx.shell.proxy {
                    match ctx.background.proxied.proxy(&net, &ctx.network) {
                        Ok(port) => policy.proxy = Some(port),
                        Err(e) => note = Some(e),
                    }
                }
                policy.loopback = Some(net)
            }
            Err(e) => {
                static TOLD: std::sync::Once = std::sync::Once::new();
                TOLD.call_once(|| {
                    note = Some(format!(
                        "sandbox: no loopback of its own ({e}); commands cannot reach \
                         127.0.0.1 — see docs/tools.md"
                    ))
                });
            }
        }
    }
    match crate::sandbox::command(&policy, dir, program) {
        Ok((c, Some(stage))) => Ok((c, note, Review::Staged(stage))),
        Ok((c, None)) => Ok((c, note, snapshot(ctx, &policy.writable).await)),
        Err(e) => Err(format!(
            "`shell` did not run the command: {e}; set [tools.shell] sandbox = \"off\" \
             in config.toml to run commands unsandboxed (each is then asked)"
        )),
    }
}

/// The sandbox could not be set up, so the command never ran. A
/// filesystem the kernel will not stack an overlay on (or a stage without
/// user xattrs): it runs again, and every later one, reviewed by snapshot
/// instead; anything else is said.
async fn not_set_up(
    ctx: &Arc<Context>,
    args: &Value,
    cancel: &CancellationToken,
    why: &str,
) -> ToolOutput {
    if why.contains("mount an overlay") && !NO_OVERLAYS.swap(true, Ordering::Relaxed) {
        let again = Box::pin(run(ctx, args, cancel)).await;
        return ToolOutput {
            content: format!(
                "[sandbox: no overlay could be mounted here ({why}); this command's \
                 changes, and every later one's, land as made and are reviewed after — \
                 see docs/tools.md]\n{}",
                again.content
            ),
            ..again
        };
    }
    ToolOutput::error(format!(
        "`shell` did not run the command: the sandbox could not be set up ({why}); \
         set [tools.shell] sandbox = \"landlock\" (no namespaces) or \"off\" in config.toml"
    ))
}

/// The command's changes as `review` sees them: landed file by file from
/// its overlay (what was held back stays staged, for the person to see),
/// or read from the writable roots after.
async fn reviewed(
    ctx: &Context,
    review: Review,
) -> Option<(crate::sandbox::Changes, Option<crate::sandbox::Stage>)> {
    match review {
        Review::None => None,
        Review::TooMuch => Some((
            crate::sandbox::Changes {
                files: Vec::new(),
                failed: vec![format!(
                    "the writable folders hold more than can be compared quickly, so this \
                     command's changes were not reviewed ({LANDLOCK_ONLY})"
                )],
                made_folders: Vec::new(),
                kept_folders: Vec::new(),
            },
            None,
        )),
        review => {
            let control = ctx.control.clone();
            let project = ctx.workspace.root().to_path_buf();
            let keep = ctx.keep.clone();
            tokio::task::spawn_blocking(move || {
                let why = move |p: &std::path::Path| control.why(p);
                let rules = crate::sandbox::held::Held::for_this_process(&why, &project);
                match review {
                    Review::Staged(stage) => {
                        let changes = stage.land(&rules, keep.as_ref());
                        let held = changes.held().next().is_some();
                        (changes, held.then_some(stage))
                    }
                    Review::Snapshot(snap) => (snap.changes(&rules), None),
                    Review::None | Review::TooMuch => Default::default(),
                }
            })
            .await
            .ok()
        }
    }
}

/// How a command's changes are seen.
enum Review {
    /// Not at all: the sandbox is off.
    None,
    /// Through its overlays, before they land.
    Staged(crate::sandbox::Stage),
    /// By the writable roots' metadata before and after: they land as
    /// they are written.
    Snapshot(crate::sandbox::Snapshot),
    /// Too many files to compare.
    TooMuch,
}

/// The writable roots' metadata before a command that runs without
/// overlays, skipping hermes' own folder.
async fn snapshot(ctx: &Context, writable: &[std::path::PathBuf]) -> Review {
    let roots: Vec<std::path::PathBuf> = writable
        .iter()
        .filter_map(|w| std::fs::canonicalize(w).ok())
        .collect();
    let skip: Vec<std::path::PathBuf> = ctx
        .shell
        .stage
        .iter()
        .filter_map(|s| s.parent())
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect();
    tokio::task::spawn_blocking(move || crate::sandbox::Snapshot::take(&roots, &skip))
        .await
        .ok()
        .flatten()
        .map_or(Review::TooMuch, Review::Snapshot)
}

/// Set when an overlay could not be mounted: the rest of the run reviews
/// commands by snapshot.
static NO_OVERLAYS: AtomicBool = AtomicBool::new(false);

/// What a command may do: write to the working folder, the temp folder
/// and what the config adds (the temp folder only, in plan mode) — but not
/// to the control paths there — and
/// whether the sandbox builds its namespaces. The note, once a run, says
/// when the kernel gives no user namespaces and the sandbox is weaker.
pub(super) fn policy(ctx: &Context) -> (crate::sandbox::Policy, Option<String>) {
    // Plan mode: the temp folder only, every root read-only — wherever it
    // lies: a project under the temp folder (a clone in /tmp) is bound
    // read-only again inside it, and a temp folder inside the project is
    // not writable at all.
    let plan = ctx.read_only.load(Ordering::SeqCst);
    let temp = std::env::temp_dir();
    let mut writable = vec![temp.clone()];
    let roots: Vec<std::path::PathBuf> = std::iter::once(ctx.workspace.root().to_path_buf())
        .chain(ctx.workspace.others().iter().cloned())
        .collect();
    if !plan {
        writable.splice(0..0, roots.iter().cloned());
        writable.extend(ctx.shell.writable.iter().cloned());
    } else {
        let real =
            |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let t = real(&temp);
        if roots.iter().any(|r| t.starts_with(real(r))) {
            writable.clear();
        }
    }
    ctx.control.create_own_under(&writable);
    let mut note = None;
    let namespaces = ctx.shell.namespaces
        && match crate::sandbox::namespaces_available() {
            Ok(()) => true,
            Err(e) => {
                static TOLD: std::sync::Once = std::sync::Once::new();
                TOLD.call_once(|| {
                    note = Some(format!(
                        "sandbox: this kernel gives no user namespaces ({e}); Landlock and \
                         seccomp only — see docs/tools.md"
                    ))
                });
                false
            }
        };
    let mut protected = ctx.control.for_folder(ctx.workspace.root());
    if plan {
        protected.extend(roots);
    }
    // hermes' own binary and its folder: read-only whatever `writable`
    // says (`~/.cargo` holds `~/.cargo/bin/hermes`).
    if let Some(dir) = crate::sandbox::held::install_dir() {
        protected.push(dir.to_path_buf());
    }
    let policy = crate::sandbox::Policy {
        protected,
        writable,
        network: ctx.shell.network,
        namespaces,
        hidden: ctx.shell.hidden.clone(),
        stage: if NO_OVERLAYS.load(Ordering::Relaxed) {
            Vec::new()
        } else {
            ctx.shell
                .stage
                .iter()
                .cloned()
                .chain(stage_fallbacks())
                .collect()
        },
        max_processes: ctx.shell.max_processes,
        max_memory_mb: ctx.shell.max_memory_mb,
        // Given per command (`sandboxed`): hooks get none.
        loopback: None,
        proxy: None,
    };
    (policy, note)
}

/// Where a command's changes wait when hermes' data folder lies inside a
/// writable root (hermes started in its home, say): private folders of
/// this user's outside the usual roots.
fn stage_fallbacks() -> Vec<std::path::PathBuf> {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    ["/var/tmp", "/dev/shm"]
        .iter()
        .map(|b| std::path::Path::new(b).join(format!("hermes-stage-{uid}")))
        .collect()
}
