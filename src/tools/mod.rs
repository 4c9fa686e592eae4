//! Tools behind one trait, collected in a registry, and the deferred-tools
//! bridge: built-ins, MCP tools, connector tools and the bridge plug in
//! here. The agent's tool round is the one dispatcher: it asks
//! `Registry::resolve_and_check` (the name resolved once into a
//! `ToolRef` — the scope check — and the arguments against the schema),
//! runs hooks and approval, and then `dispatch` runs the entry or the
//! connectors batch. Which calls are entries, batches or errors is decided
//! by `call::classify`, nowhere else.

pub mod bridge;
mod builtin;
pub(crate) mod catalog;
mod change;
mod deferral;
mod dispatch;
mod offered;
mod query;
pub mod search;
pub(crate) mod validation;
mod warm;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use builtin::UnknownBuiltin;
pub use catalog::{CatalogTool, ToolCatalog};
pub(crate) use change::{Change, Earlier, Expect};

pub use crate::call::ToolOutput;
use crate::call::{names, ToolRef};
use crate::config::{DeferPolicy, WarmUp};

use crate::connectors::Gateway;
use crate::mcp::McpRegistry;
use crate::model::ToolSpec;

/// For benchmarks and tests that link the library: the hermes binary that
/// serves as the shell's sandbox helper (the binary itself needs nothing).
#[doc(hidden)]
pub fn use_sandbox_helper(exe: std::path::PathBuf) {
    crate::sandbox::use_helper(exe);
}

/// Called once when an entry is about to be sent to its tool (after its
/// server's concurrency gate and start-up): the moment it is "started".
pub type OnStart<'a> = &'a (dyn Fn() + Send + Sync);

pub(crate) trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    /// What approval should know of this call (a read inside the working
    /// folder, a write outside it).
    fn hints(&self, _args: &Value) -> crate::policy::Hints {
        crate::policy::Hints::default()
    }
    /// The arguments as rules, hooks, the question and the call itself see
    /// them: a built-in's path resolved once (absolute, `//`, `..` and
    /// links resolved), so a rule for `^/proj/protected/` holds for
    /// `//proj/protected/b`, `sub/../protected/c` and a link alike.
    fn normalize(&self, _args: &Value) -> Option<Value> {
        None
    }
    /// Whether the tool changes files: its entries are planned in entry
    /// order ([`Tool::plan`]).
    fn plans_changes(&self) -> bool {
        false
    }
    /// The change the call would make, worked out on the file as the
    /// round's earlier entries will have left it (`earlier`), or why it
    /// cannot apply (an edit whose text is not there is a failure, never a
    /// question).
    fn plan(&self, _args: &Value, _earlier: &Earlier) -> Option<Result<Change, String>> {
        None
    }
    /// Runs the call; `on_start` is called once it has passed its own gate
    /// (a path another entry writes, a serial shell) and really starts.
    fn call<'a>(
        &'a self,
        args: serde_json::Value,
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput>;
    /// As [`Tool::call`], for a planned change: the file must still be as
    /// the plan found it (`expect`), or nothing is written.
    fn call_expecting<'a>(
        &'a self,
        args: serde_json::Value,
        _expect: Option<Expect>,
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        self.call(args, cancel, on_start)
    }
}

/// Identifies the inputs a catalog was built from: the MCP registry's
/// catalog generation (0 without MCP) and the number of connector tools
/// listed. A generation, unlike the address of an index, is never reused.
type CatalogKey = (u64, usize);

#[derive(Default)]
struct Shared {
    /// Decided at a session's first request (or kept as a resumed one
    /// recorded it) and held for that session: the tool list it sends must
    /// not change shape under the prompt cache. Forgotten when another
    /// session begins (`/new`, `/resume`).
    deferred: Mutex<Option<bool>>,
    catalog: Mutex<Option<(CatalogKey, Arc<ToolCatalog>)>>,
    /// The tools offered directly, once taken (see `offered`).
    offered: Mutex<Option<Vec<CatalogTool>>>,
    validators: Mutex<HashMap<String, Option<Arc<jsonschema::Validator>>>>,
}

