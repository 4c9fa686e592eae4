//! Hook commands, in the format users already write for Claude Code.
//!
//! stdin: one JSON object — `session_id`, `transcript_path`, `cwd`,
//! `hook_event_name` (`PreToolUse` / `PostToolUse`), `tool_name` (the
//! underlying tool, never `tool_call`), `tool_input`, `tool_use_id`, and
//! `tool_response` for post hooks — plus hermes' older fields (`event`,
//! `tool`, `call_id`, `arguments`, `output`) so earlier hooks keep working.
//!
//! The answer: exit 2 blocks, with stderr as the reason. Exit 0 with JSON on
//! stdout: `{"hookSpecificOutput": {"permissionDecision": "allow"|"deny"|
//! "ask", "permissionDecisionReason", "updatedInput"}}`, or the older
//! `{"decision": "block"|"approve", "reason"}`. Exit 0 with anything else
//! (or nothing) has no opinion. Any other failure — exit code, timeout,
//! cannot start, a JSON answer hermes cannot read — blocks, naming the hook
//! and its last stderr lines: a broken guardrail must not silently let
//! everything through (stricter than Claude Code, which lets those pass).
//!
//! A hook runs with a scrubbed environment (no API keys) in its own process
//! group, so a timeout or a stop kills whatever it started too.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use crate::call::ToolOutput;
pub(crate) use crate::config::HookEvent;
use crate::config::{HookMatcher, HookSettings};
use crate::util::text::excerpt;

use super::claude_tools;

/// What one hook said.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum HookVerdict {
    /// No opinion: the ordinary approval decides.
    #[default]
    Pass,
    /// Run it without asking (rules that deny still hold).
    Allow,
    /// Ask the user, whatever the rules say.
    Ask(String),
    Block(String),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct HookAnswer {
    pub verdict: HookVerdict,
    /// Arguments the hook wants the call to use instead.
    pub updated_input: Option<Value>,
    /// `additionalContext`: text for the model, beside the tool's result.
    pub context: Option<String>,
    /// `continue: false`: the turn ends, with `stopReason` for the person.
    pub stop: Option<String>,
    /// `systemMessage`: a line for the person.
    pub message: Option<String>,
    /// The hook itself failed (exit code, timeout, an answer hermes cannot
    /// read), as opposed to deciding.
    pub broken: bool,
    /// Its stdout, when that was not a JSON answer: context for the model
    /// where Claude Code takes it so (UserPromptSubmit, SessionStart).
    pub plain: Option<String>,
}

impl HookAnswer {
    /// Takes in what another hook said beside its verdict: context and
    /// messages add up, the first stop stands.
    pub(crate) fn gather(&mut self, other: &HookAnswer) {
        for (mine, theirs) in [
            (&mut self.context, &other.context),
            (&mut self.message, &other.message),
        ] {
            if let Some(t) = theirs {
                *mine = Some(match mine.take() {
                    Some(m) => format!("{m}\n{t}"),
                    None => t.clone(),
                });
            }
        }
        if self.stop.is_none() {
            self.stop = other.stop.clone();
        }
        self.broken |= other.broken;
    }

    fn just(verdict: HookVerdict) -> HookAnswer {
        HookAnswer {
            verdict,
            ..HookAnswer::default()
        }
    }
}

/// Where a call happens, for the hook's stdin.
#[derive(Debug, Clone, Default)]
pub(crate) struct HookContext {
    pub session_id: String,
    pub transcript_path: PathBuf,
    pub cwd: PathBuf,
    /// The project's folder, `CLAUDE_PROJECT_DIR` (empty: `cwd`).
    pub project_dir: PathBuf,
}

/// The call a hook is asked about.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookCall<'a> {
    pub(crate) event: HookEvent,
    /// The underlying tool, with its server's own name and the plain one
    /// when a collision renamed it.
    pub(crate) tool: &'a super::Subject,
    pub(crate) call_id: &'a str,
    pub(crate) args: &'a Value,
    /// The result, for a post hook.
    pub(crate) output: Option<&'a ToolOutput>,
}

