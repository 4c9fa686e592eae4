//! The fields of a server's form (its `requestedSchema`: flat, primitive
//! properties), as a person is asked them and a script is told them: each
//! field's type, range, format and choices; a typed line read as its value
//! ([`Field::parse`]); a script's content checked whole ([`checked`]).

use serde::Serialize;
use serde_json::{Map, Value};

/// One property of a form's schema, as it is asked — and as `form_asked`
/// gives it to a script (`{"name", "title", "type", "required", …}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    pub(crate) name: String,
    #[serde(rename = "title")]
    label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<Value>,
    #[serde(flatten)]
    kind: Kind,
    /// Its name or title says it is a credential (a key, a token, a
    /// password): read without echo.
    pub(crate) secret: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Kind {
    Text {
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<String>,
        #[serde(rename = "min_length", skip_serializing_if = "Option::is_none")]
        min: Option<u64>,
        #[serde(rename = "max_length", skip_serializing_if = "Option::is_none")]
        max: Option<u64>,
    },
    Integer {
        #[serde(rename = "minimum", skip_serializing_if = "Option::is_none")]
        min: Option<f64>,
        #[serde(rename = "maximum", skip_serializing_if = "Option::is_none")]
        max: Option<f64>,
    },
    Number {
        #[serde(rename = "minimum", skip_serializing_if = "Option::is_none")]
        min: Option<f64>,
        #[serde(rename = "maximum", skip_serializing_if = "Option::is_none")]
        max: Option<f64>,
    },
    Boolean,
    /// One of these.
    Choice {
        choices: Vec<Choice>,
    },
    /// Several of these, between min and max of them.
    Choices {
        choices: Vec<Choice>,
        #[serde(rename = "min_items", skip_serializing_if = "Option::is_none")]
        min: Option<u64>,
        #[serde(rename = "max_items", skip_serializing_if = "Option::is_none")]
        max: Option<u64>,
    },
}

/// A choice: the value sent, and how it reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Choice {
    value: Value,
    label: String,
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
        Some("integer") => Kind::Integer {
            min: num("minimum"),
            max: num("maximum"),
        },
        Some("number") => Kind::Number {
            min: num("minimum"),
            max: num("maximum"),
        },
        Some("array") => Kind::Choices {
            choices: options(&p["items"]),
            min: count("minItems"),
            max: count("maxItems"),
        },
        _ => match options(p) {
            o if !o.is_empty() => Kind::Choice { choices: o },
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
fn options(p: &Value) -> Vec<Choice> {
    if let Some(values) = p["enum"].as_array() {
        let names = p["enumNames"].as_array();
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let name = names.and_then(|n| n.get(i)).and_then(Value::as_str);
                Choice {
                    value: v.clone(),
                    label: name.map_or_else(|| plain(v), str::to_string),
                }
            })
            .collect();
    }
    let Some(list) = p["oneOf"].as_array().or(p["anyOf"].as_array()) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|o| {
            let v = o.get("const")?;
            Some(Choice {
                value: v.clone(),
                label: o["title"].as_str().map_or_else(|| plain(v), str::to_string),
            })
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
            Kind::Choice { choices } => Some(numbered(choices)),
            Kind::Choices { choices, .. } => Some(format!("{}; several: 1,3", numbered(choices))),
            _ => None,
        };
        if let Some(h) = hint {
            out.push_str(&format!(" [{h}]"));
        }
        if let Some(d) = &self.default {
            let shown = match (&self.kind, d) {
                (Kind::Boolean, Value::Bool(true)) => "y".to_string(),
                (Kind::Boolean, Value::Bool(false)) => "n".to_string(),
                (Kind::Choices { .. }, Value::Array(items)) => {
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
            Kind::Integer { min, max } => {
                let n: i64 = text.parse().map_err(|_| "a whole number".to_string())?;
                within(n as f64, *min, *max)?;
                Value::from(n)
            }
            Kind::Number { min, max } => {
                let n: f64 = text
                    .parse()
                    .ok()
                    .filter(|n: &f64| n.is_finite())
                    .ok_or("a number")?;
                within(n, *min, *max)?;
                serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
            }
            Kind::Choice { choices } => pick(choices, text)?,
            Kind::Choices { choices, min, max } => {
                let mut picked = Vec::new();
                for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let v = pick(choices, part)?;
                    if !picked.contains(&v) {
                        picked.push(v);
                    }
                }
                counted(picked.len(), *min, *max)?;
                Value::Array(picked)
            }
            Kind::Text { format, min, max } => {
                text_fits(text, format.as_deref(), *min, *max)?;
                Value::String(text.to_string())
            }
        };
        Ok(Some(value))
    }
}

fn numbered(options: &[Choice]) -> String {
    options
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{} {}", i + 1, c.label))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A choice by its number, its label or its value.
fn pick(options: &[Choice], text: &str) -> Result<Value, String> {
    if let Ok(n) = text.parse::<usize>() {
        if let Some(c) = n.checked_sub(1).and_then(|i| options.get(i)) {
            return Ok(c.value.clone());
        }
    }
    options
        .iter()
        .find(|c| c.label.eq_ignore_ascii_case(text) || plain(&c.value).eq_ignore_ascii_case(text))
        .map(|c| c.value.clone())
        .ok_or_else(|| format!("`{text}` is not one of the choices; type its number"))
}

fn within(n: f64, min: Option<f64>, max: Option<f64>) -> Result<(), String> {
    match (min, max) {
        (Some(lo), _) if n < lo => Err(format!("at least {lo}")),
        (_, Some(hi)) if n > hi => Err(format!("at most {hi}")),
        _ => Ok(()),
    }
}

/// `n` choices within `min`..`max`.
fn counted(n: usize, min: Option<u64>, max: Option<u64>) -> Result<(), String> {
    let n = n as u64;
    if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
        return Err(format!(
            "choose {} to {}",
            min.unwrap_or(0),
            max.map_or("any".to_string(), |m| m.to_string())
        ));
    }
    Ok(())
}

