//! Reading config layers. Each file is parsed twice: once into the typed
//! [`ConfigFile`] so that a mistake is reported with its file, line and key, and
//! once as a plain table that is deep-merged with the other layers.

use std::path::Path;

use super::{ConfigError, ConfigFile};

/// Parses one file. `Ok(None)` when it does not exist and `required` is false.
pub(super) fn read_layer(path: &Path, required: bool) -> Result<Option<toml::Table>, ConfigError> {
    match read_text(path, required)? {
        Some(text) => parse_layer(path, &text).map(Some),
        None => Ok(None),
    }
}

/// A config file's text; `None` when it is missing and not required.
pub(super) fn read_text(path: &Path, required: bool) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A layer from a file of either kind: hermes' TOML, or a Claude Code
/// settings file's hooks.
/// A project file as a layer. Another tool's file (an MCP server file,
/// Claude Code's settings) that cannot be read adds nothing — the run's
/// warnings name it and what is wrong — and never stops hermes; a file of
/// hermes' own that is wrong is an error.
pub(super) fn layer_of(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    if super::mcp_json::is_server_file(path) {
        Ok(super::mcp_json::layer(path, text).unwrap_or_default())
    } else if super::claude::is_settings(path) {
        Ok(super::claude::layer(path, text).unwrap_or_default())
    } else {
        parse_layer(path, text)
    }
}

pub(super) fn parse_layer(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    let file = toml::from_str::<ConfigFile>(text).map_err(|e| located(path, text, &e))?;
    check_servers(&file, path, text)?;
    toml::from_str::<toml::Table>(text).map_err(|e| located(path, text, &e))
}

/// A server is local (`command`) or remote (`url`), never both or neither,
/// and the keys of the one kind are not set on the other.
fn check_servers(file: &ConfigFile, path: &Path, text: &str) -> Result<(), ConfigError> {
    for (name, s) in &file.mcp_servers {
        let table = format!("mcp_servers.{name}");
        let problem = match (&s.url, s.command.is_empty()) {
            (Some(_), false) => Some((
                "command",
                "set `command` (a local server) or `url` (a remote one), not both",
            )),
            (None, true) => Some((
                "command",
                "missing key `command` (a local server) or `url` (a remote one)",
            )),
            // `${HOST:-https://…}/mcp` is checked once expanded, at start.
            (Some(u), true)
                if !(u.starts_with("https://")
                    || u.starts_with("http://")
                    || u.starts_with("${")) =>
            {
                Some(("url", "expected an http:// or https:// URL"))
            }
            (None, false) if !s.headers.is_empty() => {
                Some(("headers", "`headers` are for a remote server (`url`)"))
            }
            (None, false) if s.bearer_token_env.is_some() => Some((
                "bearer_token_env",
                "`bearer_token_env` is for a remote server (`url`)",
            )),
            (None, false) if s.oauth.is_some() => {
                Some(("oauth", "`oauth` is for a remote server (`url`)"))
            }
            _ => None,
        };
        if let Some((key, message)) = problem {
            let header = format!("[{table}]");
            let line = text
                .lines()
                .position(|l| l.trim() == header)
                .map_or(0, |i| i + 1);
            return Err(ConfigError::Invalid {
                file: path.to_path_buf(),
                line,
                key: format!("{table}.{key}"),
                message: message.to_string(),
            });
        }
    }
    Ok(())
}

/// Turns a toml error into `file:line: key: message`.
fn located(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let message = e
        .message()
        .trim()
        .replace("unknown field", "unknown key")
        .replace("missing field", "missing key");
    let (line, key) = match e.span() {
        Some(span) => {
            let start = span.start.min(text.len());
            let line = text[..start].matches('\n').count() + 1;
            (line, key_at(text, line))
        }
        None => (0, String::new()),
    };
    ConfigError::Invalid {
        file: path.to_path_buf(),
        line,
        key,
        message,
    }
}