#[derive(Debug, Clone)]
pub(crate) struct Hook {
    name: Option<String>,
    matcher: HookMatcher,
    command: String,
    timeout: Duration,
    sandbox: Option<bool>,
    /// Runs only when each pointer of the call's arguments names a string
    /// the regex matches.
    when: Vec<(String, regex::Regex)>,
    /// Runs beside the call, never holding it.
    background: bool,
}

impl Hook {
    pub(crate) fn from_settings(e: &HookSettings) -> Hook {
        Hook {
            name: e.name.clone(),
            matcher: e.matcher.clone(),
            command: e.command.clone(),
            timeout: e.timeout,
            sandbox: e.sandbox,
            // Each compiled when the config was read.
            when: e
                .when
                .iter()
                .filter_map(|(p, r)| Some((p.clone(), regex::Regex::new(r).ok()?)))
                .collect(),
            background: e.background,
        }
    }

    /// Whether its `when` conditions hold for a call with `args` (none: it
    /// does).
    pub(crate) fn applies(&self, args: &Value) -> bool {
        self.when.iter().all(|(pointer, re)| {
            args.pointer(pointer)
                .and_then(Value::as_str)
                .is_some_and(|v| re.is_match(v))
        })
    }

    /// The hook's command in the sandbox, when it runs the project's code
    /// and the person's config did not say `sandbox = false`; `None`: as
    /// it is, outside.
    #[allow(clippy::type_complexity)]
    fn sandboxed(
        &self,
        cwd: &std::path::Path,
        project: &std::path::Path,
    ) -> Option<
        Result<
            (tokio::process::Command, Option<crate::sandbox::Stage>),
            crate::sandbox::SandboxError,
        >,
    > {
        if self.sandbox == Some(false) {
            return None;
        }
        let roots = crate::sandbox::for_hooks::roots(cwd);
        if roots.is_empty() {
            return None;
        }
        let roots: Vec<std::path::PathBuf> = roots
            .iter()
            .filter_map(|r| std::fs::canonicalize(r).ok())
            .collect();
        super::hook_code::why(&self.command, cwd, project, &roots)?;
        let program = ["sh", "-c", &self.command].map(std::ffi::OsString::from);
        crate::sandbox::for_hooks::command(cwd, &program)
    }

    /// A matcher is a guardrail: it also names a tool renamed by a
    /// collision by the plain name it would have had.
    pub(crate) fn matches(&self, tool: &super::Subject) -> bool {
        super::matcher::matches(&self.matcher, tool, true)
    }

    /// Whether it matches the tool by a name of its own, not only by the
    /// plain name a collision took away: a hook written for another tool
    /// may block or ask, but not allow or rewrite this one.
    pub(crate) fn matches_by_own_name(&self, tool: &super::Subject) -> bool {
        super::matcher::matches(&self.matcher, tool, false)
    }

    /// How its matcher reads, for `hermes hooks test`.
    pub(crate) fn matcher(&self) -> &HookMatcher {
        &self.matcher
    }

    pub(crate) fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    fn label(&self) -> String {
        match &self.name {
            Some(n) => n.clone(),
            None => excerpt(&self.command, 60),
        }
    }

    /// What the hook reads: Claude Code's fields — a built-in by its Claude
    /// Code name and fields (`Bash`, `command`; `Write`, `file_path`) — and
    /// hermes' own older ones with hermes' names.
    fn stdin(ctx: &HookContext, c: &HookCall<'_>) -> Value {
        let (event, call_id, args) = (c.event, c.call_id, c.args);
        let tool = &c.tool.name;
        let tool_input = claude_tools::tool_input(tool, args, &ctx.cwd);
        let mut input = common(ctx, event);
        if let Value::Object(i) = &mut input {
            i.extend(
                json!({
                    "tool_name": claude_tools::claude_name(tool),
                    "tool_input": tool_input,
                    "tool_use_id": call_id,
                    "tool": tool,
                    "call_id": call_id,
                    "arguments": args,
                })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            );
        }
        // A tool renamed by a collision: the names a hook may know it by.
        if let Some(own) = &c.tool.own {
            input["hermes_tool_own_name"] = json!(own);
        }
        if let Some(plain) = &c.tool.plain {
            input["hermes_tool_plain_name"] = json!(plain);
        }
        if let Some(o) = c.output {
            if event == HookEvent::PostFailure {
                // Claude Code's PostToolUseFailure: what went wrong, and
                // whether a stop cut it short.
                input["error"] = json!(o.content);
                input["is_interrupt"] = json!(o.content.contains(crate::call::INTERRUPTED));
            } else {
                input["tool_response"] =
                    claude_tools::tool_response(tool, &tool_input, &o.content, o.is_error);
            }
            input["output"] = json!({"content": o.content, "is_error": o.is_error});
        }
        input
    }