/// Every tool a run can offer: the built-ins the config names and the tools of
/// the configured MCP servers (whose list can grow as catalogs arrive).
#[derive(Clone)]
pub struct Registry {
    tools: Vec<Arc<dyn Tool>>,
    mcp: Option<Arc<McpRegistry>>,
    gateway: Option<Arc<Gateway>>,
    policy: DeferPolicy,
    /// Bytes of a built-in's or connector's result passed on (MCP servers
    /// cut their own, by the same `[limits]`).
    output_limit: usize,
    shared: Arc<Shared>,
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
        r.tools = builtin::tools(settings, cwd, output_limit)?;
        Ok(r)
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
        let mut specs: Vec<ToolSpec> = self.tools.iter().map(|t| t.spec()).collect();
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

    fn builtin(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.spec().name == name)
    }

    fn builtin_of(&self, tool: &ToolRef) -> Option<&Arc<dyn Tool>> {
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

    /// What a built-in call would change ([`Tool::plan`]).
    pub(crate) fn plan(
        &self,
        tool: &ToolRef,
        args: &Value,
        earlier: &Earlier,
    ) -> Option<Result<Change, String>> {
        self.builtin_of(tool)?.plan(args, earlier)
    }

    fn builtin_names(&self) -> Vec<String> {
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
    async fn searchable(&self) -> Vec<String> {
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

    /// Resolves a model-facing name once into what runs it (the scope
    /// check). A name on a configured server whose catalog is not loaded yet
    /// (a cold start, a resumed session that knows the names) waits for that
    /// catalog, bounded by the server's start-up timeout; a name no server's
    /// prefix claims (a bare `echo`) waits for every catalog not loaded yet,
    /// so its answer can name the full names.
    pub(crate) async fn resolve(&self, name: &str) -> Result<ToolRef, String> {
        if self.builtin(name).is_some() {
            return Ok(ToolRef::Builtin(name.to_string()));
        }
        if names::is_connector(name) {
            self.load_connectors().await;
            if self.catalog().get(name).is_some() {
                return Ok(ToolRef::Connector(name.to_string()));
            }
        } else if let Some(mcp) = &self.mcp {
            if let Some(r) = mcp_ref(mcp, name) {
                return Ok(r);
            }
            let loaded = mcp.load_catalog_for(name).await;
            // Another server whose prefix matches may have it.
            if let Some(r) = mcp_ref(mcp, name) {
                return Ok(r);
            }
            if let Some(Err(why)) = loaded {
                return Err(format!("`{name}` cannot be run: {why}"));
            }
            if loaded.is_none() && self.catalog().bare_matches(name).is_empty() {
                let unlisted = mcp.load_unlisted_catalogs().await;
                let cat = self.catalog();
                let mut told = validation::unknown_tool(name, &cat, &self.builtin_names());
                if cat.bare_matches(name).is_empty() && !unlisted.is_empty() {
                    told.push_str(&format!(
                        " (servers not listed yet: {})",
                        unlisted.join(", ")
                    ));
                }
                return Err(told);
            }
        }
        Err(validation::unknown_tool(
            name,
            &self.catalog(),
            &self.builtin_names(),
        ))
    }

    /// [`Registry::resolve`] and [`Registry::check_args`] together.
    pub(crate) async fn resolve_and_check(
        &self,
        name: &str,
        args: &Value,
    ) -> Result<ToolRef, String> {
        let r = self.resolve(name).await?;
        match self.check_args(name, &r, args) {
            Some(err) => Err(err),
            None => Ok(r),
        }
    }

    /// Makes sure the connector listing has been fetched (for a scope check).
    pub(crate) async fn load_connectors(&self) {
        if let Some(g) = &self.gateway {
            let _ = g.tools().await;
        }
    }

    /// The tool as approval rules and hook matchers see it: its names
    /// (the server's own, and the plain one a collision took away) and
    /// what its server says of it (MCP annotations).
    pub(crate) fn subject(
        &self,
        name: &str,
        tool: &ToolRef,
        args: &Value,
    ) -> crate::policy::Subject {
        let mut subject = crate::policy::Subject::named(name);
        if let (ToolRef::Builtin(n), Some(t)) = (tool, self.builtin_of(tool)) {
            debug_assert_eq!(n, name);
            subject.hints = t.hints(args);
        }
        if let (ToolRef::Mcp { server, tool: own }, Some(mcp)) = (tool, &self.mcp) {
            let own_name = names::own_mcp_name(server, own);
            let plain = crate::mcp::naming::plain(server, own);
            subject.own = (own_name != name).then_some(own_name);
            subject.plain = (plain != name).then_some(plain);
            if let Some(t) = mcp.index().get(name) {
                subject.hints = crate::policy::Hints {
                    read_only: t.tool.read_only,
                    destructive: t.tool.destructive,
                    always_ask: None,
                };
            }
        }
        subject
    }

    /// The arguments the tool's schema marks required, in its order.
    pub(crate) fn required_args(&self, name: &str, tool: &ToolRef) -> Vec<String> {
        let schema = match tool {
            ToolRef::Builtin(n) => self.builtin(n).map(|b| b.spec().parameters),
            ToolRef::Mcp { .. } | ToolRef::Connector(_) => {
                self.catalog().get(name).map(|t| t.schema.clone())
            }
        };
        schema
            .as_ref()
            .and_then(|s| s.get("required"))
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Schema validation of a resolved entry: `Some(message)` when its
    /// arguments do not fit.
    pub(crate) fn check_args(&self, name: &str, tool: &ToolRef, args: &Value) -> Option<String> {
        let schema = match tool {
            ToolRef::Builtin(n) => self.builtin(n)?.spec().parameters,
            ToolRef::Mcp { .. } | ToolRef::Connector(_) => self.catalog().get(name)?.schema.clone(),
        };
        let validator = self.validator(name, &schema);
        validation::schema_errors(validator.as_deref(), name, args)
    }

    fn validator(&self, name: &str, schema: &Value) -> Option<Arc<jsonschema::Validator>> {
        let mut cache = self
            .shared
            .validators
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        cache
            .entry(name.to_string())
            .or_insert_with(|| jsonschema::validator_for(schema).ok().map(Arc::new))
            .clone()
    }
}

/// The MCP tool exposed under `name`, if its server's catalog has it.
fn mcp_ref(mcp: &McpRegistry, name: &str) -> Option<ToolRef> {
    let idx = mcp.index();
    let t = idx.get(name)?;
    Some(ToolRef::Mcp {
        server: mcp.servers().get(t.server)?.name.clone(),
        tool: t.tool.name.clone(),
    })
}

fn into_output(r: Result<String, String>) -> ToolOutput {
    match r {
        Ok(s) => ToolOutput::ok(s),
        Err(e) => ToolOutput::error(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo_only() -> Registry {
        let settings = crate::config::BuiltinSettings {
            names: vec!["echo".into()],
            ..Default::default()
        };
        Registry::with_builtins(&settings, std::path::Path::new("."), 1 << 16).unwrap()
    }

    #[tokio::test]
    async fn unknown_tools_are_error_results() {
        let err = echo_only()
            .resolve_and_check("echoes", &serde_json::json!({}))
            .await
            .unwrap_err();
        assert!(
            err.contains("unknown tool `echoes`; closest: `echo`"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn builtin_arguments_are_checked_against_their_schema() {
        let err = echo_only()
            .resolve_and_check("echo", &serde_json::json!({"text": 5}))
            .await
            .unwrap_err();
        assert!(err.contains("/text: 5 is not of type \"string\""), "{err}");
    }
}
