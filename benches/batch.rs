//! Scenario "three servers, one 3-entry batch" (read two files, open a
//! ticket) with a fake provider that takes 500 ms per reply: the split path,
//! release build (servers start on their first call here: `warm_up =
//! "off"`), in-process through `app::assemble`, the wiring the binary uses.
//! (The legacy reject-and-retry rows in docs/benchmarks.md were measured
//! while the agent could still turn the split off; it no longer can: the
//! split is the behaviour, not an option.)
//!
//!
//! Second table, "servers up before the call": the same task as a user
//! would run it — the model searches first, then sends the batch — at 300
//! ms per reply, catalogs cached, with `[tools] warm_up` off (servers start
//! on their first call, as before warm-ups existed), `hits` and `predict`,
//! interleaved. The ticket server serves the real GitHub catalog captured in
//! tests/fixtures/catalogs and answers `create_issue` after 50 ms.
//!
//! Third table: that task with the ticket server remote (server-everything
//! over streamable HTTP on loopback) against the same server over stdio.
//!
//! `cargo bench --bench batch` (needs ./scripts/install-test-servers).

use hermes_test_support::{everything, fake_provider};
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

/// The ticket server of a scenario: its `[mcp_servers.tickets]` table and
/// the batch entry that opens the ticket.
struct Tickets {
    server: String,
    entry: serde_json::Value,
}

impl Tickets {
    /// Our test server with `args`.
    fn test_server(args: &[String], entry: serde_json::Value) -> Tickets {
        Tickets {
            server: format!(
                "command = {:?}\nargs = {args:?}\n",
                env!("CARGO_BIN_EXE_hermes-test-mcp-server")
            ),
            entry,
        }
    }
}

/// A home with the three servers (catalogs cached) and the batch's entries.
fn setup_with(fake: &FakeProvider, warm_up: &str, tickets: Tickets) -> Setup {
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
         [tools]\ndefer = \"always\"\nwarm_up = \"{warm_up}\"\n\
         [approvals]\nmode = \"auto\"\n\
         [mcp_servers.docs]\ncommand = {fs:?}\nargs = [{:?}]\n\
         [mcp_servers.notes]\ncommand = {fs:?}\nargs = [{:?}]\n\
         [mcp_servers.tickets]\n{}",
        fake.base_url(),
        a.display().to_string(),
        b.display().to_string(),
        tickets.server,
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
        tickets.entry,
    ];
    Setup { home, entries }
}

/// The first scenario: the test server's `slow` tool stands for the ticket.
fn setup(fake: &FakeProvider) -> Setup {
    let entry =
        json!({"name": "mcp__tickets__slow", "arguments": {"ms": 200, "label": "ticket opened"}});
    setup_with(fake, "off", Tickets::test_server(&[], entry))
}

struct Sample {
    wall: Duration,
    requests: usize,
    slowest_tool: Duration,
}