    pub(crate) async fn run(
        &self,
        ctx: &HookContext,
        call: &HookCall<'_>,
        cancel: &CancellationToken,
    ) -> HookAnswer {
        let (input, env) = Self::prepared(ctx, call);
        let tool = &call.tool.name;
        let mut a = self.exec(ctx, call.event, &input, &env, cancel).await;
        a.updated_input = a
            .updated_input
            .map(|u| claude_tools::from_tool_input(tool, u));
        a
    }

    /// Whether it runs beside the call, never holding it (Claude Code's
    /// `"async": true`).
    pub(crate) fn in_background(&self) -> bool {
        self.background
    }

    /// Starts it beside the call: what it answers is not waited for and
    /// decides nothing (its process still ends with hermes).
    pub(crate) fn start_in_background(&self, ctx: &HookContext, call: &HookCall<'_>) {
        let (input, env) = Self::prepared(ctx, call);
        let (hook, ctx, event) = (self.clone(), ctx.clone(), call.event);
        tokio::spawn(async move {
            let _ = hook
                .exec(&ctx, event, &input, &env, &CancellationToken::new())
                .await;
        });
    }

    /// The hook's stdin and its environment for `call`.
    fn prepared(ctx: &HookContext, call: &HookCall<'_>) -> (Value, Vec<(&'static str, String)>) {
        let input = Self::stdin(ctx, call);
        let tool = &call.tool.name;
        let mut env = vec![
            ("HERMES_TOOL", tool.clone()),
            ("HERMES_CALL_ID", call.call_id.to_string()),
        ];
        for (var, name) in [
            ("HERMES_TOOL_OWN_NAME", &call.tool.own),
            ("HERMES_TOOL_PLAIN_NAME", &call.tool.plain),
        ] {
            if let Some(n) = name {
                env.push((var, n.clone()));
            }
        }
        (input, env)
    }

    /// Runs it for an event that is not about a tool call: stdin is the
    /// fields every event has, and `fields` (`prompt`, `source`, …).
    pub(crate) async fn run_event(
        &self,
        ctx: &HookContext,
        event: HookEvent,
        fields: Value,
        cancel: &CancellationToken,
    ) -> HookAnswer {
        let mut input = common(ctx, event);
        if let (Value::Object(i), Value::Object(f)) = (&mut input, fields) {
            i.extend(f);
        }
        self.exec(ctx, event, &input, &[], cancel).await
    }

    /// Whether it runs for `what` (a session's `source`, a compaction's
    /// `trigger`): its matcher names it.
    pub(crate) fn matches_word(&self, what: &str) -> bool {
        self.matcher.is_match(what)
    }

    /// The command itself: `input` on stdin, what it answered.
    async fn exec(
        &self,
        ctx: &HookContext,
        event: HookEvent,
        input: &Value,
        env: &[(&str, String)],
        cancel: &CancellationToken,
    ) -> HookAnswer {
        let ev = event.key();
        let name = self.label();
        let fail = |why: String| HookAnswer {
            broken: true,
            ..HookAnswer::just(HookVerdict::Block(why))
        };
        // Claude Code's hooks find their scripts through it
        // (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`).
        let project = if ctx.project_dir.as_os_str().is_empty() {
            &ctx.cwd
        } else {
            &ctx.project_dir
        };
        let sandboxed = self.sandboxed(&ctx.cwd, project);
        let outside = sandboxed.is_none();
        let (mut cmd, stage) = match sandboxed {
            None => {
                let mut sh = tokio::process::Command::new("sh");
                sh.arg("-c").arg(&self.command);
                (sh, None)
            }
            Some(Ok(c)) => c,
            Some(Err(e)) => {
                return fail(format!(
                    "{ev} hook `{name}` runs the project's code, so it runs in the sandbox, \
                     which could not be set up: {e}; set `sandbox = false` on it in your \
                     config.toml to run it outside"
                ))
            }
        };
        crate::util::child_env::scrubbed(&mut cmd)
            .env("HERMES_HOOK_EVENT", ev)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (var, value) in env {
            cmd.env(var, value);
        }
        if !ctx.cwd.as_os_str().is_empty() {
            cmd.current_dir(&ctx.cwd);
        }
        if outside {
            // Outside the sandbox, in the project folder: `python3 -c
            // "import json"` must not import a `json.py` a command left
            // there (a hook that means to run the project's code runs in
            // the sandbox, where it may).
            cmd.env("PYTHONSAFEPATH", "1");
        }
        if !project.as_os_str().is_empty() {
            cmd.env("CLAUDE_PROJECT_DIR", project);
        }
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => return fail(format!("{ev} hook `{name}` could not start: {e}")),
        };
        let mut group = crate::util::groups::Owned::new(child.id());
        // Written beside the wait, not before it: a hook that does not read
        // its stdin must not hold the call past its timeout or a stop.
        let writer = child.stdin.take().map(|mut stdin| {
            let bytes = format!("{input}\n").into_bytes();
            Aborted(tokio::spawn(async move {
                let _ = stdin.write_all(&bytes).await;
            }))
        });
        // Read beside the wait, capped: a chatty hook must not fill memory,
        // and one whose child keeps the pipes open must not hold the call.
        let stdout_task = child.stdout.take().map(Reader::start);
        let stderr_task = child.stderr.take().map(Reader::start);
        let waited = tokio::select! {
            _ = cancel.cancelled() => return fail(crate::call::NOT_STARTED.into()),
            r = tokio::time::timeout(self.timeout, child.wait()) => r,
        };
        let status = match waited {
            Err(_) => {
                return fail(format!(
                    "{ev} hook `{name}` gave no answer within {} ms",
                    self.timeout.as_millis()
                ))
            }
            Ok(Err(e)) => return fail(format!("{ev} hook `{name}` failed: {e}")),
            Ok(Ok(s)) => s,
        };
        // Exited by itself: what it left running on purpose stays.
        group.release();
        drop(writer);
        let stdout = Reader::collected(stdout_task).await;
        let stderr = Reader::collected(stderr_task).await;
        // What a sandboxed hook changed lands as a command's does; what it
        // may not change is said to the person.
        let held = match stage {
            Some(stage) => tokio::task::spawn_blocking({
                let dir = ctx.cwd.clone();
                move || {
                    crate::sandbox::for_hooks::land(&stage, &dir)
                        .held()
                        .map(|f| f.path.display().to_string())
                        .collect::<Vec<_>>()
                }
            })
            .await
            .unwrap_or_default(),
            None => Vec::new(),
        };
        let stderr = String::from_utf8_lossy(&stderr);
        let stdout = String::from_utf8_lossy(&stdout);
        let held_note = (!held.is_empty()).then(|| {
            format!(
                "{ev} hook `{name}` ran in the sandbox; held back, not written: {}",
                held.join(", ")
            )
        });
        match status.code() {
            Some(0) => match read_answer(&stdout) {
                Ok(mut a) => {
                    if let Some(n) = held_note {
                        a.message = Some(match a.message.take() {
                            Some(m) => format!("{m}\n{n}"),
                            None => n,
                        });
                    }
                    a
                }
                Err(why) => fail(format!(
                    "{ev} hook `{name}` answered JSON hermes cannot use: {why}"
                )),
            },
            Some(2) => HookAnswer::just(HookVerdict::Block(if stderr.trim().is_empty() {
                format!("blocked by the {ev} hook `{name}`")
            } else {
                format!("blocked by the {ev} hook: {}", excerpt(stderr.trim(), 500))
            })),
            code => fail(format!(
                "{ev} hook `{name}` failed ({}){}",
                code.map(|c| format!("exit code {c}"))
                    .unwrap_or_else(|| "killed by a signal".into()),
                last_lines(&stderr)
            )),
        }
    }
}

