//! `web_fetch` (issue 68): a page fetched by hermes under the one
//! `[network]` policy — as Markdown, refused where it would reach this
//! machine or its networks, a redirect to a host not allowed not followed,
//! a URL that may carry a key held under `--yolo`, a large body bounded, a
//! second fetch answered by a 304, the question per domain — driven
//! through the real binary against local web servers.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::calls::reply_calls;
use crate::support::http_stub::HttpStub;
use crate::support::tmux::Tmux;
use crate::support::{Reply, TestEnv};

const PAGE: &str = r#"<!doctype html><html><head><title>Notes</title>
<style>body { color: red }</style><script>document.title = "tracked"</script></head>
<body><h1>Release notes</h1><p>See <a href="https://example.com/changes">the changes</a>.</p>
<table><tr><th>Version</th><th>Date</th></tr><tr><td>2.1</td><td>2026-11-30</td></tr></table>
</body></html>"#;

/// A home offering `web_fetch` alone, with `extra` config lines.
fn env_with(extra: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write_config(&format!("{extra}\n[tools]\nbuiltin = [\"web_fetch\"]\n"));
    env
}

/// Runs one reply of `web_fetch` calls (one per URL args), then "done";
/// the run, and each result's text and whether the model was told it
/// failed (results over Chat Completions carry no flag: read the text).
fn fetch_all(env: &TestEnv, args: &[Value], flags: &[&str]) -> (crate::support::Run, Vec<String>) {
    let labels: Vec<String> = (0..args.len()).map(|i| format!("f{i}")).collect();
    let calls: Vec<(&str, &str, Value)> = labels
        .iter()
        .zip(args)
        .map(|(l, a)| (l.as_str(), "web_fetch", a.clone()))
        .collect();
    env.fake.push(reply_calls(&calls));
    env.fake.push(Reply::text("done"));
    let mut all = vec!["--json"];
    all.extend_from_slice(flags);
    all.extend_from_slice(&["-q", "go"]);
    let run = env.run(&all);
    let n = env.fake.requests().len();
    let texts = env
        .results_of(n - 1)
        .into_iter()
        .map(|(_, t, _)| t)
        .collect();
    (run, texts)
}

/// A home offering `web_fetch`, this machine's `port` named in `[network] allow`.
fn allowing(port: u16) -> TestEnv {
    env_with(&format!("[network]\nallow = [\"127.0.0.1:{port}\"]\n"))
}

fn html(body: &str) -> (u16, Vec<(String, String)>, String) {
    (
        200,
        vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
        body.to_string(),
    )
}

#[test]
fn a_page_becomes_markdown_in_plan_mode_too_and_is_told_in_json() {
    let site = HttpStub::start(|_| html(PAGE));
    let env = allowing(site.port);
    let (run, texts) = fetch_all(
        &env,
        &[json!({"url": site.url("/notes")})],
        &["--mode", "plan"],
    );
    let page = &texts[0];
    crate::assert_contains!(page, "200 text/html");
    crate::assert_contains!(page, "# Release notes");
    crate::assert_contains!(page, "[the changes](https://example.com/changes)");
    crate::assert_contains!(page, "| 2.1 ");
    for gone in ["tracked", "color: red", "<h1>", "<table>"] {
        assert!(!page.contains(gone), "{gone} in {page}");
    }
    // `text` drops the marks; `raw` is the page as sent.
    let (_, texts) = fetch_all(
        &env,
        &[
            json!({"url": site.url("/notes"), "format": "text"}),
            json!({"url": site.url("/notes"), "format": "raw"}),
        ],
        &[],
    );
    crate::assert_contains!(texts[0], "See the changes.");
    assert!(
        !texts[0].contains("https://example.com/changes"),
        "{}",
        texts[0]
    );
    crate::assert_contains!(texts[1], "<h1>Release notes</h1>");
    let events = run.events();
    let fetched: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "web_fetched")
        .collect();
    assert_eq!(fetched.len(), 1, "{events:?}");
    assert_eq!(fetched[0]["domain"], "127.0.0.1");
    assert_eq!(fetched[0]["status"], 200);
    assert_eq!(fetched[0]["bytes"], PAGE.len());
    let summary = events.last().unwrap();
    assert_eq!(summary["web"]["domains"], json!(["127.0.0.1"]));
    assert_eq!(summary["web"]["bytes"], PAGE.len());
    assert_eq!(summary["calls"]["ok"], 1);
}

