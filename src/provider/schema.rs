//! Tool input schemas as each API takes them. Servers declare schemas the
//! APIs refuse — a top-level `anyOf` (gitlab-mcp), an array without `items`
//! (mcp-grafana), draft-04 and draft-03 forms (`"exclusiveMinimum": true`,
//! `"required": true` on a property), a `type` no draft has — and one such
//! tool makes the API answer 400 to every request of the session. So the
//! schema is made acceptable here, at the wire, per API; the session record
//! and the argument validation keep the server's own schema, so a call is
//! still checked against what the server declared.
//!
//! Each API is a [`Dialect`]: the rules it is documented to apply. A new API
//! plugs in as one more constant. The adaptation is a pure function of the
//! schema, so a resumed session sends the same bytes again.

use serde_json::{json, Map, Value};

/// The JSON Schema meta-schema an API checks tool schemas against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Draft {
    /// Anthropic: "It must match JSON Schema draft 2020-12".
    D202012,
    /// OpenAI checks Draft 7 forms.
    D7,
}

/// What one API requires of a tool's input schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dialect {
    /// The API, for a person.
    pub(crate) name: &'static str,
    /// The meta-schema the API validates schemas against.
    pub(crate) draft: Draft,
    /// The most tools one request may define, where the API has a limit.
    pub(crate) max_tools: Option<usize>,
    /// Whether the schema goes without its `$schema` (the dialect is the
    /// API's, not the server's).
    pub(crate) drop_schema_uri: bool,
}

/// OpenAI Chat Completions (and every server speaking it): the top level
/// must be `type: object` without `anyOf`/`oneOf`/`allOf`/`enum`/`not`;
/// "array schema missing items" is refused; at most 128 tools.
pub(crate) const OPENAI_CHAT: Dialect = Dialect {
    name: "OpenAI Chat Completions",
    draft: Draft::D7,
    max_tools: Some(128),
    drop_schema_uri: false,
};

/// OpenAI Responses: the same function schemas as Chat Completions, in a
/// flat tool (`{"type":"function","name","parameters","strict"}`).
pub(crate) const OPENAI_RESPONSES: Dialect = Dialect {
    name: "OpenAI Responses",
    draft: Draft::D7,
    max_tools: Some(128),
    drop_schema_uri: false,
};

/// Gemini, as `parametersJsonSchema` (the full JSON Schema, not the
/// OpenAPI subset `parameters` takes): "the schema must describe an
/// object where the properties are the parameters"; at most 128 function
/// declarations a request (Vertex documents the limit); `$schema` left
/// out, as Google's own CLI does.
pub(crate) const GEMINI: Dialect = Dialect {
    name: "Gemini",
    draft: Draft::D202012,
    max_tools: Some(128),
    drop_schema_uri: true,
};

/// Anthropic Messages: `input_schema.type` must be `object`, no
/// `oneOf`/`allOf`/`anyOf` at the top level, and the whole schema valid
/// draft 2020-12.
pub(crate) const ANTHROPIC: Dialect = Dialect {
    name: "Anthropic Messages",
    draft: Draft::D202012,
    max_tools: None,
    drop_schema_uri: false,
};

/// Bedrock Converse: `inputSchema.json.type` must be `object`; Claude on
/// Bedrock applies Anthropic's rules behind it.
pub(crate) const BEDROCK: Dialect = Dialect {
    name: "Bedrock Converse",
    draft: Draft::D202012,
    max_tools: None,
    drop_schema_uri: false,
};

const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];
const COMBINATORS: [&str; 3] = ["anyOf", "oneOf", "allOf"];
/// Top-level keywords no API takes beside `type: object`.
const TOP_REFUSED: [&str; 7] = ["anyOf", "oneOf", "allOf", "not", "enum", "if", "then"];

impl Dialect {
    /// `schema` as this API accepts it.
    pub(crate) fn adapt(&self, schema: &Value) -> Value {
        let mut adapted = self.adapt_keeping_uri(schema);
        if let (true, Value::Object(m)) = (self.drop_schema_uri, &mut adapted) {
            m.remove("$schema");
        }
        adapted
    }

