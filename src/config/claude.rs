//! Claude Code's settings files as a config layer: their `hooks`, in the
//! shape hermes' own `[[hooks.*]]` take, and their `permissions` as
//! approval rules (`claude_permissions`). Read from `~/.claude/settings.json`
//! (or `$CLAUDE_CONFIG_DIR/settings.json`) above the user's config, and from
//! a project's `.claude/settings.json` and `.claude/settings.local.json`
//! beside its `.hermes/config.toml` — held by trust like it. Everything else
//! in those files (env, model) is Claude Code's own and is left alone.
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "Edit|Write",
//!   "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 30}]}]}}
//! ```

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{ConfigError, HookEvent};

/// Claude Code's model aliases: a Claude model of its choosing, not an id
/// any provider takes, so the run's own model stands in for them (in agent
/// types and in commands alike).
pub(crate) const MODEL_ALIASES: &[&str] = &["sonnet", "opus", "haiku", "opusplan", "sonnet[1m]"];

/// Claude Code's tools hermes has a built-in for (`policy::claude_tools`
/// maps them): a hook matcher naming any other is dead, and said so.
pub(crate) const TOOLS_HERMES_HAS: &[&str] = &[
    "Bash",
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Glob",
    "LS",
    "Grep",
    "Task",
    "Agent",
    "TodoWrite",
    "WebFetch",
];

/// The user's own Claude Code settings file.
pub(crate) fn user_settings() -> Option<PathBuf> {
    let dir = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")))?;
    Some(dir.join("settings.json"))
}

/// Whether `path` is a Claude Code settings file (read as JSON).
pub(crate) fn is_settings(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|f| f == "settings.json" || f == "settings.local.json")
}

/// The file's hooks as a hermes layer: `{hooks: {pre_tool_call: [...]}}`,
/// each hook named `FILE#Event[i].hooks[j]` so `hermes hooks test` and
/// every message says where it came from. A file that does not parse, or a
/// hook without a command, is an error naming the file, line and key.
pub(crate) fn layer(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    let bad = |line: usize, key: &str, message: String| ConfigError::Invalid {
        file: path.to_path_buf(),
        line,
        key: key.to_string(),
        message,
    };
    let v: Value =
        serde_json::from_str(text).map_err(|e| bad(e.line(), "(JSON)", e.to_string()))?;
    let Value::Object(top) = v else {
        return Err(bad(1, "(top)", "a settings file is a JSON object".into()));
    };
    let mut out = toml::Table::new();
    let rules = super::claude_permissions::rules(path, &shown(path), &top);
    if !rules.is_empty() {
        let mut approvals = toml::Table::new();
        approvals.insert("rules".into(), toml::Value::Array(rules));
        out.insert("approvals".into(), toml::Value::Table(approvals));
    }
    if top.get("disableAllHooks") == Some(&Value::Bool(true)) {
        return Ok(out);
    }
    let Some(hooks) = top.get("hooks") else {
        return Ok(out);
    };
    let line_of = |needle: &str| {
        text.find(needle)
            .map_or(1, |at| text[..at].matches('\n').count() + 1)
    };
    let Value::Object(hooks) = hooks else {
        return Err(bad(
            line_of("\"hooks\""),
            "hooks",
            "must be an object of events".into(),
        ));
    };
    let label = shown(path);
    let mut section = toml::Table::new();
    for (event, groups) in hooks {
        // An event hermes has no moment for is skipped ([`notes`] says so).
        let Some(list) = HookEvent::from_claude_name(event).map(HookEvent::key) else {
            continue;
        };
        let at = line_of(&format!("\"{event}\""));
        let Value::Array(groups) = groups else {
            return Err(bad(
                at,
                &format!("hooks.{event}"),
                "must be a list of {\"matcher\", \"hooks\"}".into(),
            ));
        };
        let mut entries = Vec::new();
        for (i, group) in groups.iter().enumerate() {
            let key = format!("hooks.{event}[{i}]");
            let matcher = match group.get("matcher") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(m)) => m.clone(),
                Some(_) => {
                    return Err(bad(
                        at,
                        &format!("{key}.matcher"),
                        "must be a string".into(),
                    ))
                }
            };
            let Some(Value::Array(commands)) = group.get("hooks") else {
                return Err(bad(
                    at,
                    &format!("{key}.hooks"),
                    "must be a list of hooks".into(),
                ));
            };
            for (j, h) in commands.iter().enumerate() {
                let key = format!("{key}.hooks[{j}]");
                // A `prompt` or `agent` hook is skipped ([`notes`] says so).
                if hook_type(h) != "command" {
                    continue;
                }
                // One without a command is skipped ([`notes`] says so).
                let Some(command) = h.get("command").and_then(Value::as_str) else {
                    continue;
                };
                let mut e = toml::Table::new();
                e.insert(
                    "name".into(),
                    format!("{label}#{event}[{i}].hooks[{j}]").into(),
                );
                e.insert("matcher".into(), matcher.clone().into());
                e.insert("command".into(), command.into());
                // Claude Code's timeout is in seconds.
                match h.get("timeout") {
                    None | Some(Value::Null) => {}
                    Some(t) => match t.as_f64().filter(|s| *s > 0.0 && *s < 86_400.0) {
                        Some(s) => {
                            e.insert("timeout_ms".into(), ((s * 1000.0) as i64).max(1).into());
                        }
                        None => {
                            return Err(bad(
                                at,
                                &format!("{key}.timeout"),
                                "must be a number of seconds".into(),
                            ))
                        }
                    },
                }
                // `"async": true`: beside the call, never holding it.
                if h.get("async") == Some(&Value::Bool(true)) {
                    e.insert("background".into(), true.into());
                }
                // Claude Code's `if`: the hook runs for the calls that
                // rule names (one hermes cannot read: skipped, [`notes`]).
                if let Some(spec) = h.get("if").and_then(Value::as_str) {
                    let base = path
                        .parent()
                        .and_then(Path::parent)
                        .unwrap_or(Path::new("/"));
                    match super::claude_permissions::condition(spec, base) {
                        Some(Some((pointer, re))) => {
                            let mut when = toml::Table::new();
                            when.insert(pointer, re.into());
                            e.insert("when".into(), toml::Value::Table(when));
                        }
                        Some(None) => {}
                        None => continue,
                    }
                }
                entries.push(toml::Value::Table(e));
            }
        }
        section.insert(list.to_string(), toml::Value::Array(entries));
    }
    if !section.is_empty() {
        out.insert("hooks".into(), toml::Value::Table(section));
    }
    Ok(out)
}