#[test]
fn this_machine_is_refused_with_nothing_sent_unless_allowed_even_under_yolo() {
    let site = HttpStub::start(|_| html(PAGE));
    // Allowed: a port of the host, not the host.
    let env = env_with("[network]\nallow = [\"127.0.0.1:1\"]\n");
    let urls = [
        site.url("/"),
        format!("http://localhost:{}/", site.port),
        format!("http://[::ffff:127.0.0.1]:{}/", site.port),
    ];
    let args: Vec<Value> = urls.iter().map(|u| json!({ "url": u })).collect();
    let (run, texts) = fetch_all(&env, &args, &["--yolo"]);
    for (u, t) in urls.iter().zip(&texts) {
        crate::assert_contains!(t, "loopback: not fetched, nothing was sent");
        crate::assert_contains!(t, "in [network] allow to reach it");
        assert_eq!(t.lines().count(), 1, "{u}: {t}");
    }
    assert!(site.seen().is_empty(), "{:?}", site.seen());
    assert_eq!(run.events().last().unwrap()["calls"]["error"], 3);
}

#[test]
fn a_redirect_is_followed_on_its_host_and_to_an_allowed_one_but_not_elsewhere() {
    let other = HttpStub::start(|_| html("<p>the other host</p>"));
    let other_port = other.port;
    let site = HttpStub::start(move |r| match r.path.as_str() {
        "/old" => (301, vec![("Location".into(), "/new".into())], String::new()),
        "/away" => (
            302,
            vec![(
                "Location".into(),
                format!("http://localhost:{other_port}/secret"),
            )],
            String::new(),
        ),
        "/loop" => (
            302,
            vec![("Location".into(), "/loop".into())],
            String::new(),
        ),
        _ => html("<p>the new page</p>"),
    });
    let env = allowing(site.port);
    let (_, texts) = fetch_all(
        &env,
        &[
            json!({"url": site.url("/old")}),
            json!({"url": site.url("/away")}),
            json!({"url": site.url("/loop")}),
        ],
        &[],
    );
    crate::assert_contains!(texts[0], &format!("{} — 200", site.url("/new")));
    crate::assert_contains!(texts[0], "the new page");
    crate::assert_contains!(
        texts[1],
        &format!("redirects (302) to http://localhost:{other_port}/secret")
    );
    crate::assert_contains!(texts[1], "not followed");
    crate::assert_contains!(texts[2], "redirects more than 5 times; not followed");
    assert!(other.seen().is_empty(), "{:?}", other.seen());
    // Named in allow, the other host is followed to.
    env.write_config(&format!(
        "[network]\nallow = [\"127.0.0.1:{}\", \"localhost:{other_port}\"]\n\
         [tools]\nbuiltin = [\"web_fetch\"]\n",
        site.port
    ));
    let (_, texts) = fetch_all(&env, &[json!({"url": site.url("/away")})], &[]);
    crate::assert_contains!(texts[0], "the other host");
    assert_eq!(other.seen()[0].path, "/secret");
}

#[test]
fn a_url_that_may_carry_a_key_is_held_on_an_allowed_host_under_yolo() {
    let site = HttpStub::start(|_| html(PAGE));
    let env = allowing(site.port);
    let (run, texts) = fetch_all(
        &env,
        &[
            json!({"url": site.url("/collect?token=hunter2hunter2")}),
            json!({"url": site.url("/c/sk-proj-Zx8Qk2LmP9vR4tW7yB1nH6jF")}),
        ],
        &["--yolo"],
    );
    for t in &texts {
        crate::assert_contains!(t, "the URL may carry a key");
    }
    assert!(site.seen().is_empty(), "{:?}", site.seen());
    let summary = run.events().last().unwrap().clone();
    assert_eq!(summary["calls"]["refused"], 2, "{summary}");
    assert_eq!(run.code, 4);
}

