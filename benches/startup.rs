//! Start-up benchmark: process start → first byte at the provider, and peak RSS of
//! a one-shot turn, for the release binary against the fake provider over real
//! HTTP; with local servers, and with a remote one (which nothing may connect
//! to before a call); and the peak RSS of a one-shot batch task (one 3-entry
//! `tool_call` to the MCP test server, then the answer). Prints a Markdown
//! table for docs/benchmarks.md.
//!
//! `cargo bench --bench startup` (set `HERMES_BENCH_RUNS` to change the run count).
//! With `HERMES_BENCH_BASELINE` naming another hermes binary (a release build
//! of main, say), the batch task is run A B A B … with both, and their sizes
//! and peak RSS compared, and start-up on the no-servers home is run
//! A B, B A … with both (the ratio of their medians).

use hermes_test_support::{everything, fake_provider};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fake_provider::{call_id, FakeProvider, Reply};

struct Sample {
    first_byte: Duration,
    peak_rss_kib: i64,
}

/// A home whose config points at `fake`, with `servers` MCP test servers;
/// `cached`: their catalogs are filled first (`hermes mcp test`).
fn home(fake: &FakeProvider, servers: usize, cached: bool) -> tempfile::TempDir {
    home_for(
        servers,
        cached,
        &format!("base_url = \"{}\"", fake.base_url()),
    )
}

/// A home for one of the native providers, no MCP servers.
fn native_home(fake: &FakeProvider, kind: &str) -> tempfile::TempDir {
    let (base, extra) = match kind {
        "bedrock" => (fake.root_url(), "region = \"us-east-1\""),
        "gemini" => (format!("{}/v1beta", fake.root_url()), ""),
        "openai-responses" => (fake.base_url(), ""),
        _ => (fake.root_url(), ""),
    };
    home_for(
        0,
        false,
        &format!("kind = \"{kind}\"\nbase_url = \"{base}\"\n{extra}"),
    )
}

/// The remote row's twin: server-everything over stdio, catalog cached —
/// the same 13 tools offered, so the two rows differ only in transport.
fn stdio_everything_home(fake: &FakeProvider) -> tempfile::TempDir {
    let home = home(fake, 0, false);
    add_server(
        home.path(),
        &format!("command = {:?}", everything::binary()),
    );
    mcp_test(home.path(), "r");
    home
}

/// Appends server `r` with `body` to the home's config.
fn add_server(home: &std::path::Path, body: &str) {
    let cfg = home.join("config.toml");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str(&format!("[mcp_servers.r]\n{body}\n"));
    std::fs::write(&cfg, text).unwrap();
}

/// `hermes mcp test NAME` in `home`: the server's catalog cached.
fn mcp_test(home: &std::path::Path, name: &str) {
    let st = Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(["mcp", "test", name])
        .env("HERMES_HOME", home)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "hermes mcp test {name} failed");
}

/// A home with one remote server (streamable HTTP on 127.0.0.1) whose
/// catalog is cached: server-everything answers `hermes mcp test` once, then
/// gives its port to a listener that only counts who connects, and when.
fn remote_home(fake: &FakeProvider) -> (tempfile::TempDir, Arrivals) {
    let port = everything::free_port();
    let home = home(fake, 0, false);
    add_server(
        home.path(),
        &format!("url = \"http://127.0.0.1:{port}/mcp\""),
    );
    let server = everything::Everything::on(port, "streamableHttp");
    mcp_test(home.path(), "r");
    drop(server);
    let listener = loop {
        match std::net::TcpListener::bind(("127.0.0.1", port)) {
            Ok(l) => break l,
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let arrivals = Arrivals::default();
    let seen = arrivals.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            seen.lock().unwrap().push(Instant::now());
            drop(conn);
        }
    });
    (home, arrivals)
}

/// When connections reached a listener.
type Arrivals = std::sync::Arc<std::sync::Mutex<Vec<Instant>>>;

fn home_for(servers: usize, cached: bool, provider: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let mut cfg = format!(
        "provider = \"fake\"\nmodel = \"m\"\n[providers.fake]\n{provider}\napi_key_env = \"BENCH_KEY\"\n"
    );
    for i in 0..servers {
        cfg.push_str(&format!(
            "[mcp_servers.s{i}]\ncommand = {:?}\n",
            env!("CARGO_BIN_EXE_hermes-test-mcp-server")
        ));
    }
    std::fs::write(home.path().join("config.toml"), cfg).unwrap();
    if cached {
        for i in 0..servers {
            mcp_test(home.path(), &format!("s{i}"));
        }
    }
    home
}

/// Runs interleaved (A, B, C, A, B, C …) so drift on a shared machine hits
/// every configuration alike.
fn measure(fake: &FakeProvider, homes: &[&std::path::Path], runs: usize) -> Vec<Vec<Sample>> {
    let mut out: Vec<Vec<Sample>> = homes.iter().map(|_| Vec::new()).collect();
    for h in homes {
        fake.push(Reply::text("warm"));
        one(fake, h);
    }
    for _ in 0..runs {
        for (i, h) in homes.iter().enumerate() {
            fake.push(Reply::text("Hello from the benchmark."));
            out[i].push(one(fake, h));
        }
    }
    out
}