/// The stdin fields every event has: Claude Code's and hermes' own name.
fn common(ctx: &HookContext, event: HookEvent) -> Value {
    json!({
        "session_id": ctx.session_id,
        "transcript_path": ctx.transcript_path,
        "cwd": ctx.cwd,
        "permission_mode": "default",
        "hook_event_name": event.claude_name(),
        "event": event.key(),
    })
}

/// Most of a hook's output hermes reads.
const OUTPUT_CAP: usize = 1 << 20;

/// A task aborted when dropped (the stdin writer, the pipe readers).
struct Aborted<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for Aborted<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A pipe read into a capped buffer beside the wait.
struct Reader {
    buf: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    task: Aborted<()>,
}

impl Reader {
    fn start(mut pipe: impl tokio::io::AsyncRead + Unpin + Send + 'static) -> Reader {
        use tokio::io::AsyncReadExt;
        let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = buf.clone();
        let task = Aborted(tokio::spawn(async move {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut b) = into.lock() {
                    let room = OUTPUT_CAP.saturating_sub(b.len());
                    b.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
        }));
        Reader { buf, task }
    }

    /// What was read, waiting a moment past the hook's exit for the pipe
    /// to close (a child it left running may hold it open: then what came
    /// so far).
    async fn collected(reader: Option<Reader>) -> Vec<u8> {
        let Some(mut r) = reader else {
            return Vec::new();
        };
        let _ = tokio::time::timeout(Duration::from_millis(100), &mut r.task.0).await;
        let out = r.buf.lock().map(|b| b.clone()).unwrap_or_default();
        out
    }
}

