//! Start-up benchmark: process start → first byte at the provider, and peak RSS of
//! a one-shot turn, for the release binary against the fake provider over real
//! HTTP. Prints a Markdown table for docs/benchmarks.md.
//!
//! `cargo bench --bench startup` (set `HERMES_BENCH_RUNS` to change the run count).

#[path = "../tests/support/fake_provider.rs"]
mod fake_provider;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fake_provider::{FakeProvider, Reply};

struct Sample {
    first_byte: Duration,
    peak_rss_kib: i64,
}

fn main() {
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let fake = FakeProvider::start();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "provider = \"fake\"\nmodel = \"m\"\n[providers.fake]\nbase_url = \"{}\"\napi_key_env = \"BENCH_KEY\"\n",
            fake.base_url()
        ),
    )
    .unwrap();

    // Warm the page cache once.
    fake.push(Reply::text("warm"));
    one(&fake, home.path());

    let mut samples: Vec<Sample> = (0..runs)
        .map(|_| {
            fake.push(Reply::text("Hello from the benchmark."));
            one(&fake, home.path())
        })
        .collect();

    samples.sort_by_key(|s| s.first_byte);
    let fb: Vec<f64> = samples
        .iter()
        .map(|s| s.first_byte.as_secs_f64() * 1e3)
        .collect();
    let mut rss: Vec<i64> = samples.iter().map(|s| s.peak_rss_kib).collect();
    rss.sort();
    println!("| measure ({runs} runs, release) | median | p10 | p90 | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| process start → first byte at provider | {:.2} ms | {:.2} ms | {:.2} ms | ≤ 15 ms |",
        pct(&fb, 0.5),
        pct(&fb, 0.1),
        pct(&fb, 0.9)
    );
    let mib = |k: i64| k as f64 / 1024.0;
    let rss_f: Vec<f64> = rss.iter().map(|k| mib(*k)).collect();
    println!(
        "| peak RSS of a one-shot turn | {:.1} MiB | {:.1} MiB | {:.1} MiB | ≤ 15 MB |",
        pct(&rss_f, 0.5),
        pct(&rss_f, 0.1),
        pct(&rss_f, 0.9)
    );
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn one(fake: &FakeProvider, home: &std::path::Path) -> Sample {
    fake.clear_requests();
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(["-q", "hi"])
        .env("HERMES_HOME", home)
        .env("BENCH_KEY", "k")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (status, peak_rss_kib) = wait_rusage(child.id() as i32);
    assert_eq!(status, 0, "hermes failed during the benchmark");
    let reqs = fake.requests();
    Sample {
        first_byte: reqs[0].first_byte.duration_since(start),
        peak_rss_kib,
    }
}

/// Waits for the child and returns its exit code and peak RSS (KiB) from wait4.
fn wait_rusage(pid: i32) -> (i32, i64) {
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4 failed");
    (libc::WEXITSTATUS(status), ru.ru_maxrss)
}