#[test]
fn a_fifty_megabyte_body_is_bounded_in_the_request_and_in_memory() {
    const BIG: usize = 50 * 1024 * 1024;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 2 {
                    line.clear();
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {BIG}\r\n\r\n"
                );
                if conn.write_all(head.as_bytes()).is_err() {
                    return;
                }
                let chunk = "all work and no play\n".repeat(3000);
                let mut sent = 0;
                while sent < BIG {
                    let n = chunk.len().min(BIG - sent);
                    if conn.write_all(&chunk.as_bytes()[..n]).is_err() {
                        return;
                    }
                    sent += n;
                }
            });
        }
    });
    let env = allowing(port);
    env.fake.push(reply_calls(&[(
        "big",
        "web_fetch",
        json!({"url": format!("http://127.0.0.1:{port}/big.log")}),
    )]));
    // The answer waits: hermes' peak is read after the fetch, before it ends.
    env.fake
        .push(Reply::text("done").delayed(Duration::from_millis(800)));
    let mut child = env.spawn(&["-q", "go"]);
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(60) {
        if let Ok(s) = std::fs::read_to_string(&status) {
            if let Some(kb) = s
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
            {
                peak_kb = kb;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = env.fake.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1].body.len();
    assert!(sent < 1024 * 1024, "{sent} bytes sent to the model");
    let text = &env.results_of(1)[0].1;
    crate::assert_contains!(text, &format!("5000000 bytes read of {BIG} (max_bytes)"));
    crate::assert_contains!(text, "all work and no play");
    assert!(peak_kb > 0, "no peak read");
    assert!(peak_kb < 64 * 1024, "hermes peaked at {peak_kb} kB");
}

#[test]
fn a_second_fetch_is_answered_by_a_304_from_what_the_session_kept() {
    let site = HttpStub::start(|r| {
        if r.header("if-none-match") == Some("\"v1\"") {
            return (304, vec![("ETag".into(), "\"v1\"".into())], String::new());
        }
        let (code, mut headers, body) = html(PAGE);
        headers.push(("ETag".into(), "\"v1\"".into()));
        (code, headers, body)
    });
    let env = allowing(site.port);
    let url = site.url("/notes");
    env.fake
        .push(reply_calls(&[("one", "web_fetch", json!({ "url": url }))]));
    env.fake
        .push(reply_calls(&[("two", "web_fetch", json!({ "url": url }))]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["--json", "-q", "go"]);
    let seen = site.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].header("if-none-match"), None);
    assert_eq!(seen[1].header("if-none-match"), Some("\"v1\""));
    let second = &env.results_of(2)[1].1;
    crate::assert_contains!(second, "unchanged since it was last fetched (304)");
    crate::assert_contains!(second, "# Release notes");
    let bytes: Vec<Value> = run
        .events()
        .iter()
        .filter(|e| e["type"] == "web_fetched")
        .map(|e| e["bytes"].clone())
        .collect();
    assert_eq!(bytes, [json!(PAGE.len()), json!(0)]);
}

#[test]
fn bad_input_gets_one_line_that_says_which() {
    let site = HttpStub::start(|r| match r.path.as_str() {
        "/slow" => {
            std::thread::sleep(Duration::from_millis(1500));
            html("late")
        }
        _ => (
            200,
            vec![("Content-Type".into(), "application/octet-stream".into())],
            "\u{0}\u{1}binary".into(),
        ),
    });
    let env = env_with(&format!(
        "[network]\nallow = [\"127.0.0.1:{}\"]\ndeny = [\"*.internal.example\"]\n\
         [tools.web_fetch]\ntimeout_ms = 500\n",
        site.port
    ));
    let (_, texts) = fetch_all(
        &env,
        &[
            json!({"url": "not a url"}),
            json!({"url": "ftp://example.com/file"}),
            json!({"url": site.url("/blob")}),
            json!({"url": site.url("/slow")}),
            json!({"url": "https://wiki.internal.example/"}),
            json!({"url": site.url("/"), "format": "pdf"}),
        ],
        &[],
    );
    let expect = [
        "`not a url` is not a URL: relative URL without a base",
        "only http and https URLs are fetched, not ftp:",
        "application/octet-stream, 8 bytes: not text",
        "took longer than 500 ms (tools.web_fetch.timeout_ms)",
        "wiki.internal.example is denied by [network] deny (`*.internal.example`); nothing was sent",
        "/format: \"pdf\" is not one of \"markdown\", \"text\" or \"raw\"",
    ];
    for (t, e) in texts.iter().zip(expect) {
        crate::assert_contains!(t, e);
        assert_eq!(t.trim().lines().count(), 1, "{t}");
    }
    assert_eq!(texts.len(), expect.len());
}

