//! `hermes mcp serve` (issue 73) driven by two independent clients: hermes'
//! own MCP client (`hermes mcp add self -- hermes mcp serve`, then a
//! session that uses it) and the official MCP Python SDK's
//! (tests/fixtures/mcp_serve/client.py) — the gateway with nothing started
//! at `tools/list`, a search then a call, `read_file` in the folder and
//! refused outside, `shell` refused with no way to ask and asked through
//! elicitation where the client takes forms — and a cancel mid-call.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{json, Value};

use crate::support::calls::{batch, contents, reply_calls};
use crate::support::{bin, Reply, TestEnv};

/// A home whose config asks (no `mode = "auto"`) but for the test server
/// `alpha` behind the gateway (and, for hermes' own client, two of the
/// served hermes' tools), and a note in the folder.
fn serving_env() -> TestEnv {
    let env = TestEnv::new();
    env.write_config("[approvals]\nmode = \"ask\"\nallow = [\"mcp__alpha__*\", \"mcp__self__tool_call\", \"mcp__self__read_file\"]\n");
    env.add_test_server("alpha", "");
    std::fs::write(env.cwd.path().join("note.txt"), "a note in the folder\n").unwrap();
    env
}

/// Each JSON line the Python client printed, by its step.
fn steps(stdout: &str) -> std::collections::HashMap<String, Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| (v["step"].as_str().unwrap_or("").to_string(), v))
        .collect()
}

/// The Python client's steps against `hermes mcp serve` in `env`: taking
/// forms or not, reading `outside`, and with `task` handing it a task.
fn python_client(
    env: &TestEnv,
    elicit: bool,
    outside: &std::path::Path,
    task: bool,
) -> std::collections::HashMap<String, Value> {
    let python = crate::support::test_servers().join("py/bin/python");
    assert!(
        python.exists(),
        "the MCP Python SDK is not installed: run ./scripts/install-test-servers"
    );
    let out = env
        .command(python.to_str().unwrap())
        .arg(crate::support::repo_root().join("tests/fixtures/mcp_serve/client.py"))
        .arg(bin("hermes"))
        .arg(env.cwd.path())
        .arg(if elicit { "yes" } else { "no" })
        .arg(outside)
        .args(task.then_some("agent"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the Python client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    steps(&stdout)
}

#[test]
fn the_python_sdks_client_searches_calls_reads_and_is_refused_or_asked_as_it_can_answer() {
    let env = serving_env();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "not for the client\n").unwrap();

    env.fake.push(Reply::text("hello from the task"));
    let s = python_client(&env, false, &secret, true);
    assert_eq!(s["initialize"]["server"], "hermes");
    let names: Vec<&str> = s["tools"]["names"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for n in [
        "tool_search",
        "tool_describe",
        "tool_call",
        "read_file",
        "write_file",
        "edit_file",
        "glob",
        "grep",
        "shell",
    ] {
        assert!(names.contains(&n), "{n} not in {names:?}");
    }
    assert!(!names.iter().any(|n| n.starts_with("mcp__")), "{names:?}");
    // `agent` is the task tool; a conversation's own tools are not offered.
    assert!(names.contains(&"agent"), "{names:?}");
    for n in ["web_fetch", "update_plan"] {
        assert!(
            !names.contains(&n),
            "{n}: a conversation's tool, in {names:?}"
        );
    }
    assert!(
        s["search"]["text"]
            .as_str()
            .unwrap()
            .contains("mcp__alpha__echo"),
        "{}\n{}",
        s["search"],
        env.server_log("alpha")
    );
    assert!(
        s["call"]["text"]
            .as_str()
            .unwrap()
            .contains("through hermes"),
        "{}",
        s["call"]
    );
    assert_eq!(s["read_inside"]["error"], false, "{}", s["read_inside"]);
    assert!(s["read_inside"]["text"]
        .as_str()
        .unwrap()
        .contains("a note in the folder"));
    assert_eq!(s["read_outside"]["error"], true, "{}", s["read_outside"]);
    assert!(!s["read_outside"]["text"]
        .as_str()
        .unwrap()
        .contains("not for the client"));
    // No way to ask: refused with the reason, nothing run.
    assert_eq!(s["shell"]["error"], true, "{}", s["shell"]);
    assert!(
        s["shell"]["text"].as_str().unwrap().contains("approval"),
        "{}",
        s["shell"]
    );
    assert!(!env.cwd.path().join("made.txt").exists());
    // `agent`: a hermes task — its answer, its session, its steps as
    // progress.
    let task = &s["agent"];
    assert_eq!(task["error"], false, "{task}");
    let text = task["text"].as_str().unwrap();
    assert!(text.contains("hello from the task"), "{text}");
    let id = env.sessions()[0]
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(text.contains(&format!("[hermes session {id}")), "{text}");
    let steps: Vec<&str> = task["progress"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        steps.iter().any(|m| m.contains("\"model_request\"")),
        "{steps:?}"
    );
    assert!(
        steps.iter().any(|m| m.contains("\"turn_done\"")),
        "{steps:?}"
    );
    for m in &steps {
        crate::support::event_fits_schema(&serde_json::from_str(m).unwrap()).unwrap();
    }

    // A client that takes forms is asked, as a person in a session is; it
    // answers once, and the command runs in the sandbox, its write landing
    // through the review.
    let s = python_client(&env, true, &secret, false);
    assert_eq!(s["shell"]["error"], false, "{}", s["shell"]);
    assert!(s["shell"]["text"]
        .as_str()
        .unwrap()
        .contains("from the sandbox"));
    // Each question once, in call order: the read outside the folder,
    // then the command.
    let asked = s["shell"]["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(
        asked[0].as_str().unwrap().contains("read_file"),
        "{asked:?}"
    );
    assert!(
        asked[0].as_str().unwrap().contains("secret.txt"),
        "{asked:?}"
    );
    assert!(asked[1].as_str().unwrap().contains("shell"), "{asked:?}");
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("made.txt")).unwrap(),
        "from the sandbox\n"
    );
}

