//! Each server's tool catalog on disk, so the tools are known (and searchable)
//! before the server runs. The file is keyed by a fingerprint of the launch
//! config: change the command, args, env or cwd and the old catalog is ignored.
//! Filters are applied after loading, so editing include/exclude needs no refresh.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::McpServerSettings;
use crate::util::hash;

/// 2: tools carry their read-only / destructive annotations; 3: what the
/// server says of itself (`about`); 4: its prompts and resources. Older
/// caches are listed again.
const VERSION: u32 = 4;
/// A catalog older than this is refreshed in the background at start-up.
pub(super) const STALE_AFTER_SECS: u64 = 24 * 3600;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedTool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default)]
    pub description: String,
    pub input_schema: serde_json::Value,
    /// The server says the tool only reads (`readOnlyHint: true`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// The server says the tool may destroy data (an explicit
    /// `destructiveHint: true`; the spec's implied default is not counted,
    /// or every unannotated tool would be asked).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub destructive: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Catalog {
    pub version: u32,
    pub fingerprint: String,
    /// Unix seconds.
    pub fetched_at: u64,
    pub tools: Vec<CachedTool>,
    #[serde(default, skip_serializing_if = "About::is_empty")]
    pub about: About,
    /// What the user may take from the server: prompts as REPL commands,
    /// resources as `@server:uri` mentions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<CachedPrompt>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<CachedResource>,
}

/// A prompt a server offers (`prompts/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CachedPrompt {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PromptArgument {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

/// A resource a server offers (`resources/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CachedResource {
    pub uri: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// One listing of a server: everything a catalog holds but its stamp.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Listed {
    pub tools: Vec<CachedTool>,
    pub prompts: Vec<CachedPrompt>,
    pub resources: Vec<CachedResource>,
}

/// What a server says of itself in its handshake (`serverInfo` and
/// `instructions`): what the system prompt tells the model of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct About {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Written by the server for the model: how to use its tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl About {
    fn is_empty(&self) -> bool {
        self == &About::default()
    }
}

impl Catalog {
    pub(crate) fn new(fingerprint: String, listed: Listed, about: About) -> Catalog {
        Catalog {
            version: VERSION,
            fingerprint,
            fetched_at: now_secs(),
            tools: listed.tools,
            about,
            prompts: listed.prompts,
            resources: listed.resources,
        }
    }

    pub(crate) fn age_secs(&self) -> u64 {
        now_secs().saturating_sub(self.fetched_at)
    }

    pub(crate) fn is_stale(&self) -> bool {
        self.age_secs() > STALE_AFTER_SECS
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// What identifies a server's launch: the same fingerprint means the same tools.
pub(super) fn fingerprint(entry: &McpServerSettings) -> String {
    let mut key = serde_json::json!({
        "command": entry.command,
        "args": entry.args,
        "env": entry.env,
        "cwd": entry.cwd,
    });
    // A remote server is who its URL and headers say (another account may
    // see other tools); a local one's key is unchanged by this.
    if let Some(r) = &entry.remote {
        key["url"] = r.url.clone().into();
        key["headers"] = serde_json::json!(r.headers);
        key["bearer_token_env"] = serde_json::json!(r.bearer_token_env);
    }
    hash::hex(key.to_string().as_bytes())
}

pub(super) fn path(cache_dir: &Path, server: &str) -> PathBuf {
    cache_dir
        .join("mcp")
        .join(format!("{}.json", super::naming::sanitize(server)))
}

/// The cached catalog, if present, readable and made for this launch config.
pub(super) fn load(cache_dir: &Path, server: &str, fingerprint: &str) -> Option<Catalog> {
    let bytes = std::fs::read(path(cache_dir, server)).ok()?;
    let c: Catalog = serde_json::from_slice(&bytes).ok()?;
    (c.version == VERSION && c.fingerprint == fingerprint).then_some(c)
}

/// Writes atomically (temp file + rename): a reader never sees half a catalog.
/// Also records the catalog's size in the shared summary file.
pub(super) fn store(cache_dir: &Path, server: &str, catalog: &Catalog) -> std::io::Result<()> {
    let p = path(cache_dir, server);
    write_atomic(&p, &serde_json::to_vec_pretty(catalog)?)?;
    let mut all = load_summaries(cache_dir);
    all.insert(
        server.to_string(),
        Summary {
            fingerprint: catalog.fingerprint.clone(),
            tools: catalog.tools.len(),
            bytes: serde_json::to_vec(&catalog.tools)
                .map(|v| v.len())
                .unwrap_or(0),
            names: catalog.tools.iter().map(|t| t.name.clone()).collect(),
            about: catalog.about.clone(),
        },
    );
    write_atomic(&summary_path(cache_dir), &serde_json::to_vec(&all)?)
}

/// Whole or not at all, leaving nothing behind when it fails: a
/// half-written temporary file would hold the space the next run needs
/// for its session.
fn write_atomic(p: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::util::private::replace(p, bytes)
}

/// How big a server's cached catalog is, without reading it: one small file
/// for all servers, so deciding whether to defer tools costs one read at
/// start-up whatever the number of servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Summary {
    pub fingerprint: String,
    pub tools: usize,
    /// Bytes of the tools' compact JSON (names, descriptions, schemas).
    pub bytes: usize,
    /// The tools' names and what the server said of itself: what a new
    /// session's system prompt needs, read without parsing a catalog.
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default, skip_serializing_if = "About::is_empty")]
    pub about: About,
}

