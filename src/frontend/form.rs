//! A server's form (elicitation), filled in the REPL one field at a time:
//! each field is asked with its title, description and default; the next
//! line typed is its value (an empty line takes the default), checked
//! against the field's type, format, range and choices and asked again
//! until it fits. `!decline` or `!cancel` ends the form with that answer.
//! Lines come through the type-ahead reader, as approval answers do.

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use std::sync::{Arc, Mutex};

use crate::agent::{Event, EventTx};
use crate::mcp::{Filled, Form, FormFiller};

/// Where the type-ahead reader sends the next line when a form's field
/// waits for one.
pub(crate) type AnswerSlot = Arc<Mutex<Option<oneshot::Sender<String>>>>;

pub(crate) struct TerminalForms {
    pub(crate) events: EventTx,
    pub(crate) answers: AnswerSlot,
    /// One form at a time: two servers asking at once take turns.
    pub(crate) one_at_a_time: tokio::sync::Mutex<()>,
}

impl FormFiller for TerminalForms {
    fn fill(&self, form: Form) -> BoxFuture<'_, Filled> {
        Box::pin(async move {
            let _turn = self.one_at_a_time.lock().await;
            let fields = fields(&form.schema);
            // The server writes every word of the form: said plainly, so a
            // form titled "hermes needs your API key" reads as what it is.
            self.show(
                &form.server,
                format!(
                    "? server `{}` asks (this form is the server's, not hermes'): {}\n  \
                     an empty line takes the default · !decline · !cancel",
                    form.server, form.message
                ),
            );
            let mut content = Map::new();
            for field in &fields {
                let mut prompt = field.prompt();
                if field.secret {
                    prompt.push_str(&format!(
                        " [looks secret: not shown as you type; it goes to server `{}`]",
                        form.server
                    ));
                }
                self.show(&form.server, prompt);
                super::tool_block::hide_input(field.secret);
                let _shown_again = ShowAgain;
                loop {
                    let (tx, rx) = oneshot::channel();
                    if let Ok(mut slot) = self.answers.lock() {
                        *slot = Some(tx);
                    }
                    // The turn ended (a stop): nobody will answer.
                    let Ok(line) = rx.await else {
                        return Filled::Cancel;
                    };
                    match line.trim() {
                        "!decline" => return Filled::Decline,
                        "!cancel" => return Filled::Cancel,
                        _ => {}
                    }
                    match field.parse(line.trim()) {
                        Ok(Some(v)) => {
                            content.insert(field.name.clone(), v);
                            break;
                        }
                        Ok(None) => break,
                        Err(why) => self.show(&form.server, format!("  {why}; again:")),
                    }
                }
            }
            Filled::Accept(content)
        })
    }
}

/// What is typed is shown again once a secret field is answered, or the
/// form ends.
struct ShowAgain;

impl Drop for ShowAgain {
    fn drop(&mut self) {
        super::tool_block::hide_input(false);
    }
}

impl TerminalForms {
    fn show(&self, server: &str, text: String) {
        let _ = self.events.send(Event::FormAsked {
            server: server.to_string(),
            text,
        });
    }
}

/// One property of a form's schema, as it is asked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    pub(crate) name: String,
    label: String,
    description: Option<String>,
    required: bool,
    default: Option<Value>,
    kind: Kind,
    /// Its name or title says it is a credential (a key, a token, a
    /// password): read without echo.
    pub(crate) secret: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Text {
        format: Option<String>,
        min: Option<u64>,
        max: Option<u64>,
    },
    Integer(Option<f64>, Option<f64>),
    Number(Option<f64>, Option<f64>),
    Boolean,
    /// One of these (value, label).
    Choice(Vec<(Value, String)>),
    /// Several of these, between min and max of them.
    Choices(Vec<(Value, String)>, Option<u64>, Option<u64>),
}

/// The fields of a form's schema: the required ones first, then the rest,
/// each group by name (the schema's own order does not survive parsing).
pub(crate) fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let Some(props) = schema["properties"].as_object() else {
        return Vec::new();
    };
    let mut all = props
        .iter()
        .map(|(name, p)| Field {
            name: name.clone(),
            label: p["title"].as_str().unwrap_or(name).to_string(),
            description: p["description"].as_str().map(str::to_string),
            required: required.contains(&name.as_str()),
            default: p.get("default").cloned(),
            kind: kind(p),
            secret: crate::util::secrets::looks_secret(name)
                || p["title"]
                    .as_str()
                    .is_some_and(|t| t.split_whitespace().any(crate::util::secrets::looks_secret))
                || p["format"] == "password"
                || p["writeOnly"] == true,
        })
        .collect::<Vec<_>>();
    all.sort_by(|a, b| (!a.required, &a.name).cmp(&(!b.required, &b.name)));
    all
}

