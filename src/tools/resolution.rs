//! Name resolution, the scope check of every entry: a model-facing name
//! resolved once into the `ToolRef` that runs it (waiting, bounded, for a
//! catalog still loading), the arguments checked against its schema, and
//! the tool as approval rules and hooks see it.

use std::sync::Arc;

use serde_json::Value;

use super::{validation, Registry};
use crate::call::{names, ToolRef};
use crate::mcp::McpRegistry;

impl Registry {
    /// Resolves a model-facing name once into what runs it (the scope
    /// check). A name on a configured server whose catalog is not loaded yet
    /// (a cold start, a resumed session that knows the names) waits for that
    /// catalog, bounded by the server's start-up timeout; a name no server's
    /// prefix claims (a bare `echo`) waits for every catalog not loaded yet,
    /// so its answer can name the full names.
    pub(crate) async fn resolve(&self, name: &str) -> Result<ToolRef, String> {
        if !self.allows(name) {
            let own = self
                .allowed
                .last()
                .map(|a| a.join(", "))
                .unwrap_or_default();
            return Err(format!(
                "`{name}` is not among the tools this agent may use ({own})"
            ));
        }
        if self.subagent.as_ref().is_some_and(|s| s.name == name) {
            return Ok(ToolRef::Subagent);
        }
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
        // A subagent acts only through its own calls, each settled on its
        // own: starting one changes nothing.
        if *tool == ToolRef::Subagent {
            subject.hints.read_only = true;
        }
        if let (ToolRef::Builtin(n), Some(t)) = (tool, self.builtin_of(tool)) {
            debug_assert_eq!(n, name);
            subject.hints = t.hints(args);
        }
        if let (ToolRef::Mcp { server, tool: own }, Some(mcp)) = (tool, &self.mcp) {
            return mcp_subject(mcp, name, server, own);
        }
        subject
    }

    /// The arguments the tool's schema marks required, in its order.
    pub(crate) fn required_args(&self, name: &str, tool: &ToolRef) -> Vec<String> {
        let schema = match tool {
            ToolRef::Builtin(n) => self.builtin(n).map(|b| b.spec().parameters),
            ToolRef::Subagent => self.subagent.as_ref().map(|s| s.parameters.clone()),
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
            ToolRef::Subagent => self.subagent.as_ref()?.parameters.clone(),
            ToolRef::Mcp { .. } | ToolRef::Connector(_) => self.catalog().get(name)?.schema.clone(),
        };
        let validator = self.validator(name, &schema);
        validation::schema_errors(validator.as_deref(), name, args)
    }

    pub(super) fn validator(
        &self,
        name: &str,
        schema: &Value,
    ) -> Option<Arc<jsonschema::Validator>> {
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
/// An MCP tool as approval rules and hooks see it: its model-facing
/// `name`, the server's own name and the plain one a collision took away,
/// and what its server says of it.
fn mcp_subject(mcp: &McpRegistry, name: &str, server: &str, own: &str) -> crate::policy::Subject {
    let mut subject = crate::policy::Subject::named(name);
    let own_name = names::own_mcp_name(server, own);
    let plain = crate::mcp::naming::plain(server, own);
    subject.own = (own_name != name).then_some(own_name);
    subject.plain = (plain != name).then_some(plain);
    if let Some(t) = mcp.index().get(name) {
        subject.hints = crate::policy::Hints {
            read_only: t.tool.read_only,
            destructive: t.tool.destructive,
            ..Default::default()
        };
    }
    subject
}

/// The tool named `name` — as the model sees it, or by its server's own
/// name (`mcp__ctx__resolve-library-id`) — as a real turn's hooks see it,
/// for `hermes hooks test`: from its server's catalog, cached or listed by
/// starting the server as a turn would. A name no catalog has is taken as
/// it is.
pub(crate) async fn subject_by_any_name(mcp: &McpRegistry, name: &str) -> crate::policy::Subject {
    let find = || {
        let idx = mcp.index();
        idx.tools.iter().find_map(|t| {
            let server = &mcp.servers().get(t.server)?.name;
            (t.name == name || names::own_mcp_name(server, &t.tool.name) == name)
                .then(|| (t.name.clone(), server.clone(), t.tool.name.clone()))
        })
    };
    let mut found = find();
    if found.is_none() && name.starts_with(names::MCP_PREFIX) {
        let _ = mcp.load_catalog_for(name).await;
        found = find();
    }
    match found {
        Some((exposed, server, own)) => mcp_subject(mcp, &exposed, &server, &own),
        None => crate::policy::Subject::named(name),
    }
}

fn mcp_ref(mcp: &McpRegistry, name: &str) -> Option<ToolRef> {
    let idx = mcp.index();
    let t = idx.get(name)?;
    Some(ToolRef::Mcp {
        server: mcp.servers().get(t.server)?.name.clone(),
        tool: t.tool.name.clone(),
    })
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

    /// A subagent type's `tools`: exact names, globs and whole servers,
    /// held at resolution — the scope check — not only in what is shown.
    #[tokio::test]
    async fn a_subagents_tools_are_what_its_type_allows() {
        let r = echo_only().for_subagent(
            Some(vec!["mcp__github".into(), "mcp__notes__read_*".into()]),
            None,
        );
        assert!(r.allows("mcp__github__create_issue"));
        assert!(r.allows("mcp__notes__read_text_file"));
        assert!(!r.allows("mcp__notes__write_file"));
        assert!(!r.allows("mcp__githubx__a"));
        let err = r
            .resolve_and_check("echo", &serde_json::json!({"text": "x"}))
            .await
            .unwrap_err();
        assert!(
            err.contains("not among the tools this agent may use"),
            "{err}"
        );
        assert!(r.specs().is_empty(), "echo is not offered either");
        assert!(echo_only().for_subagent(None, None).allows("echo"));
    }

    /// A nested subagent never reaches more than its parent: a type with no
    /// `tools` under a restricted one keeps the parent's list, and the
    /// `agent` tool is offered only where the lists allow it.
    #[tokio::test]
    async fn a_nested_subagent_is_held_to_its_parents_tools_too() {
        let agent = || crate::model::ToolSpec {
            name: "agent".into(),
            description: "Start a subagent".into(),
            parameters: serde_json::json!({"type": "object"}),
        };
        let parent = echo_only().for_subagent(Some(vec!["mcp__github".into()]), Some(agent()));
        assert!(
            parent.subagent.is_none(),
            "`agent` is not in the type's tools"
        );
        let err = parent.resolve("agent").await.unwrap_err();
        assert!(err.contains("not among the tools"), "{err}");

        let parent = echo_only().for_subagent(
            Some(vec!["mcp__github".into(), "agent".into()]),
            Some(agent()),
        );
        assert_eq!(parent.resolve("agent").await, Ok(ToolRef::Subagent));
        let child = parent.for_subagent(None, None);
        assert!(child.allows("mcp__github__get_issue"));
        assert!(!child.allows("echo"));
        assert!(!child.allows("mcp__notes__write_file"));
        let narrower =
            parent.for_subagent(Some(vec!["echo".into(), "mcp__github__get_*".into()]), None);
        assert!(narrower.allows("mcp__github__get_issue"));
        assert!(!narrower.allows("mcp__github__create_issue"));
        assert!(!narrower.allows("echo"), "the parent's list has no echo");
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
