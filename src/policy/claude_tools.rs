//! hermes' built-ins as Claude Code's hooks know them. A hook written for
//! Claude Code tests `tool_name == "Bash"` and reads `tool_input.file_path`:
//! shown hermes' own names (`shell`, `path`) it would pass everything, and
//! a guard that passes everything is worse than none. So every hook sees
//! the Claude Code name and fields, and what it hands back
//! (`updatedInput`) is read in those fields too.

use std::path::Path;

use serde_json::{Map, Value};

/// A built-in by its Claude Code name, with its fields that Claude Code
/// names otherwise (hermes' first). Fields not listed keep their names.
struct Builtin {
    name: &'static str,
    claude: &'static str,
    fields: &'static [(&'static str, &'static str)],
}

const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "shell",
        claude: "Bash",
        fields: &[("timeout_ms", "timeout")],
    },
    Builtin {
        name: "read_file",
        claude: "Read",
        fields: &[("path", "file_path")],
    },
    Builtin {
        name: "write_file",
        claude: "Write",
        fields: &[("path", "file_path")],
    },
    Builtin {
        name: "edit_file",
        claude: "Edit",
        fields: &[("path", "file_path")],
    },
    Builtin {
        name: "glob",
        claude: "Glob",
        fields: &[],
    },
    Builtin {
        name: "grep",
        claude: "Grep",
        fields: &[("ignore_case", "-i")],
    },
    Builtin {
        name: "agent",
        claude: "Task",
        fields: &[("type", "subagent_type")],
    },
    Builtin {
        name: "web_fetch",
        claude: "WebFetch",
        fields: &[],
    },
    // Its steps are reshaped too (`todos`: content, status, activeForm).
    Builtin {
        name: "update_plan",
        claude: "TodoWrite",
        fields: &[],
    },
];

fn entry(tool: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == tool)
}

/// The name Claude Code gives this tool: `Bash` for `shell`; an MCP tool
/// (`mcp__server__tool`) and anything else keeps its name.
pub(crate) fn claude_name(tool: &str) -> &str {
    entry(tool).map_or(tool, |b| b.claude)
}

/// Other names Claude Code has given this tool, which its hooks' matchers
/// may use: `Agent` (Claude Code 2.1's) for what earlier ones call `Task`.
pub(crate) fn also_called(tool: &str) -> &'static [&'static str] {
    match tool {
        "agent" => &["Agent"],
        "edit_file" => &["MultiEdit"],
        "glob" => &["LS"],
        _ => &[],
    }
}

/// The built-in Claude Code's name stands for (`Read` → `read_file`; its
/// `MultiEdit` and `LS` → `edit_file` and `glob`; `Agent` → `agent`), if
/// hermes has one.
pub(crate) fn hermes_name(claude: &str) -> Option<&'static str> {
    match claude {
        "MultiEdit" => Some("edit_file"),
        "LS" => Some("glob"),
        "Agent" => Some("agent"),
        c => BUILTINS.iter().find(|b| b.claude == c).map(|b| b.name),
    }
}

/// A built-in's arguments as Claude Code's `tool_input`: its field names,
/// and `file_path` absolute (Claude Code's always is; a guard matching
/// `*/.env` must see the whole path), resolved from `cwd`.
pub(crate) fn tool_input(tool: &str, args: &Value, cwd: &Path) -> Value {
    if tool == crate::call::UPDATE_PLAN {
        return todos(args);
    }
    let (Some(Builtin { fields, .. }), Value::Object(args)) = (entry(tool), args) else {
        return args.clone();
    };
    let mut out = Map::new();
    for (k, v) in args {
        let key = fields
            .iter()
            .find(|(ours, _)| ours == k)
            .map_or(k.as_str(), |(_, theirs)| theirs);
        let v = match (key, v) {
            ("file_path", Value::String(p)) if !cwd.as_os_str().is_empty() => {
                Value::String(cwd.join(p).to_string_lossy().into_owned())
            }
            _ => v.clone(),
        };
        out.insert(key.to_string(), v);
    }
    Value::Object(out)
}

/// A hook's `updatedInput` for a built-in, back in hermes' field names. A
/// field given by hermes' own name is taken as it is.
pub(crate) fn from_tool_input(tool: &str, input: Value) -> Value {
    if tool == crate::call::UPDATE_PLAN && input.get("todos").is_some() {
        return plan_of(&input);
    }
    let (Some(Builtin { fields, .. }), Value::Object(input)) = (entry(tool), &input) else {
        return input;
    };
    let mut out = Map::new();
    for (k, v) in input {
        let key = fields
            .iter()
            .find(|(_, theirs)| theirs == k)
            .map_or(k.as_str(), |(ours, _)| ours);
        out.insert(key.to_string(), v.clone());
    }
    Value::Object(out)
}

