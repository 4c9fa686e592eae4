//! The one classification of a tool call (docs/tool-call-contract.md, "One
//! classification of a call"). The split before persistence, the tool round
//! and the dispatcher all ask [`classify`], so a batch can never be split by
//! one of them and run whole by another.

use serde_json::Value;

use super::entry::{parse_arguments, parse_calls, too_many, Entry, MAX_CALLS_PER_DISPATCH};
use super::names::{self, Bridge};

/// What a call of an assistant message is, before anything runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CallClass {
    /// `tool_search` or `tool_describe`: answered by the bridge itself.
    Bridge(Bridge),
    /// One underlying tool: a directly listed tool, or a `tool_call` with one
    /// entry (a split child is one). `arguments` says why they are unusable
    /// when they are.
    Direct {
        tool: String,
        arguments: Result<Value, String>,
    },
    /// A `tool_call` of 2..=10 entries, not all `connectors__`: split into one
    /// child per entry before the message is persisted.
    Split(Vec<Entry>),
    /// A `tool_call` of 2..=10 `connectors__` entries: left whole, one
    /// gateway dispatch.
    ConnectorBatch(Vec<Entry>),
    /// Left whole and answered by the dispatcher with this error (malformed,
    /// more than 10 entries, a bridge tool called through `tool_call`).
    Invalid(String),
}

/// Classifies one call by its name and its arguments as the model sent them.
pub(crate) fn classify(name: &str, raw_arguments: &str) -> CallClass {
    match Bridge::of(name) {
        Some(Bridge::Search) => return CallClass::Bridge(Bridge::Search),
        Some(Bridge::Describe) => return CallClass::Bridge(Bridge::Describe),
        Some(Bridge::Call) => {}
        None => {
            return CallClass::Direct {
                tool: name.to_string(),
                arguments: parse_arguments(raw_arguments),
            }
        }
    }
    let input = match parse_arguments(raw_arguments) {
        Ok(v) => v,
        Err(e) => return CallClass::Invalid(format!("tool_call: {e}")),
    };
    let mut entries = match parse_calls(&input) {
        Ok(e) => e,
        Err(e) => return CallClass::Invalid(e),
    };
    match entries.len() {
        n if n > MAX_CALLS_PER_DISPATCH => CallClass::Invalid(too_many(n)),
        1 => {
            let e = entries.remove(0);
            if names::is_bridge(&e.name) {
                CallClass::Invalid(format!(
                    "`{}` is not run through tool_call; call it directly",
                    e.name
                ))
            } else {
                CallClass::Direct {
                    tool: e.name,
                    arguments: e.arguments,
                }
            }
        }
        _ if entries.iter().all(|e| names::is_connector(&e.name)) => {
            CallClass::ConnectorBatch(entries)
        }
        _ => CallClass::Split(entries),
    }
}

/// What a call runs, for a person to read: each underlying tool and its
/// own arguments — a split child or a one-entry `tool_call` as its tool,
/// a batch entry by entry — or the call as sent when it runs nothing
/// (malformed, a bridge tool).
pub(crate) fn shown(name: &str, raw_arguments: &str) -> Vec<(String, String)> {
    let entry = |e: Entry| {
        let args = match &e.arguments {
            Ok(a) => a.to_string(),
            Err(_) => e.raw["arguments"].to_string(),
        };
        (e.name, args)
    };
    match classify(name, raw_arguments) {
        CallClass::Direct {
            tool,
            arguments: Ok(a),
        } if tool != name => vec![(tool, a.to_string())],
        CallClass::Split(entries) | CallClass::ConnectorBatch(entries) => {
            entries.into_iter().map(entry).collect()
        }
        _ => vec![(name.to_string(), raw_arguments.to_string())],
    }
}

