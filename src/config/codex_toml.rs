//! Codex's `config.toml` — its `[mcp_servers.NAME]` tables — as hermes
//! server entries, for `hermes mcp import ~/.codex/config.toml`. The fields
//! Codex shares with an `mcpServers` file (`command`, `args`, `env`, `cwd`,
//! `url`) go through that file's mapping ([`super::mcp_json`]: relative
//! paths anchored, Windows paths refused); Codex's own are mapped here, and
//! each field that does not map is named with why.

use std::path::Path;

use serde_json::Value;

use super::mcp_json::{self, Server};

/// Codex's fields mapped here, beside the shared ones.
const OWN: &[&str] = &[
    "env_vars",
    "bearer_token_env_var",
    "http_headers",
    "env_http_headers",
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
    "enabled",
    "enabled_tools",
    "disabled_tools",
    "scopes",
];

/// The fields an `mcpServers` file has too.
const SHARED: &[&str] = &["command", "args", "env", "cwd", "url"];

/// The servers of Codex's `config.toml` text, relative commands and
/// folders anchored at `base` (the file's folder); `Err` when it is not
/// TOML (with the line) or has no `[mcp_servers]`.
pub fn servers(text: &str, base: &Path) -> Result<Vec<Server>, String> {
    let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
        match line {
            Some(l) => format!("line {l}: {}", e.message()),
            None => e.message().to_string(),
        }
    })?;
    let servers = doc
        .get("mcp_servers")
        .and_then(toml::Value::as_table)
        .ok_or("no [mcp_servers] table: nothing to read")?;
    Ok(servers
        .iter()
        .map(|(raw, v)| {
            let mut dropped = Vec::new();
            let entry = match v.as_table() {
                Some(t) => entry(t, base, &mut dropped),
                None => Err("not a table".to_string()),
            };
            Server {
                name: mcp_json::server_name(raw),
                raw_name: raw.clone(),
                entry,
                dropped,
            }
        })
        .collect())
}

fn entry(t: &toml::Table, base: &Path, dropped: &mut Vec<String>) -> Result<toml::Table, String> {
    if t.contains_key("bearer_token") {
        // Codex refuses it too; copying a secret into config.toml is not
        // hermes' to do.
        return Err(
            "an inline `bearer_token` (Codex refuses it too): put the token in an environment \
             variable and name it in `bearer_token_env_var`"
                .into(),
        );
    }
    for k in t
        .keys()
        .filter(|k| !SHARED.contains(&k.as_str()) && !OWN.contains(&k.as_str()))
    {
        dropped.push(format!("dropped `{k}`: {}", why_dropped(k)));
    }
    // The shared part as an `mcpServers` entry, Codex's headers with it.
    let mut shared: serde_json::Map<String, Value> = SHARED
        .iter()
        .filter_map(|k| Some((k.to_string(), json(t.get(*k)?))))
        .collect();
    let mut headers: serde_json::Map<String, Value> = strings_of(t.get("http_headers"))
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    for (header, var) in strings_of(t.get("env_http_headers")) {
        headers.insert(header, Value::String(format!("${{{var}}}")));
    }
    if !headers.is_empty() {
        shared.insert("headers".into(), Value::Object(headers));
    }
    let mut out = mcp_json::entry(&Value::Object(shared), base, dropped)?;
    // Variables Codex passes through by name: hermes passes `${NAME}`,
    // expanded at each start.
    let names: Vec<String> = t
        .get("env_vars")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| match v {
            toml::Value::String(n) => Some(n.clone()),
            toml::Value::Table(o) => o.get("name")?.as_str().map(str::to_string),
            _ => None,
        })
        .collect();
    if !names.is_empty() {
        let env = out
            .entry("env")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let Some(env) = env.as_table_mut() {
            for n in names {
                env.entry(n.clone())
                    .or_insert_with(|| format!("${{{n}}}").into());
            }
        }
    }
    if let Some(var) = t.get("bearer_token_env_var").and_then(toml::Value::as_str) {
        out.insert("bearer_token_env".into(), var.into());
    }
    let ms = |secs: &toml::Value| -> Option<i64> {
        let s = secs
            .as_float()
            .or_else(|| secs.as_integer().map(|i| i as f64))?;
        let ms = (s * 1000.0).round();
        (ms >= 1.0 && ms < i64::MAX as f64).then_some(ms as i64)
    };
    let startup = t.get("startup_timeout_sec").and_then(ms).or_else(|| {
        t.get("startup_timeout_ms")
            .and_then(toml::Value::as_integer)
    });
    if let Some(ms) = startup.filter(|m| *m > 0) {
        out.insert("startup_timeout_ms".into(), ms.into());
    }
    if let Some(ms) = t.get("tool_timeout_sec").and_then(ms) {
        out.insert("tool_timeout_ms".into(), ms.into());
    }
    if t.get("enabled").and_then(toml::Value::as_bool) == Some(false) {
        out.insert("enabled".into(), false.into());
    }
    for key in ["enabled_tools", "disabled_tools"] {
        if let Some(list) = t.get(key).filter(|v| v.is_array()) {
            out.insert(key.into(), list.clone());
        }
    }
    if let Some(scopes) = t.get("scopes").filter(|v| v.is_array()) {
        let mut oauth = toml::Table::new();
        oauth.insert("scopes".into(), scopes.clone());
        out.insert("oauth".into(), toml::Value::Table(oauth));
    }
    Ok(out)
}

