//! The built-in `read_file` and `grep` over this repository, against `cat`
//! and `rg` (ripgrep: the same walker and searcher crates, as a program) as
//! the floor — each a whole run as the model sees it: hermes' tool path
//! (`agent::run_tool_call`: argument parsing, schema check, approval, the read or
//! the walk, the output cap) in process, the floors as processes started
//! from a shell. Interleaved, median of N.
//!
//! And `web_fetch` of a local page (about 60 KB of HTML, served over
//! loopback, allowed by `[network] allow`) against a plain GET of the same
//! page with a reqwest client made once: what the checks, the pinned
//! client and the conversion cost over the request itself.
//!
//! `cargo bench --bench builtin` prints a Markdown table for
//! docs/benchmarks.md; `rg` is taken from `PATH` or `.bench-tools/bin`
//! (`cargo install ripgrep --locked --root .bench-tools`), and its row is
//! left out when neither has it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hermes::config::BuiltinSettings;
use hermes::model::ToolCall;
use hermes::tools::Registry;
use tokio_util::sync::CancellationToken;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn runs() -> usize {
    std::env::var("HERMES_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(40)
}

fn rg() -> Option<PathBuf> {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join(".bench-tools/bin/rg");
    if local.exists() {
        return Some(local);
    }
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join("rg"))
        .find(|p| p.exists())
}

fn process(program: &Path, args: &[&str], dir: &Path) -> Duration {
    let t = Instant::now();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let d = t.elapsed();
    assert!(
        !out.stdout.is_empty(),
        "{} printed nothing",
        program.display()
    );
    d
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let page_port = serve_page();
    let settings = BuiltinSettings {
        names: vec!["read_file".into(), "grep".into(), "web_fetch".into()],
        network: hermes::config::NetworkSettings {
            allow: vec![format!("127.0.0.1:{page_port}").try_into().unwrap()],
            deny: Vec::new(),
        },
        ..Default::default()
    };
    let tools = Registry::with_builtins(&settings, repo, 64 * 1024).unwrap();
    let cancel = CancellationToken::new();
    // A large file of this repository (its largest when last measured).
    let file = "src/provider/http.rs";
    let lines = std::fs::read_to_string(repo.join(file))
        .unwrap()
        .lines()
        .count();
    let pattern = "fn [a-z_]+\\(";
    let call = |name: &str, args: serde_json::Value| ToolCall {
        id: "call_bench".into(),
        name: name.into(),
        arguments: args.to_string(),
    };
    let read = call("read_file", serde_json::json!({"path": file}));
    let grep = call("grep", serde_json::json!({"pattern": pattern}));
    let timed = |c: &ToolCall| {
        let t = Instant::now();
        let out = rt.block_on(hermes::agent::run_tool_call(&tools, c, &cancel));
        let d = t.elapsed();
        assert!(!out.is_error, "{}", out.content);
        d
    };
    let url = format!("http://127.0.0.1:{page_port}/guide.html");
    let fetch_md = call("web_fetch", serde_json::json!({ "url": url }));
    let fetch_raw = call(
        "web_fetch",
        serde_json::json!({"url": url, "format": "raw"}),
    );
    // The first fetch installs the TLS provider the plain client needs.
    timed(&fetch_raw);
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let plain = || {
        let t = Instant::now();
        let body = rt.block_on(async {
            let r = client.get(&url).send().await.unwrap();
            r.bytes().await.unwrap()
        });
        let d = t.elapsed();
        assert!(body.len() > 1000);
        d
    };
    let (mut f_md, mut f_raw, mut f_plain) = (vec![], vec![], vec![]);
    let cat = Path::new("/bin/cat");
    let rg = rg();
    let (mut r_hermes, mut r_cat, mut g_hermes, mut g_rg) = (vec![], vec![], vec![], vec![]);
    for _ in 0..runs() {
        r_hermes.push(timed(&read).as_secs_f64() * 1e3);
        r_cat.push(process(cat, &[file], repo).as_secs_f64() * 1e3);
        g_hermes.push(timed(&grep).as_secs_f64() * 1e3);
        if let Some(rg) = &rg {
            g_rg.push(process(rg, &["-n", pattern], repo).as_secs_f64() * 1e3);
        }
        f_md.push(timed(&fetch_md).as_secs_f64() * 1e3);
        f_plain.push(plain().as_secs_f64() * 1e3);
        f_raw.push(timed(&fetch_raw).as_secs_f64() * 1e3);
    }
    println!(
        "| measure ({} runs each, interleaved, release) | median | floor | ratio |",
        runs()
    );
    println!("|---|---|---|---|");
    let (h, c) = (median(r_hermes), median(r_cat));
    println!(
        "| `read_file` {file} ({lines} lines) vs `cat` | {h:.3} ms | {c:.3} ms | {:.2} |",
        h / c
    );
    let h = median(g_hermes);
    match rg {
        Some(_) => {
            let f = median(g_rg);
            println!(
                "| `grep` `{pattern}` over the repository vs `rg -n` | {h:.3} ms | {f:.3} ms | {:.2} |",
                h / f
            );
        }
        None => println!(
            "| `grep` `{pattern}` over the repository (no `rg` found for the floor) | {h:.3} ms | — | — |"
        ),
    }
    let p = median(f_plain);
    for (what, v) in [("`format: raw`", f_raw), ("as Markdown", f_md)] {
        let h = median(v);
        println!(
            "| `web_fetch` of a {} KB local page, {what}, vs a plain GET | {h:.3} ms | {p:.3} ms | {:.2} |",
            PAGE_BYTES / 1000,
            h / p
        );
    }
}

/// The page's size, about.
const PAGE_BYTES: usize = 60_000;

/// A documentation page's worth of HTML: headings, paragraphs with links,
/// lists, a table, code — served on 127.0.0.1 (one request a connection,
/// as a plain server does). Its port.
fn serve_page() -> u16 {
    let mut html = String::from(
        "<!doctype html><html><head><title>Guide</title><style>p{margin:0}</style></head><body>",
    );
    let mut i = 0;
    while html.len() < PAGE_BYTES {
        html.push_str(&format!(
            "<h2>Section {i}</h2><p>Configure the <a href=\"/ref/{i}\">option {i}</a> before \
             you start; see <code>hermes config show</code> for what is set.</p>\
             <ul><li>first point</li><li>second point</li></ul>\
             <table><tr><th>key</th><th>default</th></tr><tr><td>k{i}</td><td>{i}</td></tr></table>\
             <pre><code>[tools]\nbuiltin = []</code></pre>"
        ));
        i += 1;
    }
    html.push_str("</body></html>");
    // Its thread serves on after the handle goes.
    hermes_test_support::http_stub::HttpStub::start(move |_| {
        let kind = (
            "Content-Type".to_string(),
            "text/html; charset=utf-8".to_string(),
        );
        (200, vec![kind], html.clone())
    })
    .port
}
