//! Subagents: wall time of a one-shot run whose model starts one subagent,
//! against one whose model starts two in the same reply — each subagent
//! calling its own MCP test server (`alpha`, `beta`; catalogs cached,
//! servers started on their first call) and answering — at 300 ms per
//! model reply, release build, the two configurations interleaved
//! (A B A B …). Two subagents run at once, so the target is at most 1.1×
//! the time of one. Prints a Markdown table for docs/benchmarks.md.
//!
//! `cargo bench --bench subagents` (`HERMES_BENCH_RUNS` to change the
//! run count).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hermes_test_support::calls::batch;
use hermes_test_support::fake_provider::{call_id, FakeProvider, Recorded, Reply};
use serde_json::json;

/// A model's pace.
const PACE: Duration = Duration::from_millis(300);

const SUBAGENT: &str = "You are a subagent of hermes";

/// A home with the `agent` built-in and servers `alpha` and `beta`, their
/// catalogs cached.
fn home(fake: &FakeProvider) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let server = env!("CARGO_BIN_EXE_hermes-test-mcp-server");
    let cfg = format!(
        "provider = \"fake\"\nmodel = \"m\"\n[providers.fake]\nbase_url = \"{}\"\n\
         api_key_env = \"BENCH_KEY\"\n[approvals]\nmode = \"auto\"\n\
         [tools]\nbuiltin = [\"agent\"]\ndefer = \"always\"\nwarm_up = \"off\"\n\
         [mcp_servers.alpha]\ncommand = {server:?}\nconcurrency = \"parallel\"\n\
         [mcp_servers.beta]\ncommand = {server:?}\nconcurrency = \"parallel\"\n",
        fake.base_url()
    );
    std::fs::write(home.path().join("config.toml"), cfg).unwrap();
    for name in ["alpha", "beta"] {
        let st = hermes(home.path(), &["mcp", "test", name])
            .status()
            .unwrap();
        assert!(st.success(), "hermes mcp test {name} failed");
    }
    home
}

fn hermes(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hermes"));
    cmd.args(args)
        .env("HERMES_HOME", home)
        .env("BENCH_KEY", "test-key")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// The model: the parent starts one subagent (`alpha`) or two (`alpha`,
/// `beta`) as its prompt says, then answers with their results; each
/// subagent echoes through its server, then answers with what it got.
fn model(req: &Recorded) -> Reply {
    let body = req.body_str();
    let done = req.tool_results();
    let reply = if !body.contains(SUBAGENT) {
        if done.is_empty() {
            let sides: &[&str] = if body.contains("start two") {
                &["alpha", "beta"]
            } else {
                &["alpha"]
            };
            let calls: Vec<(String, String)> = sides
                .iter()
                .map(|side| {
                    let args = json!({"prompt": format!("Task {side}: echo with the {side} server."),
                        "description": format!("{side} echo")});
                    (call_id(&format!("agent{side}")), args.to_string())
                })
                .collect();
            let refs: Vec<(&str, &str, &str)> = calls
                .iter()
                .map(|(id, args)| (id.as_str(), "agent", args.as_str()))
                .collect();
            Reply::tool_calls(&refs)
        } else {
            Reply::text(&format!("Done: {}", done.join(" | ")))
        }
    } else {
        let side = if body.contains("Task alpha") {
            "alpha"
        } else {
            "beta"
        };
        if done.is_empty() {
            let entry = batch(&[(
                &format!("mcp__{side}__echo"),
                json!({"text": format!("from {side}")}),
            )]);
            Reply::tool_calls(&[(&call_id(&format!("{side}call")), "tool_call", &entry)])
        } else {
            Reply::text(&format!("{side} got: {}", done[0]))
        }
    };
    reply.delayed(PACE)
}

/// One run's wall time; the requests it made are checked to be the
/// scenario's, so a run that went wrong is not timed as a fast one.
fn one(fake: &FakeProvider, home: &Path, prompt: &str, subagents: usize) -> Duration {
    fake.clear_requests();
    let start = Instant::now();
    let st = hermes(home, &["-q", prompt]).status().unwrap();
    let took = start.elapsed();
    assert!(st.success(), "hermes failed during the benchmark");
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2 + 2 * subagents, "requests of {prompt:?}");
    let last = reqs.last().unwrap().tool_results();
    assert_eq!(last.len(), subagents, "{last:?}");
    assert!(last.iter().all(|r| r.contains(" got: ")), "{last:?}");
    took
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn pct(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let fake = FakeProvider::start();
    fake.respond_with(model);
    let home = home(&fake);
    let (mut single, mut double, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    one(&fake, home.path(), "start one", 1);
    for _ in 0..runs {
        let a = one(&fake, home.path(), "start one", 1).as_secs_f64() * 1e3;
        let b = one(&fake, home.path(), "start two", 2).as_secs_f64() * 1e3;
        single.push(a);
        double.push(b);
        ratios.push(b / a);
    }
    println!("| run ({runs} pairs, interleaved, release, 300 ms per reply) | median | p10 | p90 |");
    println!("|---|---|---|---|");
    for (label, v) in [
        ("one subagent (4 model replies, 1 server)", &single),
        ("two subagents in one reply (6 replies, 2 servers)", &double),
    ] {
        println!(
            "| {label} | {:.0} ms | {:.0} ms | {:.0} ms |",
            median(v.clone()),
            pct(v, 0.1),
            pct(v, 0.9)
        );
    }
    println!(
        "\nratio two : one, median of the {runs} pairs: {:.3}× (target ≤ 1.1×)",
        median(ratios)
    );
}
