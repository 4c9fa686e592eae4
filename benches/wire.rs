//! What the wire contract costs (criterion): splitting one assistant message
//! with a 10-entry batch (classification, provider-legal child ids, child
//! arguments), and reading back a long session whose tool results were written
//! in finishing order — with the reordering into entry order that makes a
//! resume replay what was sent, and that reordering alone.

use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use hermes::agent::split_local_tool_batches;
use hermes::model::{Message, ToolCall};
use hermes::session::{self};

const PARENT: &str = "call_Hq8Lm2Np4Rs6Tu0Vw3Xy5Za7";

fn ten_entry_message() -> Vec<ToolCall> {
    let calls: Vec<serde_json::Value> = (0..10)
        .map(|i| {
            serde_json::json!({"name": format!("mcp__files__read_text_file_{}", i % 3),
                "arguments": {"path": format!("/home/me/project/src/module_{i}.rs"), "head": 200}})
        })
        .collect();
    vec![ToolCall {
        id: PARENT.into(),
        name: "tool_call".into(),
        arguments: serde_json::json!({ "calls": calls }).to_string(),
    }]
}

/// A session of `rounds` tool rounds, 10 results each, written last-first (the
/// order a parallel server may finish them in).
fn session_file(rounds: usize) -> Vec<u8> {
    let mut out = String::from(
        r#"{"type":"meta","version":1,"id":"s","created":"t","cwd":"/","provider":"p","model":"m","hermes_version":"0"}"#,
    );
    out.push('\n');
    for r in 0..rounds {
        let mut calls = ten_entry_message();
        calls[0].id = format!("call_{r:024}");
        split_local_tool_batches(&mut calls);
        let user = Message::user(format!("round {r}"));
        let assistant = Message::Assistant {
            content: String::new(),
            tool_calls: calls.clone(),
            native: None,
        };
        for m in [user, assistant] {
            out.push_str(
                &serde_json::json!({"type": "message", "ts": "t", "message": m}).to_string(),
            );
            out.push('\n');
        }
        for c in calls.iter().rev() {
            out.push_str(
                &serde_json::json!({"type": "tool_result", "ts": "t", "tool_call_id": c.id,
                "name": "tool_call", "content": "fn main() {}\n".repeat(20), "is_error": false})
                .to_string(),
            );
            out.push('\n');
        }
    }
    out.into_bytes()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("wire");
    g.bench_function("split a 10-entry batch", |b| {
        b.iter_batched(
            ten_entry_message,
            |mut calls| {
                split_local_tool_batches(&mut calls);
                calls
            },
            BatchSize::SmallInput,
        )
    });
    let bytes = session_file(1000);
    g.sample_size(20);
    g.bench_function("load a 1000-round session (11 000 messages)", |b| {
        b.iter(|| session::parse(Path::new("bench.jsonl"), &bytes).unwrap())
    });
    let loaded = session::parse(Path::new("bench.jsonl"), &bytes).unwrap();
    g.bench_function("of which: results back in entry order", |b| {
        b.iter_batched(
            || loaded.messages.clone(),
            |mut m| {
                session::in_entry_order(&mut m);
                m
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
