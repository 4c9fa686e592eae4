//! A server's request for input from the user (`elicitation/create`, form
//! mode), answered as `[mcp_servers.NAME] elicitation` says: `defaults`
//! accepts with the schema's defaults when every required field has one;
//! `decline` declines; `ask` puts the form to whoever answers questions and
//! declines where nobody can. The form is asked as an approval is: the core
//! tells the front ends (`form_asked`: its id, the server's message and the
//! typed [`Field`]s) and waits on the one answers channel, keyed by the
//! form's id — the REPL asks field by field, a `--json-answers` script
//! writes the content, checked against the fields before it is taken
//! (`form_fields`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

use super::form_fields::{checked, fields, Field};
use crate::config::Elicitation;
use crate::policy::{Answer, Answers, FormAnswer};

/// A form put to whoever answers, as `form_asked` says it.
#[derive(Debug, Clone)]
pub(crate) struct FormAsked {
    /// The form's id: its answer names it.
    pub id: String,
    pub server: String,
    /// What the server says it needs, in its own words.
    pub message: String,
    pub fields: Vec<Field>,
    /// The server's own `requestedSchema`, for a front end that draws
    /// forms itself (an editor's `elicitation/create`).
    pub schema: Value,
}

/// Who forms are put to: the answers channel, and how the front ends are
/// told one waits (the core emits `form_asked`).
#[derive(Clone)]
pub(crate) struct Asker {
    pub answers: Answers,
    pub tell: Arc<dyn Fn(FormAsked) + Send + Sync>,
}

/// Where forms go, shared by every server: whether someone will answer
/// them (known at start-up), and how (set once the front end exists).
pub(super) type FormSink = Arc<std::sync::Mutex<Forms>>;

#[derive(Default)]
pub(super) struct Forms {
    pub(super) expected: bool,
    pub(super) asker: Option<Asker>,
    /// One form at a time: two servers asking at once take turns.
    pub(super) one_at_a_time: Arc<tokio::sync::Mutex<()>>,
}

/// The longest a form waits for its answer before it is cancelled.
const FORM_WAIT: Duration = Duration::from_secs(30 * 60);

/// Whether a request under `mode` can be answered, so elicitation may be
/// declared to the server.
pub(super) fn answerable(mode: Elicitation, forms: &FormSink) -> bool {
    match mode {
        Elicitation::Defaults => true,
        Elicitation::Ask => forms.lock().is_ok_and(|f| f.expected),
        Elicitation::Decline => false,
    }
}

fn asker(forms: &FormSink) -> Option<(Asker, Arc<tokio::sync::Mutex<()>>)> {
    let f = forms.lock().ok()?;
    Some((f.asker.clone()?, f.one_at_a_time.clone()))
}

/// A form's id: `form_` and a number, unique in this process.
fn next_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("form_{}", NEXT.fetch_add(1, Ordering::Relaxed))
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
            let Some((asker, one_at_a_time)) = asker(forms) else {
                return decline;
            };
            let _turn = one_at_a_time.lock().await;
            let fields = fields(schema);
            let id = next_id();
            let check = fields.clone();
            let waiting = asker
                .answers
                .wait_for_form(&id, Box::new(move |content| checked(&check, content)));
            (asker.tell)(FormAsked {
                id,
                server: server.to_string(),
                message: message.clone(),
                fields,
                schema: schema.clone(),
            });
            match tokio::time::timeout(FORM_WAIT, waiting).await {
                Ok(Ok(Answer::Form(FormAnswer::Accept(content)))) => {
                    ElicitResult::new(ElicitationAction::Accept)
                        .with_content(Value::Object(content))
                }
                Ok(Ok(Answer::Form(FormAnswer::Decline))) => decline,
                // Dismissed, unanswered (a stop, nobody left to answer),
                // or waited for too long.
                _ => ElicitResult::new(ElicitationAction::Cancel),
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
