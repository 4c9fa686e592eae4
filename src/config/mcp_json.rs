//! An `mcpServers` JSON file — Claude Code's `.mcp.json`, Claude Desktop's
//! config, Cursor's and VS Code's `mcp.json` (`servers`) — as hermes
//! server entries. `hermes mcp import` copies them into the user config; a
//! project's own `.mcp.json`, `.cursor/mcp.json` and `.vscode/mcp.json` are
//! read in place as a layer, held by trust. Either way `${VAR}` stays as
//! written, to be expanded at each start ([`super::vars`]), and every field
//! that does not map is named with the reason.

use std::path::Path;

use serde_json::Value;

/// One server of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    /// The name hermes gives it (the file's key, made a valid name).
    pub name: String,
    /// The key as the file wrote it.
    pub raw_name: String,
    /// Its `[mcp_servers.NAME]` table, or why it cannot be used.
    pub entry: Result<toml::Table, String>,
    /// What of it hermes does not use, and why.
    pub dropped: Vec<String>,
}

/// The file's servers, relative commands and folders anchored at `base`
/// (the file's folder); `Err` when it has no server object.
pub fn servers(json: &Value, base: &Path) -> Result<Vec<Server>, String> {
    let mut json = json.clone();
    editor_vars(&mut json, base);
    let servers = json
        .get("mcpServers")
        .or_else(|| json.get("servers"))
        .and_then(Value::as_object)
        .ok_or("no `mcpServers` (or `servers`) object: nothing to read")?;
    Ok(servers
        .iter()
        .map(|(raw, s)| {
            let mut dropped = Vec::new();
            let entry = entry(s, base, &mut dropped);
            Server {
                name: server_name(raw),
                raw_name: raw.clone(),
                entry,
                dropped,
            }
        })
        .collect())
}

/// The variables VS Code and Cursor expand in their `mcp.json` and no
/// environment holds: `${workspaceFolder}` (the project, `base`),
/// `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` — put
/// in as the editors do; `${env:NAME}` becomes `${NAME}`, expanded at each
/// start as the rest are.
fn editor_vars(v: &mut Value, base: &Path) {
    match v {
        Value::String(text) if text.contains("${") => {
            let home = std::env::var("HOME").unwrap_or_default();
            let folder = std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf());
            let name = folder
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            *text = text
                .replace("${workspaceFolder}", &folder.to_string_lossy())
                .replace("${workspaceFolderBasename}", &name)
                .replace("${userHome}", &home)
                .replace("${pathSeparator}", "/")
                .replace("${env:", "${");
        }
        Value::Array(items) => items.iter_mut().for_each(|i| editor_vars(i, base)),
        Value::Object(map) => map.values_mut().for_each(|i| editor_vars(i, base)),
        _ => {}
    }
}

/// The file's servers as a config layer: `{mcp_servers: {NAME: …}}`.
/// A file that is not JSON is an error naming it and the line.
pub fn layer(path: &Path, text: &str) -> Result<toml::Table, super::ConfigError> {
    let bad = |line: usize, message: String| super::ConfigError::Invalid {
        file: path.to_path_buf(),
        line,
        key: "mcpServers".into(),
        message,
    };
    let json = parse(path, text).map_err(|e| bad(e.line(), e.to_string()))?;
    let base = path
        .parent()
        .and_then(|d| {
            if d.ends_with(".cursor") || d.ends_with(".vscode") {
                d.parent()
            } else {
                Some(d)
            }
        })
        .unwrap_or(Path::new("."));
    let list = servers(&json, base).map_err(|e| bad(1, e))?;
    let mut table = toml::Table::new();
    for s in list {
        if let Ok(e) = s.entry {
            table.insert(s.name, toml::Value::Table(e));
        }
    }
    let mut out = toml::Table::new();
    if !table.is_empty() {
        out.insert("mcp_servers".into(), toml::Value::Table(table));
    }
    Ok(out)
}

/// What a project's server file leaves out, one line a server, for the
/// run's warnings.
///
/// A file that cannot be read as one (broken JSON, no server object) is
/// one line naming it, its line and what is wrong: its servers are left
/// out and the rest of hermes runs — the file is another tool's.
pub fn notes(path: &Path, text: &str) -> Vec<String> {
    if let Err(e) = layer(path, text) {
        return vec![format!("{e}; its servers were not read")];
    }
    let Ok(json) = parse(path, text) else {
        return Vec::new();
    };
    let Ok(list) = servers(&json, Path::new(".")) else {
        return Vec::new();
    };
    list.into_iter()
        .filter_map(|s| {
            let why = match (&s.entry, s.dropped.is_empty()) {
                (Err(e), _) => format!("not used: {e}"),
                (Ok(_), false) => s.dropped.join("; "),
                (Ok(_), true) => return None,
            };
            Some(format!(
                "{}: server `{}`: {why}",
                path.display(),
                s.raw_name
            ))
        })
        .collect()
}