#[test]
fn hermes_own_client_uses_hermes_served_through_mcp_add() {
    let env = serving_env();
    let home = format!("HERMES_HOME={}", env.home.path().display());
    let added = env.run(&[
        "mcp",
        "add",
        "self",
        "--env",
        &home,
        "--",
        &bin("hermes"),
        "mcp",
        "serve",
    ]);
    added.ok();
    env.fake.push(reply_calls(&[(
        "c1",
        "tool_call",
        json!({"calls": [
            {"name": "mcp__self__read_file", "arguments": {"path": "note.txt"}},
            {"name": "mcp__self__tool_call", "arguments": {"calls": [
                {"name": "mcp__alpha__echo", "arguments": {"text": "two hops"}}
            ]}},
            {"name": "mcp__self__shell", "arguments": {"command": "touch ran.txt"}}
        ]}),
    )]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["--yolo", "-q", "use yourself"]);
    run.ok();
    let out = contents(&env.tool_results(1));
    assert_eq!(out.len(), 3, "{out:?}");
    assert!(out[0].contains("a note in the folder"), "{}", out[0]);
    assert!(out[1].contains("two hops"), "{}", out[1]);
    // The served hermes asks (config says ask) and this client takes no
    // forms in a one-shot run: refused there, whatever --yolo says here.
    assert!(out[2].contains("approval"), "{}", out[2]);
    assert!(!env.cwd.path().join("ran.txt").exists());
    let _ = batch;
}

/// `hermes mcp serve --http 127.0.0.1:0 ARGS` in `env` with `vars`, and
/// the URL it serves at (read from its first line on stderr).
pub(super) fn serve_http(
    env: &TestEnv,
    args: &[&str],
    vars: &[(&str, &str)],
) -> (std::process::Child, String) {
    let mut cmd = env.cmd();
    cmd.args(["mcp", "serve", "--http", "127.0.0.1:0"])
        .args(args);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("hermes mcp serve --http said where it serves")
            .unwrap();
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_string();
        }
    };
    // The rest of stderr is drained, so the server never blocks on it.
    std::thread::spawn(move || for _ in lines {});
    (child, url)
}

/// The status line of a bare `POST /mcp` with `headers`.
fn status_of(url: &str, headers: &str) -> String {
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut first = String::new();
    BufReader::new(s).read_line(&mut first).unwrap();
    first.trim().to_string()
}

#[test]
fn serve_http_with_a_token_answers_only_requests_that_carry_it() {
    let env = serving_env();
    let token = "hermes-serve-token-9f8e7d6c5b4a";
    let (mut served, url) = serve_http(
        &env,
        &["--token-env", "SERVE_TOKEN"],
        &[("SERVE_TOKEN", token)],
    );
    assert!(
        status_of(&url, "").contains(" 401 "),
        "{}",
        status_of(&url, "")
    );
    let wrong = "Authorization: Bearer not-the-token-at-all-000000\r\n";
    assert!(status_of(&url, wrong).contains(" 401 "));
    // hermes' own client over HTTP, with the token: the folder's note.
    env.run(&[
        "mcp",
        "add",
        "served",
        "--url",
        &url,
        "--bearer-token-env",
        "SERVE_TOKEN",
    ])
    .ok();
    let read = env
        .cmd()
        .args([
            "mcp",
            "call",
            "served",
            "read_file",
            r#"{"path":"note.txt"}"#,
        ])
        .env("SERVE_TOKEN", token)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&read.stdout);
    assert!(
        read.status.success() && out.contains("a note in the folder"),
        "{out}\n{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let _ = served.kill();
    let _ = served.wait();
}