/// A table of strings' pairs.
fn strings_of(v: Option<&toml::Value>) -> impl Iterator<Item = (String, String)> + '_ {
    v.and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
}

/// A TOML value as JSON (what the `mcpServers` mapping reads).
fn json(v: &toml::Value) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Why hermes does not use a field of Codex's it knows of.
fn why_dropped(field: &str) -> &'static str {
    match field {
        "required" => {
            "hermes starts a server when it is first needed and names one that fails; nothing \
             to require"
        }
        "oauth_resource" => "hermes reads the resource from the server's own metadata",
        "transport" | "type" => "hermes tells a remote server by its `url`",
        _ => "hermes has no such setting",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Codex config as its users write one (ours): a local server with
    /// variables passed through and a timeout in seconds, a remote one with
    /// a token variable and headers, one switched off, and the rest of the
    /// file Codex's own.
    const CODEX: &str = r#"
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@acme/docs-mcp"]
env = { "DOCS_REGION" = "eu" }
env_vars = ["DOCS_TOKEN"]
startup_timeout_sec = 20
tool_timeout_sec = 45.5
required = true

[mcp_servers.figma]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "FIGMA_OAUTH_TOKEN"
http_headers = { "X-Region" = "us-east-1" }
env_http_headers = { "X-Org" = "FIGMA_ORG" }
scopes = ["files:read"]

[mcp_servers.local_tool]
command = "./bin/tool"
cwd = "work"
enabled = false
disabled_tools = ["delete_all"]

[mcp_servers.leaky]
url = "https://mcp.example.com/mcp"
bearer_token = "sk-live-1234"
"#;

    fn by_name<'a>(list: &'a [Server], name: &str) -> &'a Server {
        list.iter().find(|s| s.raw_name == name).unwrap()
    }

    #[test]
    fn codex_servers_map_to_hermes_entries_and_say_what_does_not() {
        let list = servers(CODEX, Path::new("/home/ada/.codex")).unwrap();
        assert_eq!(list.len(), 4);
        let docs = by_name(&list, "docs");
        let e = docs.entry.as_ref().unwrap();
        assert_eq!(e["command"].as_str(), Some("npx"));
        assert_eq!(e["env"]["DOCS_REGION"].as_str(), Some("eu"));
        assert_eq!(e["env"]["DOCS_TOKEN"].as_str(), Some("${DOCS_TOKEN}"));
        assert_eq!(e["startup_timeout_ms"].as_integer(), Some(20_000));
        assert_eq!(e["tool_timeout_ms"].as_integer(), Some(45_500));
        assert_eq!(docs.dropped.len(), 1, "{:?}", docs.dropped);
        assert!(docs.dropped[0].contains("`required`"), "{:?}", docs.dropped);

        let figma = by_name(&list, "figma");
        let e = figma.entry.as_ref().unwrap();
        assert_eq!(e["url"].as_str(), Some("https://mcp.example.com/mcp"));
        assert_eq!(e["bearer_token_env"].as_str(), Some("FIGMA_OAUTH_TOKEN"));
        assert_eq!(e["headers"]["X-Region"].as_str(), Some("us-east-1"));
        assert_eq!(e["headers"]["X-Org"].as_str(), Some("${FIGMA_ORG}"));
        assert_eq!(e["oauth"]["scopes"][0].as_str(), Some("files:read"));
        assert!(figma.dropped.is_empty(), "{:?}", figma.dropped);

        let local = by_name(&list, "local_tool");
        let e = local.entry.as_ref().unwrap();
        assert_eq!(e["command"].as_str(), Some("/home/ada/.codex/./bin/tool"));
        assert_eq!(e["cwd"].as_str(), Some("/home/ada/.codex/work"));
        assert_eq!(e["enabled"].as_bool(), Some(false));
        assert_eq!(e["disabled_tools"][0].as_str(), Some("delete_all"));

        let leaky = by_name(&list, "leaky");
        let why = leaky.entry.as_ref().unwrap_err();
        assert!(why.contains("bearer_token_env_var"), "{why}");
    }

    #[test]
    fn a_file_that_is_not_toml_or_has_no_servers_says_so() {
        let err = servers("model = \"x\"\n[mcp_servers.a\n", Path::new("/")).unwrap_err();
        assert!(err.starts_with("line 2:"), "{err}");
        let err = servers("model = \"x\"\n", Path::new("/")).unwrap_err();
        assert!(err.contains("no [mcp_servers]"), "{err}");
    }
}