/// The dotted key a line sets: the nearest `[table]` header above it plus the key
/// left of `=`. Approximate for multi-line values, exact for the usual layouts.
fn key_at(text: &str, line: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(this) = lines.get(line.saturating_sub(1)) else {
        return String::new();
    };
    let header = |l: &str| -> Option<String> {
        let t = l.trim();
        t.starts_with('[')
            .then(|| t.trim_matches(|c| c == '[' || c == ']').trim().to_string())
    };
    if let Some(h) = header(this) {
        return h;
    }
    let key = this.split('=').next().unwrap_or("").trim().to_string();
    let table = lines[..line.saturating_sub(1)]
        .iter()
        .rev()
        .find_map(|l| header(l));
    match table {
        Some(t) if !key.is_empty() => format!("{t}.{key}"),
        Some(t) => t,
        None => key,
    }
}

/// Applies one `-c key=value` override. The value is read as TOML (`3`, `true`,
/// `"x"`, `["a"]`) and, failing that, taken as a bare string so `-c model=gpt-4o` works.
pub(super) fn apply_override(table: &mut toml::Table, arg: &str) -> Result<(), ConfigError> {
    let bad = |message: &str| ConfigError::BadOverride {
        arg: arg.to_string(),
        message: message.to_string(),
    };
    let (key, raw) = arg
        .split_once('=')
        .ok_or_else(|| bad("expected key=value"))?;
    let parts: Vec<&str> = key.trim().split('.').map(str::trim).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad("the key is empty"));
    }
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));

    let mut single = toml::Table::new();
    insert_path(&mut single, &parts, value.clone());
    toml::Value::Table(single)
        .try_into::<ConfigFile>()
        .map_err(|e| bad(&e.message().replace("unknown field", "unknown key")))?;
    insert_path(table, &parts, value);
    Ok(())
}

fn insert_path(table: &mut toml::Table, parts: &[&str], value: toml::Value) {
    let Some((last, parents)) = parts.split_last() else {
        return;
    };
    let mut cur = table;
    for p in parents {
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !entry.is_table() {
            *entry = toml::Value::Table(toml::Table::new());
        }
        let toml::Value::Table(next) = entry else {
            return;
        };
        cur = next;
    }
    cur.insert(last.to_string(), value);
}

/// Deep merge: tables merge key by key; the lists of approval rules and of
/// hooks add up, so no layer takes away a rule or a guard another set;
/// anything else in `over` replaces `base`.
pub(super) fn merge(base: &mut toml::Table, over: toml::Table) {
    merge_at(base, over, "");
}

/// Lists that add up across layers: the approval rules and every hook
/// event's list.
fn added_up(path: &str) -> bool {
    const APPROVALS: &[&str] = &[
        "approvals.allow",
        "approvals.ask",
        "approvals.deny",
        "approvals.rules",
    ];
    APPROVALS.contains(&path)
        || path
            .strip_prefix("hooks.")
            .is_some_and(|k| super::HookEvent::from_key(k).is_some())
}

