//! Generated outside input for the property tests beside each parser
//! (`mod properties` in `call`, `provider`, `session`, `config`): JSON a
//! few levels deep with the keys our formats use mixed in, text that is
//! sometimes JSON, cut JSON or noise, and the case budget. Each test feeds
//! one parser of outside input and requires an answer — a value or an
//! error — never a panic. `cargo test` runs `HERMES_FUZZ_CASES` cases per
//! target (default 256); a longer run is
//! `HERMES_FUZZ_CASES=100000 cargo test --release --lib properties`.

use proptest::prelude::*;
use serde_json::{json, Value};

pub(crate) fn config() -> ProptestConfig {
    let cases = std::env::var("HERMES_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Any JSON value, a few levels deep, with the keys our formats use mixed in
/// so generated input reaches past the first check.
pub(crate) fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("calls".to_string()),
        Just("name".to_string()),
        Just("arguments".to_string()),
        Just("id".to_string()),
        Just("type".to_string()),
        Just("index".to_string()),
        Just("function".to_string()),
        Just("index".to_string()),
        Just("content_block".to_string()),
        Just("delta".to_string()),
        Just("contentBlockIndex".to_string()),
        Just("text".to_string()),
        Just("partial_json".to_string()),
        "[a-z_]{1,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,20}".prop_map(Value::from),
        Just(json!("tool_call")),
        Just(json!("mcp__t__echo")),
        Just(json!("connectors__x")),
    ];
    leaf.prop_recursive(4, 48, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Text that is sometimes JSON, sometimes JSON cut or spliced, sometimes noise.
pub(crate) fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        json_value().prop_map(|v| v.to_string()),
        (json_value(), any::<prop::sample::Index>()).prop_map(|(v, at)| {
            let s = v.to_string();
            let mut end = at.index(s.len() + 1);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            s[..end].to_string()
        }),
        ".{0,64}",
        prop::collection::vec(any::<u8>(), 0..64)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}
