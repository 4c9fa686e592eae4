//! The entries of a `tool_call`, read leniently as real models send them. An
//! entry whose `arguments` cannot be used still is an entry (it has a name): it
//! is split off like the others and fails alone (docs/tool-call-contract.md).

use serde_json::Value;

/// The most entries one `tool_call` may carry.
pub(super) const MAX_CALLS_PER_DISPATCH: usize = 10;

/// One `{name, arguments}` entry of a `tool_call`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub name: String,
    /// An object (a JSON string was parsed, `""`/missing/`null` became `{}`),
    /// or why the model's `arguments` cannot be used.
    pub arguments: Result<Value, String>,
    /// The entry as parsed from the model's batch (re-serialising it sorts its
    /// keys), for the child's arguments and for messages that quote it back.
    pub raw: Value,
}

impl Entry {
    /// The arguments as they identify the entry: the parsed object, or what
    /// the model sent when it could not be parsed.
    pub(crate) fn identity_arguments(&self) -> &Value {
        match &self.arguments {
            Ok(v) => v,
            Err(_) => std::iter::once("arguments")
                .chain(ARGUMENT_ALIASES)
                .find_map(|k| self.raw.get(k))
                .unwrap_or(&Value::Null),
        }
    }
}

/// `tool_call`'s input: `calls` as an array, a JSON string holding one, or a
/// single `{name, arguments}` object; or that object bare. `Err` only when the
/// batch itself is malformed (no entries, an entry that is not an object or
/// has no string `name`).
pub(crate) fn parse_calls(input: &Value) -> Result<Vec<Entry>, String> {
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
    let arguments = match arguments_of(name, obj) {
        Err(e) => Err(e),
        Ok(None | Some(Value::Null)) => Ok(Value::Object(Default::default())),
        Ok(Some(v)) => parsed(name, v),
    };
    Ok(Entry {
        name: name.to_string(),
        arguments,
        raw,
    })
}

/// Keys models put an entry's arguments under instead of `arguments`.
const ARGUMENT_ALIASES: [&str; 2] = ["parameters", "input"];

/// The entry's arguments: under `arguments`, or under the one alias a model
/// used instead. Two places are ambiguous, and refused rather than guessed:
/// a call run with the wrong (or no) arguments could do harm.
fn arguments_of<'a>(
    name: &str,
    obj: &'a serde_json::Map<String, Value>,
) -> Result<Option<&'a Value>, String> {
    let present: Vec<&str> = std::iter::once("arguments")
        .chain(ARGUMENT_ALIASES)
        .filter(|k| obj.get(*k).is_some_and(|v| !v.is_null()))
        .collect();
    match present.as_slice() {
        [] => Ok(None),
        [one] => Ok(obj.get(*one)),
        [..] => Err(format!(
            "entry `{name}` has {}; send its arguments once, under `arguments`",
            present
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        )),
    }
}

fn parsed(name: &str, v: &Value) -> Result<Value, String> {
    match Some(v) {
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Value::Object(Default::default())),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err(format!(
                "`arguments` of `{name}` is a string that is not a JSON object; send an object"
            )),
        },
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        Some(other) => Err(format!(
            "`arguments` of `{name}` must be an object, got {}",
            kind(other)
        )),
        None => Ok(Value::Object(Default::default())),
    }
}

pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn too_many(n: usize) -> String {
    format!(
        "tool_call takes at most {MAX_CALLS_PER_DISPATCH} entries; you sent {n}. Send the rest in another tool_call."
    )
}

/// Arguments as models send them: a JSON object, an empty string for none, or a
/// JSON string that itself holds the object.
pub(crate) fn parse_arguments(raw: &str) -> Result<Value, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(serde_json::json!({}));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(m)) => Ok(Value::Object(m)),
        Ok(Value::String(inner)) => parse_arguments(&inner),
        Ok(Value::Null) => Ok(serde_json::json!({})),
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
    use serde_json::json;

    #[test]
    fn arguments_are_parsed_leniently() {
        assert_eq!(parse_arguments("").unwrap(), json!({}));
        assert_eq!(parse_arguments("{\"a\":1}").unwrap()["a"], 1);
        assert_eq!(parse_arguments("\"{\\\"a\\\":2}\"").unwrap()["a"], 2);
        assert!(parse_arguments("[1]").is_err());
        assert!(parse_arguments("{oops")
            .unwrap_err()
            .contains("not valid JSON"));
    }

    #[test]
    fn lenient_shapes_parse() {
        let one = |v: Value| parse_calls(&v).unwrap();
        let a = one(json!({"calls": [{"name": "x", "arguments": {"a": 1}}]}));
        assert_eq!(a[0].arguments, Ok(json!({"a": 1})));
        let b = one(json!({"calls": "[{\"name\":\"x\",\"arguments\":\"{\\\"a\\\":1}\"}]"}));
        assert_eq!(b[0].arguments, Ok(json!({"a": 1})));
        let c = one(json!({"name": "x"}));
        assert_eq!(c[0].arguments, Ok(json!({})));
        let d = one(json!({"calls": {"name": "x", "arguments": ""}}));
        assert_eq!(d[0].name, "x");
    }

    #[test]
    fn arguments_under_another_key_are_taken_or_refused_never_dropped() {
        let e = parse_calls(&json!({"calls": [
            {"name": "a", "parameters": {"path": "x"}},
            {"name": "b", "input": "{\"q\":1}"},
            {"name": "c", "arguments": {"path": "x"}, "parameters": {"path": "y"}},
            {"name": "d", "arguments": null, "input": {"q": 2}}
        ]}))
        .unwrap();
        assert_eq!(e[0].arguments, Ok(json!({"path": "x"})));
        assert_eq!(e[1].arguments, Ok(json!({"q": 1})));
        assert_eq!(
            e[2].arguments,
            Err("entry `c` has `arguments` and `parameters`; send its arguments once, under `arguments`".into())
        );
        assert_eq!(e[3].arguments, Ok(json!({"q": 2})));
    }

    #[test]
    fn bad_arguments_stay_an_entry_that_says_what_is_wrong() {
        let e = parse_calls(&json!({"calls": [
            {"name": "a", "arguments": {"x": 1}},
            {"name": "b", "arguments": "{not json"},
            {"name": "c", "arguments": [1, 2]}
        ]}))
        .unwrap();
        assert_eq!(e.len(), 3);
        assert!(e[0].arguments.is_ok());
        assert!(e[1]
            .arguments
            .as_ref()
            .unwrap_err()
            .contains("`b` is a string that is not a JSON object"));
        assert!(e[2]
            .arguments
            .as_ref()
            .unwrap_err()
            .contains("`c` must be an object, got an array"));
        assert_eq!(e[2].identity_arguments(), &json!([1, 2]));
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
}

#[cfg(test)]
mod properties {
    use crate::call::parse_calls;
    use crate::util::arbitrary::{config, json_value};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn tool_call_inputs_are_read_without_panicking(input in json_value()) {
            if let Ok(entries) = parse_calls(&input) {
                prop_assert!(!entries.is_empty());
            }
        }
    }
}