fn last_lines(stderr: &str) -> String {
    let last: Vec<&str> = stderr.lines().rev().take(3).collect();
    if last.is_empty() {
        return String::new();
    }
    let last: Vec<&str> = last.into_iter().rev().collect();
    format!("; last stderr: {}", last.join(" | "))
}

/// A hook's stdout after exit 0: Claude Code's JSON answer — the fields
/// every event has (`continue`/`stopReason`, `systemMessage`,
/// `suppressOutput`: hermes never shows a hook's stdout anyway), the
/// older `decision`/`reason`, and `hookSpecificOutput` with
/// `permissionDecision`, `permissionDecisionReason`, `updatedInput`,
/// `additionalContext` — or no opinion. `Err` for JSON that names a
/// decision hermes does not know.
fn read_answer(stdout: &str) -> Result<HookAnswer, String> {
    let trimmed = stdout.trim();
    let Ok(Value::Object(v)) = serde_json::from_str::<Value>(trimmed) else {
        // Meant as an answer but not readable: a guardrail's deny must not
        // be lost to a typo or a log line before it.
        if trimmed.starts_with('{')
            || trimmed.contains("permissionDecision")
            || trimmed.contains("\"decision\"")
        {
            return Err("its stdout looks like a JSON answer but does not parse".into());
        }
        return Ok(HookAnswer {
            plain: (!trimmed.is_empty()).then(|| trimmed.to_string()),
            ..HookAnswer::just(HookVerdict::Pass)
        });
    };
    let text = |o: &serde_json::Map<String, Value>, k: &str| {
        o.get(k).and_then(Value::as_str).map(str::to_string)
    };
    let mut answer = HookAnswer {
        message: text(&v, "systemMessage").filter(|m| !m.is_empty()),
        ..HookAnswer::default()
    };
    match v.get("continue") {
        None | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            answer.stop = Some(text(&v, "stopReason").unwrap_or_default());
        }
        Some(_) => return Err("`continue` must be true or false".into()),
    }
    let reason = text(&v, "reason").unwrap_or_default();
    answer.verdict = match text(&v, "decision").as_deref() {
        None => HookVerdict::Pass,
        Some("approve") => HookVerdict::Allow,
        Some("block") => HookVerdict::Block(if reason.is_empty() {
            "blocked by a hook".into()
        } else {
            reason
        }),
        Some(other) => return Err(format!("unknown decision `{other}`")),
    };
    if let Some(Value::Object(h)) = v.get("hookSpecificOutput") {
        let reason = text(h, "permissionDecisionReason").unwrap_or_default();
        answer.updated_input = match h.get("updatedInput") {
            None | Some(Value::Null) => None,
            Some(o @ Value::Object(_)) => Some(o.clone()),
            Some(_) => return Err("`updatedInput` must be an object".into()),
        };
        answer.context = text(h, "additionalContext").filter(|c| !c.trim().is_empty());
        // PermissionRequest's answer: `decision.behavior`, `message`,
        // `interrupt`, `updatedInput`.
        if let Some(d) = h.get("decision") {
            let Value::Object(d) = d else {
                return Err("`hookSpecificOutput.decision` must be an object".into());
            };
            let message = text(d, "message").unwrap_or_default();
            if let Some(u) = d.get("updatedInput").filter(|u| !u.is_null()) {
                answer.updated_input = Some(u.clone());
            }
            match text(d, "behavior").as_deref() {
                Some("allow") => answer.verdict = HookVerdict::Allow,
                Some("deny") => {
                    answer.verdict = HookVerdict::Block(if message.is_empty() {
                        "denied by a PermissionRequest hook".into()
                    } else {
                        message.clone()
                    });
                    if d.get("interrupt") == Some(&Value::Bool(true)) {
                        answer.stop = Some(message);
                    }
                }
                Some(other) => return Err(format!("unknown decision.behavior `{other}`")),
                None => return Err("`decision` needs a `behavior`: allow or deny".into()),
            }
        }
        match text(h, "permissionDecision").as_deref() {
            None => {}
            Some("allow") => answer.verdict = HookVerdict::Allow,
            Some("ask") => answer.verdict = HookVerdict::Ask(reason),
            Some("deny") => {
                answer.verdict = HookVerdict::Block(if reason.is_empty() {
                    "denied by a hook".into()
                } else {
                    reason
                })
            }
            Some(other) => return Err(format!("unknown permissionDecision `{other}`")),
        }
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_claude_codes_forms_are_read() {
        let a = read_answer(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no writes on Fridays"}}"#,
        )
        .unwrap();
        assert_eq!(a.verdict, HookVerdict::Block("no writes on Fridays".into()));
        let a = read_answer(
            r#"{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"path":"/safe"}}}"#,
        )
        .unwrap();
        assert_eq!(a.verdict, HookVerdict::Allow);
        assert_eq!(a.updated_input, Some(json!({"path": "/safe"})));
        assert_eq!(
            read_answer(r#"{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#)
                .unwrap()
                .verdict,
            HookVerdict::Ask("sure?".into())
        );
        assert_eq!(
            read_answer(r#"{"decision":"block","reason":"old style"}"#)
                .unwrap()
                .verdict,
            HookVerdict::Block("old style".into())
        );
        assert!(read_answer("checking…\n{\"decision\":\"block\"}").is_err());
        assert!(read_answer("{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\"").is_err());
        for pass in ["", "ok, looks fine", "[1,2]", "{}"] {
            assert_eq!(
                read_answer(pass).unwrap().verdict,
                HookVerdict::Pass,
                "{pass}"
            );
        }
        assert!(read_answer(r#"{"decision":"blok"}"#).is_err());
        assert!(read_answer(r#"{"hookSpecificOutput":{"permissionDecision":"maybe"}}"#).is_err());
        assert!(read_answer(r#"{"hookSpecificOutput":{"updatedInput":"x"}}"#).is_err());
        let a = read_answer(
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main","interrupt":true}}}"#,
        )
        .unwrap();
        assert_eq!(a.verdict, HookVerdict::Block("not on main".into()));
        assert_eq!(a.stop.as_deref(), Some("not on main"));
        let a = read_answer(
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#,
        )
        .unwrap();
        assert_eq!((a.verdict, a.stop), (HookVerdict::Allow, None));
        assert!(
            read_answer(r#"{"hookSpecificOutput":{"decision":{"behavior":"maybe"}}}"#).is_err()
        );
        assert!(read_answer(r#"{"hookSpecificOutput":{"decision":"allow"}}"#).is_err());
    }
}
