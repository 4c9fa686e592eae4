//! The core's events as ACP `session/update`s: the answer's text as
//! `agent_message_chunk`s, and every entry of a tool round — each child of
//! a split batch on its own — as a `tool_call`, listed in entry order when
//! the round starts, then `tool_call_update`s as it runs and ends. A
//! subagent's calls are listed under the `agent` call that started them
//! (`<agent call id>/<its call id>`): ids of different agents may repeat.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::agent::Event;

/// The most of one call's result an update carries: an editor shows it,
/// the model already has it whole.
const CONTENT_CHARS: usize = 64 * 1024;

/// What a prompt's updates have said so far.
pub(crate) struct Updates {
    cwd: PathBuf,
    /// Calls already listed with a `tool_call`.
    listed: HashSet<String>,
    /// What this prompt's message ids start with: unique in the session.
    prompt: String,
    /// The model request whose answer the chunks are now part of.
    request: u64,
}

impl Updates {
    pub(crate) fn new(cwd: &Path) -> Updates {
        use std::sync::atomic::{AtomicU64, Ordering};
        static PROMPTS: AtomicU64 = AtomicU64::new(0);
        let now = crate::util::time::Utc::now().compact();
        Updates {
            cwd: cwd.to_path_buf(),
            listed: HashSet::new(),
            prompt: format!("{now}-{}", PROMPTS.fetch_add(1, Ordering::Relaxed)),
            request: 0,
        }
    }

    /// The id the chunks of one answer share (`messageId`): a new model
    /// request starts a new message; its thinking is a message of its own.
    fn message_id(&self, kind: &str) -> String {
        format!("{}-{}-{kind}", self.prompt, self.request)
    }

    /// The updates `event` makes, in order (often none).
    pub(crate) fn of(&mut self, event: &Event) -> Vec<Value> {
        self.under("", event)
    }

    fn under(&mut self, prefix: &str, event: &Event) -> Vec<Value> {
        let id_of = |id: &str| format!("{prefix}{id}");
        match event {
            Event::ModelRequest { request } if prefix.is_empty() => {
                self.request = u64::from(*request);
                Vec::new()
            }
            Event::TextDelta { text } if prefix.is_empty() => vec![json!({
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
                "messageId": self.message_id("answer"),
            })],
            // How full the window is, after each of the session's own
            // model requests (a subagent's are its own conversation).
            Event::Usage {
                total_tokens,
                context_tokens,
                context_window: Some(size),
                ..
            } if prefix.is_empty() => vec![json!({
                "sessionUpdate": "usage_update",
                "used": context_tokens.unwrap_or(*total_tokens),
                "size": size,
            })],
            Event::ThinkingDelta { text } if prefix.is_empty() => vec![json!({
                "sessionUpdate": "agent_thought_chunk",
                "content": {"type": "text", "text": text},
                "messageId": self.message_id("thought"),
            })],
            Event::ToolRoundStarted { ids, entries } => ids
                .iter()
                .zip(entries)
                .filter_map(|(id, (name, args))| self.list(&id_of(id), name, args))
                .collect(),
            Event::ApprovalAsked {
                id,
                name,
                arguments,
                ..
            } => self
                .list(&id_of(id), name, &arguments.value.to_string())
                .into_iter()
                .collect(),
            Event::ToolCallQueued {
                id,
                name,
                arguments,
                ..
            } => self.list(&id_of(id), name, arguments).into_iter().collect(),
            Event::ToolCallStarted {
                id,
                name,
                arguments,
                ..
            } => {
                let mut out: Vec<Value> =
                    self.list(&id_of(id), name, arguments).into_iter().collect();
                out.push(json!({
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": id_of(id),
                    "status": "in_progress",
                }));
                out
            }
            Event::ToolCallFinished {
                id,
                name,
                arguments,
                is_error,
                content,
                diff,
                ..
            } => {
                let full = id_of(id);
                let mut out: Vec<Value> = self
                    .list(&full, name, arguments.as_deref().unwrap_or("{}"))
                    .into_iter()
                    .collect();
                let mut blocks = vec![json!({
                    "type": "content",
                    "content": {"type": "text", "text": cut(content)},
                })];
                if let Some(d) = diff {
                    blocks.extend(diff_blocks(d, &self.cwd));
                }
                out.push(json!({
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": full,
                    "status": if *is_error { "failed" } else { "completed" },
                    "content": blocks,
                    "rawOutput": {"content": cut(content), "isError": is_error},
                }));
                out
            }
            // A background process is a call of its own: listed as it
            // starts, settled when it ends (after the `shell` that started
            // it was answered).
            Event::ProcessStarted { id, command } if prefix.is_empty() => {
                let mut call = tool_call(
                    &format!("process-{id}"),
                    "shell",
                    &json!({"command": command}).to_string(),
                    &self.cwd,
                    "in_progress",
                );
                call["title"] = json!(format!("background process {id}: {}", cut(command)));
                vec![call]
            }
            Event::ProcessExited {
                id,
                exit_code,
                stopped,
                ..
            } if prefix.is_empty() => {
                let how = event.process_end().unwrap_or_default();
                let ok = stopped.is_some() || *exit_code == Some(0);
                vec![json!({
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": format!("process-{id}"),
                    "status": if ok { "completed" } else { "failed" },
                    "content": [{"type": "content", "content": {"type": "text", "text": format!("background process {id} {how}")}}],
                })]
            }
            Event::Subagent { id, event, .. } => {
                let inner = format!("{prefix}{id}/");
                self.under(&inner, event)
            }
            // The person's agent's plan: an editor shows one.
            Event::PlanUpdated { plan, .. } if prefix.is_empty() => vec![json!({
                "sessionUpdate": "plan",
                "entries": plan.iter().map(|s| json!({
                    "content": s.step,
                    "priority": "medium",
                    "status": s.status,
                })).collect::<Vec<_>>(),
            })],
            _ => Vec::new(),
        }
    }