fn run(fake: &FakeProvider, s: &Setup) -> Sample {
    fake.clear_requests();
    let batch = json!({ "calls": s.entries }).to_string();
    fake.push(Reply::tool_calls(&[(&call_id("1"), "tool_call", &batch)]).delayed(REPLY));
    fake.push(Reply::text("Read both files and opened the ticket.").delayed(REPLY));
    let home = s.home.path();
    let (settings, rt) = settings_and_runtime(home);
    let t = Instant::now();
    let slowest = rt.block_on(async {
        let conv = hermes::app::assemble(&settings, home, hermes::agent::Opening::New, false)
            .await
            .unwrap();
        let mut events = conv.events;
        let mut agent = conv.agent;
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
        let outcome = drive_turn(&mut turn, &mut events, &mut note).await;
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

const FAST_REPLY: Duration = Duration::from_millis(300);
const TICKET_MS: u64 = 50;

/// A home for the warm-up scenario with `[tools] warm_up = mode`: the ticket
/// server serves the GitHub catalog and answers after `TICKET_MS`.
fn warm_setup(fake: &FakeProvider, mode: &str) -> Setup {
    let github = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogs/github.json");
    let args = vec![
        "--catalog".to_string(),
        github.display().to_string(),
        "--call-ms".to_string(),
        TICKET_MS.to_string(),
    ];
    let entry = json!({"name": "mcp__tickets__create_issue", "arguments": {"owner": "acme", "repo": "api", "title": "Spec and notes disagree"}});
    setup_with(fake, mode, Tickets::test_server(&args, entry))
}

struct WarmSample {
    wall: Duration,
    /// When each model request arrived, from the start of the run.
    requests: Vec<Duration>,
    /// From the batch's first entry queued to its last result.
    round: Duration,
    /// The longest single entry, from sent to its server to its result.
    slowest_tool: Duration,
    warmed: usize,
    unused: usize,
}

fn warm_run(fake: &FakeProvider, s: &Setup) -> WarmSample {
    fake.clear_requests();
    let search = json!({"queries": ["read a text file", "open an issue"]}).to_string();
    fake.push(
        Reply::tool_calls(&[(&call_id("search"), "tool_search", &search)]).delayed(FAST_REPLY),
    );
    let batch = json!({ "calls": s.entries }).to_string();
    fake.push(Reply::tool_calls(&[(&call_id("batch"), "tool_call", &batch)]).delayed(FAST_REPLY));
    fake.push(Reply::text("Read both files and opened the ticket.").delayed(FAST_REPLY));
    let home = s.home.path();
    let (settings, rt) = settings_and_runtime(home);
    let t = Instant::now();
    let (wall, round, slowest, warmed, unused) = rt.block_on(async {
        let conv = hermes::app::assemble(&settings, home, hermes::agent::Opening::New, false)
            .await
            .unwrap();
        let mut events = conv.events;
        let mut agent = conv.agent;
        let cancel = CancellationToken::new();
        let turn = agent.run_turn(
            "read the spec and the notes, then open a ticket for what is missing",
            &cancel,
        );
        tokio::pin!(turn);
        let mut started = std::collections::HashMap::new();
        let (mut first_queued, mut last_done) = (None, None);
        let mut slowest = Duration::ZERO;
        let mut note = |ev: Event| match ev {
            Event::ToolCallQueued { name, .. } if !hermes::tools::bridge::is_bridge(&name) => {
                first_queued.get_or_insert_with(Instant::now);
            }
            Event::ToolCallStarted { id, .. } => {
                started.insert(id, Instant::now());
            }
            Event::ToolCallFinished {
                id,
                content,
                is_error,
                ..
            } => {
                assert!(!is_error, "a tool failed: {content}");
                if let Some(t) = started.get(&id) {
                    slowest = slowest.max(t.elapsed());
                }
                last_done = Some(Instant::now());
            }
            _ => {}
        };
        let outcome = drive_turn(&mut turn, &mut events, &mut note).await;
        outcome.expect("the turn succeeds");
        // The turn's time: what the user waits for (servers stop after).
        let turn_time = t.elapsed();
        let (warmed, unused) = conv.mcp.warm_stats();
        conv.mcp.shutdown().await;
        let round = match (first_queued, last_done) {
            (Some(a), Some(b)) => b - a,
            _ => Duration::ZERO,
        };
        (turn_time, round, slowest, warmed, unused)
    });
    WarmSample {
        wall,
        requests: fake
            .requests()
            .iter()
            .map(|r| r.first_byte.saturating_duration_since(t))
            .collect(),
        round,
        slowest_tool: slowest,
        warmed,
        unused,
    }
}

fn warm_table(fake: &FakeProvider, runs: usize) {
    let modes = ["off", "hits", "predict"];
    let homes: Vec<Setup> = modes.iter().map(|m| warm_setup(fake, m)).collect();
    let mut samples: Vec<Vec<WarmSample>> = modes.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs {
        for (i, h) in homes.iter().enumerate() {
            samples[i].push(warm_run(fake, h));
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!();
    println!("| warm_up ({runs} runs each, interleaved, 300 ms per model reply) | median wall | model requests at (median) | median tool round | median slowest tool | round ÷ slowest | servers started ahead / not called |");
    println!("|---|---|---|---|---|---|---|");
    let mut walls = Vec::new();
    for (mode, v) in modes.iter().zip(&samples) {
        let wall = median(v.iter().map(|x| ms(x.wall)).collect());
        walls.push(wall);
        let at: Vec<String> = (0..3)
            .map(|k| {
                format!(
                    "{:.0}",
                    median(
                        v.iter()
                            .map(|x| x.requests.get(k).map_or(f64::NAN, |d| ms(*d)))
                            .collect()
                    )
                )
            })
            .collect();
        let round = median(v.iter().map(|x| ms(x.round)).collect());
        let slow = median(v.iter().map(|x| ms(x.slowest_tool)).collect());
        let warmed: usize = v.iter().map(|x| x.warmed).sum();
        let unused: usize = v.iter().map(|x| x.unused).sum();
        println!(
            "| {mode} | {wall:.0} ms | {} ms | {round:.0} ms | {slow:.0} ms | {:.2} | {warmed} / {unused} |",
            at.join(", "),
            round / slow
        );
    }
    println!("| off ÷ predict | {:.2}× | | | | | |", walls[0] / walls[2]);
}

/// The search-then-batch task with the ticket server remote: server-
/// everything over streamable HTTP on 127.0.0.1, against the same server
/// over stdio; `echo` stands for the ticket. Same model requests, same
/// path: the transport is the only difference.
fn remote_table(fake: &FakeProvider, runs: usize) {
    let bin = everything::binary();
    let server = everything::Everything::start();
    let entry = json!({"name": "mcp__tickets__echo", "arguments": {"message": "ticket opened"}});
    let homes = [
        (
            "stdio (server-everything, local)",
            Tickets {
                server: format!("command = {bin:?}\n"),
                entry: entry.clone(),
            },
        ),
        (
            "streamable HTTP (server-everything, remote on loopback)",
            Tickets {
                server: format!("url = {:?}\n", server.url()),
                entry,
            },
        ),
    ]
    .map(|(label, t)| (label, setup_with(fake, "off", t)));
    let mut samples: Vec<Vec<WarmSample>> = homes.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs {
        for (i, (_, h)) in homes.iter().enumerate() {
            samples[i].push(warm_run(fake, h));
        }
    }
    drop(server);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!();
    println!("| ticket server ({runs} runs each, interleaved, 300 ms per model reply, warm_up off) | model requests | median wall | median tool round | median slowest tool |");
    println!("|---|---|---|---|---|");
    for ((label, _), v) in homes.iter().zip(&samples) {
        println!(
            "| {label} | {} | {:.0} ms | {:.0} ms | {:.0} ms |",
            v[0].requests.len(),
            median(v.iter().map(|x| ms(x.wall)).collect()),
            median(v.iter().map(|x| ms(x.round)).collect()),
            median(v.iter().map(|x| ms(x.slowest_tool)).collect()),
        );
    }
}

/// A run's settings and the runtime the binary would use (one thread).
fn settings_and_runtime(home: &Path) -> (hermes::config::Settings, tokio::runtime::Runtime) {
    let settings = hermes::config::resolve(Paths::under(home), home, &Overrides::default())
        .expect("bench config resolves");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    (settings, rt)
}

/// Runs `turn` to its end, handing every event to `note` as it comes.
async fn drive_turn<T>(
    turn: &mut std::pin::Pin<&mut impl std::future::Future<Output = T>>,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>,
    note: &mut impl FnMut(Event),
) -> T {
    let outcome = loop {
        tokio::select! {
            biased;
            Some(ev) = events.recv() => note(ev),
            r = turn.as_mut() => break r,
        }
    };
    while let Ok(ev) = events.try_recv() {
        note(ev);
    }
    outcome
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
    let s: Vec<Sample> = (0..runs).map(|_| run(&fake, &split)).collect();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let wall_s = median(s.iter().map(|x| ms(x.wall)).collect());
    let slow_s = median(s.iter().map(|x| ms(x.slowest_tool)).collect());
    let bound = 1.1 * (2.0 * ms(REPLY) + slow_s);
    println!("| path ({runs} runs, 500 ms per model reply) | model requests | median wall time | median slowest tool | bound 1.1 × (2 × 500 ms + slowest) |");
    println!("|---|---|---|---|---|");
    println!(
        "| split (this contract) | {} | {wall_s:.0} ms | {slow_s:.0} ms | {bound:.0} ms — {} |",
        s[0].requests,
        if wall_s <= bound { "met" } else { "NOT met" }
    );
    warm_table(&fake, runs);
    remote_table(&fake, runs);
}