fn merge_at(base: &mut toml::Table, over: toml::Table, at: &str) {
    for (k, v) in over {
        let path = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}.{k}")
        };
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge_at(b, o, &path),
            (Some(toml::Value::Array(b)), toml::Value::Array(o)) if added_up(&path) => b.extend(o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_file_line_and_dotted_key() {
        let text = "model = \"m\"\n\n[providers.local]\nbase_url = \"http://x\"\nbse_url = 3\n";
        let err = parse_layer(Path::new("/c/config.toml"), text).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("/c/config.toml:5: providers.local.bse_url: unknown key `bse_url`"),
            "{msg}"
        );
    }

    #[test]
    fn wrong_type_names_the_key() {
        let err = parse_layer(Path::new("c.toml"), "max_turns = \"ten\"\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("c.toml:1: max_turns: "), "{msg}");
        assert!(msg.contains("invalid type"), "{msg}");
    }

    #[test]
    fn a_server_is_local_or_remote() {
        let err = |t: &str| parse_layer(Path::new("c.toml"), t).unwrap_err().to_string();
        assert_eq!(
            err("[mcp_servers.x]\ncommand = \"a\"\nurl = \"https://h/mcp\"\n"),
            "c.toml:1: mcp_servers.x.command: set `command` (a local server) or `url` (a remote one), not both"
        );
        assert_eq!(
            err("model = \"m\"\n[mcp_servers.x]\nargs = []\n"),
            "c.toml:2: mcp_servers.x.command: missing key `command` (a local server) or `url` (a remote one)"
        );
        assert!(err("[mcp_servers.x]\nurl = \"ftp://h\"\n")
            .contains("mcp_servers.x.url: expected an http"));
        assert!(
            err("[mcp_servers.x]\ncommand = \"a\"\nbearer_token_env = \"T\"\n")
                .contains("is for a remote server")
        );
        parse_layer(
            Path::new("c.toml"),
            "[mcp_servers.x]\nurl = \"https://h/mcp\"\nheaders = { X-A = \"1\" }\nbearer_token_env = \"T\"\n[mcp_servers.x.oauth]\nclient_id = \"c\"\n",
        )
        .unwrap();
    }

    #[test]
    fn syntax_error_has_a_line() {
        let err = parse_layer(Path::new("c.toml"), "model = \"m\"\nprovider = \n").unwrap_err();
        assert!(err.to_string().starts_with("c.toml:2: "), "{err}");
    }

    #[test]
    fn overrides_parse_toml_values_or_fall_back_to_strings() {
        let mut t = toml::Table::new();
        apply_override(&mut t, "model=gpt-4o").unwrap();
        apply_override(&mut t, "max_turns=3").unwrap();
        apply_override(&mut t, "providers.x.base_url=\"http://h\"").unwrap();
        assert_eq!(t["model"].as_str(), Some("gpt-4o"));
        assert_eq!(t["max_turns"].as_integer(), Some(3));
        assert_eq!(t["providers"]["x"]["base_url"].as_str(), Some("http://h"));
        let err = apply_override(&mut t, "nope=1").unwrap_err().to_string();
        assert!(err.starts_with("-c nope=1: unknown key `nope`"), "{err}");
        assert!(apply_override(&mut t, "max_turns=lots").is_err());
    }

    #[test]
    fn the_annotated_example_is_a_valid_config() {
        let text = include_str!("../../config/config.example.toml");
        parse_layer(Path::new("config.example.toml"), text).unwrap();
    }

    #[test]
    fn rules_and_hooks_add_up_across_layers() {
        let mut user: toml::Table = toml::from_str(
            "[approvals]\ndeny = [\"mcp__git__git_push\"]\nmode = \"ask\"\n[[hooks.pre_tool_call]]\ncommand = \"guard\"",
        )
        .unwrap();
        let project: toml::Table =
            toml::from_str("[approvals]\ndeny = []\nmode = \"auto\"\n[hooks]\npre_tool_call = []")
                .unwrap();
        merge(&mut user, project);
        assert_eq!(user["approvals"]["deny"].as_array().unwrap().len(), 1);
        assert_eq!(user["approvals"]["mode"].as_str(), Some("auto"));
        assert_eq!(user["hooks"]["pre_tool_call"].as_array().unwrap().len(), 1);
        // Every event's list, not only the ones named here: a project's
        // hooks never replace the user's.
        for e in super::super::HookEvent::ALL {
            let key = e.key();
            let layer = |c: &str| -> toml::Table {
                toml::from_str(&format!("[[hooks.{key}]]\ncommand = \"{c}\"")).unwrap()
            };
            let mut user = layer("mine");
            merge(&mut user, layer("the project's"));
            assert_eq!(user["hooks"][key].as_array().unwrap().len(), 2, "{key}");
        }
    }

    #[test]
    fn merge_is_deep() {
        let mut a: toml::Table = toml::from_str("[providers.x]\nbase_url='a'\nmodel='m'").unwrap();
        let b: toml::Table = toml::from_str("[providers.x]\nmodel='n'").unwrap();
        merge(&mut a, b);
        assert_eq!(a["providers"]["x"]["base_url"].as_str(), Some("a"));
        assert_eq!(a["providers"]["x"]["model"].as_str(), Some("n"));
    }
}
