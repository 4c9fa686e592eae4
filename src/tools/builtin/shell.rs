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

use super::context::{arg_str, Context};
use super::process::{self, End};
use crate::call::ToolOutput;
use crate::config::defaults;
use crate::model::ToolSpec;
use crate::policy::Hints;
use crate::tools::{OnStart, Tool};

pub(crate) struct Shell(pub(crate) Arc<Context>);

/// The shell commands run in: bash where there is one.
pub(crate) fn shell_path() -> &'static str {
    if std::path::Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    }
}

impl Tool for Shell {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "shell".into(),
            description: format!(
                "Run a command with {} -c in the working folder (or `workdir`). It may write \
                 only in the working folder and the temp folder{}. Answers its output (stdout \
                 and stderr, long output cut in the middle) and exit code. Default timeout {} s.",
                shell_path(),
                if self.0.shell.network || !self.0.shell.sandbox {
                    ""
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
                    "workdir": {"type": "string"}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        }
    }

    fn hints(&self, _args: &Value) -> Hints {
        Hints {
            always_ask: (!self.0.shell.sandbox).then_some("a command run without the sandbox"),
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

async fn run(ctx: &Context, args: &Value, cancel: &CancellationToken) -> ToolOutput {
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
    let (cmd, note, review) = match sandboxed(ctx, &dir, &program).await {
        Ok(c) => c,
        Err(e) => return ToolOutput::error(e),
    };
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
    match changes.filter(|(c, _)| !c.is_empty()) {
        Some((changes, stage)) => with_changes(ctx, out, changes, stage, unreviewed),
        None => out,
    }
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
    let (policy, note) = policy(ctx);
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
    ctx: &Context,
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

/// The result with the command's changes: named at its end, what was held
/// back put to the person (`held_back`), and an error when what should
/// have been held has landed — the call failed at what matters most.
fn with_changes(
    ctx: &Context,
    mut out: ToolOutput,
    changes: crate::sandbox::Changes,
    stage: Option<crate::sandbox::Stage>,
    unreviewed: bool,
) -> ToolOutput {
    let body = out.content.clone();
    let kept = ctx.keep.is_some();
    out.content
        .push_str(&describe(&changes, unreviewed, kept, |p| {
            escaped(&ctx.workspace.shown(p))
        }));
    if let Some(stage) = stage {
        let preview = changes
            .held()
            .map(|f| {
                format!(
                    "{} — {}\n",
                    escaped(&ctx.workspace.shown(&f.path)),
                    f.held.as_deref().unwrap_or("")
                )
            })
            .collect();
        let workspace = ctx.workspace.clone();
        out.held_back = Some(crate::sandbox::HeldBack::new(
            stage,
            preview,
            body,
            Box::new(move |c: &crate::sandbox::Changes| {
                describe(c, false, kept, |p| escaped(&workspace.shown(p)))
            }),
            ctx.keep.clone(),
        ));
    }
    if unreviewed && changes.held().next().is_some() {
        out.is_error = true;
    }
    out.changes = Some(Box::new(changes));
    out
}

use crate::util::text::escaped;

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

/// Why a command's changes land unreviewed.
const LANDLOCK_ONLY: &str = "the sandbox is Landlock and seccomp only here";

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

/// How many changes a result names before it counts the rest.
const NAMED: usize = 20;

/// The lines a result ends with: what changed, what was held back and
/// why, what could not land.
/// `kept`: checkpoints are on (a change replaced with nothing kept is then
/// said: rewinding cannot bring it back).
fn describe(
    c: &crate::sandbox::Changes,
    unreviewed: bool,
    kept: bool,
    shown: impl Fn(&std::path::Path) -> String,
) -> String {
    use crate::sandbox::ChangeKind;
    let size = |b: Option<u64>| match b {
        Some(b) if b < 10 * 1024 => format!(" ({b} B)"),
        Some(b) if b < 10 * 1024 * 1024 => format!(" ({} KiB)", b / 1024),
        Some(b) => format!(" ({} MiB)", b >> 20),
        None => String::new(),
    };
    let mut s = String::new();
    let landed: Vec<String> = c
        .landed()
        .map(|f| {
            let kind = match f.kind {
                ChangeKind::Created => "created",
                ChangeKind::Modified => "modified",
                ChangeKind::Deleted => "deleted",
            };
            format!("{kind} {}{}", shown(&f.path), size(f.bytes))
        })
        .collect();
    if !landed.is_empty() {
        s.push_str(&format!("\n[files changed: {}]", named(&landed)));
    }
    let stripped: Vec<String> = c
        .landed()
        .filter_map(|f| Some(format!("{} ({})", shown(&f.path), f.stripped.as_deref()?)))
        .collect();
    if !stripped.is_empty() {
        s.push_str(&format!(
            "\n[landed without what would run it with other rights: {}]",
            named(&stripped)
        ));
    }
    let held: Vec<String> = c
        .held()
        .map(|f| format!("{} — {}", shown(&f.path), f.held.as_deref().unwrap_or("")))
        .collect();
    if !held.is_empty() && unreviewed {
        s.push_str(&format!(
            "\n[changed without review ({LANDLOCK_ONLY}): {} — these run later outside the \
             sandbox; the person should look at them before git or their shell runs them]",
            named(&held)
        ));
    } else if !held.is_empty() {
        s.push_str(&format!(
            "\n[held back, not written: {} — the sandbox does not let a command change what \
             runs later outside it; if the person wants it, they make the change themselves]",
            named(&held)
        ));
    }
    if !c.failed.is_empty() {
        s.push_str(&format!("\n[could not be written: {}]", named(&c.failed)));
    }
    let unkept: Vec<String> = c
        .landed()
        .filter(|f| f.before.is_none())
        .map(|f| shown(&f.path))
        .collect();
    if kept && !unreviewed && !unkept.is_empty() {
        s.push_str(&format!("\n[{UNKEPT}: {}]", named(&unkept)));
    }
    s
}

/// What a result says of changes a rewind cannot undo.
pub(super) const UNKEPT: &str = "not kept for `hermes rewind` (past this turn's \
     [checkpoints] max_mb, or unreadable); rewinding cannot bring these back";

fn named(items: &[String]) -> String {
    let mut s = items[..items.len().min(NAMED)].join("; ");
    if items.len() > NAMED {
        s.push_str(&format!("; and {} more", items.len() - NAMED));
    }
    s
}

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
