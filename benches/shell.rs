//! What a `shell` call costs, sandbox and all, timed at the fake provider
//! between the request that carried the calls' reply and the one that
//! carries their results — so the figure is the tool round itself, not
//! start-up:
//!
//! - one `true`: a round of 20 against a round of one, (20 − 1) ÷ 19; and
//!   a session's first, a round of one (the session's loopback made);
//! - a command writing 1 000 small files (each lands after review);
//! - `cargo build` of a small crate, sandboxed against `sandbox = "off"`;
//! - checkpoints (`hermes rewind`), this build against itself with
//!   `[checkpoints] keep = false`: one `edit_file` of a file in a folder of
//!   10 000, a command that appends to 1 000 files, and the bytes kept
//!   against the bytes changed.
//!
//! With `HERMES_BENCH_BASELINE` naming another hermes binary (a release
//! build of main, say), the first two are run A B A B … against it and
//! compared pair by pair: medians of the pairs' differences and ratios.
//!
//! Its folders (the project, hermes' home) are made in cargo's target
//! temp folder, where a project's own files would be, not in `/tmp`.
//! Creating files on ext4 right after many were deleted nearby is several
//! times slower for a while (measured here: the same 1 000-file loop 40 ms
//! in one folder, 700 ms in another where a test suite had just run) — so
//! nothing the benchmark times follows a mass deletion of its own.
//!
//! `cargo bench --bench shell` (`HERMES_BENCH_RUNS` changes the pair count;
//! `HERMES_BENCH_ONLY=files`, `calls`, `background`, `checkpoints`,
//! `rewind`, `proxy` or `builds` runs one measure). `background`: a round that
//! starts a background process against a round of one `true`. `proxy`: a
//! command making 30 GETs of a server on this machine through hermes'
//! proxy (`network = "allowed"`, the server named in `[network] allow`,
//! reached as `host.hermes.internal`) against the same GETs made directly
//! (`network = true`); the difference ÷ 30 is one connection's cost. `rewind`: a turn appending to 40 000 files, then
//! `hermes rewind` of it, against the turn's own time.

use hermes_test_support::fake_provider;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use fake_provider::{call_id, FakeProvider, Reply};

/// A home for `fake` offering `shell` and `edit_file`, everything allowed;
/// `extra` more of `[tools.shell]`, `tail` more sections.
fn home(fake: &FakeProvider, extra: &str, tail: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    std::fs::create_dir_all(home.path().join("tmp")).unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "provider = \"fake\"\nmodel = \"m\"\n[providers.fake]\nbase_url = \"{}\"\n\
             api_key_env = \"BENCH_KEY\"\n[tools]\nbuiltin = [\"shell\", \"edit_file\"]\n\
             [tools.shell]\ntimeout_ms = 300000\n{extra}\n[approvals]\nmode = \"auto\"\n{tail}\n",
            fake.base_url()
        ),
    )
    .unwrap();
    home
}

/// The tool round's time for `commands`, run by `exe`.
fn round(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path, commands: &[&str]) -> Duration {
    let calls: Vec<(&str, serde_json::Value)> = commands
        .iter()
        .map(|c| ("shell", serde_json::json!({ "command": c })))
        .collect();
    round_of(fake, exe, home, cwd, &calls)
}

/// The tool round's time for `calls` (tool, arguments), run by `exe`.
fn round_of(
    fake: &FakeProvider,
    exe: &Path,
    home: &Path,
    cwd: &Path,
    calls: &[(&str, serde_json::Value)],
) -> Duration {
    let calls: Vec<(String, &str, String)> = calls
        .iter()
        .enumerate()
        .map(|(i, (tool, args))| (call_id(&format!("bench-{i}")), *tool, args.to_string()))
        .collect();
    let borrowed: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, tool, a)| (id.as_str(), *tool, a.as_str()))
        .collect();
    fake.clear_requests();
    fake.push(Reply::tool_calls(&borrowed));
    fake.push(Reply::text("done"));
    let st = Command::new(exe)
        // `--yolo`: the run with `sandbox = "off"` asks for every command.
        .args(["--yolo", "-q", "go"])
        .env("HERMES_HOME", home)
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .env("BENCH_KEY", "test-key")
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env(
            "RUSTUP_HOME",
            std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| {
                Path::new(&std::env::var_os("HOME").unwrap_or_default())
                    .join(".rustup")
                    .into()
            }),
        )
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

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One `true` call's cost in ms: (round of 20 − round of 1) ÷ 19.
fn per_call(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path) -> f64 {
    let one = round(fake, exe, home, cwd, &["true"]);
    let twenty = round(fake, exe, home, cwd, &["true"; 20]);
    (ms(twenty) - ms(one)) / 19.0
}

