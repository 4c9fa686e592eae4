//! Tools behind one trait, collected in a registry, and the deferred-tools
//! bridge. The turn loop only knows [`Registry::specs`] and
//! [`Registry::execute`]; built-ins, MCP tools and the bridge plug in here.
//! Every call — listed directly or an entry of `tool_call` — goes down one
//! per-entry path: scope check → argument schema validation → the call.

pub mod bridge;
mod builtin;
pub mod catalog;
pub mod search;
pub mod validation;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use builtin::Echo;
pub use catalog::{CatalogTool, ToolCatalog};

use crate::config::DeferMode;
use crate::connectors::{DispatchCall, Gateway};
use crate::mcp::McpRegistry;
use crate::provider::ToolSpec;
use crate::session::ToolCall;

/// What a tool gives back. `is_error` marks a failure the model should read and
/// act on; it never ends the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: true,
        }
    }
}

pub trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    fn call<'a>(
        &'a self,
        args: serde_json::Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutput>;
}

/// When MCP and connector tools are deferred behind the bridge tools.
#[derive(Debug, Clone, PartialEq)]
pub struct DeferPolicy {
    pub mode: DeferMode,
    pub max_tools: usize,
    pub max_share: f64,
    pub context_window: usize,
}

impl Default for DeferPolicy {
    fn default() -> Self {
        DeferPolicy {
            mode: DeferMode::Never,
            max_tools: 40,
            max_share: 0.1,
            context_window: 128_000,
        }
    }
}

/// Identifies the inputs a catalog was built from: the MCP index and the
/// number of connector tools listed.
type CatalogKey = (usize, usize);

#[derive(Default)]
struct Shared {
    /// Decided once, at the first request, and kept for the run: the tool list
    /// a session sends must not change shape under the prompt cache.
    deferred: OnceLock<bool>,
    catalog: Mutex<Option<(CatalogKey, Arc<ToolCatalog>)>>,
    validators: Mutex<HashMap<String, Option<Arc<jsonschema::Validator>>>>,
}

/// Every tool a run can offer: the built-ins the config names and the tools of
/// the configured MCP servers (whose list can grow as catalogs arrive).
#[derive(Default, Clone)]
pub struct Registry {
    tools: Vec<Arc<dyn Tool>>,
    mcp: Option<Arc<McpRegistry>>,
    gateway: Option<Arc<Gateway>>,
    policy: DeferPolicy,
    shared: Arc<Shared>,
}

#[derive(Debug, thiserror::Error)]
#[error("unknown built-in tool `{0}` in tools.builtin (known: echo)")]
pub struct UnknownBuiltin(pub String);