/// `update_plan`'s arguments as Claude Code's `TodoWrite` input: each
/// step a todo (`content`, `status`, and `activeForm`, which hermes has
/// not: the step again).
fn todos(args: &Value) -> Value {
    let todos: Vec<Value> = args["plan"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .map(|s| {
                    serde_json::json!({"content": s["step"], "status": s["status"],
                        "activeForm": s["step"]})
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = serde_json::json!({ "todos": todos });
    if let Some(e) = args.get("explanation") {
        out["explanation"] = e.clone();
    }
    out
}

/// A hook's `TodoWrite` input back as `update_plan`'s arguments.
fn plan_of(input: &Value) -> Value {
    let plan: Vec<Value> = input["todos"]
        .as_array()
        .map(|todos| {
            todos
                .iter()
                .map(|t| serde_json::json!({"step": t["content"], "status": t["status"]}))
                .collect()
        })
        .unwrap_or_default();
    let mut out = serde_json::json!({ "plan": plan });
    if let Some(e) = input.get("explanation") {
        out["explanation"] = e.clone();
    }
    out
}

/// What a post hook reads as `tool_response`: hermes' `content` and
/// `is_error` for every tool, and for a built-in the fields Claude Code's
/// own tool gives (`filePath` and `success` for the file tools; `stdout`,
/// `stderr` and `interrupted` for `Bash`; `file.content` for `Read`).
pub(crate) fn tool_response(tool: &str, input: &Value, content: &str, is_error: bool) -> Value {
    let mut r = serde_json::json!({"content": content, "is_error": is_error});
    let path = input.get("file_path").cloned().unwrap_or(Value::Null);
    match claude_name(tool) {
        "Bash" => {
            r["stdout"] = Value::String(content.to_string());
            r["stderr"] = Value::String(String::new());
            r["interrupted"] = Value::Bool(false);
        }
        "Read" => {
            r["type"] = Value::String("text".into());
            r["file"] = serde_json::json!({"filePath": path, "content": content});
        }
        "Write" | "Edit" => {
            r["filePath"] = path;
            r["success"] = Value::Bool(!is_error);
        }
        _ => {}
    }
    r
}

#[cfg(test)]
mod tests {
    /// Every Claude Code tool name a settings file's matcher is checked
    /// against names a built-in hermes has.
    #[test]
    fn the_names_config_checks_matchers_against_are_built_ins() {
        for name in crate::config::claude::TOOLS_HERMES_HAS {
            assert!(super::hermes_name(name).is_some(), "{name}");
        }
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn built_ins_read_as_claude_codes_tools_and_back() {
        assert_eq!(claude_name("shell"), "Bash");
        assert_eq!(claude_name("edit_file"), "Edit");
        assert_eq!(
            claude_name("mcp__memory__create_entities"),
            "mcp__memory__create_entities"
        );
        let args = json!({"path": "src/.env", "content": "K=1"});
        let input = tool_input("write_file", &args, Path::new("/work/p"));
        assert_eq!(
            input,
            json!({"file_path": "/work/p/src/.env", "content": "K=1"})
        );
        assert_eq!(
            from_tool_input(
                "write_file",
                json!({"file_path": "/work/p/a.md", "content": "x"})
            ),
            json!({"path": "/work/p/a.md", "content": "x"})
        );
        assert_eq!(
            tool_input(
                "grep",
                &json!({"pattern": "x", "ignore_case": true}),
                Path::new("/w")
            ),
            json!({"pattern": "x", "-i": true})
        );
        // An MCP tool's arguments are its own.
        let mcp = json!({"path": "a"});
        assert_eq!(tool_input("mcp__files__write", &mcp, Path::new("/w")), mcp);
        let r = tool_response("shell", &json!({"command": "ls"}), "a\nb\n", false);
        assert_eq!(r["stdout"], "a\nb\n");
        let r = tool_response("edit_file", &input, "edited", true);
        assert_eq!(
            (r["filePath"].as_str(), r["success"].as_bool()),
            (Some("/work/p/src/.env"), Some(false))
        );
    }

    #[test]
    fn update_plan_reads_as_todo_write_and_a_hooks_todos_come_back_as_the_plan() {
        assert_eq!(claude_name("update_plan"), "TodoWrite");
        assert_eq!(hermes_name("TodoWrite"), Some("update_plan"));
        let args =
            json!({"explanation": "e", "plan": [{"step": "Fix it", "status": "in_progress"}]});
        let input = tool_input("update_plan", &args, Path::new("/w"));
        assert_eq!(
            input,
            json!({"todos": [{"content": "Fix it", "status": "in_progress", "activeForm": "Fix it"}],
                "explanation": "e"})
        );
        assert_eq!(from_tool_input("update_plan", input), args);
    }
}