fn sorted(v: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = v.collect();
    v.sort_by(f64::total_cmp);
    v
}

fn main() {
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let fake = FakeProvider::start();
    let none = home(&fake, 0, false);
    let cached = home(&fake, 5, true);
    let cold = home(&fake, 5, false);
    let anthropic = native_home(&fake, "anthropic");
    let bedrock = native_home(&fake, "bedrock");
    let (remote, arrivals) = remote_home(&fake);
    let twin = stdio_everything_home(&fake);
    let gemini = native_home(&fake, "gemini");
    let responses = native_home(&fake, "openai-responses");
    let all = measure(
        &fake,
        &[
            none.path(),
            cached.path(),
            cold.path(),
            anthropic.path(),
            bedrock.path(),
            remote.path(),
            twin.path(),
            gemini.path(),
            responses.path(),
        ],
        runs,
    );
    let first_byte = |s: &[Sample]| sorted(s.iter().map(|s| s.first_byte.as_secs_f64() * 1e3));
    let base = pct(&first_byte(&all[0]), 0.5);
    println!("| measure ({runs} runs each, interleaved, release) | median | p10 | p90 | ratio to no servers | target |");
    println!("|---|---|---|---|---|---|");
    let labels = [
        "start → first byte, no MCP servers",
        "start → first byte, 5 servers, catalogs cached",
        "start → first byte, 5 servers, no catalogs (filled in the background)",
        "start → first byte, anthropic (Messages), no MCP servers",
        "start → first byte, bedrock (ConverseStream, SigV4), no MCP servers",
        "start → first byte, 1 remote server (streamable HTTP), catalog cached",
        "start → first byte, the same server over stdio, catalog cached",
        "start → first byte, gemini (streamGenerateContent), no MCP servers",
        "start → first byte, openai-responses (Responses), no MCP servers",
    ];
    for (i, label) in labels.iter().enumerate() {
        let fb = first_byte(&all[i]);
        let target = match i {
            1 | 2 => "ratio ≤ 1.05",
            5 | 6 => "5 ÷ 6 ≤ 1.05",
            7 | 8 => "ratio ≤ 1.05 (to Chat Completions)",
            _ => "≤ 15 ms",
        };
        println!(
            "| {label} | {:.2} ms | {:.2} ms | {:.2} ms | {:.3} | {target} |",
            pct(&fb, 0.5),
            pct(&fb, 0.1),
            pct(&fb, 0.9),
            pct(&fb, 0.5) / base
        );
    }
    let remote_fb = pct(&first_byte(&all[5]), 0.5);
    let twin_fb = pct(&first_byte(&all[6]), 0.5);
    println!(
        "| remote ÷ stdio, same catalog | {:.3} | | | | ≤ 1.05 (start-up unchanged) |",
        remote_fb / twin_fb
    );
    println!(
        "| connections to the remote server in {} one-shot runs | {} | | | | 0: nothing connects before a call |",
        runs + 1,
        arrivals.lock().unwrap().len()
    );
    for (i, who) in [
        (0, "openai"),
        (3, "anthropic"),
        (4, "bedrock"),
        (7, "gemini"),
        (8, "openai-responses"),
    ] {
        let rss = sorted(all[i].iter().map(|s| s.peak_rss_kib as f64 / 1024.0));
        println!(
            "| peak RSS of a one-shot turn, {who}, no MCP servers | {:.1} MiB | {:.1} MiB | {:.1} MiB | | ≤ 15 MB |",
            pct(&rss, 0.5),
            pct(&rss, 0.1),
            pct(&rss, 0.9)
        );
    }
    let current = std::path::PathBuf::from(env!("CARGO_BIN_EXE_hermes"));
    let baseline = std::env::var_os("HERMES_BENCH_BASELINE").map(std::path::PathBuf::from);
    let bins: Vec<std::path::PathBuf> = std::iter::once(current).chain(baseline).collect();
    let rss = batch_rss(&fake, runs.min(15), &bins);
    println!(
        "| peak RSS of a one-shot batch task (one 3-entry tool_call to the test server, then the answer) | {:.1} MiB | {:.1} MiB | {:.1} MiB | | ≤ 15 MB |",
        pct(&rss[0], 0.5),
        pct(&rss[0], 0.1),
        pct(&rss[0], 0.9)
    );
    if let [current, baseline] = &bins[..] {
        // Start-up against the baseline: both copied the same way into
        // one folder first — the linker's own output starts measurably
        // slower than a copy of the same bytes (about 0.5 ms here), which
        // would be blamed on the code.
        let copies = tempfile::tempdir().unwrap();
        let copy = |from: &std::path::Path, name: &str| {
            let to = copies.path().join(name);
            std::fs::copy(from, &to).unwrap();
            to
        };
        let (current, baseline) = (&copy(current, "current"), &copy(baseline, "baseline"));
        // The order turns each pair (A B, then B A): whichever runs first
        // after the other is measurably slower on this harness.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..runs {
            let mut pair = [(current, &mut a), (baseline, &mut b)];
            if i % 2 == 1 {
                pair.reverse();
            }
            for (bin, out) in pair {
                fake.push(Reply::text("Hello from the benchmark."));
                out.push(one_of(bin, &fake, none.path()).first_byte.as_secs_f64() * 1e3);
            }
        }
        // Each pair ran back to back: the median of their ratios holds
        // when the machine's speed drifts over the runs.
        let pairs = sorted(a.iter().zip(&b).map(|(x, y)| x / y));
        let (a, b) = (sorted(a.into_iter()), sorted(b.into_iter()));
        println!(
            "| start → first byte, no MCP servers, this binary ({runs} runs, A B B A …) | {:.2} ms | {:.2} ms | {:.2} ms | | |",
            pct(&a, 0.5),
            pct(&a, 0.1),
            pct(&a, 0.9)
        );
        println!(
            "| the same, baseline binary | {:.2} ms | {:.2} ms | {:.2} ms | {:.3} (this ÷ baseline, medians) | |",
            pct(&b, 0.5),
            pct(&b, 0.1),
            pct(&b, 0.9),
            pct(&a, 0.5) / pct(&b, 0.5)
        );
        println!(
            "| this ÷ baseline, pair by pair | {:.3} | {:.3} | {:.3} | | ≤ 1.02 |",
            pct(&pairs, 0.5),
            pct(&pairs, 0.1),
            pct(&pairs, 0.9)
        );
    }
    if let [cur, base] = &rss[..] {
        let size =
            |b: &std::path::Path| std::fs::metadata(b).map_or(0, |m| m.len()) as f64 / 1048576.0;
        println!(
            "| the same batch task, baseline binary | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.3} (this ÷ baseline, medians) | |",
            pct(base, 0.5),
            pct(base, 0.1),
            pct(base, 0.9),
            pct(cur, 0.5) / pct(base, 0.5)
        );
        println!(
            "| release binary size, this ÷ baseline | {:.2} MiB | {:.2} MiB (baseline) | | {:.3} | |",
            size(&bins[0]),
            size(&bins[1]),
            size(&bins[0]) / size(&bins[1])
        );
    }
}

