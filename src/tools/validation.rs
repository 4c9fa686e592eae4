//! The dispatcher's answers, each a tool result the model can act on: the old
//! contract's text for an unsplit local batch, an unknown tool name (with the
//! closest names, or the full names of a bare suffix), and arguments that do
//! not fit the tool's JSON Schema (naming failing paths). The shape of
//! `tool_call` itself is read in [`crate::call`].

use serde_json::Value;

use super::catalog::ToolCatalog;
use crate::call::Entry;

/// The old contract's answer to a multi-entry local batch that reached the
/// dispatcher without being split first.
pub(crate) fn legacy_batch_error(entries: &[Entry]) -> String {
    let first = entries
        .first()
        .map(|e| e.raw.to_string())
        .unwrap_or_default();
    format!(
        "tool_call takes exactly one entry for local tools; you sent {}.\nRetry with only: {{\"calls\":[{first}]}}",
        entries.len()
    )
}

/// An unknown name: the full names of a bare suffix, or the closest names.
pub(crate) fn unknown_tool(name: &str, catalog: &ToolCatalog, builtins: &[String]) -> String {
    let bare = catalog.bare_matches(name);
    if !bare.is_empty() {
        return format!(
            "`{name}` is not a full tool name; use {}",
            bare.iter()
                .map(|b| format!("`{b}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        );
    }
    let mut close: Vec<String> = catalog
        .closest(name, 3)
        .into_iter()
        .map(str::to_string)
        .collect();
    close.extend(
        builtins
            .iter()
            .filter(|b| b.contains(name) || name.contains(b.as_str()))
            .cloned(),
    );
    if close.is_empty() {
        format!("unknown tool `{name}`; use tool_search to find tools")
    } else {
        format!(
            "unknown tool `{name}`; closest: {}. Use tool_search to find tools",
            close
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Schema failures as `path: message` lines, or `None` when the arguments fit.
/// A schema that does not compile is not the model's fault: the call goes on.
pub(crate) fn schema_errors(
    validator: Option<&jsonschema::Validator>,
    name: &str,
    args: &Value,
) -> Option<String> {
    let v = validator?;
    let errors: Vec<String> = v
        .iter_errors(args)
        .take(8)
        .map(|e| {
            let path = e.instance_path().to_string();
            let path = if path.is_empty() {
                "(top level)".to_string()
            } else {
                path
            };
            format!("{path}: {e}")
        })
        .collect();
    if errors.is_empty() {
        None
    } else {
        Some(format!(
            "arguments for `{name}` do not match its input schema: {}. tool_describe shows the schema",
            errors.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn legacy_text_is_exact() {
        let e = crate::call::parse_calls(
            &json!({"calls": [{"name": "a", "arguments": {"x": 1}}, {"name": "b"}]}),
        )
        .unwrap();
        assert_eq!(
            legacy_batch_error(&e),
            "tool_call takes exactly one entry for local tools; you sent 2.\nRetry with only: {\"calls\":[{\"arguments\":{\"x\":1},\"name\":\"a\"}]}"
        );
    }

    #[test]
    fn schema_errors_name_paths() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}, "o": {"type": "object", "properties": {"s": {"type": "string"}}}}, "required": ["n"]});
        let v = jsonschema::validator_for(&schema).unwrap();
        let msg = schema_errors(Some(&v), "t", &json!({"o": {"s": 3}})).unwrap();
        assert!(msg.contains("/o/s: "), "{msg}");
        assert!(
            msg.contains("(top level): ") && msg.contains("\"n\" is a required property"),
            "{msg}"
        );
        assert!(schema_errors(Some(&v), "t", &json!({"n": 1})).is_none());
    }
}
