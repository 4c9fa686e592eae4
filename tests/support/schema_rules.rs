//! What the real APIs refuse in a tool's input schema, for the strict fakes.
//! Each rule is one the API documents or answers with a 400 in reports
//! against real MCP servers; the message is the API's own.
//!
//! - OpenAI Chat Completions (`tools[i].function.parameters`): the top level
//!   must be `type: "object"` ("schema must be a JSON Schema of 'type:
//!   \"object\"'"), without `oneOf`/`anyOf`/`allOf`/`enum`/`not` at the top
//!   level; every array schema needs `items` ("array schema missing items",
//!   reported against mcp-grafana's `update_dashboard`); and the schema must
//!   be a valid JSON Schema (its validator reports "is not valid under any
//!   of the given schemas").
//! - Anthropic Messages (`tools.N.custom.input_schema`): `type` must be
//!   `object`, "input_schema does not support oneOf, allOf, or anyOf at the
//!   top level", and "It must match JSON Schema draft 2020-12".
//! - Bedrock Converse (`toolConfig.tools.N.toolSpec.inputSchema.json`): the
//!   type must be `object`; Claude behind it applies Anthropic's rules, which
//!   Bedrock passes on as "The model returned the following errors: …".

#![allow(dead_code)]

use serde_json::{Map, Value};

/// The first OpenAI rule `schema` (of function `name`) breaks.
pub fn openai(name: &str, schema: &Value) -> Option<String> {
    let pre = format!("Invalid schema for function '{name}':");
    let got = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => other.to_string(),
        None => "None".into(),
    };
    if got != "object" {
        return Some(format!(
            "{pre} schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{got}\"'."
        ));
    }
    if ["oneOf", "anyOf", "allOf", "enum", "not"]
        .iter()
        .any(|k| schema.get(*k).is_some())
    {
        return Some(format!(
            "{pre} schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level."
        ));
    }
    if !jsonschema::draft7::meta::is_valid(&without_dialect(schema)) {
        return Some(format!(
            "{pre} {} is not valid under any of the given schemas.",
            compact(schema)
        ));
    }
    if let Some(at) = array_without_items(schema, &mut Vec::new()) {
        let context = at
            .iter()
            .map(|p| format!("'{p}'"))
            .collect::<Vec<_>>()
            .join(", ");
        return Some(format!(
            "{pre} In context=({context}), array schema missing items."
        ));
    }
    None
}

/// The first Anthropic rule `schema` (of tool `i`) breaks.
pub fn anthropic(i: usize, schema: &Value) -> Option<String> {
    let at = format!("tools.{i}.custom.input_schema");
    if schema.get("type") != Some(&Value::from("object")) {
        return Some(format!("{at}.type: Field required"));
    }
    if ["oneOf", "anyOf", "allOf"]
        .iter()
        .any(|k| schema.get(*k).is_some())
    {
        return Some(format!(
            "{at}: input_schema does not support oneOf, allOf, or anyOf at the top level"
        ));
    }
    if !jsonschema::draft202012::meta::is_valid(&without_dialect(schema)) {
        return Some(format!(
            "{at}: JSON schema is invalid. It must match JSON Schema draft 2020-12 \
             (https://json-schema.org/draft/2020-12). Learn more about tool use at \
             https://docs.claude.com/en/docs/tool-use."
        ));
    }
    None
}

/// The first Gemini rule a `parametersJsonSchema` (of declaration `at`)
/// breaks: "The schema must describe an object where the properties are
/// the parameters to the function" (types.ts `FunctionDeclaration`), and
/// it is JSON Schema (the fake holds it to draft 2020-12, as the API's own
/// announcement of JSON Schema support lists 2020-12 keywords:
/// `prefixItems`, `$ref`, `anyOf`).
pub fn gemini(at: &str, schema: &Value) -> Option<String> {
    if schema.get("type") != Some(&Value::from("object")) {
        return Some(format!(
            "{at}.parameters_json_schema: the schema must describe an object where the \
             properties are the parameters to the function"
        ));
    }
    if !jsonschema::draft202012::meta::is_valid(&without_dialect(schema)) {
        return Some(format!(
            "{at}.parameters_json_schema: {} is not a valid JSON Schema",
            compact(schema)
        ));
    }
    None
}

/// The APIs validate against their own draft whatever `$schema` says.
fn without_dialect(schema: &Value) -> Value {
    let mut s = schema.clone();
    if let Value::Object(m) = &mut s {
        m.remove("$schema");
    }
    s
}