    fn adapt_keeping_uri(&self, schema: &Value) -> Value {
        if self.accepts(schema) {
            return schema.clone();
        }
        let mut top = top_object(schema);
        repair(&mut top);
        if !self.meta_valid(&top) {
            // Something the repairs do not know: keep the properties that
            // are valid on their own and describe the rest.
            loosen(&mut top, self);
        }
        top
    }

    /// Whether the API takes `schema` as it is: the test the fakes apply
    /// too, so a schema already acceptable is sent untouched.
    pub(crate) fn accepts(&self, schema: &Value) -> bool {
        let Value::Object(m) = schema else {
            return false;
        };
        m.get("type") == Some(&json!("object"))
            && !TOP_REFUSED.iter().any(|k| m.contains_key(*k))
            && !has_untyped_arrays(schema)
            && self.meta_valid(schema)
    }

    fn meta_valid(&self, schema: &Value) -> bool {
        // Most schemas (hermes' own tools', most servers') use a few plain
        // keywords: valid under every draft, no meta-schema needed — whose
        // validator, built on first use, is most of a one-shot run's
        // start-up for the 2020-12 APIs.
        if plainly_valid(schema) {
            return true;
        }
        // `$schema` picks a draft in the validator; the API uses its own.
        let bare;
        let schema = match schema.get("$schema") {
            Some(_) => {
                let mut s = schema.clone();
                if let Value::Object(m) = &mut s {
                    m.remove("$schema");
                }
                bare = s;
                &bare
            }
            None => schema,
        };
        match self.draft {
            Draft::D202012 => jsonschema::draft202012::meta::is_valid(schema),
            Draft::D7 => jsonschema::draft7::meta::is_valid(schema),
        }
    }
}

/// Whether `v` is a schema of plain keywords, each holding what every
/// draft's meta-schema takes: such a schema is valid under draft 7 and
/// 2020-12 alike. Anything else goes to the meta-schema.
fn plainly_valid(v: &Value) -> bool {
    let Value::Object(m) = v else {
        return false;
    };
    let is_type = |t: &Value| t.as_str().is_some_and(|t| TYPES.contains(&t));
    m.iter().all(|(k, v)| match k.as_str() {
        "type" => match v {
            Value::Array(ts) => !ts.is_empty() && ts.iter().all(is_type),
            t => is_type(t),
        },
        "description" | "title" | "format" | "pattern" | "$schema" => v.is_string(),
        "default" | "examples" | "const" => true,
        "enum" => v.is_array(),
        "required" => v.as_array().is_some_and(|r| r.iter().all(Value::is_string)),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            v.is_number()
        }
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            v.as_u64().is_some()
        }
        "uniqueItems" => v.is_boolean(),
        "properties" => v
            .as_object()
            .is_some_and(|ps| ps.values().all(plainly_valid)),
        "items" => plainly_valid(v),
        "additionalProperties" => v.is_boolean() || plainly_valid(v),
        "anyOf" | "oneOf" | "allOf" => v
            .as_array()
            .is_some_and(|xs| !xs.is_empty() && xs.iter().all(plainly_valid)),
        _ => false,
    })
}

/// Whether some array schema in `v` has no `items`.
fn has_untyped_arrays(v: &Value) -> bool {
    let mut found = false;
    walk(&mut v.clone(), &mut |m| {
        found |= is_array_schema(m) && !m.contains_key("items") && !m.contains_key("prefixItems");
    });
    found
}

fn is_array_schema(m: &Map<String, Value>) -> bool {
    match m.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    }
}

/// Keywords whose value is a map of subschemas, a list of them, or one.
const SCHEMA_MAPS: [&str; 4] = ["properties", "patternProperties", "$defs", "definitions"];
const SCHEMA_LISTS: [&str; 5] = ["items", "prefixItems", "anyOf", "oneOf", "allOf"];
const SCHEMA_ONE: [&str; 9] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "additionalItems",
    "propertyNames",
];

