//! A server's request for input from the user (`elicitation/create`, form
//! mode), answered as `[mcp_servers.NAME] elicitation` says: `defaults`
//! accepts with the schema's defaults when every required field has one;
//! `decline` declines; `ask` declines where nobody can answer (a REPL form
//! is not built yet: declined too, with the server told so).

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

use crate::config::Elicitation;

pub(super) fn answer(mode: Elicitation, request: &ElicitRequestParams) -> ElicitResult {
    let decline = ElicitResult::new(ElicitationAction::Decline);
    if mode != Elicitation::Defaults {
        return decline;
    }
    let Ok(wire) = serde_json::to_value(request) else {
        return decline;
    };
    let Some(schema) = wire.get("requestedSchema") else {
        return decline;
    };
    match defaults(schema) {
        Some(content) => {
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
        }
        None => decline,
    }
}

/// Every property's `default`, or `None` when a required one has none.
fn defaults(schema: &Value) -> Option<Map<String, Value>> {
    let props = schema.get("properties")?.as_object()?;
    let mut out = Map::new();
    for (name, p) in props {
        if let Some(d) = p.get("default") {
            out.insert(name.clone(), d.clone());
        }
    }
    let required = schema.get("required").and_then(Value::as_array);
    let complete = required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .all(|r| out.contains_key(r));
    complete.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_the_form_only_when_every_required_field_has_one() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "note": {"type": "string"}},
            "required": ["name"]});
        assert_eq!(
            defaults(&schema),
            Some(
                json!({"name": "John Doe", "age": 30})
                    .as_object()
                    .unwrap()
                    .clone()
            )
        );
        let missing = json!({"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]});
        assert_eq!(defaults(&missing), None);
    }
}