fn compact(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

/// The path (as OpenAI's validator names it) of the first array schema
/// without `items`.
fn array_without_items(v: &Value, path: &mut Vec<String>) -> Option<Vec<String>> {
    let Value::Object(m) = v else { return None };
    if is_array(m) && !m.contains_key("items") {
        return Some(path.clone());
    }
    for (k, sub) in m {
        let children: Vec<(String, &Value)> = match (k.as_str(), sub) {
            ("properties" | "$defs" | "definitions" | "patternProperties", Value::Object(ps)) => {
                ps.iter().map(|(n, s)| (n.clone(), s)).collect()
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(xs)) => xs
                .iter()
                .enumerate()
                .map(|(i, s)| (i.to_string(), s))
                .collect(),
            ("items" | "additionalProperties" | "not", s @ Value::Object(_)) => {
                vec![(String::new(), s)]
            }
            ("items", Value::Array(xs)) => xs
                .iter()
                .enumerate()
                .map(|(i, s)| (i.to_string(), s))
                .collect(),
            _ => continue,
        };
        for (name, s) in children {
            path.push(k.clone());
            if !name.is_empty() {
                path.push(name.clone());
            }
            if let Some(p) = array_without_items(s, path) {
                return Some(p);
            }
            path.pop();
            if !name.is_empty() {
                path.pop();
            }
        }
    }
    None
}

fn is_array(m: &Map<String, Value>) -> bool {
    match m.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    }
}

/// The image types every API takes.
pub const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// Whether `data` is standard base64 (what every API decodes).
pub fn is_base64(data: &str) -> bool {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .is_ok()
}

/// Anthropic's rule for an image block at `at` (`…content.N`): a base64
/// source of one of its four types with data that decodes.
pub fn anthropic_image(at: &str, b: &Value) -> Option<String> {
    let src = &b["source"];
    if src["type"] != "base64" {
        return None;
    }
    let mt = src["media_type"].as_str().unwrap_or("");
    if !IMAGE_TYPES.contains(&mt) {
        return Some(format!(
            "{at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', \
             'image/gif' or 'image/webp'"
        ));
    }
    if !src["data"].as_str().is_some_and(is_base64) {
        return Some(format!(
            "{at}.image.source.base64: The image was specified using the image/png media type, \
             but the image appears to be invalid base64 data."
        ));
    }
    None
}

/// The first rule of OpenAI's strict structured outputs `schema` breaks
/// (`response_format` / `text.format` with `strict: true`): every object
/// needs `additionalProperties: false` and every property in `required`.
/// The message is the API's ("Invalid schema for response_format 'NAME':
/// In context=(…), …").
pub fn openai_strict(name: &str, schema: &Value) -> Option<String> {
    fn walk(s: &Value, context: &mut Vec<String>) -> Option<String> {
        let o = s.as_object()?;
        let ctx = || {
            format!(
                "({})",
                context
                    .iter()
                    .map(|c| format!("'{c}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        if o.get("type") == Some(&Value::from("object")) || o.contains_key("properties") {
            if o.get("additionalProperties") != Some(&Value::Bool(false)) {
                return Some(format!(
                    "In context={}, 'additionalProperties' is required to be supplied and to be false.",
                    ctx()
                ));
            }
            let required: Vec<&str> = o
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = o.get("properties").and_then(Value::as_object) {
                if let Some(missing) = props.keys().find(|k| !required.contains(&k.as_str())) {
                    return Some(format!(
                        "In context={}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{missing}'.",
                        ctx()
                    ));
                }
                for (k, v) in props {
                    context.extend(["properties".to_string(), k.clone()]);
                    let e = walk(v, context);
                    context.truncate(context.len() - 2);
                    if e.is_some() {
                        return e;
                    }
                }
            }
        }
        if let Some(items) = o.get("items") {
            context.push("items".into());
            let e = walk(items, context);
            context.pop();
            return e;
        }
        None
    }
    walk(schema, &mut Vec::new())
        .map(|e| format!("Invalid schema for response_format '{name}': {e}"))
}

/// An OpenAI `json_schema` name: `^[a-zA-Z0-9_-]+$`, up to 64.
pub fn openai_schema_name(name: &Value) -> bool {
    name.as_str().is_some_and(|n| {
        (1..=64).contains(&n.len())
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// The first rule of Anthropic's structured outputs
/// (`output_config.format`) the format breaks.
pub fn anthropic_output(format: &Value) -> Option<String> {
    if format["type"] != "json_schema" {
        return Some("output_config.format.type: Input should be 'json_schema'".into());
    }
    fn closed(s: &Value) -> bool {
        let Some(o) = s.as_object() else { return true };
        if (o.get("type") == Some(&Value::from("object")) || o.contains_key("properties"))
            && o.get("additionalProperties") != Some(&Value::Bool(false))
        {
            return false;
        }
        o.get("properties")
            .and_then(Value::as_object)
            .is_none_or(|p| p.values().all(closed))
            && o.get("items").is_none_or(closed)
    }
    if !format["schema"].is_object() {
        return Some("output_config.format.schema: Field required".into());
    }
    (!closed(&format["schema"])).then(|| {
        "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false".into()
    })
}