fn kind(p: &Value) -> Kind {
    let num = |k: &str| p[k].as_f64();
    let count = |k: &str| p[k].as_u64();
    match p["type"].as_str() {
        Some("boolean") => Kind::Boolean,
        Some("integer") => Kind::Integer(num("minimum"), num("maximum")),
        Some("number") => Kind::Number(num("minimum"), num("maximum")),
        Some("array") => Kind::Choices(options(&p["items"]), count("minItems"), count("maxItems")),
        _ => match options(p) {
            o if !o.is_empty() => Kind::Choice(o),
            _ => Kind::Text {
                format: p["format"].as_str().map(str::to_string),
                min: count("minLength"),
                max: count("maxLength"),
            },
        },
    }
}

/// A schema's choices: `enum` (labelled by the legacy `enumNames` where
/// given), or `oneOf`/`anyOf` of `{const, title}`.
fn options(p: &Value) -> Vec<(Value, String)> {
    if let Some(values) = p["enum"].as_array() {
        let names = p["enumNames"].as_array();
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let name = names.and_then(|n| n.get(i)).and_then(Value::as_str);
                (v.clone(), name.map_or_else(|| plain(v), str::to_string))
            })
            .collect();
    }
    let Some(list) = p["oneOf"].as_array().or(p["anyOf"].as_array()) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|o| {
            let v = o.get("const")?;
            Some((
                v.clone(),
                o["title"].as_str().map_or_else(|| plain(v), str::to_string),
            ))
        })
        .collect()
}

/// A value as a person reads it: a string without its quotes.
fn plain(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

impl Field {
    /// How the field is asked: its label, whether it is required, what it
    /// is for, its choices (numbered) and its default.
    pub(crate) fn prompt(&self) -> String {
        let mut out = format!("  {}", self.label);
        if self.required {
            out.push_str(" (required)");
        }
        if let Some(d) = &self.description {
            out.push_str(&format!(" — {d}"));
        }
        let hint = match &self.kind {
            Kind::Boolean => Some("y/n".to_string()),
            Kind::Text {
                format: Some(f), ..
            } => Some(f.clone()),
            Kind::Choice(o) => Some(numbered(o)),
            Kind::Choices(o, ..) => Some(format!("{}; several: 1,3", numbered(o))),
            _ => None,
        };
        if let Some(h) = hint {
            out.push_str(&format!(" [{h}]"));
        }
        if let Some(d) = &self.default {
            let shown = match (&self.kind, d) {
                (Kind::Boolean, Value::Bool(true)) => "y".to_string(),
                (Kind::Boolean, Value::Bool(false)) => "n".to_string(),
                (Kind::Choices(..), Value::Array(items)) => {
                    items.iter().map(plain).collect::<Vec<_>>().join(", ")
                }
                _ => plain(d),
            };
            out.push_str(&format!(" (default {shown})"));
        }
        out.push(':');
        out
    }

    /// The value a typed line gives the field: `Ok(None)` leaves an
    /// optional field out; `Err` says what would fit.
    pub(crate) fn parse(&self, text: &str) -> Result<Option<Value>, String> {
        if text.is_empty() {
            return match (&self.default, self.required) {
                (Some(d), _) => Ok(Some(d.clone())),
                (None, false) => Ok(None),
                (None, true) => Err("this one is required".into()),
            };
        }
        let value = match &self.kind {
            Kind::Boolean => match text.to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" => Value::Bool(true),
                "n" | "no" | "false" => Value::Bool(false),
                _ => return Err("answer y or n".into()),
            },
            Kind::Integer(min, max) => {
                let n: i64 = text.parse().map_err(|_| "a whole number".to_string())?;
                within(n as f64, *min, *max)?;
                Value::from(n)
            }
            Kind::Number(min, max) => {
                let n: f64 = text
                    .parse()
                    .ok()
                    .filter(|n: &f64| n.is_finite())
                    .ok_or("a number")?;
                within(n, *min, *max)?;
                serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
            }
            Kind::Choice(o) => pick(o, text)?,
            Kind::Choices(o, min, max) => {
                let mut picked = Vec::new();
                for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let v = pick(o, part)?;
                    if !picked.contains(&v) {
                        picked.push(v);
                    }
                }
                let n = picked.len() as u64;
                if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                    return Err(format!(
                        "choose {} to {}",
                        min.unwrap_or(0),
                        max.map_or("any".to_string(), |m| m.to_string())
                    ));
                }
                Value::Array(picked)
            }
            Kind::Text { format, min, max } => {
                let chars = text.chars().count() as u64;
                if min.is_some_and(|m| chars < m) || max.is_some_and(|m| chars > m) {
                    return Err(format!(
                        "between {} and {} characters",
                        min.unwrap_or(0),
                        max.map_or("any".to_string(), |m| m.to_string())
                    ));
                }
                if let Some(f) = format {
                    check_format(f, text)?;
                }
                Value::String(text.to_string())
            }
        };
        Ok(Some(value))
    }
}

