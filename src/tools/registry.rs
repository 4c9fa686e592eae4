//! The registry of a run's tools: the built-ins the config names, the
//! tools of its MCP servers and of the connector gateway, the catalog of
//! deferrable ones (rebuilt only when a server's catalog changes), the
//! tool list of the next request, and the bridge's `tool_search` and
//! `tool_describe`. Names are resolved in `resolution.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::{
    bridge, builtin, CatalogTool, Change, Earlier, Tool, ToolCatalog, ToolOutput, UnknownBuiltin,
};
use crate::call::{names, ToolRef};
use crate::config::{DeferPolicy, WarmUp};
use crate::connectors::Gateway;
use crate::mcp::McpRegistry;
use crate::model::ToolSpec;

/// Identifies the inputs a catalog was built from: the MCP registry's
/// catalog generation (0 without MCP) and the number of connector tools
/// listed. A generation, unlike the address of an index, is never reused.
type CatalogKey = (u64, usize);

#[derive(Default)]
pub(super) struct Shared {
    /// Decided at a session's first request (or kept as a resumed one
    /// recorded it) and held for that session: the tool list it sends must
    /// not change shape under the prompt cache. Forgotten when another
    /// session begins (`/new`, `/resume`).
    pub(super) deferred: Mutex<Option<bool>>,
    pub(super) catalog: Mutex<Option<(CatalogKey, Arc<ToolCatalog>)>>,
    /// The tools offered directly, once taken (see `offered`).
    pub(super) offered: Mutex<Option<Vec<CatalogTool>>>,
    pub(super) validators: Mutex<HashMap<String, Option<Arc<jsonschema::Validator>>>>,
}

/// Every tool a run can offer: the built-ins the config names and the tools of
/// the configured MCP servers (whose list can grow as catalogs arrive).
#[derive(Clone)]
pub struct Registry {
    pub(super) tools: Vec<Arc<dyn Tool>>,
    pub(super) mcp: Option<Arc<McpRegistry>>,
    pub(super) gateway: Option<Arc<Gateway>>,
    pub(super) policy: DeferPolicy,
    /// Bytes of a built-in's or connector's result passed on (MCP servers
    /// cut their own, by the same `[limits]`).
    pub(super) output_limit: usize,
    pub(super) shared: Arc<Shared>,
    /// The built-in `agent` tool's definition, when this registry's agent
    /// may start subagents (the agent layer gives it).
    pub(super) subagent: Option<ToolSpec>,
    /// Subagent types' tools: the names (and `*` globs, `mcp__server`)
    /// a call may reach — each nested subagent's list on its parent's, a
    /// name reachable only when every list allows it; empty: every tool.
    pub(super) allowed: Vec<Arc<Vec<String>>>,
    /// Plan mode, for the built-ins: `shell` writes in no working folder.
    pub(super) read_only: Arc<std::sync::atomic::AtomicBool>,
    /// The session's background processes (`shell`'s), shared by every
    /// clone (a subagent's too).
    pub(super) background: Arc<builtin::background::Background>,
    /// The folder the session works in: where its hooks run, whatever the
    /// process' own working folder (`hermes acp` holds sessions of several
    /// folders). Empty for a registry made without one.
    pub(super) cwd: Arc<std::path::PathBuf>,
    /// The built-ins' settings, to make them again in another folder (a
    /// subagent's worktree).
    pub(super) builtin: Option<Arc<crate::config::BuiltinSettings>>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry {
            tools: Vec::new(),
            mcp: None,
            gateway: None,
            policy: DeferPolicy::default(),
            output_limit: crate::config::Limits::default().tool_output_bytes,
            shared: Arc::default(),
            subagent: None,
            allowed: Vec::new(),
            read_only: Arc::default(),
            background: Arc::default(),
            cwd: Arc::default(),
            builtin: None,
        }
    }
}

