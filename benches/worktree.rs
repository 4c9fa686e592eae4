//! `--worktree` benchmark: what a worktree costs a run at start — process
//! start → first byte at the fake provider, in a repository of 2,000 files,
//! without a worktree, continuing an existing one, and making a new one
//! (`git worktree add` and its checkout) — and how long leaving takes to
//! say what changed (the diffstat through hermes' own index). Runs are
//! interleaved so drift on a shared machine hits every row alike. Prints a
//! Markdown table for docs/benchmarks.md.
//!
//! `cargo bench --bench worktree` (`HERMES_BENCH_RUNS` sets the run count).

use hermes_test_support::fake_provider::{FakeProvider, Reply};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn git(dir: &Path, home: &Path, args: &[&str]) {
    let st = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "git {args:?}");
}

/// One run of `hermes ARGS -q hi` in `repo`: start → first byte, and the
/// whole run.
fn one(fake: &FakeProvider, home: &Path, repo: &Path, args: &[&str]) -> (Duration, Duration) {
    fake.clear_requests();
    fake.push(Reply::text("Hello from the benchmark."));
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(args)
        .args(["-q", "hi"])
        .current_dir(repo)
        .env("HERMES_HOME", home)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("BENCH_KEY", "test-key")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let whole = start.elapsed();
    assert!(
        out.status.success(),
        "hermes failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (fake.requests()[0].first_byte.duration_since(start), whole)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let fake = FakeProvider::start();
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::write(
        h.join("config.toml"),
        format!(
            "provider = \"fake\"\nmodel = \"m\"\n[tools]\nbuiltin = []\n[providers.fake]\nbase_url = \"{}\"\napi_key_env = \"BENCH_KEY\"\n",
            fake.base_url()
        ),
    )
    .unwrap();
    std::fs::write(
        h.join(".gitconfig"),
        "[user]\n\tname = Bench\n\temail = bench@example.org\n",
    )
    .unwrap();
    let repo = tempfile::tempdir().unwrap();
    let r = repo.path();
    git(r, h, &["init", "-q"]);
    for d in 0..40 {
        let dir = r.join(format!("src/m{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..50 {
            std::fs::write(
                dir.join(format!("f{f}.rs")),
                format!("// {d} {f}\nfn f() {{}}\n"),
            )
            .unwrap();
        }
    }
    git(r, h, &["add", "-A"]);
    git(r, h, &["commit", "-qm", "two thousand files"]);
    // The worktree continued in every run, made once (and warmed).
    one(&fake, h, r, &["--worktree", "kept"]);
    one(&fake, h, r, &[]);
    let (mut plain, mut kept, mut made) = (Vec::new(), Vec::new(), Vec::new());
    let (mut kept_whole, mut plain_whole) = (Vec::new(), Vec::new());
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for i in 0..runs {
        let (fb, whole) = one(&fake, h, r, &[]);
        plain.push(ms(fb));
        plain_whole.push(ms(whole));
        let (fb, whole) = one(&fake, h, r, &["--worktree", "kept"]);
        kept.push(ms(fb));
        kept_whole.push(ms(whole));
        let name = format!("new-{i}");
        let (fb, _) = one(&fake, h, r, &["--worktree", &name]);
        made.push(ms(fb));
    }
    let base = median(plain.clone());
    println!("| measure ({runs} runs each, interleaved, release; a repository of 2,000 files) | median | ratio to no worktree |");
    println!("|---|---|---|");
    for (label, v) in [
        ("start → first byte, no worktree", plain),
        ("start → first byte, `--worktree` continuing one", kept),
        ("start → first byte, `--worktree` making one (`git worktree add`, 2,000 files checked out)", made),
    ] {
        let m = median(v);
        println!("| {label} | {m:.2} ms | {:.2} |", m / base);
    }
    let (pw, kw) = (median(plain_whole), median(kept_whole));
    println!("| whole one-shot run, no worktree | {pw:.2} ms | 1.00 |");
    println!(
        "| whole one-shot run, `--worktree` continuing one (leaving: the diffstat of 2,000 files) | {kw:.2} ms | {:.2} |",
        kw / pw
    );
}
