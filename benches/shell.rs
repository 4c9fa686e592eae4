//! What one `shell` call costs, sandbox and all: `hermes -q` whose model
//! sends a round of 20 `true` commands (run one at a time, the default),
//! against a round of one, timed at the fake provider between the request
//! that carried the calls' reply and the one that carries their results —
//! so the figure is the tool round itself, not start-up. The cost of a
//! call is (round of 20 − round of 1) ÷ 19.
//!
//! With `HERMES_BENCH_BASELINE` naming another hermes binary (a release
//! build of main, say), the two are run A B A B … and compared pair by
//! pair: the difference per call and the ratio, medians of the pairs.
//!
//! `cargo bench --bench shell` (`HERMES_BENCH_RUNS` changes the pair count).

use hermes_test_support::fake_provider;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use fake_provider::{call_id, FakeProvider, Reply};

/// A home for `fake` offering `shell` alone, everything allowed.
fn home(fake: &FakeProvider) -> (tempfile::TempDir, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "provider = \"fake\"\nmodel = \"m\"\n[providers.fake]\nbase_url = \"{}\"\n\
             api_key_env = \"BENCH_KEY\"\n[tools]\nbuiltin = [\"shell\"]\n[approvals]\nmode = \"auto\"\n",
            fake.base_url()
        ),
    )
    .unwrap();
    (home, cwd)
}

/// The tool round's time for `n` `true` commands, run by `exe`.
fn round(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path, n: usize) -> Duration {
    let calls: Vec<(String, String)> = (0..n)
        .map(|i| {
            (
                call_id(&format!("true-{i}")),
                r#"{"command":"true"}"#.to_string(),
            )
        })
        .collect();
    let borrowed: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, a)| (id.as_str(), "shell", a.as_str()))
        .collect();
    fake.clear_requests();
    fake.push(Reply::tool_calls(&borrowed));
    fake.push(Reply::text("done"));
    let st = Command::new(exe)
        .args(["-q", "go"])
        .env("HERMES_HOME", home)
        .env("HOME", home)
        .env("TMPDIR", home)
        .env("BENCH_KEY", "test-key")
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(
        st.success(),
        "{} failed during the benchmark",
        exe.display()
    );
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2, "one round");
    reqs[1].first_byte.duration_since(reqs[0].first_byte)
}

/// One call's cost in ms: (round of 20 − round of 1) ÷ 19.
fn per_call(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path) -> f64 {
    let one = round(fake, exe, home, cwd, 1);
    let twenty = round(fake, exe, home, cwd, 20);
    (twenty.as_secs_f64() - one.as_secs_f64()) * 1e3 / 19.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let fake = FakeProvider::start();
    let (home, cwd) = home(&fake);
    let current = Path::new(env!("CARGO_BIN_EXE_hermes")).to_path_buf();
    let baseline = std::env::var_os("HERMES_BENCH_BASELINE").map(std::path::PathBuf::from);
    // Warm: the page cache, the namespace probe's first fork.
    per_call(&fake, &current, home.path(), cwd.path());
    if let Some(b) = &baseline {
        per_call(&fake, b, home.path(), cwd.path());
    }
    let (mut a, mut b, mut diff, mut ratio) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let x = per_call(&fake, &current, home.path(), cwd.path());
        a.push(x);
        if let Some(base) = &baseline {
            let y = per_call(&fake, base, home.path(), cwd.path());
            b.push(y);
            diff.push(x - y);
            ratio.push(x / y);
        }
    }
    println!("| measure ({runs} pairs, interleaved, release) | median | target |");
    println!("|---|---|---|");
    println!(
        "| one `shell` call (`true`), this build | {:.2} ms | |",
        median(a)
    );
    if baseline.is_some() {
        println!(
            "| one `shell` call (`true`), baseline | {:.2} ms | |",
            median(b)
        );
        println!(
            "| this build − baseline, per call (median of pairs) | {:+.2} ms | ≤ +5 ms |",
            median(diff)
        );
        println!(
            "| this build ÷ baseline (median of pairs) | {:.2} | |",
            median(ratio)
        );
    }
}