/// `f` on every subschema of `v` (objects under schema keywords), each
/// before its own subschemas, so what `f` changes is what is walked.
fn walk(v: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>)) {
    let Value::Object(m) = v else { return };
    f(m);
    for (k, sub) in m.iter_mut() {
        let k = k.as_str();
        match sub {
            Value::Object(ps) if SCHEMA_MAPS.contains(&k) => {
                ps.values_mut().for_each(|s| walk(s, f))
            }
            Value::Array(xs) if SCHEMA_LISTS.contains(&k) => xs.iter_mut().for_each(|s| walk(s, f)),
            s @ Value::Object(_) if SCHEMA_ONE.contains(&k) => walk(s, f),
            _ => {}
        }
    }
}

/// The top level as `type: object`: a top-level `anyOf`/`oneOf` becomes
/// one object with every alternative's properties (required: those every
/// alternative requires), `allOf` one with all of them; the alternatives
/// are named in the description, so the model still sees the shapes.
fn top_object(schema: &Value) -> Value {
    let Value::Object(root) = schema else {
        return json!({"type": "object", "properties": {}});
    };
    let mut out = root.clone();
    let mut props = match out.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let mut required: Vec<String> = strings(root.get("required"));
    let mut shapes = Vec::new();
    for key in COMBINATORS {
        let Some(Value::Array(branches)) = out.remove(key) else {
            continue;
        };
        let mut common: Option<Vec<String>> = None;
        for b in &branches {
            let b = resolve(root, b);
            if let Some(Value::Object(p)) = b.get("properties") {
                for (name, s) in p {
                    props.entry(name.clone()).or_insert_with(|| s.clone());
                }
                shapes.push(p.keys().cloned().collect::<Vec<_>>().join(", "));
            }
            let req = strings(b.get("required"));
            if key == "allOf" {
                required.extend(req);
            } else {
                common = Some(match common {
                    None => req,
                    Some(c) => c.into_iter().filter(|r| req.contains(r)).collect(),
                });
            }
        }
        required.extend(common.unwrap_or_default());
    }
    for k in TOP_REFUSED.iter().chain(&["else"]) {
        out.remove(*k);
    }
    out.insert("type".into(), json!("object"));
    if !shapes.is_empty() {
        let note = format!("One of these shapes: ({}).", shapes.join(") or ("));
        let text = match out.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d} {note}"),
            _ => note,
        };
        out.insert("description".into(), json!(text));
    }
    required.retain(|r| props.contains_key(r));
    let mut seen = std::collections::HashSet::new();
    required.retain(|r| seen.insert(r.clone()));
    out.insert("properties".into(), Value::Object(props));
    if required.is_empty() {
        out.remove("required");
    } else {
        out.insert("required".into(), json!(required));
    }
    Value::Object(out)
}

/// A local `$ref` branch resolved against the root's definitions.
fn resolve<'a>(root: &'a Map<String, Value>, b: &'a Value) -> &'a Value {
    let Some(r) = b.get("$ref").and_then(Value::as_str) else {
        return b;
    };
    let mut at = None;
    for defs in ["$defs", "definitions"] {
        if let Some(name) = r.strip_prefix(&format!("#/{defs}/")) {
            at = root.get(defs).and_then(|d| d.get(name));
        }
    }
    at.unwrap_or(b)
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Old-draft and broken forms rewritten in every subschema.
fn repair(v: &mut Value) {
    walk(v, &mut repair_node);
}

fn repair_node(m: &mut Map<String, Value>) {
    // `type` only with the seven JSON types.
    match m.get_mut("type") {
        Some(Value::String(t)) if !TYPES.contains(&t.as_str()) => {
            m.remove("type");
        }
        Some(Value::Array(ts)) => {
            ts.retain(|t| t.as_str().is_some_and(|t| TYPES.contains(&t)));
            if ts.is_empty() {
                m.remove("type");
            }
        }
        Some(Value::String(_)) | None => {}
        Some(_) => {
            m.remove("type");
        }
    }
    if is_array_schema(m) {
        match m.remove("items") {
            // Draft-04 tuples: `items` must be one schema now.
            Some(Value::Array(xs)) if !xs.is_empty() => {
                m.insert("items".into(), json!({ "anyOf": xs }));
            }
            Some(s @ (Value::Object(_) | Value::Bool(_))) => {
                m.insert("items".into(), s);
            }
            _ if !m.contains_key("prefixItems") => {
                m.insert("items".into(), json!({}));
            }
            _ => {}
        }
    }
    // Draft-04 booleans beside `minimum`/`maximum`.
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(Value::Bool(b)) = m.get(flag) {
            let b = *b;
            m.remove(flag);
            if b {
                if let Some(n) = m.remove(bound) {
                    m.insert(flag.into(), n);
                }
            }
        }
    }
    if m.get("required").is_some_and(|r| !r.is_array()) {
        m.remove("required");
    }
    // Draft-03 `"required": true` on a property: into the parent's list.
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        let mut lifted = Vec::new();
        for (name, p) in props.iter_mut() {
            if let Value::Object(pm) = p {
                if pm.get("required") == Some(&Value::Bool(true)) {
                    lifted.push(json!(name));
                }
            }
            if !p.is_object() && !p.is_boolean() {
                *p = json!({});
            }
        }
        if !lifted.is_empty() {
            match m.get_mut("required") {
                Some(Value::Array(r)) => r.extend(lifted),
                _ => {
                    m.insert("required".into(), Value::Array(lifted));
                }
            }
        }
    } else if m.contains_key("properties") {
        m.remove("properties");
    }
}