impl Registry {
    /// The registry for a run: the built-ins the config names, working in
    /// `cwd`, their output held to `output_limit`.
    pub fn with_builtins(
        settings: &crate::config::BuiltinSettings,
        cwd: &std::path::Path,
        output_limit: usize,
    ) -> Result<Registry, UnknownBuiltin> {
        let mut r = Registry::default().with_output_limit(output_limit);
        r.cwd = Arc::new(cwd.to_path_buf());
        r.builtin = Some(Arc::new(settings.clone()));
        r.tools = builtin::tools(
            settings,
            cwd,
            output_limit,
            r.read_only.clone(),
            r.background.clone(),
        )?;
        Ok(r)
    }

    /// The folder the session works in, when the registry was made for one.
    pub(crate) fn cwd(&self) -> Option<&std::path::Path> {
        (!self.cwd.as_os_str().is_empty()).then_some(self.cwd.as_path())
    }

    /// The session's background processes: `/ps`, `/kill`, the status
    /// line; ended with the session.
    pub(crate) fn background(&self) -> &Arc<builtin::background::Background> {
        &self.background
    }

    /// Plan mode on or off for the built-ins (and every subagent's, which
    /// share them).
    pub(crate) fn set_read_only(&self, on: bool) {
        self.read_only
            .store(on, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the built-in `name` is offered.
    pub(crate) fn has_builtin(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.spec().name == name)
    }

    pub fn with_mcp(mut self, mcp: Arc<McpRegistry>) -> Registry {
        self.mcp = Some(mcp);
        self
    }

    pub(crate) fn with_gateway(mut self, gateway: Arc<Gateway>) -> Registry {
        self.gateway = Some(gateway);
        self
    }

    /// Fetches the gateway's listing in the background, after the first request.
    pub(crate) fn list_connectors_in_background(&self) {
        if let Some(g) = self.gateway.clone() {
            tokio::spawn(async move {
                tokio::time::sleep(crate::mcp::FILL_DELAY).await;
                let _ = g.tools().await;
            });
        }
    }

    pub(crate) fn mcp_registry(&self) -> Option<&Arc<McpRegistry>> {
        self.mcp.as_ref()
    }

    /// Bytes of one tool result passed to the model (`[limits] tool_output_bytes`).
    pub(crate) fn with_output_limit(mut self, bytes: usize) -> Registry {
        self.output_limit = bytes;
        self
    }

    /// Offers the built-in `agent` tool with this definition.
    pub(crate) fn with_subagent(mut self, spec: ToolSpec) -> Registry {
        self.subagent = Some(spec);
        self
    }

    /// Whether the built-in `agent` tool is offered.
    pub(crate) fn offers_subagents(&self) -> bool {
        self.subagent.is_some()
    }

    /// The registry a subagent works with: the same built-ins, servers
    /// (one process and one catalog for the parent and every subagent),
    /// gateway and output limit; its own session — deferral, offered tools
    /// — and of this registry's tools only those `allowed` names too (its
    /// type's), never more than its parent's; `agent` only with `subagent`
    /// (a depth left) and when the lists allow it.
    pub(crate) fn for_subagent(
        &self,
        allowed: Option<Vec<String>>,
        subagent: Option<ToolSpec>,
    ) -> Registry {
        let mut lists = self.allowed.clone();
        lists.extend(allowed.map(Arc::new));
        let mut child = Registry {
            shared: Arc::default(),
            subagent: None,
            allowed: lists,
            ..self.clone()
        };
        child.subagent = subagent.filter(|s| child.allows(&s.name));
        child
    }

    /// This registry with its built-ins working in `dir` instead (a
    /// subagent's worktree), where commands may also write `writable` (the
    /// worktree's git folders) — and no longer in the folder before.
    pub(crate) fn in_folder(
        mut self,
        dir: &std::path::Path,
        writable: Vec<std::path::PathBuf>,
    ) -> Result<Registry, UnknownBuiltin> {
        let Some(settings) = self.builtin.clone() else {
            return Ok(self);
        };
        let mut settings = (*settings).clone();
        settings.shell.writable.extend(writable);
        self.cwd = Arc::new(dir.to_path_buf());
        self.tools = builtin::tools(
            &settings,
            dir,
            self.output_limit,
            self.read_only.clone(),
            self.background.clone(),
        )?;
        self.builtin = Some(Arc::new(settings));
        Ok(self)
    }

    /// Whether a call of this registry may reach `name`.
    pub(crate) fn allows(&self, name: &str) -> bool {
        self.allowed.iter().all(|a| {
            a.iter().any(|p| {
                p == name
                    || crate::util::glob::glob_match(p, name)
                    || (p.starts_with("mcp__")
                        && p.matches("__").count() == 1
                        && name.starts_with(&format!("{p}__")))
            })
        })
    }

    pub(crate) fn with_policy(mut self, policy: DeferPolicy) -> Registry {
        self.policy = policy;
        self
    }

    /// The deferrable tools (MCP and connectors), rebuilt only when a catalog
    /// changed or the connector listing arrived.
    pub fn catalog(&self) -> Arc<ToolCatalog> {
        let (generation, idx) = match &self.mcp {
            Some(m) => {
                let (g, i) = m.index_with_generation();
                (g, Some(i))
            }
            None => (0, None),
        };
        let connectors = self
            .gateway
            .as_ref()
            .map(|g| g.tools_now())
            .unwrap_or_default();
        let key = (generation, connectors.len());
        let mut slot = self
            .shared
            .catalog
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some((k, c)) = slot.as_ref() {
            if *k == key {
                return c.clone();
            }
        }
        let mut tools = match (&self.mcp, &idx) {
            (Some(mcp), Some(idx)) => {
                let names: Vec<String> = mcp.servers().iter().map(|s| s.name.clone()).collect();
                ToolCatalog::from_mcp(idx, &names).tools
            }
            _ => Vec::new(),
        };
        tools.extend(connectors.into_iter().map(|t| CatalogTool {
            name: t.name,
            source: "connectors".into(),
            description: t.description,
            schema: t.schema,
        }));
        // A subagent's type sees — and searches — only its own tools.
        tools.retain(|t| self.allows(&t.name));
        let built = Arc::new(ToolCatalog::new(tools));
        *slot = Some((key, built.clone()));
        self.shared
            .validators
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        built
    }

    /// The names of the deferrable tools as the catalog summaries and the
    /// gateway's listing so far give them, without parsing a catalog: what
    /// a new session's prompt was written from.
    pub(crate) fn stock_names(&self) -> std::collections::BTreeSet<String> {
        let mut names: std::collections::BTreeSet<String> = self
            .mcp
            .as_ref()
            .map(|m| {
                m.described()
                    .into_iter()
                    .flat_map(|(_, _, tools)| tools.unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(g) = &self.gateway {
            names.extend(g.tools_now().into_iter().map(|t| t.name));
        }
        names
    }

    /// The tool list of the next request.
    pub(crate) fn specs(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = self
            .tools
            .iter()
            .map(|t| t.spec())
            .filter(|s| self.allows(&s.name))
            .collect();
        specs.extend(self.subagent.clone());
        if self.deferred() {
            specs.extend(bridge::specs());
        } else {
            specs.extend(self.offered().into_iter().map(|t| ToolSpec {
                name: t.name,
                description: t.description,
                parameters: t.schema,
            }));
        }
        specs
    }

    pub(super) fn builtin(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools
            .iter()
            .find(|t| t.spec().name == name)
            .filter(|_| self.allows(name))
    }

    pub(super) fn builtin_of(&self, tool: &ToolRef) -> Option<&Arc<dyn Tool>> {
        match tool {
            ToolRef::Builtin(n) => self.builtin(n),
            _ => None,
        }
    }

    /// A built-in's arguments as it resolves them ([`Tool::normalize`]).
    pub(crate) fn normalize(&self, tool: &ToolRef, args: &Value) -> Option<Value> {
        self.builtin_of(tool)?.normalize(args)
    }

    /// Whether the tool's entries are planned in entry order.
    pub(crate) fn plans_changes(&self, tool: &ToolRef) -> bool {
        self.builtin_of(tool).is_some_and(|t| t.plans_changes())
    }

    /// What a built-in call would change ([`Tool::plan`]), planned on the file as the
    /// editor's buffer has it where hermes serves an editor that reads
    /// files, else on `earlier` and the disk.
    pub(crate) async fn plan(
        &self,
        tool: &ToolRef,
        args: &Value,
        earlier: &Earlier,
    ) -> Option<Result<Change, String>> {
        let t = self.builtin_of(tool)?;
        let mut earlier = earlier.clone();
        if let Some((path, text)) = t.buffer(args).await {
            earlier.entry(path).or_insert(text);
        }
        t.plan(args, &earlier)
    }

    pub(super) fn builtin_names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.spec().name).collect()
    }

    /// `tool_search` or `tool_describe`, held to the output limit like any
    /// tool result: a server writes the descriptions and schemas they show.
    pub(crate) async fn bridge(&self, which: names::Bridge, raw_arguments: &str) -> ToolOutput {
        self.bridge_uncut(which, raw_arguments)
            .await
            .cut(self.output_limit)
    }

    async fn bridge_uncut(&self, which: names::Bridge, raw_arguments: &str) -> ToolOutput {
        let args = match crate::call::parse_arguments(raw_arguments) {
            Ok(a) => a,
            Err(e) => return ToolOutput::error(e),
        };
        match which {
            names::Bridge::Search => self.search(&args).await,
            names::Bridge::Describe => {
                // A name not in the catalog yet may be in one still being
                // listed (a cold start): wait for it as a search would.
                let mut wanted = bridge::strings(&args, "names");
                wanted.extend(bridge::strings(&args, "name"));
                let catalog = self.catalog();
                let catalog = if wanted.iter().any(|n| catalog.get(n).is_none()) {
                    self.searchable().await;
                    self.catalog()
                } else {
                    catalog
                };
                let out = bridge::describe(&args, &catalog);
                if self.policy.warm_up != WarmUp::Off {
                    let names = bridge::strings(&args, "names");
                    self.warm_tools(names.iter().map(String::as_str));
                }
                into_output(out)
            }
            names::Bridge::Call => ToolOutput::error("tool_call is not answered by the bridge"),
        }
    }

    /// Waits (bounded) for what a search should see — the gateway's
    /// listing, catalogs being filled in the background — and names the
    /// sources still not in.
    pub(super) async fn searchable(&self) -> Vec<String> {
        let mut unsearched = Vec::new();
        if let Some(g) = &self.gateway {
            if let Ok(Err(e)) = tokio::time::timeout(Duration::from_secs(15), g.tools()).await {
                unsearched.push(format!("connectors ({e})"));
            }
        }
        if let Some(mcp) = &self.mcp {
            // Catalogs still being filled in the background are worth a
            // wait, a bounded one: the rest are named in `not_searched`.
            mcp.wait_for_background_fills(self.policy.search_wait).await;
            unsearched = mcp
                .servers()
                .iter()
                .filter(|s| s.catalog().is_none())
                .map(|s| s.name.clone())
                .collect();
        }
        unsearched
    }

    /// The tools a search for `query` finds, best first (every tool for an
    /// empty one), and the sources not searched; for the person (`/tools`):
    /// no server is warmed.
    pub(crate) async fn find(&self, query: &str, limit: usize) -> (Vec<CatalogTool>, Vec<String>) {
        let unsearched = self.searchable().await;
        let cat = self.catalog();
        let found = if query.trim().is_empty() {
            cat.tools.clone()
        } else {
            cat.index()
                .search(query, limit)
                .iter()
                .filter_map(|n| cat.get(n).cloned())
                .collect()
        };
        (found, unsearched)
    }

    async fn search(&self, args: &Value) -> ToolOutput {
        let unsearched = self.searchable().await;
        let cat = self.catalog();
        match bridge::search(args, &cat, &unsearched) {
            Ok(found) => {
                if self.policy.warm_up != WarmUp::Off {
                    self.warm_tools(found.best.iter().map(String::as_str));
                }
                ToolOutput::ok(found.text)
            }
            Err(e) => ToolOutput::error(e),
        }
    }

    /// Makes sure the connector listing has been fetched (for a scope check).
    pub(crate) async fn load_connectors(&self) {
        if let Some(g) = &self.gateway {
            let _ = g.tools().await;
        }
    }
}

fn into_output(r: Result<String, String>) -> ToolOutput {
    match r {
        Ok(s) => ToolOutput::ok(s),
        Err(e) => ToolOutput::error(e),
    }
}
