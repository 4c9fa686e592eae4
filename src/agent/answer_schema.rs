//! `--output-schema FILE`: the shape a one-shot run's final answer must have.
//! The API is asked to hold the model to it where it can
//! ([`OutputFormat`]); the answer is validated here whatever the API did,
//! and a model whose answer does not fit is told what failed and answers
//! once more.

use std::path::Path;

use serde_json::Value;

use crate::provider::OutputFormat;

pub struct AnswerSchema {
    pub(crate) format: OutputFormat,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for AnswerSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerSchema")
            .field("format", &self.format)
            .finish()
    }
}

impl AnswerSchema {
    /// The schema in `path`; `Err` says what is wrong with the file.
    pub fn read(path: &Path) -> Result<AnswerSchema, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let schema: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
        AnswerSchema::new(schema).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub(crate) fn new(schema: Value) -> Result<AnswerSchema, String> {
        let validator = jsonschema::validator_for(&schema)
            .map_err(|e| format!("not a JSON Schema: {e} (at {})", e.schema_path()))?;
        Ok(AnswerSchema {
            format: OutputFormat::new(schema),
            validator,
        })
    }

    /// The answer as the JSON value it must be, or why it is not one: the
    /// failures with where in the answer and where in the schema.
    pub(crate) fn check(&self, answer: &str) -> Result<Value, String> {
        let text = unfenced(answer.trim());
        let value: Value = serde_json::from_str(text)
            .map_err(|e| format!("the answer is not one JSON value ({e})"))?;
        let failures: Vec<String> = self
            .validator
            .iter_errors(&value)
            .take(5)
            .map(|e| {
                let at = e.instance_path().to_string();
                let at = if at.is_empty() { "/".to_string() } else { at };
                format!("at {at}: {e} (schema path {})", e.schema_path())
            })
            .collect();
        if failures.is_empty() {
            Ok(value)
        } else {
            Err(format!(
                "the answer does not match the output schema: {}",
                failures.join("; ")
            ))
        }
    }

    /// What the person's message adds: the answer's shape, whole.
    pub(crate) fn asked(&self) -> String {
        format!(
            "[hermes: end with your final answer as one JSON value and nothing else — no prose, \
             no code fence — valid against this JSON Schema: {}]",
            self.format.schema
        )
    }

    /// What the model is told when its answer did not fit.
    pub(crate) fn correction(why: &str) -> String {
        format!(
            "[hermes: {why}. Answer again with only the JSON value, valid against the output \
             schema.]"
        )
    }
}

/// The text inside one code fence around the whole answer (```json … ```).
fn unfenced(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    match (rest.split_once('\n'), rest.trim_end().strip_suffix("```")) {
        (Some((_, body)), Some(_)) => body.trim_end().trim_end_matches('`').trim(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> AnswerSchema {
        AnswerSchema::new(json!({"type": "object", "required": ["verdict"],
            "properties": {"verdict": {"enum": ["pass", "fail"]},
                "count": {"type": "integer"}}}))
        .unwrap()
    }

    #[test]
    fn a_fitting_answer_is_its_value_even_in_a_fence() {
        let s = schema();
        assert_eq!(
            s.check(r#" {"verdict":"pass"} "#),
            Ok(json!({"verdict": "pass"}))
        );
        assert_eq!(
            s.check("```json\n{\"verdict\": \"fail\", \"count\": 2}\n```"),
            Ok(json!({"verdict": "fail", "count": 2}))
        );
    }

    #[test]
    fn a_failure_names_where_in_the_answer_and_in_the_schema() {
        let s = schema();
        let prose = s.check("All tests pass.").unwrap_err();
        assert!(prose.contains("not one JSON value"), "{prose}");
        let wrong = s.check(r#"{"verdict":"maybe","count":"2"}"#).unwrap_err();
        assert!(
            wrong.contains("at /verdict") && wrong.contains("/properties/verdict/enum"),
            "{wrong}"
        );
        assert!(
            wrong.contains("at /count") && wrong.contains("/properties/count/type"),
            "{wrong}"
        );
    }

    #[test]
    fn a_schema_that_does_not_compile_is_refused() {
        let e = AnswerSchema::new(json!({"type": "objekt"})).unwrap_err();
        assert!(e.contains("not a JSON Schema"), "{e}");
    }
}
