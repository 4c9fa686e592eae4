//! Per-server concurrency, through the library's MCP registry and our test
//! server: the order of the server's own log lines shows what ran together.

use std::collections::BTreeMap;
use std::sync::Arc;

use hermes::config::{Concurrency, McpServerSettings, Paths};
use hermes::mcp::McpRegistry;
use tokio_util::sync::CancellationToken;

fn registry(home: &std::path::Path, concurrency: Concurrency) -> Arc<McpRegistry> {
    let mut servers = BTreeMap::new();
    servers.insert(
        "t".to_string(),
        McpServerSettings {
            concurrency,
            ..McpServerSettings::command(crate::support::test_server().to_string())
        },
    );
    Arc::new(McpRegistry::new(&servers, &Paths::under(home)).unwrap())
}

/// Starts `n` slow calls at once (in index order) and returns the server log.
fn run_batch(concurrency: Concurrency, n: usize) -> (Vec<String>, Vec<String>) {
    let home = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outputs = rt.block_on(async {
        let reg = registry(home.path(), concurrency);
        reg.server("t").unwrap().refresh().await.unwrap();
        let cancel = CancellationToken::new();
        let calls = (0..n).map(|i| {
            let reg = reg.clone();
            let cancel = cancel.clone();
            async move {
                let args = serde_json::json!({"ms": 150, "label": format!("#{i}")});
                reg.call("mcp__t__slow", args, &cancel)
                    .await
                    .unwrap()
                    .content
            }
        });
        let out = futures_util::future::join_all(calls).await;
        reg.shutdown().await;
        out
    });
    let log = std::fs::read_to_string(home.path().join("logs/mcp/t.log")).unwrap();
    let lines = log
        .lines()
        .filter(|l| l.starts_with("slow "))
        .map(|l| l.replace(" ms=150", ""))
        .collect();
    (outputs, lines)
}

#[test]
fn a_serial_server_takes_calls_one_at_a_time_in_order() {
    let (out, log) = run_batch(Concurrency::Serial, 4);
    assert_eq!(
        out,
        [
            "slept 150 ms #0",
            "slept 150 ms #1",
            "slept 150 ms #2",
            "slept 150 ms #3"
        ]
    );
    let expected: Vec<String> = (0..4)
        .flat_map(|i| [format!("slow start #{i}"), format!("slow done #{i}")])
        .collect();
    assert_eq!(log, expected);
}

#[test]
fn a_parallel_server_runs_calls_together() {
    let (out, log) = run_batch(Concurrency::Parallel, 4);
    assert_eq!(out.len(), 4);
    let first_done = log.iter().position(|l| l.starts_with("slow done")).unwrap();
    assert_eq!(
        first_done, 4,
        "a call finished before all had started: {log:?}"
    );
}

#[test]
fn a_limit_caps_calls_in_flight() {
    let (_, log) = run_batch(Concurrency::Limit(2), 4);
    let mut running = 0i32;
    let mut peak = 0;
    for l in &log {
        running += if l.starts_with("slow start") { 1 } else { -1 };
        peak = peak.max(running);
    }
    assert_eq!(peak, 2, "{log:?}");
}

#[test]
fn a_cancelled_call_that_waits_for_its_slot_is_never_sent() {
    let home = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let out = rt.block_on(async {
        let reg = registry(home.path(), Concurrency::Serial);
        reg.server("t").unwrap().refresh().await.unwrap();
        let first = CancellationToken::new();
        let second = CancellationToken::new();
        let a = reg.call(
            "mcp__t__slow",
            serde_json::json!({"ms": 300, "label": "a"}),
            &first,
        );
        let b = async {
            tokio::task::yield_now().await;
            second.cancel();
            reg.call(
                "mcp__t__slow",
                serde_json::json!({"ms": 10, "label": "b"}),
                &second,
            )
            .await
        };
        let (a, b) = tokio::join!(a, b);
        reg.shutdown().await;
        (a.unwrap().content, b.unwrap())
    });
    assert_eq!(out.0, "slept 300 ms a");
    assert!(out.1.is_error && out.1.content == "cancelled before it started");
    let log = std::fs::read_to_string(home.path().join("logs/mcp/t.log")).unwrap();
    assert!(
        !log.contains("label") && !log.contains("slow start b"),
        "{log}"
    );
    assert_eq!(log.matches("recv tools/call").count(), 1, "{log}");
}
