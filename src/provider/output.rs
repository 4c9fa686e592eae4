//! The answer's shape a run asks for (`--output-schema`), as each API takes
//! it: Chat Completions' `response_format`, Responses' `text.format`,
//! Gemini's `responseJsonSchema`, Anthropic's `output_config.format`,
//! Bedrock Converse's `outputConfig.textFormat`. The agent validates the
//! answer whatever the API did with it.

use serde_json::{json, Value};

/// The name the schema is sent under (`^[a-zA-Z0-9_-]{1,64}$` for OpenAI).
const NAME: &str = "answer";

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutputFormat {
    pub schema: Value,
    /// Whether the schema keeps to what strict structured output takes:
    /// every object closed (`additionalProperties: false`) with every
    /// property required. OpenAI then enforces it (`strict: true`), and
    /// Anthropic and Bedrock take it at all; otherwise OpenAI treats it as
    /// guidance and the other two are not sent it.
    pub closed: bool,
}

impl OutputFormat {
    pub(crate) fn new(schema: Value) -> OutputFormat {
        let closed = closed(&schema);
        OutputFormat { schema, closed }
    }

    /// Chat Completions' `response_format`.
    pub(crate) fn chat(&self) -> Value {
        json!({"type": "json_schema", "json_schema": {
            "name": NAME, "schema": self.schema, "strict": self.closed}})
    }

    /// Responses' `text`.
    pub(crate) fn responses(&self) -> Value {
        json!({"format": {"type": "json_schema", "name": NAME,
            "schema": self.schema, "strict": self.closed}})
    }

    /// Anthropic's `output_config`, for a closed schema only.
    pub(crate) fn anthropic(&self) -> Option<Value> {
        self.closed
            .then(|| json!({"format": {"type": "json_schema", "schema": self.schema}}))
    }

    /// Bedrock Converse's `outputConfig`, for a closed schema only (Claude
    /// behind it takes no other); the schema goes as a JSON string.
    pub(crate) fn bedrock(&self) -> Option<Value> {
        self.closed.then(|| {
            json!({"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {
                "schema": self.schema.to_string(), "name": NAME}}}})
        })
    }

    /// Gemini's `generationConfig` fields.
    pub(crate) fn gemini(&self, generation: &mut Value) {
        generation["responseMimeType"] = json!("application/json");
        generation["responseJsonSchema"] = self.schema.clone();
    }
}

/// Every object in `schema` closed, with all its properties required.
fn closed(schema: &Value) -> bool {
    let Some(o) = schema.as_object() else {
        return true;
    };
    let is_object = o.get("type") == Some(&json!("object")) || o.contains_key("properties");
    if is_object {
        if o.get("additionalProperties") != Some(&Value::Bool(false)) {
            return false;
        }
        let props = o.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if props.is_some_and(|p| p.keys().any(|k| !required.contains(&k.as_str()))) {
            return false;
        }
    }
    o.iter().all(|(k, v)| match k.as_str() {
        "properties" | "$defs" | "definitions" => {
            v.as_object().is_none_or(|m| m.values().all(closed))
        }
        "items" | "not" | "additionalProperties" => closed(v),
        "anyOf" | "allOf" | "oneOf" | "prefixItems" => {
            v.as_array().is_none_or(|a| a.iter().all(closed))
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_is_closed_only_when_every_object_is_shut_and_fully_required() {
        let shut = json!({"type": "object", "additionalProperties": false,
            "required": ["verdict", "files"],
            "properties": {"verdict": {"enum": ["pass", "fail"]},
                "files": {"type": "array", "items": {"type": "object",
                    "additionalProperties": false, "required": ["path"],
                    "properties": {"path": {"type": "string"}}}}}});
        assert!(OutputFormat::new(shut.clone()).closed);
        let mut open_inner = shut.clone();
        open_inner["properties"]["files"]["items"]
            .as_object_mut()
            .unwrap()
            .remove("additionalProperties");
        assert!(!OutputFormat::new(open_inner).closed);
        let mut optional = shut;
        optional["required"] = json!(["verdict"]);
        assert!(!OutputFormat::new(optional).closed);
        assert!(OutputFormat::new(json!({"type": "string"})).closed);
    }

    #[test]
    fn anthropic_is_sent_a_closed_schema_only() {
        let open = OutputFormat::new(json!({"type": "object"}));
        assert_eq!(open.anthropic(), None);
        assert_eq!(open.chat()["json_schema"]["strict"], false);
    }
}