/// `text` within its length and of its format.
fn text_fits(
    text: &str,
    format: Option<&str>,
    min: Option<u64>,
    max: Option<u64>,
) -> Result<(), String> {
    let chars = text.chars().count() as u64;
    if min.is_some_and(|m| chars < m) || max.is_some_and(|m| chars > m) {
        return Err(format!(
            "between {} and {} characters",
            min.unwrap_or(0),
            max.map_or("any".to_string(), |m| m.to_string())
        ));
    }
    match format {
        Some(f) => check_format(f, text),
        None => Ok(()),
    }
}

impl Field {
    /// A value a script gave the field (`--json-answers`), as JSON: it
    /// must be of the field's type and fit as a typed one must.
    fn check(&self, v: &Value) -> Result<(), String> {
        let is_choice = |choices: &[Choice], v: &Value| choices.iter().any(|c| &c.value == v);
        match (&self.kind, v) {
            (Kind::Boolean, Value::Bool(_)) => Ok(()),
            (Kind::Integer { min, max }, Value::Number(n)) if n.is_i64() || n.is_u64() => {
                within(n.as_f64().unwrap_or(0.0), *min, *max)
            }
            (Kind::Number { min, max }, Value::Number(n)) => {
                within(n.as_f64().unwrap_or(0.0), *min, *max)
            }
            (Kind::Text { format, min, max }, Value::String(s)) => {
                text_fits(s, format.as_deref(), *min, *max)
            }
            (Kind::Choice { choices }, v) if is_choice(choices, v) => Ok(()),
            (Kind::Choices { choices, min, max }, Value::Array(items))
                if items.iter().all(|i| is_choice(choices, i)) =>
            {
                counted(items.len(), *min, *max)
            }
            (Kind::Choice { choices } | Kind::Choices { choices, .. }, _) => Err(format!(
                "one of {}",
                choices
                    .iter()
                    .map(|c| c.value.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            (kind, _) => Err(format!("a value of type {}", kind.name())),
        }
    }
}

impl Kind {
    fn name(&self) -> &'static str {
        match self {
            Kind::Text { .. } => "string",
            Kind::Integer { .. } => "integer",
            Kind::Number { .. } => "number",
            Kind::Boolean => "boolean",
            Kind::Choice { .. } => "choice",
            Kind::Choices { .. } => "array",
        }
    }
}

/// A form's content from a script, checked field by field: every value of
/// its field's type and fitting, every required field there (or its
/// default put in), no field the form does not have. `Err` names the field
/// and what would fit.
pub(crate) fn checked(
    fields: &[Field],
    content: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    if let Some(unknown) = content
        .keys()
        .find(|k| !fields.iter().any(|f| &f.name == *k))
    {
        return Err(format!("the form has no field `{unknown}`"));
    }
    let mut out = Map::new();
    for f in fields {
        match (content.get(&f.name), &f.default) {
            (Some(v), _) => {
                f.check(v)
                    .map_err(|why| format!("field `{}`: {why}", f.name))?;
                out.insert(f.name.clone(), v.clone());
            }
            (None, Some(d)) => {
                out.insert(f.name.clone(), d.clone());
            }
            (None, None) if f.required => {
                return Err(format!("field `{}` is required", f.name));
            }
            (None, None) => {}
        }
    }
    Ok(out)
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

    #[test]
    fn a_scripts_content_is_checked_field_by_field_and_completed_with_defaults() {
        let form = fields(&json!({"type": "object", "properties": {
            "name": {"type": "string", "title": "Name"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "pet": {"type": "string", "enum": ["cat", "dog"]},
            "city": {"type": "string", "default": "Paris"}},
            "required": ["name", "age"]}));
        let content = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            checked(
                &form,
                &content(json!({"name": "Ada", "age": 36, "pet": "cat"}))
            ),
            Ok(content(
                json!({"name": "Ada", "age": 36, "pet": "cat", "city": "Paris"})
            ))
        );
        assert_eq!(
            checked(&form, &content(json!({"name": "Ada", "age": 200}))),
            Err("field `age`: at most 150".into())
        );
        assert_eq!(
            checked(&form, &content(json!({"name": "Ada", "age": "36"}))),
            Err("field `age`: a value of type integer".into())
        );
        assert_eq!(
            checked(
                &form,
                &content(json!({"name": "Ada", "age": 3, "pet": "fish"}))
            ),
            Err("field `pet`: one of \"cat\", \"dog\"".into())
        );
        assert_eq!(
            checked(&form, &content(json!({"age": 3}))),
            Err("field `name` is required".into())
        );
        assert_eq!(
            checked(
                &form,
                &content(json!({"name": "Ada", "age": 3, "nick": "x"}))
            ),
            Err("the form has no field `nick`".into())
        );
    }

    #[test]
    fn a_field_reads_as_a_script_sees_it_in_form_asked() {
        let f = field(json!({"type": "integer", "title": "Age", "minimum": 0, "default": 30}));
        assert_eq!(
            serde_json::to_value(&f).unwrap(),
            json!({"name": "f", "title": "Age", "required": true, "default": 30,
                   "type": "integer", "minimum": 0.0, "secret": false})
        );
        let c = field(json!({"type": "string", "oneOf": [{"const": "a", "title": "Alpha"}]}));
        assert_eq!(
            serde_json::to_value(&c).unwrap()["choices"],
            json!([{"value": "a", "label": "Alpha"}])
        );
    }
}