/// The file as the editor that owns it reads it: VS Code's (and Cursor's,
/// a VS Code) with comments and trailing commas; the rest as JSON.
fn parse(path: &Path, text: &str) -> serde_json::Result<Value> {
    let editors = path
        .parent()
        .is_some_and(|d| d.ends_with(".vscode") || d.ends_with(".cursor"));
    match editors {
        true => serde_json::from_str(&crate::util::jsonc::strip(text)),
        false => serde_json::from_str(text),
    }
}

/// Whether `path` is one of the server files a project may hold.
pub fn is_server_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|f| f == ".mcp.json" || f == "mcp.json")
}

/// A server name hermes accepts, from the file's key.
pub fn server_name(raw: &str) -> String {
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .replace("__", "_")
}

/// Fields every entry may have, mapped below.
const MAPPED: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "type",
    "url",
    "headers",
    "disabledTools",
    "disabled",
];

/// Why hermes does not use a field it knows of.
fn why_dropped(field: &str) -> &'static str {
    match field {
        "headersHelper" => "hermes runs no header helper; set `headers` or `bearer_token_env`",
        "envFile" => "hermes reads no env file; put the variables in `env` as ${VAR}",
        "alwaysAllow" | "autoApprove" => "approvals are hermes' own; add [approvals] allow rules",
        "timeout" => "set startup_timeout_ms / tool_timeout_ms",
        "oauth" => "hermes finds a remote server's OAuth itself; set [mcp_servers.NAME.oauth] for a registered client",
        _ => "hermes has no such setting",
    }
}

pub(super) fn entry(
    s: &Value,
    base: &Path,
    dropped: &mut Vec<String>,
) -> Result<toml::Table, String> {
    // VS Code's prompted values, read from the environment instead.
    let mut inputs = Vec::new();
    let s = &inputs_as_env(s, &mut inputs);
    inputs.sort();
    inputs.dedup();
    for (input, var) in inputs {
        dropped.push(format!(
            "`${{input:{input}}}` asks VS Code for a value, which hermes cannot: it reads \
             ${var} instead — export {var}=…, or write the value in the server's env in \
             config.toml"
        ));
    }
    let Some(obj) = s.as_object() else {
        return Err("not an object".into());
    };
    for k in obj.keys().filter(|k| !MAPPED.contains(&k.as_str())) {
        dropped.push(format!("dropped `{k}`: {}", why_dropped(k)));
    }
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_string))
            .collect()
    };
    let map = |v: Option<&Value>| -> toml::Table {
        v.and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), toml::Value::from(v))))
            .collect()
    };
    let mut t = toml::Table::new();
    if let Some(url) = obj.get("url").and_then(Value::as_str) {
        let kind = obj.get("type").and_then(Value::as_str).unwrap_or("http");
        if !matches!(kind, "http" | "sse" | "streamable-http" | "streamableHttp") {
            return Err(format!("unknown server type `{kind}`"));
        }
        t.insert("url".into(), url.into());
        // `Authorization: Bearer ${VAR}` becomes `bearer_token_env`.
        let mut headers = map(obj.get("headers"));
        let bearer = headers.iter().find_map(|(k, v)| {
            let var = v.as_str()?.strip_prefix("Bearer ${")?.strip_suffix('}')?;
            let plain =
                !var.is_empty() && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (k.eq_ignore_ascii_case("authorization") && plain).then(|| (k.clone(), var.to_string()))
        });
        if let Some((k, var)) = bearer {
            headers.remove(&k);
            t.insert("bearer_token_env".into(), var.into());
        }
        if !headers.is_empty() {
            t.insert("headers".into(), toml::Value::Table(headers));
        }
    } else {
        let Some(command) = obj.get("command").and_then(Value::as_str) else {
            return Err("no command and no url".into());
        };
        if windows_path(command) {
            return Err(format!("`{command}` is a Windows path"));
        }
        let relative = |p: &str| {
            p.contains('/')
                && !Path::new(p).is_absolute()
                && !p.starts_with('~')
                && !p.starts_with("${")
        };
        let command = if relative(command) {
            base.join(command).display().to_string()
        } else {
            command.to_string()
        };
        t.insert("command".into(), command.into());
        let args = strings(obj.get("args"));
        if !args.is_empty() {
            t.insert(
                "args".into(),
                toml::Value::Array(args.into_iter().map(Into::into).collect()),
            );
        }
        let env = map(obj.get("env"));
        if !env.is_empty() {
            t.insert("env".into(), toml::Value::Table(env));
        }
        if let Some(cwd) = obj.get("cwd").and_then(Value::as_str) {
            if windows_path(cwd) {
                dropped.push(format!("dropped `cwd`: `{cwd}` is a Windows path"));
            } else {
                let cwd = if Path::new(cwd).is_absolute()
                    || cwd.starts_with('~')
                    || cwd.starts_with("${")
                {
                    cwd.to_string()
                } else {
                    base.join(cwd).display().to_string()
                };
                t.insert("cwd".into(), cwd.into());
            }
        }
    }
    let disabled = strings(obj.get("disabledTools"));
    if !disabled.is_empty() {
        t.insert(
            "disabled_tools".into(),
            toml::Value::Array(disabled.into_iter().map(Into::into).collect()),
        );
    }
    if obj.get("disabled") == Some(&Value::Bool(true)) {
        t.insert("enabled".into(), false.into());
    }
    Ok(t)
}

