//! `hermes mcp serve` benchmark: process start → `initialize` answered, and
//! one `tools/call` round trip of the test server's `echo` through the
//! served gateway (`tool_call`, the server warm) against the same call
//! made to the test server directly — the gateway's own cost per call.
//! Runs interleaved; prints a Markdown table for docs/benchmarks.md.
//!
//! `cargo bench --bench serve` (`HERMES_BENCH_RUNS` sets the run count).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// A JSON-RPC peer on a child's pipes.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    next: u64,
}

impl Peer {
    fn start(cmd: &mut Command) -> Peer {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Peer {
            child,
            stdin,
            lines,
            next: 0,
        }
    }

    /// Sends a request and waits for its answer.
    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.next += 1;
        let id = self.next;
        let line =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        loop {
            let l = self.lines.next().expect("an answer").unwrap();
            let v: serde_json::Value = serde_json::from_str(&l).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    fn initialize(&mut self) {
        let init = self.request(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        writeln!(
            self.stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )
        .unwrap();
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let home = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let server = env!("CARGO_BIN_EXE_hermes-test-mcp-server");
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[approvals]\nallow = [\"mcp__alpha__*\"]\n[mcp_servers.alpha]\ncommand = {server:?}\n"
        ),
    )
    .unwrap();
    let serve = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_hermes"));
        c.args(["mcp", "serve"])
            .current_dir(folder.path())
            .env("HERMES_HOME", home.path());
        c
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut init = Vec::new();
    for _ in 0..runs.min(20) {
        let started = Instant::now();
        let mut p = Peer::start(&mut serve());
        p.initialize();
        init.push(ms(started.elapsed()));
    }
    let mut gateway = Peer::start(&mut serve());
    gateway.initialize();
    let mut direct = Peer::start(&mut Command::new(server));
    direct.initialize();
    let through = |p: &mut Peer, i: usize| {
        p.request(
            "tools/call",
            serde_json::json!({"name": "tool_call", "arguments": {"calls": [
                {"name": "mcp__alpha__echo", "arguments": {"text": format!("call {i}")}}]}}),
        )
    };
    let plain = |p: &mut Peer, i: usize| {
        p.request(
            "tools/call",
            serde_json::json!({"name": "echo", "arguments": {"text": format!("call {i}")}}),
        )
    };
    // Warm: the gateway's server started and listed, both paths run once.
    let first = through(&mut gateway, 0);
    assert_eq!(first["result"]["isError"], false, "{first}");
    plain(&mut direct, 0);
    let (mut via, mut straight) = (Vec::new(), Vec::new());
    for i in 0..runs * 5 {
        let t = Instant::now();
        through(&mut gateway, i);
        via.push(ms(t.elapsed()));
        let t = Instant::now();
        plain(&mut direct, i);
        straight.push(ms(t.elapsed()));
    }
    let (v, s) = (median(via), median(straight));
    println!("| measure (release, interleaved) | median | ratio |");
    println!("|---|---|---|");
    println!(
        "| `hermes mcp serve`: start → `initialize` answered ({} runs) | {:.2} ms | |",
        init.len(),
        median(init)
    );
    println!(
        "| `tools/call` through the served gateway (`tool_call` → `mcp__alpha__echo`, server warm; {} calls) | {v:.3} ms | {:.2} |",
        runs * 5,
        v / s
    );
    println!("| the same call to the test server directly | {s:.3} ms | 1.00 |");
}
