//! `hermes acp` for editors: how soon an editor that starts hermes gets its
//! `initialize` answered (process start included, and the request alone),
//! and how long from `session/new` to the first `session/update` of a
//! prompt sent as soon as the session is open — the release binary, the
//! fake provider over real HTTP answering at once. Prints a Markdown table
//! for docs/benchmarks.md.
//!
//! `cargo bench --bench acp` (`HERMES_BENCH_RUNS` changes the run count).

use std::time::{Duration, Instant};

use hermes_test_support::acp::{initialize, Editor};
use hermes_test_support::{Reply, TestEnv};
use serde_json::json;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    let env = TestEnv::new();
    let (mut started, mut asked, mut opened) = (Vec::new(), Vec::new(), Vec::new());
    // `asked`: a second `initialize` to the running process, the request
    // alone (the first one waits for the process to start reading).
    for _ in 0..runs {
        env.fake.push(Reply::text("hello from the model"));
        let t0 = Instant::now();
        let mut editor = Editor::start(&env, &[]);
        editor.request("initialize", initialize()).unwrap();
        started.push(t0.elapsed());
        let t1 = Instant::now();
        editor.request("initialize", initialize()).unwrap();
        asked.push(t1.elapsed());
        let t3 = Instant::now();
        let r = editor
            .request(
                "session/new",
                json!({"cwd": env.cwd.path(), "mcpServers": []}),
            )
            .unwrap();
        let id = r["sessionId"].as_str().unwrap().to_string();
        let prompt = editor.send_request(
            "session/prompt",
            json!({"sessionId": id, "prompt": [{"type": "text", "text": "hi"}]}),
        );
        editor.until("the first text", |u| {
            u.iter()
                .any(|x| x["sessionUpdate"] == "agent_message_chunk")
        });
        opened.push(t3.elapsed());
        editor.answer_to(prompt).unwrap();
        let (status, stderr) = editor.finish();
        assert!(status.success(), "{stderr}");
    }
    println!("| measure ({runs} runs, release, median) | hermes | target |");
    println!("|---|---|---|");
    println!(
        "| process start → `initialize` answered | {} | |",
        ms(median(started))
    );
    println!(
        "| `initialize` sent → answered (the process running) | {} | < 10 ms |",
        ms(median(asked))
    );
    println!(
        "| `session/new` sent → the first `agent_message_chunk` of a prompt sent as it opened | {} | |",
        ms(median(opened))
    );
}
