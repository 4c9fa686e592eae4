//! `--continue` of a long session: 20 000 messages (about 18 MB), the whole
//! run `hermes --continue -q hi` against the fake provider (load, replay,
//! the request, the answer, the appends), wall time and peak RSS, runs
//! interleaved. The same conversation twice: as a hermes without
//! compaction wrote it, and as this one writes it at a 200 000-token window
//! (a compaction record each time the history reached 80% of it).
//!
//! `cargo bench --bench resume` (needs `/usr/bin/time`); `HERMES_BENCH_BASELINE=/path/to/hermes`
//! adds that binary on the file without compactions (the build before);
//! `HERMES_BENCH_RUNS` sets the run count.

use hermes_test_support::fake_provider;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use fake_provider::{FakeProvider, Reply};
use hermes::model::{Message, ToolCall, ToolResult};
use hermes::session::{Meta, Record, FORMAT_VERSION};

const MESSAGES: usize = 20_000;
/// Bytes of history at which this hermes compacts at a 200 000-token
/// window: 80% of it at about 3.5 bytes a token.
const COMPACT_BYTES: usize = 560_000;

/// One turn of four messages, about 3.6 KB: a request, a tool call, its
/// result, an answer.
fn turn(n: usize) -> Vec<Message> {
    let words = |seed: &str, len: usize| {
        let mut s = String::new();
        let mut i = 0;
        while s.len() < len {
            s.push_str(&format!(
                "{seed} {n}.{i} touches src/ledger/writer.rs line {} ",
                40 + i
            ));
            i += 1;
        }
        s
    };
    let id = format!("call_{n:0>24}");
    vec![
        Message::user(words("please look at item", 600)),
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: id.clone(),
                name: "read_file".into(),
                arguments: format!("{{\"path\":\"src/ledger/writer_{n}.rs\"}}"),
            }],
            native: None,
        },
        Message::Tool(ToolResult {
            tool_call_id: id,
            name: "read_file".into(),
            content: words("fn write_entry", 2_200),
            is_error: false,
            images: Vec::new(),
        }),
        Message::Assistant {
            content: words("The entry writer", 700),
            tool_calls: Vec::new(),
            native: None,
        },
    ]
}

/// A message as hermes records it (through its own record type, so the
/// file is byte for byte what hermes writes).
fn record(message: &Message) -> Record {
    let ts = TS.to_string();
    match message {
        Message::Tool(result) => Record::ToolResult {
            ts,
            result: result.clone(),
        },
        m => Record::Message {
            ts,
            message: m.clone(),
        },
    }
}

const TS: &str = "2026-12-01T08:00:00.000Z";

/// Writes the session under `home` for `cwd`; with `compactions`, a
/// compaction record (a summary and the newest turn) each time the history
/// since the last one passed [`COMPACT_BYTES`]. Returns the file's size.
fn write_session(home: &Path, cwd: &Path, compactions: bool) -> u64 {
    let id = "20261201-080000-a1b2c3";
    let dir = home.join("sessions/2026/12/01");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{id}.jsonl"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut line = |r: &Record| -> usize {
        let text = serde_json::to_string(r).unwrap();
        writeln!(f, "{text}").unwrap();
        text.len()
    };
    line(&Record::Meta(Meta {
        version: FORMAT_VERSION,
        id: id.into(),
        created: TS.into(),
        cwd: cwd.to_string_lossy().into_owned(),
        provider: "fake".into(),
        model: "m".into(),
        hermes_version: "0.1.0".into(),
        forked_from: None,
    }));
    let system = Message::System {
        content: "You are hermes, a coding agent.".into(),
    };
    line(&record(&system));
    let mut since = 0;
    let mut written = 1;
    let mut n = 0;
    while written < MESSAGES {
        let t = turn(n);
        for m in &t {
            since += line(&record(m));
        }
        written += t.len();
        if compactions && since > COMPACT_BYTES {
            let summary = Message::user(format!(
                "[hermes: the earlier part of this conversation was replaced by this summary.]\n\n{}",
                "The user and the model worked through the ledger writer, file by file. ".repeat(30)
            ));
            let mut messages = vec![system.clone(), summary];
            messages.extend(t.iter().cloned());
            line(&Record::Compaction {
                ts: TS.into(),
                reason: hermes::session::CompactionReason::Threshold,
                summarised: 600,
                stubbed: 0,
                messages,
            });
            since = 0;
        }
        n += 1;
    }
    f.flush().unwrap();
    std::fs::metadata(&path).unwrap().len()
}

