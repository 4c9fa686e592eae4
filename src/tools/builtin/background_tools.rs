//! The model's side of background processes: `shell` with `background:
//! true` starts one ([`start`]), `shell_output` reads it, `shell_kill`
//! stops it. Each answer says what the process printed since the last
//! read, whether it runs or how it ended, and what it wrote that landed
//! or was held back.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::background::{Proc, Until, Waited};
use super::context::Context;
use crate::call::ToolOutput;
use crate::model::ToolSpec;
use crate::policy::Hints;
use crate::tools::{OnStart, Tool};

/// How long a wait for a port or a line lasts unless `timeout_ms` says.
const WAIT: Duration = Duration::from_secs(60);

/// What the process is to be waited for, from the call's arguments.
pub(super) fn until(args: &Value) -> Result<Until, String> {
    if let Some(port) = args.get("wait_for_port").filter(|v| !v.is_null()) {
        return match port.as_u64() {
            Some(p @ 1..=65535) => Ok(Until::Port(p as u16)),
            _ => Err(format!(
                "wait_for_port {port} is not a port: give a number from 1 to 65535"
            )),
        };
    }
    if let Some(re) = args["wait_for_output"].as_str() {
        return regex::Regex::new(re).map(Until::Output).map_err(|e| {
            format!(
                "wait_for_output is not a regular expression: {}",
                e.to_string().lines().last().unwrap_or("invalid")
            )
        });
    }
    Ok(if args["timeout_ms"].as_u64().is_some() {
        Until::End
    } else {
        Until::Now
    })
}

/// The wait's bound: `timeout_ms`, or [`WAIT`].
fn within(args: &Value) -> Duration {
    args["timeout_ms"]
        .as_u64()
        .map(|ms| Duration::from_millis(ms.min(crate::config::defaults::SHELL_MAX_TIMEOUT_MS)))
        .unwrap_or(WAIT)
}

/// A command made ready to run in the background: the process to start,
/// where, what the result says of it first, and how its writes are seen.
pub(super) struct Launched {
    pub cmd: tokio::process::Command,
    pub dir: std::path::PathBuf,
    pub note: Option<String>,
    pub seeing: super::background::Seeing,
}

/// Starts `command` in the background and waits as the call asks.
pub(super) async fn start(
    ctx: &Arc<Context>,
    args: &Value,
    command: &str,
    launched: Launched,
    cancel: &CancellationToken,
) -> ToolOutput {
    let until = match until(args) {
        Ok(u) => u,
        Err(e) => return ToolOutput::error(e),
    };
    let landing = super::background::Landing {
        control: ctx.control.clone(),
        project: ctx.workspace.root().to_path_buf(),
        keep: ctx.keep.clone(),
    };
    let Launched {
        cmd,
        dir,
        note,
        seeing,
    } = launched;
    let p = match ctx.background.start(
        command,
        cmd,
        &dir,
        seeing,
        landing,
        ctx.shell.background_max,
    ) {
        Ok(p) => p,
        Err(e) => return ToolOutput::error(e),
    };
    let waited = ctx.background.wait(&p, &until, within(args), cancel).await;
    let mut out = answer(ctx, &p, Some((&until, waited))).await;
    if let Some(n) = note {
        out.content = format!("[{n}]\n{}", out.content);
    }
    out
}