fn summary_path(cache_dir: &Path) -> PathBuf {
    cache_dir.join("mcp").join("summary.json")
}

pub(super) fn load_summaries(cache_dir: &Path) -> std::collections::BTreeMap<String, Summary> {
    std::fs::read(summary_path(cache_dir))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(cmd: &str) -> McpServerSettings {
        McpServerSettings::command(cmd)
    }

    #[test]
    fn a_catalog_is_found_only_under_its_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let fp = fingerprint(&entry("srv"));
        let cat = Catalog::new(
            fp.clone(),
            Listed {
                tools: vec![CachedTool {
                    name: "t".into(),
                    title: None,
                    description: "d".into(),
                    input_schema: serde_json::json!({"type": "object"}),
                    read_only: true,
                    destructive: false,
                }],
                prompts: vec![CachedPrompt {
                    name: "review".into(),
                    description: "Review a change".into(),
                    arguments: vec![PromptArgument {
                        name: "pr".into(),
                        description: String::new(),
                        required: true,
                    }],
                }],
                resources: vec![],
            },
            About {
                instructions: Some("Use t for tests.".into()),
                ..About::default()
            },
        );
        store(dir.path(), "s", &cat).unwrap();
        assert_eq!(load(dir.path(), "s", &fp), Some(cat));
        assert_eq!(load(dir.path(), "s", &fingerprint(&entry("other"))), None);
        std::fs::write(path(dir.path(), "s"), "{garbage").unwrap();
        assert_eq!(load(dir.path(), "s", &fp), None);
    }

    #[test]
    fn filters_do_not_change_the_fingerprint() {
        let mut a = entry("srv");
        let b = a.clone();
        a.tools.include = vec!["x*".into()];
        a.concurrency = crate::config::Concurrency::Parallel;
        assert_eq!(fingerprint(&a), fingerprint(&b));
        a.args.push("--flag".into());
        assert_ne!(fingerprint(&a), fingerprint(&b));
    }

    #[test]
    fn a_remote_servers_url_and_headers_are_its_fingerprint() {
        let a = McpServerSettings::remote("https://mcp.example/mcp");
        let mut b = a.clone();
        assert_eq!(fingerprint(&a), fingerprint(&b));
        if let Some(r) = &mut b.remote {
            r.headers.insert("X-Org".into(), "acme".into());
        }
        assert_ne!(fingerprint(&a), fingerprint(&b));
        assert_ne!(
            fingerprint(&a),
            fingerprint(&McpServerSettings::remote("https://other.example/mcp"))
        );
    }
}