struct Home {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
    binary: PathBuf,
    label: String,
    bytes: u64,
}

fn home(fake: &FakeProvider, binary: PathBuf, compactions: bool, label: &str) -> Home {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let cfg = format!(
        "provider = \"fake\"\nmodel = \"m\"\n[providers.fake]\nbase_url = \"{}\"\napi_key_env = \"BENCH_KEY\"\n",
        fake.base_url()
    );
    std::fs::write(home.path().join("config.toml"), cfg).unwrap();
    let cwd_path = cwd.path().canonicalize().unwrap();
    let bytes = write_session(home.path(), &cwd_path, compactions);
    Home {
        home,
        cwd,
        binary,
        label: label.into(),
        bytes,
    }
}

/// Wall time (ms) and peak RSS (KiB) of one `--continue` run. The peak is
/// measured by `/usr/bin/time`: a child spawned straight from this process
/// (which holds the fake's request bodies) would be charged this process's
/// own peak, which Linux carries over into a child's maximum at exec.
fn one(fake: &FakeProvider, h: &Home) -> (f64, i64) {
    fake.clear_requests();
    let rss_file = h.home.path().join("rss");
    let start = Instant::now();
    let status = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(&rss_file)
        .arg(&h.binary)
        .args(["--continue", "-q", "hi"])
        .current_dir(h.cwd.path())
        .env("HERMES_HOME", h.home.path())
        .env("BENCH_KEY", "test-key")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let wall = start.elapsed().as_secs_f64() * 1000.0;
    assert!(status.success(), "{} failed", h.label);
    let rss = std::fs::read_to_string(&rss_file).unwrap();
    (wall, rss.trim().parse().unwrap())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let fake = FakeProvider::start();
    fake.respond_with(|_| Reply::text("Hello from the benchmark."));
    let this = PathBuf::from(env!("CARGO_BIN_EXE_hermes"));
    let mut homes = vec![
        home(
            &fake,
            this.clone(),
            true,
            "this build, with compaction records",
        ),
        home(&fake, this, false, "this build, without compaction records"),
    ];
    if let Ok(base) = std::env::var("HERMES_BENCH_BASELINE") {
        homes.push(home(
            &fake,
            base.into(),
            false,
            "baseline build, without compaction records",
        ));
    }
    let mut wall: Vec<Vec<f64>> = homes.iter().map(|_| Vec::new()).collect();
    let mut rss: Vec<Vec<f64>> = homes.iter().map(|_| Vec::new()).collect();
    for h in &homes {
        one(&fake, h);
    }
    for _ in 0..runs {
        for (i, h) in homes.iter().enumerate() {
            let (w, r) = one(&fake, h);
            wall[i].push(w);
            rss[i].push(r as f64 / 1024.0);
        }
    }
    println!("| `--continue -q hi` of 20 000 messages ({runs} runs each, interleaved, release) | file | median wall | median peak RSS | RSS ÷ file |");
    println!("|---|---|---|---|---|");
    for (i, h) in homes.iter().enumerate() {
        let mib = h.bytes as f64 / (1024.0 * 1024.0);
        let r = median(rss[i].clone());
        println!(
            "| {} | {mib:.1} MiB | {:.0} ms | {r:.1} MiB | {:.2} |",
            h.label,
            median(wall[i].clone()),
            r / mib
        );
    }
}