/// The question per domain, on a terminal: the whole URL shown, "this
/// session" covering that host and no other, "always" written to
/// `[network] allow`.
#[test]
fn the_repl_asks_per_domain() {
    let site = HttpStub::start(|_| html(PAGE));
    let port = site.port;
    // Both names allowed to reach this machine; each asked by the rule.
    let env = env_with(&format!(
        "[network]\nallow = [\"127.0.0.1:{port}\", \"localhost:{port}\"]\n\
         [approvals]\nmode = \"ask\"\nask = [\"web_fetch\"]\n"
    ));
    let first = site.url("/a?page=1");
    let fetch = |tag: &str, url: &str| reply_calls(&[(tag, "web_fetch", json!({ "url": url }))]);
    env.fake.push(fetch("w1", &first));
    env.fake.push(Reply::text("first read"));
    env.fake.push(fetch("w2", &site.url("/b")));
    env.fake.push(Reply::text("second read"));
    env.fake
        .push(fetch("w3", &format!("http://localhost:{port}/c")));
    env.fake.push(Reply::text("third read"));
    let term = Tmux::start(&env, &[]);
    term.wait_for("the banner", |s| s.contains("session "));
    term.type_line("one");
    term.wait_for("the question", |s| s.contains("web_fetch wants to run"));
    let screen = term.screen();
    crate::assert_contains!(screen, &first);
    crate::assert_contains!(screen, "s allow web_fetch on 127.0.0.1 for this session");
    term.type_line("s");
    term.wait_for("the first turn", |s| s.contains("first read"));
    // The same host: not asked again.
    term.type_line("two");
    term.wait_for("the second turn", |s| s.contains("second read"));
    assert_eq!(
        term.scrollback().matches("web_fetch wants to run").count(),
        1
    );
    // Another host is.
    term.type_line("three");
    crate::support::wait_for("the second question", || {
        term.scrollback().matches("web_fetch wants to run").count() == 2
    });
    crate::assert_contains!(
        term.screen(),
        "s allow web_fetch on localhost for this session"
    );
    term.type_line("a");
    term.wait_for("the third turn", |s| s.contains("third read"));
    term.type_line("/quit");
    let config = std::fs::read_to_string(env.config_path()).unwrap();
    crate::assert_contains!(config, "\"localhost\"");
    assert_eq!(site.seen().len(), 3);
}

/// A server answering every request with `body` as `content_type`. Its port.
fn serve_bytes(content_type: &'static str, body: Vec<u8>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut reader = BufReader::new(conn.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(&body);
        }
    });
    port
}

/// An image comes to the model as an image: the bytes served, in the
/// tool result's image block.
#[test]
fn an_image_is_given_to_the_model_as_an_image() {
    use base64::Engine;
    // A 1×1 PNG.
    let png: Vec<u8> = base64::engine::general_purpose::STANDARD
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
        .unwrap();
    let port = serve_bytes("image/png", png.clone());
    let env = TestEnv::with_api(crate::support::Api::Anthropic);
    env.write_config(&format!(
        "[network]\nallow = [\"127.0.0.1:{port}\"]\n[tools]\nbuiltin = [\"web_fetch\"]\n"
    ));
    env.fake.push(reply_calls(&[(
        "img",
        "web_fetch",
        json!({"url": format!("http://127.0.0.1:{port}/dot.png")}),
    )]));
    env.fake.push(Reply::text("a dot"));
    env.run(&["-q", "what is it"]).ok();
    let body = env.fake.requests()[1].json();
    let result = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_result")
        .unwrap();
    let blocks = result["content"].as_array().unwrap();
    let image = blocks.iter().find(|b| b["type"] == "image").unwrap();
    assert_eq!(image["source"]["media_type"], "image/png");
    assert_eq!(
        image["source"]["data"],
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    let text = blocks.iter().find(|b| b["type"] == "text").unwrap();
    crate::assert_contains!(text["text"].as_str().unwrap(), "200 image/png, 70 bytes");
}