fn hook_type(h: &Value) -> &str {
    h.get("type").and_then(Value::as_str).unwrap_or("command")
}

/// What of the file hermes does not run, one line each for the run's
/// warnings: an event it has no moment for, a hook that is not a command,
/// or the whole file when it cannot be read — it is Claude Code's, so it
/// never stops hermes.
pub(crate) fn notes(path: &Path, text: &str) -> Vec<String> {
    if let Err(e) = layer(path, text) {
        return vec![format!("{e}; Claude Code's hooks in it were not read")];
    }
    let Ok(Value::Object(v)) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let mut out = super::claude_permissions::notes(path, text, &v);
    if v.get("disableAllHooks") == Some(&Value::Bool(true)) {
        return out;
    }
    let Some(Value::Object(hooks)) = v.get("hooks") else {
        return out;
    };
    let line_of = |needle: &str| {
        text.find(needle)
            .map_or(1, |at| text[..at].matches('\n').count() + 1)
    };
    let file = path.display();
    for (event, groups) in hooks {
        let at = line_of(&format!("\"{event}\""));
        if HookEvent::from_claude_name(event).is_none() {
            out.push(format!(
                "{file}:{at}: hooks.{event}: hermes has no moment for Claude Code's {event} \
                 event; its hooks are skipped (hermes runs: {})",
                HookEvent::ALL.map(HookEvent::claude_name).join(", ")
            ));
            continue;
        }
        for (i, group) in groups.as_array().into_iter().flatten().enumerate() {
            // A matcher of names: each a tool hermes has, an MCP tool, or
            // dead — said once, with the file and line.
            if let Some(m) = group.get("matcher").and_then(Value::as_str) {
                let names = m
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|');
                for name in m.split('|').filter(|n| names && !n.is_empty()) {
                    let ours = crate::config::defaults::BUILTIN_TOOLS.contains(&name)
                        || name.starts_with("mcp__")
                        || TOOLS_HERMES_HAS.contains(&name);
                    if !ours {
                        out.push(format!(
                            "{file}:{at}: hooks.{event}[{i}].matcher: `{name}` names no tool \
                             hermes has; it never matches"
                        ));
                    }
                }
            }
            let list = group.get("hooks").and_then(Value::as_array);
            for (j, h) in list.into_iter().flatten().enumerate() {
                let kind = hook_type(h);
                let key = format!("{file}:{at}: hooks.{event}[{i}].hooks[{j}]");
                if kind != "command" {
                    out.push(format!(
                        "{key}: a `{kind}` hook; hermes runs command hooks only, so it is skipped"
                    ));
                } else if h.get("command").and_then(Value::as_str).is_none() {
                    out.push(format!(
                        "{key}.command: a command hook needs a command; it is skipped"
                    ));
                } else if let Some(spec) = h.get("if").and_then(Value::as_str) {
                    let base = path
                        .parent()
                        .and_then(Path::parent)
                        .unwrap_or(Path::new("/"));
                    if super::claude_permissions::condition(spec, base).is_none() {
                        out.push(format!(
                            "{key}.if: `{spec}` names no tool hermes has; the hook is skipped"
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The file as hooks' names show it: `~/.claude/settings.json`,
/// `.claude/settings.json`.
fn shown(path: &Path) -> String {
    let dir = path.parent().and_then(Path::file_name);
    match (dir, path.file_name()) {
        (Some(d), Some(f)) if d == ".claude" => {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            let user =
                home.is_some_and(|h| path.parent().and_then(Path::parent) == Some(h.as_path()));
            format!(
                "{}.claude/{}",
                if user { "~/" } else { "" },
                f.to_string_lossy()
            )
        }
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_become_a_layer_named_by_where_they_came_from() {
        let text = r#"{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/protect.sh", "timeout": 5}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -r .tool_input.command >> log"}]}
    ],
    "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt.sh"}]}]
  }
}"#;
        let t = layer(Path::new("/p/.claude/settings.json"), text).unwrap();
        let pre = t["hooks"]["pre_tool_call"].as_array().unwrap();
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["matcher"].as_str(), Some("Edit|Write"));
        assert_eq!(pre[0]["timeout_ms"].as_integer(), Some(5000));
        assert_eq!(
            pre[1]["name"].as_str(),
            Some(".claude/settings.json#PreToolUse[1].hooks[0]")
        );
        assert_eq!(t["hooks"]["post_tool_call"].as_array().unwrap().len(), 1);
        let file: super::super::ConfigFile = toml::Value::Table(t).try_into().unwrap();
        assert_eq!(file.hooks.list(HookEvent::Pre).len(), 2);
    }

    #[test]
    fn bad_settings_name_file_line_and_key() {
        let text = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\"}]}\n    ]\n  }\n}";
        let path = Path::new("/p/.claude/settings.json");
        assert!(layer(path, text).unwrap()["hooks"]["pre_tool_call"]
            .as_array()
            .unwrap()
            .is_empty());
        let s = notes(path, text).join("\n");
        assert!(
            s.contains("/p/.claude/settings.json:3: hooks.PreToolUse[0].hooks[0].command"),
            "{s}"
        );
        let e = layer(
            Path::new("/p/.claude/settings.json"),
            "{\n \"hooks\": {,}\n}",
        )
        .unwrap_err();
        assert!(e.to_string().contains("settings.json:2"), "{e}");
        // An event hermes has no moment for, and a hook that is not a
        // command: skipped, the rest read, each named once.
        let text = "{\"hooks\": {\n  \"Setup\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}],\n  \"Stop\": [{\"hooks\": [{\"type\": \"prompt\", \"prompt\": \"done?\"}, {\"type\": \"command\", \"command\": \"./stop.sh\"}]}]\n}}";
        let t = layer(Path::new("/p/s.json"), text).unwrap();
        let stop = t["hooks"]["stop"].as_array().unwrap();
        assert_eq!(stop.len(), 1);
        assert_eq!(stop[0]["command"].as_str(), Some("./stop.sh"));
        assert_eq!(t["hooks"].as_table().unwrap().len(), 1, "{t:?}");
        let notes = notes(Path::new("/p/s.json"), text);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("/p/s.json:2: hooks.Setup: hermes has no moment"),
            "{notes:?}"
        );
        assert!(
            notes[1].starts_with("/p/s.json:3: hooks.Stop[0].hooks[0]: a `prompt` hook"),
            "{notes:?}"
        );
        assert!(layer(
            Path::new("/p/s.json"),
            r#"{"disableAllHooks": true, "hooks": {"Stop": 1}}"#
        )
        .unwrap()
        .is_empty());
    }
}
