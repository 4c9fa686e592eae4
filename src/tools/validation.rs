//! What the dispatcher checks before anything runs, each failure a tool result
//! the model can act on: the shape of `tool_call`'s `calls`, the entry count,
//! the tool name (with the closest names, or the full names of a bare suffix),
//! and the arguments against the tool's JSON Schema (naming failing paths).

use serde_json::Value;

use super::catalog::ToolCatalog;

/// The most entries one `tool_call` may carry.
pub const MAX_CALLS_PER_DISPATCH: usize = 10;

/// One `{name, arguments}` entry of a `tool_call`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub name: String,
    /// Always an object (a string was parsed, `""`/missing became `{}`).
    pub arguments: Value,
    /// The entry as the model sent it, for messages that quote it back.
    pub raw: Value,
}

/// `tool_call`'s input, leniently: `calls` as an array, a JSON string holding
/// one, or a single `{name, arguments}` object; or that object bare.
pub fn parse_calls(input: &Value) -> Result<Vec<Entry>, String> {
    let calls = match input.get("calls") {
        Some(Value::String(s)) => serde_json::from_str::<Value>(s).map_err(|e| {
            format!("tool_call: `calls` is a string that is not valid JSON ({e}); send `calls` as an array of {{\"name\": …, \"arguments\": {{…}}}} objects")
        })?,
        Some(v) => v.clone(),
        None if input.get("name").is_some() => input.clone(),
        None => {
            return Err("tool_call: missing `calls`; send {\"calls\": [{\"name\": \"…\", \"arguments\": {…}}]}".into())
        }
    };
    let items = match calls {
        Value::Array(a) => a,
        obj @ Value::Object(_) => vec![obj],
        other => {
            return Err(format!(
            "tool_call: `calls` must be an array of {{\"name\", \"arguments\"}} objects, got {}",
            kind(&other)
        ))
        }
    };
    if items.is_empty() {
        return Err(
            "tool_call: `calls` is empty; send at least one {\"name\", \"arguments\"} entry".into(),
        );
    }
    items
        .into_iter()
        .enumerate()
        .map(|(i, raw)| entry(i, raw))
        .collect()
}

fn entry(i: usize, raw: Value) -> Result<Entry, String> {
    let n = i + 1;
    let Value::Object(obj) = &raw else {
        return Err(format!(
            "tool_call: entry {n} is {}, not an object with `name` and `arguments`",
            kind(&raw)
        ));
    };
    let Some(name) = obj.get("name").and_then(|v| v.as_str()) else {
        return Err(format!("tool_call: entry {n} has no string `name`"));
    };
    let arguments = match obj.get("arguments") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Default::default()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                return Err(format!(
                    "tool_call: entry {n} (`{name}`): `arguments` is a string that is not a JSON object"
                ))
            }
        },
        Some(v @ Value::Object(_)) => v.clone(),
        Some(other) => {
            return Err(format!(
                "tool_call: entry {n} (`{name}`): `arguments` must be an object, got {}",
                kind(other)
            ))
        }
    };
    Ok(Entry {
        name: name.to_string(),
        arguments,
        raw,
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub fn too_many(n: usize) -> String {
    format!(
        "tool_call takes at most {MAX_CALLS_PER_DISPATCH} entries; you sent {n}. Send the rest in another tool_call."
    )
}

/// The old contract's answer to a multi-entry local batch that reached the
/// dispatcher without being split first.
pub fn legacy_batch_error(entries: &[Entry]) -> String {
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
pub fn unknown_tool(name: &str, catalog: &ToolCatalog, builtins: &[String]) -> String {
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
pub fn schema_errors(
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
    fn lenient_shapes_parse() {
        let one = |v: Value| parse_calls(&v).unwrap();
        let a = one(json!({"calls": [{"name": "x", "arguments": {"a": 1}}]}));
        assert_eq!(a[0].arguments, json!({"a": 1}));
        let b = one(json!({"calls": "[{\"name\":\"x\",\"arguments\":\"{\\\"a\\\":1}\"}]"}));
        assert_eq!(b[0].arguments, json!({"a": 1}));
        let c = one(json!({"name": "x"}));
        assert_eq!(c[0].arguments, json!({}));
        let d = one(json!({"calls": {"name": "x", "arguments": ""}}));
        assert_eq!(d[0].name, "x");
    }

    #[test]
    fn malformed_calls_say_what_is_wrong() {
        let err = |v: Value| parse_calls(&v).unwrap_err();
        assert!(err(json!({"calls": "[{oops"})).contains("not valid JSON"));
        assert!(err(json!({"calls": [1]})).contains("entry 1 is a number"));
        assert!(err(json!({"calls": [{"arguments": {}}]})).contains("entry 1 has no string `name`"));
        assert!(err(json!({"calls": []})).contains("empty"));
        assert!(err(json!({})).contains("missing `calls`"));
    }

    #[test]
    fn legacy_text_is_exact() {
        let e =
            parse_calls(&json!({"calls": [{"name": "a", "arguments": {"x": 1}}, {"name": "b"}]}))
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
