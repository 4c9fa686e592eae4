//! A server's request for input from the user (`elicitation/create`, form
//! mode), answered as `[mcp_servers.NAME] elicitation` says: `defaults`
//! accepts with the schema's defaults when every required field has one;
//! `decline` declines; `ask` puts the form to the person at the REPL (a
//! [`FormFiller`] the front end sets) and declines where nobody can answer.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

use crate::config::Elicitation;

/// A form a server asks the user to fill.
#[derive(Debug, Clone)]
pub(crate) struct Form {
    pub server: String,
    /// What the server says it needs, in its own words.
    pub message: String,
    /// The `requestedSchema`: an object of flat, primitive properties.
    pub schema: Value,
}

/// How the person answered a form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Filled {
    Accept(Map<String, Value>),
    Decline,
    /// Dismissed without a choice (a stop, `!cancel`).
    Cancel,
}

/// Someone who can fill a form: the REPL on a terminal.
pub(crate) trait FormFiller: Send + Sync {
    fn fill(&self, form: Form) -> BoxFuture<'_, Filled>;
}

/// Where forms go, shared by every server: whether a person will fill them
/// (known at start-up), and who does (set once the front end exists).
pub(super) type FormSink = Arc<std::sync::Mutex<Forms>>;

#[derive(Default)]
pub(super) struct Forms {
    pub(super) expected: bool,
    pub(super) filler: Option<Arc<dyn FormFiller>>,
}

/// Whether a request under `mode` can be answered, so elicitation may be
/// declared to the server.
pub(super) fn answerable(mode: Elicitation, forms: &FormSink) -> bool {
    match mode {
        Elicitation::Defaults => true,
        Elicitation::Ask => forms.lock().is_ok_and(|f| f.expected),
        Elicitation::Decline => false,
    }
}

fn filler(forms: &FormSink) -> Option<Arc<dyn FormFiller>> {
    forms.lock().ok().and_then(|f| f.filler.clone())
}

pub(super) async fn answer(
    mode: Elicitation,
    server: &str,
    request: &ElicitRequestParams,
    forms: &FormSink,
) -> ElicitResult {
    let decline = ElicitResult::new(ElicitationAction::Decline);
    let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
        return decline;
    };
    let Ok(wire) = serde_json::to_value(request) else {
        return decline;
    };
    let Some(schema) = wire.get("requestedSchema") else {
        return decline;
    };
    match mode {
        Elicitation::Decline => decline,
        Elicitation::Defaults => match defaults(schema) {
            Some(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            }
            None => decline,
        },
        Elicitation::Ask => {
            let Some(filler) = filler(forms) else {
                return decline;
            };
            let form = Form {
                server: server.to_string(),
                message: message.clone(),
                schema: schema.clone(),
            };
            match filler.fill(form).await {
                Filled::Accept(content) => ElicitResult::new(ElicitationAction::Accept)
                    .with_content(Value::Object(content)),
                Filled::Decline => decline,
                Filled::Cancel => ElicitResult::new(ElicitationAction::Cancel),
            }
        }
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