fn numbered(options: &[(Value, String)]) -> String {
    options
        .iter()
        .enumerate()
        .map(|(i, (_, label))| format!("{} {label}", i + 1))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A choice by its number, its label or its value.
fn pick(options: &[(Value, String)], text: &str) -> Result<Value, String> {
    if let Ok(n) = text.parse::<usize>() {
        if let Some((v, _)) = n.checked_sub(1).and_then(|i| options.get(i)) {
            return Ok(v.clone());
        }
    }
    options
        .iter()
        .find(|(v, label)| label.eq_ignore_ascii_case(text) || plain(v).eq_ignore_ascii_case(text))
        .map(|(v, _)| v.clone())
        .ok_or_else(|| format!("`{text}` is not one of the choices; type its number"))
}

fn within(n: f64, min: Option<f64>, max: Option<f64>) -> Result<(), String> {
    match (min, max) {
        (Some(lo), _) if n < lo => Err(format!("at least {lo}")),
        (_, Some(hi)) if n > hi => Err(format!("at most {hi}")),
        _ => Ok(()),
    }
}

/// The string formats MCP forms may ask for: `email`, `uri`, `date`,
/// `date-time`. Others are taken as typed.
fn check_format(format: &str, text: &str) -> Result<(), String> {
    let ok = match format {
        "email" => text.split_once('@').is_some_and(|(user, host)| {
            !user.is_empty() && host.contains('.') && !text.contains(' ')
        }),
        "uri" => reqwest::Url::parse(text).is_ok(),
        "date" => is_date(text),
        "date-time" => {
            text.len() > 11 && is_date(&text[..10]) && matches!(&text[10..11], "T" | "t" | " ")
        }
        _ => true,
    };
    match ok {
        true => Ok(()),
        false => Err(format!(
            "not a valid {format}{}",
            match format {
                "date" => " (YYYY-MM-DD)",
                "date-time" => " (YYYY-MM-DDThh:mm:ssZ)",
                "uri" => " (https://…)",
                _ => "",
            }
        )),
    }
}

fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| text.get(r).and_then(|s| s.parse::<u32>().ok());
    matches!((num(0..4), num(5..7), num(8..10)), (Some(_), Some(m), Some(d)) if (1..=12).contains(&m) && (1..=31).contains(&d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(schema: Value) -> Field {
        fields(&json!({"type": "object", "properties": {"f": schema}, "required": ["f"]})).remove(0)
    }

    #[test]
    fn a_field_that_looks_like_a_credential_is_secret() {
        let named = |name: &str, title: &str| {
            fields(&json!({"type": "object", "properties": {name: {"type": "string", "title": title}}}))
                .remove(0)
                .secret
        };
        assert!(named("key", "OpenAI API key (hermes)"));
        assert!(named("value", "Your password"));
        assert!(named("github_token", "GitHub"));
        assert!(!named("city", "City"));
        assert!(!named("name", "Your name"));
    }

    #[test]
    fn each_kind_takes_what_fits_and_says_what_would() {
        let int = field(json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 42}));
        assert_eq!(int.parse(""), Ok(Some(json!(42))));
        assert_eq!(int.parse("7"), Ok(Some(json!(7))));
        assert_eq!(int.parse("700"), Err("at most 100".into()));
        assert_eq!(int.parse("1.5"), Err("a whole number".into()));
        let b = field(json!({"type": "boolean"}));
        assert_eq!(b.parse("Y"), Ok(Some(json!(true))));
        assert_eq!(b.parse(""), Err("this one is required".into()));
        let email = field(json!({"type": "string", "format": "email"}));
        assert!(email.parse("ada@example.org").is_ok());
        assert!(email.parse("ada").is_err());
        let date = field(json!({"type": "string", "format": "date"}));
        assert!(date.parse("1815-12-10").is_ok());
        assert!(date.parse("1815-13-10").is_err());
        let titled = field(json!({"type": "string", "oneOf": [
            {"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Green Lantern"}]}));
        assert_eq!(titled.parse("2"), Ok(Some(json!("hero-2"))));
        assert_eq!(titled.parse("superman"), Ok(Some(json!("hero-1"))));
        assert!(titled.parse("9").is_err());
        let legacy =
            field(json!({"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]}));
        assert_eq!(legacy.parse("Beta"), Ok(Some(json!("b"))));
        let multi = field(json!({"type": "array", "minItems": 1, "maxItems": 2,
            "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}, {"const": "fish-2", "title": "Salmon"}, {"const": "fish-3", "title": "Trout"}]}}));
        assert_eq!(
            multi.parse("1, trout"),
            Ok(Some(json!(["fish-1", "fish-3"])))
        );
        assert_eq!(multi.parse("1,2,3"), Err("choose 1 to 2".into()));
        let text = field(json!({"type": "string", "maxLength": 3}));
        assert!(text.parse("abcd").is_err());
    }

    #[test]
    fn an_optional_field_left_empty_is_left_out() {
        let f = &fields(&json!({"properties": {"note": {"type": "string"}}}))[0];
        assert_eq!(f.parse(""), Ok(None));
        assert_eq!(
            f.prompt(),
            "  note:",
            "an optional field without a title shows its name"
        );
    }
}