/// The answer about `p`: its new output, its state, its changes.
async fn answer(ctx: &Context, p: &Proc, waited: Option<(&Until, Waited)>) -> ToolOutput {
    let (text, dropped) = p.take_output();
    let limit = ctx.output_limit.saturating_sub(400);
    let text = if text.len() > limit {
        let cut = text.len() - limit;
        let cut = (cut..text.len())
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(text.len());
        format!("[… {cut} bytes not shown …]\n{}", &text[cut..])
    } else {
        text
    };
    ctx.background.say_output(p.id, &text, dropped);
    let mut body = String::new();
    if dropped > 0 {
        body.push_str(&format!(
            "[{dropped} bytes of output before this were dropped: the process keeps its last \
             1 MiB]\n"
        ));
    }
    body.push_str(if text.trim().is_empty() {
        "(no new output)\n"
    } else {
        &text
    });
    if !body.ends_with('\n') {
        body.push('\n');
    }
    let secs = p.running_for().as_secs_f64();
    let mut is_error = false;
    let state = match (p.ended(), waited) {
        (Some(e), _) => {
            is_error = e.code != Some(0) && e.stopped.is_none();
            format!("process {} {} after {secs:.1} s", p.id, e.describe())
        }
        (None, Some((Until::Port(port), Waited::TimedOut))) => {
            is_error = true;
            format!(
                "process {} runs ({secs:.1} s) but nothing listens on port {port} yet; read \
                 its output with shell_output, or stop it with shell_kill",
                p.id
            )
        }
        (None, Some((Until::Output(re), Waited::TimedOut))) => {
            is_error = true;
            format!(
                "process {} runs ({secs:.1} s) but printed nothing matching `{re}` yet",
                p.id
            )
        }
        (None, Some((Until::Port(port), Waited::Met))) => format!(
            "process {} runs ({secs:.1} s) and listens on port {port}",
            p.id
        ),
        (None, Some((_, Waited::Stopped))) => format!(
            "{}; process {} keeps running (shell_kill stops it)",
            crate::call::INTERRUPTED,
            p.id
        ),
        (None, _) => format!("process {} runs ({secs:.1} s)", p.id),
    };
    body.push_str(&format!("[{state}]"));
    // What the proxy refused its commands meanwhile.
    let refused = ctx.background.proxied.take_refused();
    let mut body = super::refusals::told(body, &refused);
    while body.ends_with('\n') {
        body.pop();
    }
    let super::background::Taken {
        landed,
        held,
        last,
        unreviewed,
    } = p.take_report();
    let mut out = if is_error {
        ToolOutput::error(body)
    } else {
        ToolOutput::ok(body)
    };
    out.refused = super::refusals::askable(&refused);
    if let Some(changes) = unreviewed.filter(|c| !c.is_empty()) {
        return super::changes_told::with_changes(ctx, out, changes, None, true);
    }
    match last {
        Some((held_changes, stage)) => {
            let mut all = landed;
            all.files.extend(held_changes.files);
            out = super::changes_told::with_changes(ctx, out, all, Some(stage), false);
        }
        None => {
            if !landed.is_empty() {
                out = super::changes_told::with_changes(ctx, out, landed, None, false);
            }
            if !held.is_empty() && p.ended().is_none() {
                let names: Vec<String> = held
                    .iter()
                    .map(|(path, why)| {
                        format!(
                            "{} — {why}",
                            crate::util::text::escaped(&ctx.workspace.shown(path))
                        )
                    })
                    .collect();
                out.content.push_str(&format!(
                    "\n[held back so far, not written: {} — the person is asked when the \
                     process ends and its result is read]",
                    names.join("; ")
                ));
            }
        }
    }
    out
}

/// The process a call names, or the entry's error.
fn named(ctx: &Context, args: &Value) -> Result<Arc<Proc>, String> {
    let id = args["id"].as_u64().unwrap_or(0);
    u32::try_from(id)
        .ok()
        .and_then(|id| ctx.background.get(id))
        .ok_or_else(|| {
            let ids: Vec<String> = ctx
                .background
                .list()
                .iter()
                .map(|p| p.id.to_string())
                .collect();
            if ids.is_empty() {
                format!("no background process {id}: none was started in this session")
            } else {
                format!(
                    "no background process {id}: this session's are {}",
                    ids.join(", ")
                )
            }
        })
}

/// `shell_output`: what a background process printed since the last read.
pub(crate) struct ShellOutput(pub(crate) Arc<Context>);

impl Tool for ShellOutput {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "shell_output".into(),
            description: "Background process `id`'s output since the last read, its state, \
                 files it changed; `wait_for_output`: first wait until new output matches this \
                 regex."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "wait_for_output": {"type": "string"},
                    "timeout_ms": {"type": "integer"}
                },
                "required": ["id"],
                "additionalProperties": false
            }),
        }
    }

    fn hints(&self, _args: &Value) -> Hints {
        Hints {
            read_only: true,
            investigates: true,
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
            on_start();
            let p = match named(&self.0, &args) {
                Ok(p) => p,
                Err(e) => return ToolOutput::error(e),
            };
            let until = match until(&args) {
                Ok(Until::Port(_)) => {
                    return ToolOutput::error("shell_output waits for output, not a port")
                }
                Ok(u) => u,
                Err(e) => return ToolOutput::error(e),
            };
            let waited = match until {
                Until::Now => None,
                _ => Some(
                    self.0
                        .background
                        .wait(&p, &until, within(&args), cancel)
                        .await,
                ),
            };
            answer(&self.0, &p, waited.map(|w| (&until, w))).await
        })
    }
}

/// `shell_kill`: stops a background process and everything it started.
pub(crate) struct ShellKill(pub(crate) Arc<Context>);

impl Tool for ShellKill {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "shell_kill".into(),
            description: "Stop background process `id` and all it started.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "required": ["id"],
                "additionalProperties": false
            }),
        }
    }

    fn hints(&self, _args: &Value) -> Hints {
        // It ends what this session started, nothing else.
        Hints {
            read_only: true,
            investigates: true,
            ..Hints::default()
        }
    }

    fn call<'a>(
        &'a self,
        args: Value,
        _cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            on_start();
            let p = match named(&self.0, &args) {
                Ok(p) => p,
                Err(e) => return ToolOutput::error(e),
            };
            p.kill("shell_kill");
            p.wait_ended(Duration::from_secs(10)).await;
            answer(&self.0, &p, None).await
        })
    }
}
