//! Scenario "three servers, one 3-entry batch" (read two files, open a
//! ticket) with a fake provider that takes 500 ms per reply: the split path
//! against the legacy reject-and-retry path, release build, interleaved runs.
//! Both drive the library in-process through `app::assemble`, the wiring the
//! binary uses; the legacy row turns the split off on the `Agent` itself, since
//! no user setting does (the split is the behaviour, not an option).
//!
//! `cargo bench --bench batch` (needs ./scripts/install-test-servers).

#[path = "../tests/support/fake_anthropic.rs"]
mod fake_anthropic;
#[path = "../tests/support/fake_bedrock.rs"]
mod fake_bedrock;
#[path = "../tests/support/fake_provider.rs"]
mod fake_provider;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fake_provider::{call_id, FakeProvider, Reply};
use hermes::agent::Event;
use hermes::config::{Overrides, Paths};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const REPLY: Duration = Duration::from_millis(500);

fn server_bin(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".test-servers/npm/node_modules/.bin")
        .join(name);
    assert!(root.exists(), "run ./scripts/install-test-servers first");
    root.display().to_string()
}

struct Setup {
    home: tempfile::TempDir,
    entries: Vec<serde_json::Value>,
}

fn setup(fake: &FakeProvider) -> Setup {
    let home = tempfile::tempdir().unwrap();
    let a = home.path().join("a");
    let b = home.path().join("b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(a.join("spec.md"), "the spec").unwrap();
    std::fs::write(b.join("notes.md"), "the notes").unwrap();
    let fs = server_bin("mcp-server-filesystem");
    let cfg = format!(
        "provider = \"fake\"\nmodel = \"m\"\n[providers.fake]\nbase_url = \"{}\"\napi_key = \"k\"\n\
         [tools]\ndefer = \"always\"\n\
         [approvals]\nmode = \"auto\"\n\
         [mcp_servers.docs]\ncommand = {fs:?}\nargs = [{:?}]\n\
         [mcp_servers.notes]\ncommand = {fs:?}\nargs = [{:?}]\n\
         [mcp_servers.tickets]\ncommand = {:?}\n",
        fake.base_url(),
        a.display().to_string(),
        b.display().to_string(),
        env!("CARGO_BIN_EXE_hermes-test-mcp-server"),
    );
    std::fs::write(home.path().join("config.toml"), cfg).unwrap();
    for s in ["docs", "notes", "tickets"] {
        let ok = Command::new(env!("CARGO_BIN_EXE_hermes"))
            .args(["mcp", "test", s])
            .env("HERMES_HOME", home.path())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(ok.success());
    }
    let entries = vec![
        json!({"name": "mcp__docs__read_text_file", "arguments": {"path": a.join("spec.md")}}),
        json!({"name": "mcp__notes__read_text_file", "arguments": {"path": b.join("notes.md")}}),
        json!({"name": "mcp__tickets__slow", "arguments": {"ms": 200, "label": "ticket opened"}}),
    ];
    Setup { home, entries }
}

struct Sample {
    wall: Duration,
    requests: usize,
    slowest_tool: Duration,
}

fn run(fake: &FakeProvider, s: &Setup, split: bool) -> Sample {
    fake.clear_requests();
    let batch = json!({ "calls": s.entries }).to_string();
    fake.push(Reply::tool_calls(&[(&call_id("1"), "tool_call", &batch)]).delayed(REPLY));
    if !split {
        // The legacy contract: the model retries one entry per call.
        for (i, e) in s.entries.iter().enumerate() {
            let one = json!({ "calls": [e] }).to_string();
            fake.push(
                Reply::tool_calls(&[(&call_id(&format!("retry_{i}")), "tool_call", &one)])
                    .delayed(REPLY),
            );
        }
    }
    fake.push(Reply::text("Read both files and opened the ticket.").delayed(REPLY));
    let home = s.home.path();
    let settings = hermes::config::resolve(Paths::under(home), home, &Overrides::default())
        .expect("bench config resolves");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let t = Instant::now();
    let slowest = rt.block_on(async {
        let conv = hermes::app::assemble(&settings, home, None).await.unwrap();
        let mut events = conv.events;
        let mut agent = conv.agent.with_split_batches(split);
        let cancel = CancellationToken::new();
        let turn = agent.run_turn("read the spec and notes, then open a ticket", &cancel);
        tokio::pin!(turn);
        // From queued (checks passed) to finished: includes the server's
        // lazy start on first use.
        let mut queued = std::collections::HashMap::new();
        let mut slowest = Duration::ZERO;
        let mut note = |ev: Event| match ev {
            Event::ToolCallQueued { id, .. } => {
                queued.insert(id, Instant::now());
            }
            Event::ToolCallFinished { id, content, .. } => {
                if let Some(q) = queued.get(&id) {
                    slowest = slowest.max(q.elapsed());
                }
                assert_ne!(content, "", "empty tool result");
            }
            _ => {}
        };
        let outcome = loop {
            tokio::select! {
                biased;
                Some(ev) = events.recv() => note(ev),
                r = &mut turn => break r,
            }
        };
        while let Ok(ev) = events.try_recv() {
            note(ev);
        }
        outcome.expect("the turn succeeds");
        conv.mcp.shutdown().await;
        slowest
    });
    Sample {
        wall: t.elapsed(),
        requests: fake.requests().len(),
        slowest_tool: slowest,
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
        .unwrap_or(7);
    let fake = FakeProvider::start();
    let split = setup(&fake);
    let legacy = setup(&fake);
    let (mut s, mut l) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        s.push(run(&fake, &split, true));
        l.push(run(&fake, &legacy, false));
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let wall_s = median(s.iter().map(|x| ms(x.wall)).collect());
    let wall_l = median(l.iter().map(|x| ms(x.wall)).collect());
    let slow_s = median(s.iter().map(|x| ms(x.slowest_tool)).collect());
    let slow_l = median(l.iter().map(|x| ms(x.slowest_tool)).collect());
    let bound = 1.1 * (2.0 * ms(REPLY) + slow_s);
    println!("| path ({runs} runs each, interleaved, 500 ms per model reply) | model requests | median wall time | median slowest tool | bound 1.1 × (2 × 500 ms + slowest) |");
    println!("|---|---|---|---|---|");
    println!(
        "| split (this contract) | {} | {wall_s:.0} ms | {slow_s:.0} ms | {bound:.0} ms — {} |",
        s[0].requests,
        if wall_s <= bound { "met" } else { "NOT met" }
    );
    println!(
        "| legacy reject-and-retry | {} | {wall_l:.0} ms | {slow_l:.0} ms | |",
        l[0].requests
    );
    println!(
        "| legacy ÷ split | {:.2}× | {:.2}× | | |",
        l[0].requests as f64 / s[0].requests as f64,
        wall_l / wall_s
    );
}