/// A tool name resolved once against what this run offers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ToolRef {
    /// A built-in tool, by its name.
    Builtin(String),
    /// A tool of a configured MCP server: the server's name and the tool's
    /// own name on that server (not the model-facing `mcp__…` name).
    Mcp { server: String, tool: String },
    /// A tool of the connector gateway, by its `connectors__` name.
    Connector(String),
    /// The built-in `agent`: a subagent, which the tool round runs (it
    /// needs the provider and the session, which the tools do not have).
    Subagent,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn batch(n: usize, name: &str) -> String {
        json!({"calls": (0..n).map(|i| json!({"name": name, "arguments": {"i": i}})).collect::<Vec<_>>()}).to_string()
    }

    #[test]
    fn every_row_of_the_table() {
        assert_eq!(
            classify("tool_search", "{}"),
            CallClass::Bridge(Bridge::Search)
        );
        assert_eq!(
            classify("echo", r#"{"text":"x"}"#),
            CallClass::Direct {
                tool: "echo".into(),
                arguments: Ok(json!({"text": "x"}))
            }
        );
        assert!(
            matches!(classify("tool_call", &batch(1, "mcp__a__b")), CallClass::Direct { tool, .. } if tool == "mcp__a__b")
        );
        assert!(
            matches!(classify("tool_call", &batch(2, "mcp__a__b")), CallClass::Split(e) if e.len() == 2)
        );
        assert!(
            matches!(classify("tool_call", &batch(10, "mcp__a__b")), CallClass::Split(e) if e.len() == 10)
        );
        assert!(
            matches!(classify("tool_call", &batch(11, "mcp__a__b")), CallClass::Invalid(m) if m.contains("at most 10"))
        );
        assert!(
            matches!(classify("tool_call", &batch(3, "connectors__x")), CallClass::ConnectorBatch(e) if e.len() == 3)
        );
        let mixed = r#"{"calls":[{"name":"connectors__x","arguments":{}},{"name":"mcp__a__b","arguments":{}}]}"#;
        assert_eq!(
            shown("tool_call", mixed),
            [
                ("connectors__x".to_string(), "{}".to_string()),
                ("mcp__a__b".to_string(), "{}".to_string())
            ]
        );
        assert_eq!(
            shown(
                "tool_call",
                r#"{"calls":[{"name":"mcp__a__b","arguments":{"x":1}}]}"#
            ),
            [("mcp__a__b".to_string(), r#"{"x":1}"#.to_string())]
        );
        assert_eq!(
            shown("mcp__a__b", r#"{"x": 1}"#),
            [("mcp__a__b".to_string(), r#"{"x": 1}"#.to_string())],
            "a direct call as the model wrote it"
        );
        assert!(matches!(classify("tool_call", mixed), CallClass::Split(_)));
        for malformed in [
            r#"{"calls":"[{\"name\": broken"}"#,
            r#"{"calls":[{"name":"mcp__a__b"},42]}"#,
            r#"{"calls":[{"arguments":{}},{"name":"mcp__a__b"}]}"#,
            r#"{"calls":[]}"#,
            "not json",
        ] {
            assert!(
                matches!(classify("tool_call", malformed), CallClass::Invalid(_)),
                "{malformed}"
            );
        }
        assert!(matches!(
            classify("tool_call", r#"{"calls":[{"name":"tool_search","arguments":{}}]}"#),
            CallClass::Invalid(m) if m.contains("call it directly")
        ));
    }

    #[test]
    fn one_bad_argument_does_not_make_the_batch_malformed() {
        let args = r#"{"calls":[{"name":"mcp__a__b","arguments":{"x":1}},{"name":"mcp__a__c","arguments":"{oops"},{"name":"mcp__a__d","arguments":7}]}"#;
        let CallClass::Split(e) = classify("tool_call", args) else {
            panic!("not split")
        };
        assert!(e[0].arguments.is_ok() && e[1].arguments.is_err() && e[2].arguments.is_err());
        let one = r#"{"calls":[{"name":"mcp__a__c","arguments":"{oops"}]}"#;
        assert!(matches!(
            classify("tool_call", one),
            CallClass::Direct {
                arguments: Err(_),
                ..
            }
        ));
        assert!(matches!(
            classify("echo", "[1]"),
            CallClass::Direct {
                arguments: Err(_),
                ..
            }
        ));
    }
}

#[cfg(test)]
mod properties {
    use crate::call::{classify, CallClass};
    use crate::util::arbitrary::{config, text};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn tool_call_batches_are_classified_without_panicking(
            name in prop_oneof![Just("tool_call".to_string()), Just("tool_search".to_string()), "[a-z_]{0,12}"],
            args in text(),
        ) {
            match classify(&name, &args) {
                CallClass::Split(e) => prop_assert!((2..=10).contains(&e.len())),
                CallClass::ConnectorBatch(e) => prop_assert!((2..=10).contains(&e.len())),
                _ => {}
            }
        }
    }
}
