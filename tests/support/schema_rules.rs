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
