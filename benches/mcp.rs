//! MCP benchmarks against our test server (release build):
//! - agent overhead per call: hermes' tool path (`agent::run_tool_call`, the
//!   tool round's own path: classification, argument parsing, name lookup,
//!   schema, approval, concurrency gate, timeout, result mapping)
//!   minus a raw rmcp `tools/call` to a second instance of the same server,
//!   calls interleaved one by one;
//! - the same for a remote server: server-everything over streamable HTTP
//!   on loopback, against a raw rmcp streamable-HTTP session;
//! - 10 concurrent calls to a tool that sleeps 100 ms, on a `parallel` and on a
//!   `serial` server.
//!
//! `cargo bench --bench mcp` prints Markdown tables for docs/benchmarks.md.

use hermes_test_support::everything;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes::config::{Concurrency, McpServerSettings, Paths};
use hermes::mcp::McpRegistry;
use hermes::model::ToolCall;
use hermes::tools::Registry;
use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

const SERVER: &str = env!("CARGO_BIN_EXE_hermes-test-mcp-server");

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn registry(home: &std::path::Path, concurrency: Concurrency) -> Arc<McpRegistry> {
    let mut servers = BTreeMap::new();
    servers.insert(
        "t".to_string(),
        McpServerSettings {
            concurrency,
            ..McpServerSettings::command(SERVER)
        },
    );
    Arc::new(McpRegistry::new(&servers, &Paths::under(home)).unwrap())
}

async fn overhead(calls: usize) {
    let home = tempfile::tempdir().unwrap();
    let reg = registry(home.path(), Concurrency::Serial);
    reg.server("t").unwrap().refresh().await.unwrap();
    let tools = Registry::default().with_mcp(reg.clone());

    let mut child = tokio::process::Command::new(SERVER)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let io = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let raw = ().serve(io).await.unwrap();

    let call = ToolCall {
        id: "c".into(),
        name: "mcp__t__echo".into(),
        arguments: r#"{"text":"ping"}"#.into(),
    };
    let (ours, theirs) = paired(&tools, &call, "ping", &raw, "echo", calls, 100).await;
    table(
        &format!("measure ({calls} calls each, interleaved)"),
        "raw rmcp `tools/call` (echo)",
        "agent overhead per call (median of paired differences)",
        "≤ 0.3 ms",
        ours,
        theirs,
    );
    let _ = raw.cancel().await;
    reg.shutdown().await;
}

/// `calls` pairs, after `warm` uncounted ones: hermes' tool path for
/// `call`, then a raw rmcp `tools/call` of `tool` with the same arguments;
/// each side's times in ms.
async fn paired(
    tools: &Registry,
    call: &ToolCall,
    expect: &str,
    raw: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    calls: usize,
    warm: usize,
) -> (Vec<f64>, Vec<f64>) {
    let cancel = CancellationToken::new();
    let args: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&call.arguments).unwrap();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for i in 0..calls + warm {
        let t = Instant::now();
        let out = hermes::agent::run_tool_call(tools, call, &cancel).await;
        let a = t.elapsed();
        assert_eq!(out.content, expect);
        let t = Instant::now();
        let r = raw
            .peer()
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args.clone()))
            .await
            .unwrap();
        let b = t.elapsed();
        assert!(!r.content.is_empty());
        if i >= warm {
            ours.push(a.as_secs_f64() * 1e3);
            theirs.push(b.as_secs_f64() * 1e3);
        }
    }
    (ours, theirs)
}

/// The overhead table: both sides' medians and the median of the paired
/// differences.
fn table(title: &str, raw: &str, overhead: &str, target: &str, ours: Vec<f64>, theirs: Vec<f64>) {
    let diffs: Vec<f64> = ours.iter().zip(&theirs).map(|(a, b)| a - b).collect();
    println!("| {title} | median | target |");
    println!("|---|---|---|");
    println!("| {raw} | {:.3} ms | |", median(theirs));
    println!("| hermes tool path, same call | {:.3} ms | |", median(ours));
    println!("| {overhead} | {:.3} ms | {target} |", median(diffs));
}

/// The same pairing against a remote server: server-everything serving
/// streamable HTTP on 127.0.0.1, hermes' session to it against a raw rmcp
/// streamable-HTTP session of its own.
async fn remote_overhead(calls: usize) {
    let server = everything::Everything::start();
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    let mut servers = BTreeMap::new();
    let mut entry = McpServerSettings::remote(&url);
    entry.concurrency = Concurrency::Serial;
    servers.insert("ev".to_string(), entry);
    let reg = Arc::new(McpRegistry::new(&servers, &Paths::under(home.path())).unwrap());
    reg.server("ev").unwrap().refresh().await.unwrap();
    let tools = Registry::default().with_mcp(reg.clone());

    let _ = rustls::crypto::ring::default_provider().install_default();
    let raw = ()
        .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
            url.as_str(),
        ))
        .await
        .unwrap();
    let call = ToolCall {
        id: "c".into(),
        name: "mcp__ev__echo".into(),
        arguments: r#"{"message":"ping"}"#.into(),
    };
    let (ours, theirs) = paired(&tools, &call, "Echo: ping", &raw, "echo", calls, 50).await;
    table(
        &format!("remote server ({calls} calls each, interleaved)"),
        "raw rmcp streamable-HTTP `tools/call` (server-everything echo)",
        "agent overhead per remote call (median of paired differences)",
        "≤ 1 ms",
        ours,
        theirs,
    );
    let _ = raw.cancel().await;
    reg.shutdown().await;
}

async fn batch(concurrency: Concurrency) -> (Duration, Vec<String>) {
    let home = tempfile::tempdir().unwrap();
    let reg = registry(home.path(), concurrency);
    reg.server("t").unwrap().refresh().await.unwrap();
    let cancel = CancellationToken::new();
    let t = Instant::now();
    let outs = futures_util::future::join_all((0..10).map(|i| {
        let reg = reg.clone();
        let cancel = cancel.clone();
        async move {
            let args = serde_json::json!({"ms": 100, "label": format!("#{i}")});
            reg.call("mcp__t__slow", args, &cancel)
                .await
                .unwrap()
                .content
        }
    }))
    .await;
    let wall = t.elapsed();
    reg.shutdown().await;
    let log = std::fs::read_to_string(home.path().join("logs/mcp/t.log")).unwrap();
    let starts = log
        .lines()
        .filter_map(|l| l.strip_prefix("slow start "))
        .map(|l| l.replace(" ms=100", ""))
        .collect();
    assert!(outs.iter().all(|o| o.starts_with("slept 100 ms")));
    (wall, starts)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        overhead(2000).await;
        println!();
        remote_overhead(1000).await;
        println!();
        let mut par = Vec::new();
        let mut ser = Vec::new();
        let mut order = Vec::new();
        for _ in 0..5 {
            par.push(batch(Concurrency::Parallel).await.0.as_secs_f64() * 1e3);
            let (w, o) = batch(Concurrency::Serial).await;
            ser.push(w.as_secs_f64() * 1e3);
            order = o;
        }
        let in_order = order == (0..10).map(|i| format!("#{i}")).collect::<Vec<_>>();
        println!(
            "| 10 concurrent calls, tool sleeps 100 ms (5 runs) | median wall time | target |"
        );
        println!("|---|---|---|");
        println!("| `parallel` server | {:.1} ms | ≤ 120 ms |", median(par));
        println!(
            "| `serial` server | {:.1} ms (started in entry order: {}) | ≈ 1 s, in entry order |",
            median(ser),
            if in_order { "yes" } else { "NO" }
        );
    });
}