/// The last resort for a schema the API would still refuse: each property
/// that is not valid on its own becomes an unconstrained one that keeps its
/// description, and definitions that are not valid go.
fn loosen(top: &mut Value, dialect: &Dialect) {
    let Value::Object(m) = top else { return };
    m.retain(|k, _| {
        matches!(
            k.as_str(),
            "type" | "properties" | "required" | "description" | "additionalProperties" | "title"
        )
    });
    if m.get("additionalProperties")
        .is_some_and(|a| !a.is_boolean())
    {
        m.remove("additionalProperties");
    }
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for p in props.values_mut() {
            if !dialect.meta_valid(p) || has_refs(p) {
                let description = p.get("description").cloned();
                *p = match description {
                    Some(d @ Value::String(_)) => json!({ "description": d }),
                    _ => json!({}),
                };
            }
        }
    }
}

/// Whether `v` refers to definitions (which `loosen` removed).
fn has_refs(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_refs),
        Value::Array(a) => a.iter().any(has_refs),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Dialect; 5] = [OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, BEDROCK, GEMINI];

    /// The fast path never calls a schema valid that a meta-schema
    /// refuses: every schema of the real catalogs, and the old drafts'
    /// shapes, checked against both.
    #[test]
    fn a_plainly_valid_schema_is_valid_under_both_drafts() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogs");
        let mut schemas: Vec<Value> = vec![
            json!({"type": "object", "properties": {"n": {"type": "integer", "exclusiveMinimum": true}}}),
            json!({"type": "object", "properties": {"n": {"type": "string", "required": true}}}),
            json!({"type": "object", "properties": {"n": {"type": "int"}}}),
            json!({"type": "object", "properties": {"l": {"type": "array", "items": [{"type": "string"}]}}}),
            json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/x"}}}),
        ];
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            schemas.extend(
                v["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["inputSchema"].clone()),
            );
        }
        let mut plain = 0;
        for s in &schemas {
            if plainly_valid(s) {
                plain += 1;
                let mut bare = s.clone();
                if let Value::Object(m) = &mut bare {
                    m.remove("$schema");
                }
                assert!(jsonschema::draft7::meta::is_valid(&bare), "{s}");
                assert!(jsonschema::draft202012::meta::is_valid(&bare), "{s}");
            }
        }
        assert!(plain > schemas.len() / 2, "{plain} of {}", schemas.len());
        for s in &schemas[..5] {
            assert!(!plainly_valid(s), "{s}");
        }
    }

    #[test]
    fn an_acceptable_schema_is_sent_as_it_is() {
        let s = json!({"type": "object", "properties": {"q": {"type": "string"}},
            "required": ["q"], "$schema": "http://json-schema.org/draft-07/schema#"});
        for d in ALL {
            assert!(d.accepts(&s), "{}", d.name);
            let mut want = s.clone();
            if d.drop_schema_uri {
                want.as_object_mut().unwrap().remove("$schema");
            }
            assert_eq!(d.adapt(&s), want, "{}", d.name);
        }
    }

    #[test]
    fn a_top_level_any_of_becomes_one_object_with_every_shape() {
        let s = json!({"anyOf": [
            {"type": "object", "properties": {"project_id": {"type": "string"}, "iid": {"type": "integer"}},
             "required": ["project_id", "iid"]},
            {"type": "object", "properties": {"project_id": {"type": "string"}, "branch": {"type": "string"}},
             "required": ["project_id"]}
        ], "description": "A merge request"});
        for d in ALL {
            assert!(!d.accepts(&s));
            let a = d.adapt(&s);
            assert!(d.accepts(&a), "{}: {a}", d.name);
            assert_eq!(a["type"], "object");
            assert_eq!(
                a["required"],
                json!(["project_id"]),
                "required by every shape"
            );
            assert_eq!(
                a["properties"].as_object().unwrap().len(),
                3,
                "every shape's fields: {a}"
            );
            let desc = a["description"].as_str().unwrap();
            assert!(
                desc == "A merge request One of these shapes: (iid, project_id) or (branch, project_id).",
                "{desc}"
            );
        }
    }

    #[test]
    fn ref_alternatives_are_read_from_the_definitions() {
        let s = json!({"oneOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/definitions/b"}],
            "$defs": {"a": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
            "definitions": {"b": {"type": "object", "properties": {"y": {"type": "string"}}}}});
        let a = ANTHROPIC.adapt(&s);
        assert!(ANTHROPIC.accepts(&a), "{a}");
        assert!(a["properties"]["x"].is_object() && a["properties"]["y"].is_object());
        assert!(a.get("required").is_none(), "x is not required by b: {a}");
    }

    #[test]
    fn arrays_get_items_and_old_drafts_are_rewritten() {
        let s = json!({"type": "object", "properties": {
            "panels": {"type": "array", "description": "the panels"},
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "number"}]},
            "n": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "required": true},
            "odd": {"type": "any"},
            "tags": {"type": ["array", "null"]},
            "bad": "a string where a schema goes"
        }});
        for d in ALL {
            let a = d.adapt(&s);
            assert!(d.accepts(&a), "{}: {a}", d.name);
            let p = &a["properties"];
            assert_eq!(p["panels"]["items"], json!({}));
            assert_eq!(p["panels"]["description"], "the panels");
            assert_eq!(
                p["pair"]["items"],
                json!({"anyOf": [{"type": "string"}, {"type": "number"}]})
            );
            assert_eq!(p["n"]["exclusiveMinimum"], 0);
            assert!(p["n"].get("minimum").is_none() && p["n"].get("required").is_none());
            assert_eq!(a["required"], json!(["n"]), "draft-03 required lifted");
            assert!(p["odd"].get("type").is_none());
            assert_eq!(p["tags"]["items"], json!({}));
            assert_eq!(p["bad"], json!({}));
        }
    }

    #[test]
    fn a_schema_that_is_not_an_object_becomes_an_empty_object_schema() {
        for s in [
            json!(null),
            json!(true),
            json!({}),
            json!({"type": "string"}),
        ] {
            for d in ALL {
                let a = d.adapt(&s);
                assert!(d.accepts(&a), "{}: {s} -> {a}", d.name);
            }
        }
    }

    #[test]
    fn what_no_repair_knows_is_loosened_property_by_property() {
        let s = json!({"type": "object", "properties": {
            "ok": {"type": "string"},
            "broken": {"type": "string", "minLength": "three", "description": "name"}
        }});
        let a = ANTHROPIC.adapt(&s);
        assert!(ANTHROPIC.accepts(&a), "{a}");
        assert_eq!(a["properties"]["ok"], json!({"type": "string"}));
        assert_eq!(a["properties"]["broken"], json!({"description": "name"}));
    }
}