    /// A `tool_call` for `id`, the first time it is seen.
    fn list(&mut self, id: &str, name: &str, arguments: &str) -> Option<Value> {
        if !self.listed.insert(id.to_string()) {
            return None;
        }
        Some(tool_call(id, name, arguments, &self.cwd, "pending"))
    }
}

/// A `tool_call` update: what an editor shows of one call.
pub(crate) fn tool_call(id: &str, name: &str, arguments: &str, cwd: &Path, status: &str) -> Value {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let mut call = json!({
        "sessionUpdate": "tool_call",
        "toolCallId": id,
        "title": title(name, &args, cwd),
        "kind": kind(name),
        "status": status,
        "rawInput": args,
    });
    let paths: Vec<Value> = ["path", "file_path", "file", "cwd"]
        .iter()
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .take(1)
        .map(|p| json!({"path": cwd.join(p)}))
        .collect();
    if !paths.is_empty() {
        call["locations"] = Value::Array(paths);
    }
    call
}

/// ACP's kind of a tool, by its name: hermes' own by what they do, a
/// server's by the verb its name starts with.
pub(crate) fn kind(name: &str) -> &'static str {
    match name {
        "read_file" => return "read",
        "write_file" | "edit_file" => return "edit",
        "glob" | "grep" | "tool_search" | "tool_describe" => return "search",
        "shell" => return "execute",
        "agent" => return "think",
        _ => {}
    }
    let tool = name
        .rsplit("__")
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase();
    let starts = |words: &[&str]| words.iter().any(|w| tool.starts_with(w));
    if starts(&["fetch", "http", "browse", "navigate", "download"]) {
        "fetch"
    } else if starts(&["delete", "remove", "rm"]) {
        "delete"
    } else if starts(&["move", "rename", "mv"]) {
        "move"
    } else if starts(&["search", "find", "query", "grep", "glob"]) {
        "search"
    } else if starts(&["read", "get", "list", "show", "view", "describe"]) {
        "read"
    } else if starts(&[
        "write", "edit", "create", "update", "put", "patch", "set", "append",
    ]) {
        "edit"
    } else if starts(&["run", "exec", "execute", "shell"]) {
        "execute"
    } else {
        "other"
    }
}