impl Registry {
    /// The registry for a run: the built-ins the config names.
    pub fn with_builtins(names: &[String]) -> Result<Registry, UnknownBuiltin> {
        let mut r = Registry::default();
        for n in names {
            match n.as_str() {
                "echo" => r.add(Arc::new(Echo)),
                other => return Err(UnknownBuiltin(other.to_string())),
            }
        }
        Ok(r)
    }

    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        self.tools.push(tool);
    }

    pub fn with_mcp(mut self, mcp: Arc<McpRegistry>) -> Registry {
        self.mcp = Some(mcp);
        self
    }

    pub fn with_gateway(mut self, gateway: Arc<Gateway>) -> Registry {
        self.gateway = Some(gateway);
        self
    }

    /// Fetches the gateway's listing in the background, after the first request.
    pub fn list_connectors_in_background(&self) {
        if let Some(g) = self.gateway.clone() {
            tokio::spawn(async move {
                tokio::time::sleep(crate::mcp::FILL_DELAY).await;
                let _ = g.tools().await;
            });
        }
    }

    pub fn mcp_registry(&self) -> Option<&Arc<McpRegistry>> {
        self.mcp.as_ref()
    }

    pub fn with_policy(mut self, policy: DeferPolicy) -> Registry {
        self.policy = policy;
        self
    }

    /// The deferrable tools (MCP and connectors), rebuilt only when a catalog
    /// changed or the connector listing arrived.
    pub fn catalog(&self) -> Arc<ToolCatalog> {
        let idx = self.mcp.as_ref().map(|m| m.index());
        let connectors = self
            .gateway
            .as_ref()
            .map(|g| g.tools_now())
            .unwrap_or_default();
        let key = (
            idx.as_ref().map(|i| Arc::as_ptr(i) as usize).unwrap_or(0),
            connectors.len(),
        );
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
        tools.extend(connectors);
        let built = Arc::new(ToolCatalog::new(tools));
        *slot = Some((key, built.clone()));
        self.shared
            .validators
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        built
    }

    /// Whether MCP tools sit behind the bridge for this run.
    pub fn deferred(&self) -> bool {
        *self.shared.deferred.get_or_init(|| self.decide_deferral())
    }

    fn decide_deferral(&self) -> bool {
        let servers = self.mcp.as_ref().map(|m| m.servers().len()).unwrap_or(0);
        if servers == 0 && self.gateway.is_none() {
            return false;
        }
        match self.policy.mode {
            DeferMode::Always => true,
            DeferMode::Never => false,
            DeferMode::Auto => {
                // Decided from catalog sizes alone (one small file), so a
                // deferred run never parses a catalog before its first request.
                // A source whose tools are not known yet could bring any number.
                if self.gateway.is_some() {
                    return true;
                }
                let Some(mcp) = &self.mcp else { return false };
                let mut tools = 0;
                let mut bytes = 0;
                for s in mcp.summaries() {
                    let Some(s) = s else { return true };
                    tools += s.tools;
                    bytes += s.bytes;
                }
                let tokens = bytes / 4;
                tools > self.policy.max_tools
                    || tokens as f64 > self.policy.max_share * self.policy.context_window as f64
            }
        }
    }

    /// The tool list of the next request.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = self.tools.iter().map(|t| t.spec()).collect();
        if self.deferred() {
            specs.extend(bridge::specs());
        } else {
            specs.extend(self.catalog().tools.iter().map(|t| ToolSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.schema.clone(),
            }));
        }
        specs
    }

    fn builtin(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.spec().name == name)
    }

    fn builtin_names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.spec().name).collect()
    }

    /// Runs one call as the model sent it. Every failure is a result, never an `Err`.
    pub async fn execute(&self, call: &ToolCall, cancel: &CancellationToken) -> ToolOutput {
        let args = match parse_arguments(&call.arguments) {
            Ok(a) => a,
            Err(e) => return ToolOutput::error(e),
        };
        match call.name.as_str() {
            bridge::SEARCH => self.search(&args).await,
            bridge::DESCRIBE => {
                let cat = self.catalog();
                into_output(bridge::describe(&args, &cat))
            }
            bridge::CALL => self.dispatch(&call.id, &args, cancel).await,
            name => self.run_entry(name, &call.id, args, cancel).await,
        }
    }

    async fn search(&self, args: &Value) -> ToolOutput {
        let mut unsearched = Vec::new();
        if let Some(g) = &self.gateway {
            if let Ok(Err(e)) = tokio::time::timeout(Duration::from_secs(15), g.tools()).await {
                unsearched.push(format!("connectors ({e})"));
            }
        }
        if let Some(mcp) = &self.mcp {
            // Catalogs still being filled in the background are worth a wait;
            // no server is started for a search.
            mcp.wait_for_background_fills(Duration::from_secs(15)).await;
            unsearched = mcp
                .servers()
                .iter()
                .filter(|s| s.catalog().is_none())
                .map(|s| s.name.clone())
                .collect();
        }
        let cat = self.catalog();
        into_output(bridge::search(args, &cat, &unsearched))
    }

    /// `tool_call` reaching the dispatcher: one entry runs; a multi-entry
    /// local batch gets the old contract's answer (the agent splits batches
    /// before they get here).
    async fn dispatch(
        &self,
        call_id: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let entries = match validation::parse_calls(args) {
            Ok(e) => e,
            Err(msg) => return ToolOutput::error(msg),
        };
        if entries.len() > validation::MAX_CALLS_PER_DISPATCH {
            return ToolOutput::error(validation::too_many(entries.len()));
        }
        if entries.len() == 1 {
            let e = entries.into_iter().next().expect("one entry");
            if bridge::is_bridge(&e.name) {
                return ToolOutput::error(format!(
                    "`{}` is not run through tool_call; call it directly",
                    e.name
                ));
            }
            return self.run_entry(&e.name, call_id, e.arguments, cancel).await;
        }
        if entries
            .iter()
            .all(|e| e.name.starts_with(catalog::CONNECTOR_PREFIX))
        {
            self.load_connectors().await;
            let refused: Vec<Option<String>> = entries
                .iter()
                .map(|e| self.check_entry(&e.name, &e.arguments))
                .collect();
            return self
                .gateway_batch(call_id, &entries, &refused, cancel)
                .await;
        }
        ToolOutput::error(validation::legacy_batch_error(&entries))
    }

    /// Ids of a `connectors__` batch's entries: the call's own id for the
    /// first, deterministic ones after it (as a split would give).
    pub fn batch_ids(call_id: &str, entries: &[validation::Entry]) -> Vec<String> {
        entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                if i == 0 {
                    call_id.to_string()
                } else {
                    crate::agent::deterministic_call_id(call_id, e, i)
                }
            })
            .collect()
    }

    /// A `connectors__`-only batch: ONE gateway dispatch for the entries not
    /// `refused` (by scope, schema, hooks or approval), results in entry order.
    pub async fn gateway_batch(
        &self,
        call_id: &str,
        entries: &[validation::Entry],
        refused: &[Option<String>],
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let Some(g) = &self.gateway else {
            return ToolOutput::error(
                "no connector gateway is configured ([connectors] url in config.toml)",
            );
        };
        let ids = Self::batch_ids(call_id, entries);
        let calls: Vec<DispatchCall<'_>> = entries
            .iter()
            .zip(&ids)
            .zip(refused)
            .filter(|(_, r)| r.is_none())
            .map(|((e, id), _)| DispatchCall {
                id,
                name: &e.name,
                arguments: &e.arguments,
            })
            .collect();
        let mut outs = if calls.is_empty() {
            Vec::new()
        } else {
            g.dispatch(&calls, cancel).await
        }
        .into_iter();
        let results: Vec<(String, ToolOutput)> = entries
            .iter()
            .zip(refused)
            .map(|(e, r)| {
                let out = match r {
                    Some(why) => ToolOutput::error(why.clone()),
                    None => outs
                        .next()
                        .unwrap_or_else(|| ToolOutput::error("no result")),
                };
                (e.name.clone(), out)
            })
            .collect();
        ToolOutput {
            is_error: results.iter().all(|(_, o)| o.is_error),
            content: serde_json::json!({
                "count": results.len(),
                "results": results
                    .iter()
                    .map(|(n, o)| serde_json::json!({"name": n, "is_error": o.is_error, "content": o.content}))
                    .collect::<Vec<_>>(),
            })
            .to_string(),
        }
    }

    /// Scope and schema checks, then the call (without hooks or approval:
    /// the agent's tool round adds those around [`Registry::call_checked`]).
    pub async fn run_entry(
        &self,
        name: &str,
        call_id: &str,
        args: Value,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        if name.starts_with(catalog::CONNECTOR_PREFIX) {
            self.load_connectors().await;
        }
        if let Some(err) = self.check_entry(name, &args) {
            return ToolOutput::error(err);
        }
        self.call_checked(name, call_id, args, cancel).await
    }

    /// Runs an entry that passed [`Registry::check_entry`].
    pub async fn call_checked(
        &self,
        name: &str,
        call_id: &str,
        args: Value,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        if let Some(tool) = self.builtin(name) {
            return tokio::select! {
                out = tool.call(args, cancel) => out,
                _ = cancel.cancelled() => ToolOutput::error("interrupted by the user while running"),
            };
        }
        if name.starts_with(catalog::CONNECTOR_PREFIX) {
            let Some(g) = &self.gateway else {
                return ToolOutput::error(
                    "no connector gateway is configured ([connectors] url in config.toml)",
                );
            };
            let call = [DispatchCall {
                id: call_id,
                name,
                arguments: &args,
            }];
            return g
                .dispatch(&call, cancel)
                .await
                .into_iter()
                .next()
                .unwrap_or_else(|| ToolOutput::error("the gateway returned no result"));
        }
        match &self.mcp {
            Some(mcp) => match mcp.call(name, args, cancel).await {
                Some(out) => out,
                None => ToolOutput::error(format!("tool `{name}` is no longer available")),
            },
            None => ToolOutput::error(format!("unknown tool `{name}`")),
        }
    }

    /// Makes sure the connector listing has been fetched (for a scope check).
    pub async fn load_connectors(&self) {
        if let Some(g) = &self.gateway {
            let _ = g.tools().await;
        }
    }

    /// Scope and schema: `Some(message)` when the entry must not run.
    pub fn check_entry(&self, name: &str, args: &Value) -> Option<String> {
        let schema = match self.builtin(name) {
            Some(t) => t.spec().parameters,
            None => match self.catalog().get(name) {
                Some(t) => t.schema.clone(),
                None => {
                    return Some(validation::unknown_tool(
                        name,
                        &self.catalog(),
                        &self.builtin_names(),
                    ))
                }
            },
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

fn into_output(r: Result<String, String>) -> ToolOutput {
    match r {
        Ok(s) => ToolOutput::ok(s),
        Err(e) => ToolOutput::error(e),
    }
}

/// Arguments as models send them: a JSON object, an empty string for none, or a
/// JSON string that itself holds the object.
pub fn parse_arguments(raw: &str) -> Result<serde_json::Value, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(serde_json::json!({}));
    }
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::Object(m)) => Ok(serde_json::Value::Object(m)),
        Ok(serde_json::Value::String(inner)) => parse_arguments(&inner),
        Ok(serde_json::Value::Null) => Ok(serde_json::json!({})),
        Ok(other) => Err(format!(
            "arguments must be a JSON object, got {}",
            crate::util::text::excerpt(&other.to_string(), 80)
        )),
        Err(e) => Err(format!(
            "arguments are not valid JSON ({e}); send a JSON object"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_parsed_leniently() {
        assert_eq!(parse_arguments("").unwrap(), serde_json::json!({}));
        assert_eq!(parse_arguments("{\"a\":1}").unwrap()["a"], 1);
        assert_eq!(parse_arguments("\"{\\\"a\\\":2}\"").unwrap()["a"], 2);
        assert!(parse_arguments("[1]").is_err());
        assert!(parse_arguments("{oops")
            .unwrap_err()
            .contains("not valid JSON"));
    }

    #[tokio::test]
    async fn unknown_tools_are_error_results() {
        let r = Registry::with_builtins(&["echo".into()]).unwrap();
        let out = r
            .execute(
                &ToolCall {
                    id: "1".into(),
                    name: "echoes".into(),
                    arguments: String::new(),
                },
                &CancellationToken::new(),
            )
            .await;
        assert!(out.is_error);
        assert!(
            out.content
                .contains("unknown tool `echoes`; closest: `echo`"),
            "{}",
            out.content
        );
    }

    #[tokio::test]
    async fn builtin_arguments_are_checked_against_their_schema() {
        let r = Registry::with_builtins(&["echo".into()]).unwrap();
        let call = ToolCall {
            id: "1".into(),
            name: "echo".into(),
            arguments: "{\"text\": 5}".into(),
        };
        let out = r.execute(&call, &CancellationToken::new()).await;
        assert!(out.is_error);
        assert!(
            out.content.contains("/text: 5 is not of type \"string\""),
            "{}",
            out.content
        );
    }
}