/// Peak RSS (MiB, sorted) of `hermes -q` whose model sends one batch of
/// three entries to the MCP test server (two echoes and a 50 ms sleep, run
/// in parallel; tools deferred, catalog cached), then answers.
fn batch_rss(fake: &FakeProvider, runs: usize, bins: &[std::path::PathBuf]) -> Vec<Vec<f64>> {
    let home = home(fake, 1, false);
    let cfg = home.path().join("config.toml");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str(
        "concurrency = \"parallel\"\n[tools]\ndefer = \"always\"\n[approvals]\nmode = \"auto\"\n",
    );
    std::fs::write(&cfg, text).unwrap();
    mcp_test(home.path(), "s0");
    let batch = r#"{"calls":[{"name":"mcp__s0__echo","arguments":{"text":"a"}},{"name":"mcp__s0__echo","arguments":{"text":"b"}},{"name":"mcp__s0__slow","arguments":{"ms":50,"label":"c"}}]}"#;
    let mut rss = vec![Vec::new(); bins.len()];
    for i in 0..=runs {
        for (b, bin) in bins.iter().enumerate() {
            fake.push(Reply::tool_calls(&[(
                &call_id("batch"),
                "tool_call",
                batch,
            )]));
            fake.push(Reply::text("Both echoed, and it slept."));
            let s = one_of(bin, fake, home.path());
            assert_eq!(fake.requests().len(), 2, "the batch took one round trip");
            // The first run warms the page cache.
            if i > 0 {
                rss[b].push(s.peak_rss_kib as f64 / 1024.0);
            }
        }
    }
    for r in &mut rss {
        r.sort_by(f64::total_cmp);
    }
    rss
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn one(fake: &FakeProvider, home: &std::path::Path) -> Sample {
    one_of(
        std::path::Path::new(env!("CARGO_BIN_EXE_hermes")),
        fake,
        home,
    )
}

fn one_of(bin: &std::path::Path, fake: &FakeProvider, home: &std::path::Path) -> Sample {
    fake.clear_requests();
    let start = Instant::now();
    // Reaped by wait4 below, which also reports the peak RSS.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(bin)
        .args(["-q", "hi"])
        .env("HERMES_HOME", home)
        .env("BENCH_KEY", "test-key")
        .env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
        .env(
            "AWS_SECRET_ACCESS_KEY",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        )
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