/// A line an editor shows for the call: what it does, to what.
pub(crate) fn title(name: &str, args: &Value, cwd: &Path) -> String {
    let s = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("");
    // A path as the person sees it: from the session's folder.
    let path = |k: &str| {
        let p = Path::new(s(k));
        p.strip_prefix(cwd).unwrap_or(p).display().to_string()
    };
    let line = |t: &str| {
        t.lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(120)
            .collect::<String>()
    };
    match name {
        "read_file" => format!("Read {}", path("path")),
        "write_file" => format!("Write {}", path("path")),
        "edit_file" => format!("Edit {}", path("path")),
        "shell" => format!("Run `{}`", line(s("command"))),
        "glob" | "grep" => format!("Search {}", line(s("pattern"))),
        "tool_search" => format!("Find tools: {}", line(s("query"))),
        "tool_describe" => "Describe tools".to_string(),
        "agent" => format!("Subagent: {}", line(s("description"))),
        _ => match name.strip_prefix("mcp__").and_then(|r| r.split_once("__")) {
            Some((server, tool)) => format!("{server}: {tool}"),
            None => name.to_string(),
        },
    }
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(CONTENT_CHARS) {
        Some((at, _)) => format!(
            "{}\n… (cut for the editor: {} bytes in all)",
            &text[..at],
            text.len()
        ),
        None => text.to_string(),
    }
}

/// A unified diff (hermes' `a/PATH` `b/PATH` headers) as ACP `diff`
/// blocks, one per hunk: the hunk's lines before and after, which is all
/// the diff holds of the file.
pub(crate) fn diff_blocks(diff: &str, cwd: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    let mut path: Option<PathBuf> = None;
    let mut created = false;
    let mut hunk: Option<(String, String)> = None;
    let mut flush = |hunk: &mut Option<(String, String)>, path: &Option<PathBuf>, created: bool| {
        if let (Some((old, new)), Some(p)) = (hunk.take(), path) {
            let mut block = json!({"type": "diff", "path": p, "newText": new});
            // Nothing before: a file made (ACP's "no old text").
            if !created && !old.is_empty() {
                block["oldText"] = Value::String(old);
            }
            out.push(block);
        }
    };
    for line in diff.lines() {
        if let Some(p) = line.strip_prefix("+++ ") {
            flush(&mut hunk, &path, created);
            let p = p.strip_prefix("b/").unwrap_or(p);
            path = Some(cwd.join(p));
        } else if let Some(p) = line.strip_prefix("--- ") {
            flush(&mut hunk, &path, created);
            created = p == "/dev/null";
        } else if line.starts_with("@@") {
            flush(&mut hunk, &path, created);
            hunk = Some((String::new(), String::new()));
        } else if let Some((old, new)) = hunk.as_mut() {
            let (mark, text) = line.split_at(line.len().min(1));
            match mark {
                "-" => push_line(old, text),
                "+" => push_line(new, text),
                " " | "" => {
                    push_line(old, text);
                    push_line(new, text);
                }
                _ => {}
            }
        }
    }
    flush(&mut hunk, &path, created);
    out
}