/// An answer by its id, within 20 s.
type WaitFor = Box<dyn Fn(u64) -> Value>;

/// The notifications a served hermes sent.
type Heard = std::sync::Arc<std::sync::Mutex<Vec<Value>>>;

/// `hermes mcp serve ARGS` in `env`, initialized by a bare JSON-RPC client
/// that declares nothing: the process, its stdin, and a wait for an
/// answer by id.
fn raw_session(
    env: &TestEnv,
    args: &[&str],
) -> (std::process::Child, std::process::ChildStdin, WaitFor) {
    let (child, stdin, wait_for, _) = raw_session_heard(env, args);
    (child, stdin, wait_for)
}

/// [`raw_session`], and what it notifies.
fn raw_session_heard(
    env: &TestEnv,
    args: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    WaitFor,
    Heard,
) {
    let mut child = env
        .cmd()
        .args(["mcp", "serve"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    let heard = Heard::default();
    let notes = heard.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                if v.get("id").is_none() {
                    notes.lock().unwrap().push(v);
                } else {
                    let _ = tx.send(v);
                }
            }
        }
    });
    let wait_for: WaitFor = Box::new(move |id: u64| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let v = rx.recv_timeout(left).expect("an answer in time");
            if v["id"] == id {
                return v;
            }
        }
    });
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    wait_for(1);
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    (child, stdin, wait_for, heard)
}

#[test]
fn what_hermes_warns_of_during_a_call_reaches_the_client_as_a_log_message() {
    let env = serving_env();
    // A hook's `systemMessage`: shown to the person as a warning.
    let mut config = std::fs::read_to_string(env.config_path()).unwrap();
    config.push_str(
        "\n[[hooks.pre_tool_call]]\nmatch = \"read_file\"\ncommand = \"echo '{\\\"systemMessage\\\": \\\"checked by the hook\\\"}'\"\n",
    );
    std::fs::write(env.config_path(), config).unwrap();
    let (mut child, mut stdin, wait_for, heard) = raw_session_heard(&env, &[]);
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "read_file", "arguments": {"path": "note.txt"}}}),
    );
    let read = wait_for(2);
    assert_eq!(read["result"]["isError"], false, "{read}");
    crate::support::wait_for("the log message", || {
        heard.lock().unwrap().iter().any(|n| {
            n["method"] == "notifications/message"
                && n["params"]["level"] == "warning"
                && n["params"]["data"]
                    .to_string()
                    .contains("checked by the hook")
        })
    });
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// The names `tools/list` (request `id`) gives.
fn tools_list(stdin: &mut impl Write, wait_for: &WaitFor, id: u64) -> Vec<String> {
    send(
        stdin,
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
    );
    wait_for(id)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn expose_all_lists_every_servers_tools_by_their_names_and_runs_them_directly() {
    let env = serving_env();
    let (mut child, mut stdin, wait_for) = raw_session(&env, &["--expose-all"]);
    let listed = tools_list(&mut stdin, &wait_for, 2);
    let names: Vec<&str> = listed.iter().map(String::as_str).collect();
    for n in ["tool_search", "tool_call", "read_file", "mcp__alpha__echo"] {
        assert!(names.contains(&n), "{n} not in {names:?}");
    }
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "mcp__alpha__echo", "arguments": {"text": "straight to it"}}}),
    );
    let called = wait_for(3);
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(called["result"]["content"][0]["text"], "straight to it");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// A JSON-RPC line to the served hermes.
fn send(stdin: &mut impl Write, v: Value) {
    writeln!(stdin, "{v}").unwrap();
    stdin.flush().unwrap();
}

#[test]
fn a_cancel_mid_call_stops_the_command_and_the_server_goes_on() {
    let env = serving_env();
    let (mut child, mut stdin, wait_for) = raw_session(&env, &["--approve", "shell"]);
    let listed = tools_list(&mut stdin, &wait_for, 9);
    let names: Vec<&str> = listed.iter().map(String::as_str).collect();
    assert!(
        names.contains(&"tool_search") && names.contains(&"shell"),
        "{names:?}"
    );
    // Listing the gateway starts nothing.
    assert!(
        !env.server_log("alpha").contains("test server: pid"),
        "{}",
        env.server_log("alpha")
    );
    let started = std::time::Instant::now();
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "shell", "arguments": {"command": "echo started; sleep 30"}}}),
    );
    std::thread::sleep(std::time::Duration::from_millis(800));
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "the person stopped it"}}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    );
    let pong = wait_for(3);
    assert!(pong.get("result").is_some(), "{pong}");
    crate::support::wait_for("the command to be gone", || {
        crate::support::processes_with_arg("sleep 30").is_empty()
    });
    assert!(started.elapsed() < std::time::Duration::from_secs(25));
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