/// `v` with each `${input:name}` (VS Code prompts for it) as `${NAME}`, a
/// variable of the environment hermes expands at the server's start; each
/// (input, variable) is added to `found`.
fn inputs_as_env(v: &Value, found: &mut Vec<(String, String)>) -> Value {
    match v {
        Value::String(s) if s.contains("${input:") => {
            let mut out = String::new();
            let mut rest = s.as_str();
            while let Some(at) = rest.find("${input:") {
                let after = &rest[at + "${input:".len()..];
                let Some(end) = after.find('}') else { break };
                let name = &after[..end];
                let var: String = name
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_uppercase()
                        } else {
                            '_'
                        }
                    })
                    .collect();
                out.push_str(&rest[..at]);
                out.push_str(&format!("${{{var}}}"));
                found.push((name.to_string(), var));
                rest = &after[end + 1..];
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| inputs_as_env(x, found)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), inputs_as_env(x, found)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `C:\…`, `\\server\…`: a path only Windows reads.
fn windows_path(p: &str) -> bool {
    let b = p.as_bytes();
    (b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/'))
        || p.starts_with("\\\\")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// VS Code's `${input:…}`: read from the environment, the variable
    /// named in a note that says how to set it.
    #[test]
    fn a_vscode_input_is_read_from_the_environment_and_named() {
        let file = json!({
            "inputs": [{"type": "promptString", "id": "youtube_api_key", "description": "YouTube key", "password": true}],
            "servers": {"youtube": {
                "command": "npx", "args": ["-y", "youtube-mcp", "--key=${input:youtube_api_key}"],
                "env": {"YOUTUBE_KEY": "${input:youtube_api_key}"}
            }}
        });
        let list = servers(&file, Path::new("/p")).unwrap();
        let yt = &list[0];
        let e = yt.entry.clone().unwrap();
        assert_eq!(e["env"]["YOUTUBE_KEY"].as_str(), Some("${YOUTUBE_API_KEY}"));
        assert_eq!(e["args"][2].as_str(), Some("--key=${YOUTUBE_API_KEY}"));
        assert_eq!(
            yt.dropped,
            ["`${input:youtube_api_key}` asks VS Code for a value, which hermes cannot: it reads \
              $YOUTUBE_API_KEY instead — export YOUTUBE_API_KEY=…, or write the value in the \
              server's env in config.toml"]
        );
    }

    #[test]
    fn servers_keep_their_variables_and_say_what_they_drop() {
        let file = json!({"mcpServers": {
            "github": {
                "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
                "disabledTools": ["delete_repository"]
            },
            "api": {
                "type": "http", "url": "${API_BASE:-https://api.example.com}/mcp",
                "headers": {"Authorization": "Bearer ${API_KEY}", "X-Team": "${TEAM}"},
                "headersHelper": "./get-headers.sh"
            },
            "win": {"command": "C:\\tools\\server.exe"},
            "local": {"command": "./build/index.js", "cwd": "${CLAUDE_PLUGIN_ROOT}"}
        }});
        let list = servers(&file, Path::new("/p")).unwrap();
        let by = |n: &str| list.iter().find(|s| s.name == n).unwrap();
        let gh = by("github").entry.clone().unwrap();
        assert_eq!(
            gh["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"].as_str(),
            Some("${GITHUB_TOKEN}")
        );
        assert_eq!(gh["disabled_tools"][0].as_str(), Some("delete_repository"));
        let api = by("api");
        let e = api.entry.clone().unwrap();
        assert_eq!(
            e["url"].as_str(),
            Some("${API_BASE:-https://api.example.com}/mcp")
        );
        assert_eq!(e["bearer_token_env"].as_str(), Some("API_KEY"));
        assert_eq!(e["headers"]["X-Team"].as_str(), Some("${TEAM}"));
        assert!(api.dropped[0].starts_with("dropped `headersHelper`: hermes runs no header helper"));
        assert!(by("win")
            .entry
            .as_ref()
            .unwrap_err()
            .contains("Windows path"));
        let local = by("local").entry.clone().unwrap();
        assert_eq!(local["command"].as_str(), Some("/p/./build/index.js"));
        assert_eq!(local["cwd"].as_str(), Some("${CLAUDE_PLUGIN_ROOT}"));
    }
}
