//! One configured MCP server resolved: its entry with every default filled
//! in, `${VAR}` references expanded from this start's environment, and the
//! secrets it is given remembered so they are hidden wherever they go.

use std::collections::BTreeMap;
use std::time::Duration;

use super::defaults::{self, ms};
use super::file::{Concurrency, ConfigFile, McpServerEntry, ToolFilter};
use super::limits::Limits;
use super::vars;

/// One configured MCP server, defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerSettings {
    /// A local server's program; empty for a remote one.
    pub command: String,
    /// A remote server: its endpoint, headers and credentials.
    pub remote: Option<RemoteSettings>,
    pub elicitation: super::Elicitation,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// The server's working directory; hermes' own when not configured.
    pub cwd: Option<String>,
    pub enabled: bool,
    pub concurrency: Concurrency,
    pub startup_timeout: Duration,
    pub tool_timeout: Duration,
    pub tools: ToolFilter,
    /// The `[limits]` that apply to its results and its stderr.
    pub limits: Limits,
    /// A `${VAR}` it needs that is not set: the one-line error it gives
    /// when it is needed, instead of starting with the reference as text.
    pub unset: Option<String>,
}

/// A remote server's endpoint and how hermes proves who it is to it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteSettings {
    pub url: String,
    pub headers: BTreeMap<String, String>,
    /// The variable holding a bearer token (sent as `Authorization`).
    pub bearer_token_env: Option<String>,
    pub oauth: super::OAuthEntry,
}

impl McpServerSettings {
    pub fn from_entry(e: &McpServerEntry) -> McpServerSettings {
        McpServerSettings {
            command: e.command.clone(),
            remote: e.url.as_ref().map(|url| RemoteSettings {
                url: url.clone(),
                headers: e.headers.clone(),
                bearer_token_env: e.bearer_token_env.clone(),
                oauth: e.oauth.clone().unwrap_or_default(),
            }),
            elicitation: e.elicitation.unwrap_or(super::Elicitation::Ask),
            args: e.args.clone(),
            env: e.env.clone(),
            cwd: e.cwd.clone(),
            enabled: e.enabled.unwrap_or(true),
            concurrency: e.concurrency.unwrap_or(defaults::CONCURRENCY),
            startup_timeout: ms(e
                .startup_timeout_ms
                .map_or(defaults::STARTUP_TIMEOUT_MS, |n| n.get())),
            tool_timeout: ms(e
                .tool_timeout_ms
                .map_or(defaults::TOOL_TIMEOUT_MS, |n| n.get())),
            tools: ToolFilter {
                include: e
                    .tools
                    .include
                    .iter()
                    .chain(&e.enabled_tools)
                    .cloned()
                    .collect(),
                exclude: e
                    .tools
                    .exclude
                    .iter()
                    .chain(&e.disabled_tools)
                    .cloned()
                    .collect(),
            },
            limits: Limits::default(),
            unset: None,
        }
    }

    /// A server run with `command` and every default: for tests and benches.
    pub fn command(command: impl Into<String>) -> McpServerSettings {
        McpServerSettings::from_entry(&McpServerEntry {
            command: command.into(),
            ..McpServerEntry::default()
        })
    }

    /// A remote server at `url` with every default: for tests and benches.
    pub fn remote(url: &str) -> McpServerSettings {
        McpServerSettings::from_entry(&McpServerEntry {
            url: Some(url.to_string()),
            ..McpServerEntry::default()
        })
    }
}

/// The configured MCP servers, by name, defaults and `[limits]` filled in.
pub fn mcp_servers(file: &ConfigFile) -> BTreeMap<String, McpServerSettings> {
    let limits = Limits::from_section(&file.limits);
    file.mcp_servers
        .iter()
        .map(|(n, e)| {
            let mut s = McpServerSettings::from_entry(e);
            s.limits = limits;
            s.expand_vars(n);
            // A token a server is given may come back in its errors, and in
            // any tool result (a command that prints its environment or the
            // config): from here on, everywhere they go, they are hidden.
            let headers = s.remote.iter().flat_map(|r| r.headers.iter());
            for (k, v) in s.env.iter().chain(headers) {
                // A reference left unexpanded (`${TOKEN}`, not set) is no
                // secret, and must stay readable in the error about it.
                if crate::util::secrets::looks_secret(k) && !vars::refers(v) {
                    crate::util::secrets::remember(v);
                }
            }
            if let Some(token) = s
                .remote
                .as_ref()
                .and_then(|r| r.bearer_token_env.as_deref())
                .and_then(|var| std::env::var(var).ok())
            {
                crate::util::secrets::remember(&token);
            }
            (n.clone(), s)
        })
        .collect()
}

impl McpServerSettings {
    /// `${VAR}` and `${VAR:-default}` expanded, from this start's
    /// environment, wherever Claude Code expands them: command, arguments,
    /// environment, folder, URL and headers. The first variable that is not
    /// set is kept as [`McpServerSettings::unset`].
    pub(super) fn expand_vars(&mut self, name: &str) {
        let mut unset: Option<(String, String)> = None;
        let mut one = |text: &mut String, field: String| {
            if !vars::refers(text) {
                return;
            }
            match vars::expand(text) {
                Ok(v) => *text = v,
                Err(u) => {
                    unset.get_or_insert((u.var, field));
                }
            }
        };
        one(&mut self.command, "command".into());
        for (i, a) in self.args.iter_mut().enumerate() {
            one(a, format!("args[{i}]"));
        }
        for (k, v) in self.env.iter_mut() {
            one(v, format!("env.{k}"));
        }
        if let Some(cwd) = &mut self.cwd {
            one(cwd, "cwd".into());
        }
        if let Some(r) = &mut self.remote {
            one(&mut r.url, "url".into());
            for (k, v) in r.headers.iter_mut() {
                one(v, format!("headers.{k}"));
            }
        }
        let url = self.remote.as_ref().map(|r| r.url.clone());
        if let (None, Some(url)) = (&unset, url) {
            if !(url.starts_with("https://") || url.starts_with("http://")) {
                self.unset = Some(format!(
                    "server `{name}`: its url expands to `{url}`, which is not an http:// or \
                     https:// URL"
                ));
                return;
            }
        }
        self.unset = unset.map(|(var, field)| {
            format!(
                "server `{name}` needs ${{{var}}} (in its {field}), which is not set: set it in \
                 the environment hermes starts in, or write ${{{var}:-default}}"
            )
        });
    }
}
