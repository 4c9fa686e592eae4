//! Structured fuzzing on stable Rust: property tests (proptest) that feed
//! every parser of outside input — the `tool_call` batch reader and
//! classifier, the SSE chunk assembler, the Anthropic and Bedrock stream
//! folds, the AWS event-stream framing, the session-file loader, the config
//! loader — generated and mutated input, and require an answer (a value or
//! an error), never a panic. `cargo test` runs a fixed budget of cases
//! (`HERMES_FUZZ_CASES`, default 256 per target); a longer run is
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

mod targets {
    use super::*;
    use crate::call::{classify, parse_calls, CallClass};
    use crate::config::ProviderKind;
    use crate::provider::openai::stream::{Assembler, Chunk};
    use crate::provider::{fold_native, FrameReader};
    use std::path::Path;

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

        #[test]
        fn tool_call_inputs_are_read_without_panicking(input in json_value()) {
            if let Ok(entries) = parse_calls(&input) {
                prop_assert!(!entries.is_empty());
            }
        }

        #[test]
        fn stream_chunks_assemble_without_panicking(chunks in prop::collection::vec(json_value(), 0..20)) {
            let mut asm = Assembler::default();
            for c in chunks {
                if let Ok(chunk) = serde_json::from_value::<Chunk>(c) {
                    asm.push(chunk);
                }
            }
            let done = asm.finish();
            prop_assert!(done.tool_calls.len() <= 20 * 12);
        }

        #[test]
        fn native_stream_events_fold_without_panicking(
            bedrock in any::<bool>(),
            events in prop::collection::vec((prop_oneof![
                Just("content_block_start"), Just("content_block_delta"), Just("content_block_stop"),
                Just("message_start"), Just("message_delta"), Just("message_stop"), Just("error"),
                Just("contentBlockStart"), Just("contentBlockDelta"), Just("messageStop"),
                Just("metadata"), Just("!throttlingException"), Just(""),
            ], text()), 0..24),
        ) {
            let kind = if bedrock { ProviderKind::Bedrock } else { ProviderKind::Anthropic };
            let events: Vec<(String, String)> = events.into_iter().map(|(e, d)| (e.to_string(), d)).collect();
            if let Some(c) = fold_native(kind, &events) {
                let n = c.native.expect("a native fold keeps its blocks");
                prop_assert_eq!(n.tool_calls(), c.tool_calls);
            }
        }

        #[test]
        fn event_stream_bytes_decode_without_panicking(
            bytes in prop::collection::vec(any::<u8>(), 0..512),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let mut reader = FrameReader::default();
            let mut at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            at.push(0);
            at.push(bytes.len());
            at.sort_unstable();
            for w in at.windows(2) {
                if reader.feed(&bytes[w[0]..w[1]]).is_err() {
                    break;
                }
            }
        }

        #[test]
        fn a_corrupted_event_stream_frame_is_an_error(flip in any::<prop::sample::Index>()) {
            use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
            let msg = Message::new_from_parts(
                vec![
                    Header::new(":event-type", HeaderValue::String("contentBlockDelta".into())),
                    Header::new(":message-type", HeaderValue::String("event".into())),
                ],
                br#"{"contentBlockIndex":0,"delta":{"text":"hi"}}"#.to_vec(),
            );
            let mut frame = Vec::new();
            aws_smithy_eventstream::frame::write_message_to(&msg, &mut frame).unwrap();
            let good = FrameReader::default().feed(&frame).unwrap();
            prop_assert_eq!(good.len(), 1);
            prop_assert_eq!(good[0].0.as_str(), "contentBlockDelta");
            let i = flip.index(frame.len());
            frame[i] ^= 0x01;
            // A flipped bit breaks a checksum or a length: an error, or a
            // frame still waiting for bytes — never a panic, never the event.
            let bad = FrameReader::default().feed(&frame);
            prop_assert!(bad.map_or(true, |e| e.is_empty()));
        }

        #[test]
        fn session_files_load_without_panicking(lines in prop::collection::vec(text(), 0..12), torn in any::<bool>()) {
            let meta = r#"{"type":"meta","version":1,"id":"s","created":"t","cwd":"/","provider":"p","model":"m","hermes_version":"0"}"#;
            let mut file = format!("{meta}\n");
            for l in &lines {
                file.push_str(&l.replace('\n', " "));
                file.push('\n');
            }
            if torn {
                file.pop();
            }
            let _ = crate::session::parse(Path::new("fuzz.jsonl"), file.as_bytes());
        }

        #[test]
        fn config_files_are_checked_without_panicking(text in prop_oneof![
            ".{0,200}",
            prop::collection::vec(prop_oneof![
                Just("[providers.x]".to_string()),
                Just("[mcp_servers.s]".to_string()),
                Just("[tools]".to_string()),
                "[a-z_]{1,12} = [0-9]{1,3}",
                "[a-z_]{1,12} = \"[a-z]{0,6}\"",
                Just("max_turns = 0".to_string()),
                Just("concurrency = -1".to_string()),
            ], 0..12).prop_map(|l| l.join("\n")),
        ]) {
            let _ = crate::config::parse_text(Path::new("fuzz.toml"), &text);
        }
    }
}
