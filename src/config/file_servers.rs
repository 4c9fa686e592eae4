//! The shape of a `[mcp_servers.NAME]` entry in a config file: how the
//! server starts or is reached, its OAuth, its concurrency and its tool
//! filters. Unknown keys are errors, as in the rest of the file.

use std::collections::BTreeMap;
use std::num::NonZeroU64;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct McpServerEntry {
    /// The program of a local server (stdio); exactly one of `command` and
    /// `url` is set.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// The endpoint of a remote server (streamable HTTP, `https://…/mcp`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// HTTP headers sent with every request to a remote server.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The variable holding a bearer token for a remote server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bearer_token_env: Option<String>,
    /// How the server's `elicitation/create` requests are answered:
    /// `"ask"` (the default), `"decline"`, or `"defaults"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Elicitation>,
    /// OAuth for a remote server: a pre-registered client, or a client ID
    /// metadata document (else dynamic registration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Added to the server's environment, which otherwise holds only a safe base
    /// (PATH, HOME, locale, …): hermes' own variables, API keys included, never leak.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<Concurrency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_timeout_ms: Option<NonZeroU64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_timeout_ms: Option<NonZeroU64>,
    #[serde(default, skip_serializing_if = "ToolFilter::is_empty")]
    pub tools: ToolFilter,
    /// Codex's exact-name filter: only these tools (added to
    /// `tools.include`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enabled_tools: Vec<String>,
    /// Codex's, and Claude Code's `disabledTools`: never these (added to
    /// `tools.exclude`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_tools: Vec<String>,
}

/// How a server's request for input from the user is answered.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Elicitation {
    /// Asked in the REPL; declined where nobody can answer.
    Ask,
    Decline,
    /// Accepted with the schema's defaults when every required field has
    /// one; else declined.
    Defaults,
}

/// `[mcp_servers.NAME.oauth]`
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OAuthEntry {
    /// A client registered with the authorization server beforehand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The variable holding that client's secret.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_secret_env: Option<String>,
    /// A client ID metadata document URL, used when the server supports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for when the server does not say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

/// How many calls a server takes at once: `"serial"` (one, in order),
/// `"parallel"` (no limit), or a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concurrency {
    Serial,
    Parallel,
    Limit(u32),
}

impl Serialize for Concurrency {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Concurrency::Serial => s.serialize_str("serial"),
            Concurrency::Parallel => s.serialize_str("parallel"),
            Concurrency::Limit(n) => s.serialize_u32(*n),
        }
    }
}

impl<'de> Deserialize<'de> for Concurrency {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Word(String),
            Number(i64),
        }
        let bad = || {
            serde::de::Error::custom(
                "expected \"serial\", \"parallel\" or a number of calls at once (1 or more)",
            )
        };
        match Raw::deserialize(d).map_err(|_| bad())? {
            Raw::Word(w) if w == "serial" => Ok(Concurrency::Serial),
            Raw::Word(w) if w == "parallel" => Ok(Concurrency::Parallel),
            Raw::Number(n) if n >= 1 && n <= u32::MAX as i64 => Ok(Concurrency::Limit(n as u32)),
            _ => Err(bad()),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolFilter {
    /// Globs (`*`, `?`) over the server's own tool names; empty means all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

impl ToolFilter {
    fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }
}