/// A command writing 1 000 small files into a folder of its own.
fn thousand_files_command(folder: &str) -> String {
    format!(
        "mkdir -p {folder} && for i in $(seq 1000); do echo \"file $i\" > {folder}/f$i.txt; done"
    )
}

/// A round of one command writing 1 000 small files into a new folder,
/// in ms. The folders stay until the benchmark ends: deleting 1 000 files
/// just before makes ext4 slow to create the next thousand (it skips the
/// inodes it freed moments ago, reading their tables to find them), which
/// is not what the measure is about.
fn thousand_files(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path) -> f64 {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let folder = format!(
        "many-{}",
        RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let t = ms(round(
        fake,
        exe,
        home,
        cwd,
        &[&thousand_files_command(&folder)],
    ));
    let landed = std::fs::read_dir(cwd.join(&folder)).map_or(0, |d| d.count());
    assert_eq!(
        landed,
        1000,
        "{} did not land the files: {}",
        exe.display(),
        fake.requests()[1].body_str()
    );
    t
}

/// A crate with no dependencies and a few modules: what `cargo build`
/// compiles in about a second.
fn small_crate(cwd: &Path) {
    std::fs::create_dir_all(cwd.join("small/src")).unwrap();
    std::fs::write(
        cwd.join("small/Cargo.toml"),
        "[package]\nname = \"small\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    let mut lib = String::new();
    for m in 0..8 {
        lib.push_str(&format!(
            "pub mod m{m} {{ pub fn f(v: &[u64]) -> u64 {{ v.iter().map(|x| x * {m} + 1).sum() }} }}\n"
        ));
    }
    std::fs::write(cwd.join("small/src/lib.rs"), lib).unwrap();
}

/// `cargo build` of the small crate, with the toolchain this benchmark
/// runs under (a command's environment is scrubbed: rustup's folders are
/// named).
fn cargo_build_command() -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    let rustup = std::env::var("RUSTUP_HOME").unwrap_or(format!("{home}/.rustup"));
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or(format!("{home}/.cargo"));
    let cargo = Path::new(&cargo_home).join("bin/cargo");
    let cargo = if cargo.exists() {
        cargo.display().to_string()
    } else {
        "cargo".into()
    };
    format!("cd small && RUSTUP_HOME={rustup} CARGO_HOME=$PWD/.cargo-home {cargo} build --offline -q 2>&1")
}

/// A round of `cargo build` of the small crate from clean, in ms.
fn cargo_build(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path) -> f64 {
    let _ = std::fs::remove_dir_all(cwd.join("small/target"));
    let t = ms(round(fake, exe, home, cwd, &[&cargo_build_command()]));
    assert!(
        cwd.join("small/target/debug/libsmall.rlib").exists(),
        "the build did not land: {}",
        fake.requests()[1].body_str()
    );
    t
}

/// A folder of `n` small files, `f1.txt` … `fN.txt`.
fn folder_of(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 1..=n {
        std::fs::write(dir.join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
    }
}

/// One `edit_file` of `many/f5000.txt` (in a folder of 10 000), in ms:
/// each run changes what the one before wrote.
fn edit_one(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path) -> f64 {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = cwd.join("many/f5000.txt");
    let old = std::fs::read_to_string(&path).unwrap();
    let args = serde_json::json!({
        "path": "many/f5000.txt",
        "old_string": old.trim_end(),
        "new_string": format!("edit {n}"),
    });
    let t = ms(round_of(fake, exe, home, cwd, &[("edit_file", args)]));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!("edit {n}\n"),
        "the edit did not land: {}",
        fake.requests()[1].body_str()
    );
    t
}

/// A command appending a line to each of 1 000 files, in ms.
fn append_thousand(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path) -> f64 {
    let command = "for i in $(seq 1000); do echo more >> appended/f$i.txt; done";
    ms(round(fake, exe, home, cwd, &[command]))
}

/// A turn of one command appending to each of 40 000 files in a folder
/// of its own, then `hermes rewind 1 --yes` of it: (rewind, turn) in ms,
/// the rewind timed as a whole process (start-up in it), the turn as a
/// round.
fn rewind_big(fake: &FakeProvider, exe: &Path, home: &Path, cwd: &Path) -> (f64, f64) {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = cwd.join(format!("rewind-{n}"));
    folder_of(&dir, 40_000);
    let command = "for i in $(seq 40000); do echo more >> f$i.txt; done";
    let turn = ms(round(fake, exe, home, &dir, &[command]));
    let start = std::time::Instant::now();
    let st = Command::new(exe)
        .args(["rewind", "1", "--yes"])
        .env("HERMES_HOME", home)
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let rewind = ms(start.elapsed());
    assert!(st.success(), "the rewind failed");
    assert_eq!(
        std::fs::read_to_string(dir.join("f40000.txt")).unwrap(),
        "file 40000\n",
        "the rewind did not put the files back"
    );
    (rewind, turn)
}

/// The bytes of the files in `dir` (the blob folder).
fn bytes_in(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Medians of `a`, `b`, and of the pairs' differences and ratios.
struct Paired {
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Paired {
    fn new() -> Paired {
        Paired {
            a: Vec::new(),
            b: Vec::new(),
        }
    }

    fn push(&mut self, a: f64, b: f64) {
        self.a.push(a);
        self.b.push(b);
    }

    fn diff(&self) -> f64 {
        median(self.a.iter().zip(&self.b).map(|(a, b)| a - b).collect())
    }

    fn ratio(&self) -> f64 {
        median(self.a.iter().zip(&self.b).map(|(a, b)| a / b).collect())
    }
}

fn main() {
    let runs: usize = std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    let fake = FakeProvider::start();
    let home_on = home(&fake, "", "");
    let home_off = home(&fake, "sandbox = \"off\"", "");
    let home_unkept = home(&fake, "", "[checkpoints]\nkeep = false");
    let cwd = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    small_crate(cwd.path());
    let current = Path::new(env!("CARGO_BIN_EXE_hermes")).to_path_buf();
    let baseline = std::env::var_os("HERMES_BENCH_BASELINE").map(std::path::PathBuf::from);
    let base = baseline.as_deref().unwrap_or(&current);
    let (h, c) = (home_on.path(), cwd.path());
    // Warm: the page cache, the namespace probe's first fork.
    per_call(&fake, &current, h, c);
    per_call(&fake, base, h, c);
    // Each measure's pairs run together, the builds last: a build's
    // `target` folder, removed before the next, frees hundreds of inodes
    // that ext4 then skips over, slowly, when the next files are made.
    let (mut call, mut files, mut build) = (Paired::new(), Paired::new(), Paired::new());
    let mut in_memory = Paired::new();
    let only = std::env::var("HERMES_BENCH_ONLY").ok();
    let runs_of = |m: &str| {
        if only.as_deref().is_none_or(|o| o == m) {
            runs
        } else {
            0
        }
    };
    for _ in 0..runs_of("files") {
        files.push(
            thousand_files(&fake, &current, h, c),
            thousand_files(&fake, base, h, c),
        );
    }
    // The same in a project on tmpfs (where there is one), sandboxed
    // against `sandbox = "off"` of this build: no block allocator to wait
    // on, so what is left is the whole sandbox's own cost — namespaces,
    // overlays, review and landing. (Builds before 2026-12-05 cannot run
    // a command in a project under `/dev/shm`.)
    let shm = tempfile::tempdir_in("/dev/shm").ok();
    for _ in 0..shm.as_ref().map_or(0, |_| runs_of("files")) {
        let s = shm.as_ref().map(|d| d.path()).unwrap_or(c);
        in_memory.push(
            thousand_files(&fake, &current, h, s),
            thousand_files(&fake, &current, home_off.path(), s),
        );
    }
    // A session's first command, a round of one: with this build it also
    // starts the session's loopback (the keeper).
    let mut first = Paired::new();
    for _ in 0..runs_of("calls") {
        call.push(per_call(&fake, &current, h, c), per_call(&fake, base, h, c));
        first.push(
            ms(round(&fake, &current, h, c, &["true"])),
            ms(round(&fake, base, h, c, &["true"])),
        );
    }
    // The same call, sandboxed against `sandbox = "off"` of this build: the
    // whole sandbox's cost per command.
    let mut call_off = Paired::new();
    for _ in 0..runs_of("calls") {
        call_off.push(
            per_call(&fake, &current, h, c),
            per_call(&fake, &current, home_off.path(), c),
        );
    }
    // A background process started (its round: the call answered at once
    // with its id) against one foreground `true` of this build.
    let mut background = Paired::new();
    for _ in 0..runs_of("background") {
        let start = [(
            "shell",
            serde_json::json!({"command": "exec sleep 60", "background": true}),
        )];
        background.push(
            ms(round_of(&fake, &current, h, c, &start)),
            ms(round(&fake, &current, h, c, &["true"])),
        );
    }
    // 30 GETs through the proxy against 30 direct ones.
    let mut proxied = Paired::new();
    if runs_of("proxy") > 0 {
        let port = serve_small();
        let allowed = home(
            &fake,
            "network = \"allowed\"",
            &format!("[network]\nallow = [\"127.0.0.1:{port}\"]"),
        );
        let direct = home(&fake, "network = true", "");
        let proxied_cmd = gets(&format!("http://host.hermes.internal:{port}/"));
        let direct_cmd = gets(&format!("http://127.0.0.1:{port}/"));
        round(&fake, &current, allowed.path(), c, &[&proxied_cmd]);
        for _ in 0..runs {
            proxied.push(
                ms(round(&fake, &current, allowed.path(), c, &[&proxied_cmd])) / GETS as f64,
                ms(round(&fake, &current, direct.path(), c, &[&direct_cmd])) / GETS as f64,
            );
        }
    }
    // A rewind of a 40 000-file turn against the turn's own time (fewer
    // pairs: each makes 40 000 files), before the builds free inodes.
    let mut rewind = Paired::new();
    for _ in 0..runs_of("rewind").min(5) {
        let (r, t) = rewind_big(&fake, &current, h, c);
        eprintln!("rewind {r:.0} ms, its turn {t:.0} ms");
        rewind.push(r, t);
    }
    // Warm: the toolchain.
    if runs_of("builds") > 0 {
        cargo_build(&fake, &current, home_off.path(), c);
    }
    for _ in 0..runs_of("builds") {
        build.push(
            cargo_build(&fake, &current, h, c),
            cargo_build(&fake, &current, home_off.path(), c),
        );
    }
    // Checkpoints, this build against itself without them.
    let (mut edit, mut append) = (Paired::new(), Paired::new());
    let mut kept_ratio = Vec::new();
    if runs_of("checkpoints") > 0 {
        folder_of(&c.join("many"), 10_000);
        folder_of(&c.join("appended"), 1_000);
        let unkept = home_unkept.path();
        let blobs = h.join("sessions/blobs");
        for _ in 0..runs {
            edit.push(
                edit_one(&fake, &current, h, c),
                edit_one(&fake, &current, unkept, c),
            );
        }
        for _ in 0..runs {
            let (kept_before, sizes_before) = (bytes_in(&blobs), bytes_in(&c.join("appended")));
            let on = append_thousand(&fake, &current, h, c);
            let changed = bytes_in(&c.join("appended")) - sizes_before;
            let kept = bytes_in(&blobs) - kept_before;
            // Bytes kept for each byte the command wrote, its appends.
            kept_ratio.push(kept as f64 / (sizes_before + changed) as f64);
            append.push(on, append_thousand(&fake, &current, unkept, c));
        }
    }
    let against = if baseline.is_some() {
        "baseline"
    } else {
        "this build again"
    };
    println!("| measure ({runs} pairs, interleaved, release) | this build | {against} | pairs: difference, ratio | target |");
    println!("|---|---|---|---|---|");
    if !call.a.is_empty() {
        println!(
            "| one `shell` call (`true`) | {:.2} ms | {:.2} ms | {:+.2} ms, {:.2}× | ≤ +5 ms |",
            median(call.a.clone()),
            median(call.b.clone()),
            call.diff(),
            call.ratio()
        );
    }
    if !first.a.is_empty() {
        println!(
            "| a session's first `shell` call, a round of one (this build starts the session's loopback) | {:.2} ms | {:.2} ms | {:+.2} ms, {:.2}× | |",
            median(first.a.clone()),
            median(first.b.clone()),
            first.diff(),
            first.ratio()
        );
    }
    if !call_off.a.is_empty() {
        println!(
            "| one `shell` call, sandboxed vs `sandbox = \"off\"` (this build) | {:.2} ms | {:.2} ms | {:+.2} ms, {:.2}× | ≤ +5 ms |",
            median(call_off.a.clone()),
            median(call_off.b.clone()),
            call_off.diff(),
            call_off.ratio()
        );
    }
    if !background.a.is_empty() {
        println!(
            "| a round starting a background process (`background: true`, no wait), against a round of one foreground `true` (this build) | {:.2} ms | {:.2} ms | {:+.2} ms, {:.2}× | ≤ 20 ms |",
            median(background.a.clone()),
            median(background.b.clone()),
            background.diff(),
            background.ratio()
        );
    }
    if !proxied.a.is_empty() {
        println!(
            "| a command's connection (an HTTP GET of this machine's server, one of {GETS} in one command), through hermes' proxy vs direct (`network = true`) | {:.2} ms | {:.2} ms | {:+.2} ms, {:.2}× | |",
            median(proxied.a.clone()),
            median(proxied.b.clone()),
            proxied.diff(),
            proxied.ratio()
        );
    }
    if !files.a.is_empty() {
        println!(
        "| a command writing 1 000 small files | {:.1} ms | {:.1} ms | {:+.1} ms, {:.2}× | ≤ 1.5× |",
        median(files.a.clone()),
        median(files.b.clone()),
        files.diff(),
        files.ratio()
    );
    }
    if !in_memory.a.is_empty() {
        println!(
            "| the same on tmpfs, sandboxed vs `sandbox = \"off\"` (this build) | {:.1} ms | {:.1} ms | {:+.1} ms, {:.2}× | |",
            median(in_memory.a.clone()),
            median(in_memory.b.clone()),
            in_memory.diff(),
            in_memory.ratio()
        );
    }
    if !edit.a.is_empty() {
        println!(
            "| checkpoint: one `edit_file` in a folder of 10 000 files, kept vs `keep = false` (this build) | {:.2} ms | {:.2} ms | {:+.2} ms, {:.2}× | ≤ +2 ms |",
            median(edit.a.clone()),
            median(edit.b.clone()),
            edit.diff(),
            edit.ratio()
        );
        println!(
            "| checkpoint: a command appending to 1 000 files, kept vs `keep = false` (this build) | {:.1} ms | {:.1} ms | {:+.1} ms, {:.2}× | ≤ 1.2× |",
            median(append.a.clone()),
            median(append.b.clone()),
            append.diff(),
            append.ratio()
        );
        println!(
            "| checkpoint bytes kept per byte of the files the command changed | {:.2} | | | ≤ 2 |",
            median(kept_ratio.clone())
        );
    }
    if !rewind.a.is_empty() {
        println!(
            "| `hermes rewind` of a turn that appended to 40 000 files, against the turn ({} pairs) | {:.0} ms | {:.0} ms | {:+.0} ms, {:.2}× | ≤ 2× |",
            rewind.a.len(),
            median(rewind.a.clone()),
            median(rewind.b.clone()),
            rewind.diff(),
            rewind.ratio()
        );
    }
    if !build.a.is_empty() {
        println!(
        "| `cargo build` of a small crate, sandboxed vs `sandbox = \"off\"` (this build) | {:.0} ms | {:.0} ms | {:+.0} ms, {:.2}× | ≤ 1.2× |",
        median(build.a.clone()),
        median(build.b.clone()),
        build.diff(),
        build.ratio()
    );
    }
}

/// GETs a command makes in the proxy measure.
const GETS: usize = 30;

/// A python3 command making [`GETS`] GETs of `url`, each a connection of
/// its own, through whatever proxy its environment names.
fn gets(url: &str) -> String {
    format!(
        "python3 -c \"
import urllib.request
for _ in range({GETS}):
    assert urllib.request.urlopen('{url}', timeout=5).read()
\""
    )
}

/// A server on this machine's 127.0.0.1 answering every request with a
/// short page, a connection each (kept running for the whole bench).
fn serve_small() -> u16 {
    // Its thread serves on after the handle goes.
    hermes_test_support::http_stub::HttpStub::start(|_| (200, vec![], "hello".into())).port
}