fn push_line(to: &mut String, line: &str) {
    to.push_str(line);
    to.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_entry_of_a_round_is_listed_once_in_order_then_updated() {
        let mut u = Updates::new(Path::new("/work/p"));
        let round = Event::ToolRoundStarted {
            ids: vec!["toolu_01A".into(), "toolu_9xZ".into()],
            entries: vec![
                ("read_file".into(), r#"{"path":"src/main.rs"}"#.into()),
                ("mcp__git__git_status".into(), r#"{"repo_path":"."}"#.into()),
            ],
        };
        let listed = u.of(&round);
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0]["toolCallId"], "toolu_01A");
        assert_eq!(listed[0]["kind"], "read");
        assert_eq!(listed[0]["title"], "Read src/main.rs");
        assert_eq!(listed[0]["locations"][0]["path"], "/work/p/src/main.rs");
        assert_eq!(listed[1]["title"], "git: git_status");
        let started = u.of(&Event::ToolCallStarted {
            id: "toolu_01A".into(),
            name: "read_file".into(),
            arguments: "{}".into(),
            resolved_path: None,
        });
        assert_eq!(started.len(), 1, "not listed again: {started:?}");
        assert_eq!(started[0]["status"], "in_progress");
        let done = u.of(&Event::ToolCallFinished {
            id: "toolu_9xZ".into(),
            name: "mcp__git__git_status".into(),
            arguments: None,
            is_error: true,
            content: "not a repository".into(),
            diff: None,
            changed: Vec::new(),
        });
        assert_eq!(done[0]["status"], "failed");
        assert_eq!(done[0]["content"][0]["content"]["text"], "not a repository");
    }

    #[test]
    fn a_background_process_is_a_call_listed_as_it_starts_and_settled_when_it_ends() {
        let mut u = Updates::new(Path::new("/work/p"));
        let started = u.of(&Event::ProcessStarted {
            id: 2,
            command: "npm run dev".into(),
        });
        assert_eq!(started[0]["toolCallId"], "process-2");
        assert_eq!(started[0]["status"], "in_progress");
        assert_eq!(started[0]["kind"], "execute");
        let ended = u.of(&Event::ProcessExited {
            id: 2,
            exit_code: Some(1),
            signal: None,
            stopped: None,
            dropped_bytes: 0,
        });
        assert_eq!(ended[0]["sessionUpdate"], "tool_call_update");
        assert_eq!(ended[0]["status"], "failed");
    }

    #[test]
    fn the_agents_plan_is_an_acp_plan_and_a_subagents_is_not() {
        use crate::call::{PlanStep, StepStatus};
        let mut u = Updates::new(Path::new("/work/p"));
        let plan = Event::PlanUpdated {
            explanation: Some("why".into()),
            plan: vec![
                PlanStep {
                    step: "Read it".into(),
                    status: StepStatus::Completed,
                },
                PlanStep {
                    step: "Fix it".into(),
                    status: StepStatus::InProgress,
                },
            ],
        };
        let out = u.of(&plan);
        assert_eq!(
            out,
            [json!({"sessionUpdate": "plan", "entries": [
                {"content": "Read it", "priority": "medium", "status": "completed"},
                {"content": "Fix it", "priority": "medium", "status": "in_progress"}]})]
        );
        let nested = u.of(&Event::Subagent {
            id: "toolu_1".into(),
            description: "look".into(),
            event: Box::new(plan),
        });
        assert!(nested.is_empty(), "{nested:?}");
    }

    #[test]
    fn a_diff_becomes_one_block_per_hunk_and_a_new_file_has_no_old_text() {
        let d = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n fn a() {}\n-fn b() {}\n+fn b() { run() }\n fn c() {}\n";
        let blocks = diff_blocks(d, Path::new("/p"));
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0]["path"], "/p/src/lib.rs");
        assert_eq!(blocks[0]["oldText"], "fn a() {}\nfn b() {}\nfn c() {}\n");
        assert_eq!(
            blocks[0]["newText"],
            "fn a() {}\nfn b() { run() }\nfn c() {}\n"
        );
        let made = diff_blocks(
            "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n",
            Path::new("/p"),
        );
        assert_eq!(made[0]["newText"], "hi\n");
        assert!(made[0].get("oldText").is_none());
    }

    #[test]
    fn kinds_follow_what_a_tool_does() {
        for (name, k) in [
            ("shell", "execute"),
            ("edit_file", "edit"),
            ("mcp__github__search_issues", "search"),
            ("mcp__fetch__fetch", "fetch"),
            ("mcp__fs__delete_file", "delete"),
            ("mcp__fs__move_file", "move"),
            ("mcp__memory__read_graph", "read"),
            ("mcp__memory__create_entities", "edit"),
            ("mcp__x__frobnicate", "other"),
        ] {
            assert_eq!(kind(name), k, "{name}");
        }
    }
}
