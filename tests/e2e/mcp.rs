//! MCP servers end to end: lazy start, cached catalogs, results, faults,
//! process hygiene — against our test server and real third-party servers.

use crate::support::{call_id, Reply, TestEnv, KEY_ENV};

fn call_and_answer(env: &TestEnv, calls: &[(&str, &str, &str)]) -> crate::support::Run {
    env.fake.push(Reply::tool_calls(calls));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"])
}

#[test]
fn a_cached_catalog_offers_tools_and_the_server_starts_on_first_call() {
    let env = TestEnv::new();
    env.add_test_server("t", "args = [\"--page-size\", \"2\"]");
    env.prefill("t");
    let starts = |env: &TestEnv| env.server_log("t").matches("recv initialize").count();
    assert_eq!(starts(&env), 1);

    // A turn without tool calls never starts the server.
    env.fake.push(Reply::text("no tools needed"));
    env.run(&["-q", "hi"]).ok();
    assert_eq!(starts(&env), 1, "the server was started without a call");
    let tools = env.fake.requests()[0].json()["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    // All 9 tools arrived over 5 pages of 2.
    assert_eq!(names.len(), 9, "{names:?}");
    assert!(names.contains(&"mcp__t__echo") && names.contains(&"mcp__t__add_tool"));

    call_and_answer(
        &env,
        &[(&call_id("c1"), "mcp__t__echo", r#"{"text":"ping"}"#)],
    )
    .ok();
    assert_eq!(starts(&env), 2);
    assert_eq!(env.tool_results(2)[0]["content"], "ping");
}

#[test]
fn results_errors_images_and_huge_output_are_mapped() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    call_and_answer(
        &env,
        &[
            (&call_id("a"), "mcp__t__fail", r#"{"message":"disk full"}"#),
            (&call_id("b"), "mcp__t__image", "{}"),
            (&call_id("c"), "mcp__t__huge", r#"{"bytes":200000}"#),
        ],
    )
    .ok();
    let r = env.tool_results(1);
    assert_eq!(r[0]["content"], "Error: disk full");
    // The image itself follows the results, in a user message (images.rs).
    assert_eq!(r[1]["content"], "[image image/png, 70 B, attached]");
    let huge = r[2]["content"].as_str().unwrap();
    assert!(
        huge.ends_with("[output cut: 134464 of 200000 bytes not shown]"),
        "{}",
        &huge[huge.len() - 80..]
    );
}

#[test]
fn servers_get_a_clean_environment_plus_their_own_env() {
    let env = TestEnv::new();
    env.add_test_server("t", "env = { SERVER_SETTING = \"on\" }");
    env.prefill("t");
    call_and_answer(
        &env,
        &[
            (
                &call_id("a"),
                "mcp__t__env",
                &format!(r#"{{"name":"{KEY_ENV}"}}"#),
            ),
            (&call_id("b"), "mcp__t__env", r#"{"name":"SERVER_SETTING"}"#),
            (&call_id("c"), "mcp__t__env", r#"{"name":"HOME"}"#),
        ],
    )
    .ok();
    let r = env.tool_results(1);
    assert_eq!(
        r[0]["content"], "<unset>",
        "the provider key leaked into the server"
    );
    assert_eq!(r[1]["content"], "on");
    assert_eq!(r[2]["content"], env.home.path().display().to_string());
}

#[test]
fn a_crash_mid_call_is_an_error_result_and_the_next_call_restarts_it() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    call_and_answer(
        &env,
        &[
            (&call_id("a"), "mcp__t__crash", "{}"),
            (&call_id("b"), "mcp__t__echo", r#"{"text":"back"}"#),
        ],
    )
    .ok();
    let r = env.tool_results(1);
    let crash = r[0]["content"].as_str().unwrap();
    crate::assert_contains!(
        crash,
        "server `t` exited with code 3 during the call to `crash`"
    );
    crate::assert_contains!(crash, "last stderr: ");
    crate::assert_contains!(crash, "test server: crashing on purpose");
    assert_eq!(r[1]["content"], "back");
}

#[test]
fn repeated_crashes_mark_the_server_failed() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    let x = call_id("x");
    let crash = (x.as_str(), "mcp__t__crash", "{}");
    call_and_answer(
        &env,
        &[
            crash,
            (&call_id("y"), "mcp__t__crash", "{}"),
            (&call_id("z"), "mcp__t__crash", "{}"),
            (&call_id("w"), "mcp__t__echo", r#"{"text":"no"}"#),
        ],
    )
    .ok();
    let r = env.tool_results(1);
    assert!(
        r[2]["content"]
            .as_str()
            .unwrap()
            .contains("crashed 3 times in a row and is marked failed"),
        "{}",
        r[2]["content"]
    );
    assert!(
        r[3]["content"].as_str().unwrap().contains("marked failed"),
        "{}",
        r[3]["content"]
    );
}

/// One crash with three calls in flight is one crash, not three: the server is
/// restarted for the next call, and each error names its own call.
#[test]
fn one_crash_with_calls_in_flight_counts_once_and_names_each_call() {
    let env = TestEnv::new();
    env.add_test_server("t", "concurrency = \"parallel\"");
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[
        (
            &call_id("s1"),
            "mcp__t__slow",
            r#"{"ms":5000,"label":"one"}"#,
        ),
        (
            &call_id("s2"),
            "mcp__t__slow",
            r#"{"ms":5000,"label":"two"}"#,
        ),
        (&call_id("boom"), "mcp__t__crash", "{}"),
    ]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("after"),
        "mcp__t__echo",
        r#"{"text":"back"}"#,
    )]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let r: Vec<String> = env
        .tool_results(1)
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(r.len(), 3);
    for (content, tool) in r.iter().zip(["slow", "slow", "crash"]) {
        crate::assert_contains!(content, "exited with code 3");
        crate::assert_contains!(content, format!("`{tool}`"));
        crate::assert_contains!(content, "it will be restarted on the next call");
        crate::assert_not_contains!(content, "marked failed");
    }
    let next = env.tool_results(2);
    assert_eq!(
        next.last().unwrap()["content"],
        "back",
        "the server was not restarted"
    );
}

#[test]
fn a_call_past_its_timeout_is_cancelled_at_the_server() {
    let env = TestEnv::new();
    env.add_test_server("t", "tool_timeout_ms = 300");
    env.prefill("t");
    call_and_answer(
        &env,
        &[(
            &call_id("a"),
            "mcp__t__slow",
            r#"{"ms":20000,"label":"long"}"#,
        )],
    )
    .ok();
    let r = env.tool_results(1);
    assert_eq!(
        r[0]["content"],
        "Error: `slow` on server `t` timed out after 300 ms and was cancelled (tool_timeout_ms)"
    );
    let log = env.server_log("t");
    crate::assert_contains!(log, "cancelled request");
}

#[test]
fn a_server_that_cannot_start_says_why() {
    let env = TestEnv::new();
    let dir = env.home.path();
    // A wrapper that runs the test server until a flag file appears.
    let script = dir.join("flaky.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ -f {flag} ]; then echo 'boom: missing setting' >&2; exit 7; fi\nexec {} \"$@\"\n",
            crate::support::test_server(),
            flag = dir.join("broken").display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    env.add_server(
        "f",
        &format!("command = {:?}", script.display().to_string()),
    );
    env.add_server("nf", "command = \"/nonexistent/mcp-server\"");
    env.add_test_server(
        "nh",
        "args = [\"--no-handshake\"]\nstartup_timeout_ms = 300",
    );
    env.prefill("f");
    std::fs::write(dir.join("broken"), "").unwrap();

    call_and_answer(&env, &[(&call_id("a"), "mcp__f__echo", r#"{"text":"x"}"#)]).ok();
    let r = env.tool_results(1);
    let msg = r[0]["content"].as_str().unwrap();
    crate::assert_contains!(msg, "exited with code 7 before the MCP handshake finished");
    crate::assert_contains!(msg, "last stderr: boom: missing setting");

    let run = env.run(&["mcp", "test", "nf"]);
    run.code(1);
    crate::assert_contains!(
        run.error_line(),
        "cannot start MCP server `nf` (/nonexistent/mcp-server): command not found"
    );
    // No stderr to read: the hint is the command, not the log.
    crate::assert_not_contains!(run.stderr, "its stderr is in");
    crate::assert_contains!(
        run.stderr,
        "hint: check `command` of [mcp_servers.nf] in the config"
    );
    let run = env.run(&["mcp", "test", "nh"]);
    run.code(1);
    crate::assert_contains!(
        run.error_line(),
        "server `nh` gave no answer to the MCP handshake after 300 ms"
    );
    crate::assert_contains!(run.stderr, "hint: its stderr is in");
}

#[test]
fn list_changed_refreshes_the_catalog() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("a"),
        "mcp__t__add_tool",
        "{}",
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("b"),
        "mcp__t__echo",
        r#"{"text":"wait"}"#,
    )]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let names = |n: usize| -> Vec<String> {
        env.fake.requests()[n].json()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(!names(0).contains(&"mcp__t__added".to_string()));
    // The refresh happens on the notification: the catalog has the new tool
    // (and the cache), but the session's tool list stays as it began.
    assert_eq!(names(2), names(0), "{}", env.server_log("t"));
    let run = env.run(&["mcp", "tools", "t"]);
    crate::assert_contains!(run.stdout, "mcp__t__added");
    // The next run of the session offers the same list, and says what changed.
    env.fake.push(Reply::text("noted"));
    env.run(&["--continue", "-q", "and now?"]).ok();
    assert_eq!(names(3), names(0));
    let told = env.last_user_text(3);
    assert!(
        told.starts_with("[hermes: the MCP tools changed since your last turn — new: mcp__t__added. Your tool list stays as it is for this session"),
        "{told}"
    );
}

#[test]
fn include_and_exclude_filter_the_tools() {
    let env = TestEnv::new();
    env.add_test_server(
        "t",
        "tools.include = [\"e*\", \"slow\"]\ntools.exclude = [\"env\"]",
    );
    env.prefill("t");
    let run = env.run(&["mcp", "tools", "t"]);
    let names: Vec<&str> = run
        .stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, ["mcp__t__echo", "mcp__t__slow"]);
}

#[test]
fn no_server_process_outlives_hermes() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    call_and_answer(&env, &[(&call_id("a"), "mcp__t__echo", r#"{"text":"x"}"#)]).ok();
    // Also stopped when the model errors out mid-run.
    env.fake.push(Reply::tool_calls(&[(
        &call_id("a"),
        "mcp__t__echo",
        r#"{"text":"x"}"#,
    )]));
    env.fake.push(Reply::status(400, "{}"));
    env.run(&["-q", "go"]).code(1);
    let out = std::process::Command::new("pgrep")
        .args(["-f", crate::support::test_server()])
        .output()
        .unwrap();
    let pids = String::from_utf8_lossy(&out.stdout).to_string();
    // Other tests run servers in parallel: only ours (HOME-specific) count.
    for pid in pids.lines() {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let home = format!("HOME={}", env.home.path().display());
        assert!(
            !String::from_utf8_lossy(&environ)
                .split('\0')
                .any(|v| v == home),
            "server process {pid} outlived hermes"
        );
    }
    crate::assert_contains!(env.server_log("t"), "stdin closed");
}

#[test]
fn start_up_never_waits_for_a_server() {
    let env = TestEnv::new();
    // No cache, no handshake, a long startup timeout: a one-shot that needs no
    // tool must not wait for it.
    env.add_test_server(
        "slowstart",
        "args = [\"--no-handshake\"]\nstartup_timeout_ms = 60000",
    );
    env.fake.push(Reply::text("quick"));
    let t = std::time::Instant::now();
    env.run(&["-q", "hi"]).ok();
    assert!(
        t.elapsed() < std::time::Duration::from_secs(30),
        "start-up waited for the server"
    );
}

#[test]
fn mcp_commands_add_list_import_remove() {
    let env = TestEnv::new();
    let run = env.run(&[
        "mcp",
        "add",
        "srv",
        "--env",
        "A=1",
        "--",
        crate::support::test_server(),
        "--page-size",
        "4",
    ]);
    run.ok();
    let run = env.run(&["mcp", "list"]);
    run.ok();
    assert!(
        run.stdout.contains("srv") && run.stdout.contains("not started yet"),
        "{}",
        run.stdout
    );
    assert!(
        env.server_log("srv").is_empty(),
        "mcp list started a server"
    );
    env.prefill("srv");
    assert!(env.run(&["mcp", "list"]).stdout.contains("9 tools (cached"));
    let run = env.run(&["mcp", "add", "srv", "--", "x"]);
    run.code(2);
    crate::assert_contains!(run.error_line(), "already configured");

    let json = env.home.path().join("claude.json");
    std::fs::write(
        &json,
        r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@scope/fs", "/tmp"], "env": {"K": "v"}},
                           "remote": {"url": "https://example.invalid/mcp"}}}"#,
    )
    .unwrap();
    let run = env.run(&["mcp", "import", json.to_str().unwrap()]);
    run.ok();
    crate::assert_contains!(run.stdout, "2 added, 0 skipped");
    let cfg = std::fs::read_to_string(env.config_path()).unwrap();
    assert!(
        cfg.contains("[mcp_servers.files]")
            && cfg.contains("args = [\"-y\", \"@scope/fs\", \"/tmp\"]")
            && cfg.contains("[mcp_servers.remote]")
            && cfg.contains("url = \"https://example.invalid/mcp\""),
        "{cfg}"
    );
    env.run(&["mcp", "remove", "remote"]).ok();

    env.run(&["mcp", "remove", "files"]).ok();
    assert!(!std::fs::read_to_string(env.config_path())
        .unwrap()
        .contains("mcp_servers.files"));
    env.run(&["mcp", "remove", "files"]).code(2);
}

#[test]
fn real_servers_everything_filesystem_time_and_git() {
    let env = TestEnv::new();
    let docs = env.cwd.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("note.txt"), "hello from a file").unwrap();
    let repo = env.cwd.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    crate::support::git_init(&repo);
    std::fs::write(repo.join("new.txt"), "x").unwrap();

    env.add_real_servers(&docs);
    let list = env.run(&["mcp", "list"]);
    for s in ["everything", "files", "time", "git"] {
        let line = list.stdout.lines().find(|l| l.starts_with(s)).unwrap();
        assert!(line.contains(" tools (cached"), "{line}");
    }
    call_and_answer(
        &env,
        &[
            (
                &call_id("a"),
                "mcp__everything__echo",
                r#"{"message":"hi there"}"#,
            ),
            (
                &call_id("b"),
                "mcp__files__read_text_file",
                &format!(
                    r#"{{"path":{:?}}}"#,
                    docs.join("note.txt").display().to_string()
                ),
            ),
            (
                &call_id("c"),
                "mcp__time__get_current_time",
                r#"{"timezone":"UTC"}"#,
            ),
            (
                &call_id("d"),
                "mcp__git__git_status",
                &format!(r#"{{"repo_path":{:?}}}"#, repo.display().to_string()),
            ),
        ],
    )
    .ok();
    let r = env.tool_results(1);
    assert_eq!(r[0]["content"], "Echo: hi there");
    assert_eq!(r[1]["content"], "hello from a file");
    assert!(
        r[2]["content"]
            .as_str()
            .unwrap()
            .contains("\"timezone\": \"UTC\""),
        "{}",
        r[2]["content"]
    );
    assert!(
        r[3]["content"].as_str().unwrap().contains("new.txt"),
        "{}",
        r[3]["content"]
    );
}

#[test]
fn progress_notifications_reach_the_event_stream() {
    let env = TestEnv::new();
    env.add_test_server("t", "concurrency = \"parallel\"");
    env.prefill("t");
    // Two calls at once: each report names the call it is about.
    env.fake.push(Reply::tool_calls(&[
        (&call_id("a"), "mcp__t__progress", r#"{"steps":3}"#),
        (&call_id("b"), "mcp__t__progress", r#"{"steps":2}"#),
    ]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["--json", "-q", "go"]);
    run.ok();
    let progress: Vec<serde_json::Value> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "tool_progress")
        .collect();
    assert_eq!(progress.len(), 5, "{}", run.stdout);
    assert!(progress.iter().all(|p| p["server"] == "t"));
    for (id, total) in [(call_id("a"), 3.0), (call_id("b"), 2.0)] {
        let mut seen: Vec<f64> = progress
            .iter()
            .filter(|p| p["id"] == id.as_str())
            .map(|p| {
                assert_eq!(p["total"], total, "{p}");
                p["progress"].as_f64().unwrap()
            })
            .collect();
        seen.sort_by(f64::total_cmp);
        assert_eq!(
            seen,
            (1..=total as u64).map(|i| i as f64).collect::<Vec<_>>()
        );
    }
    assert_eq!(env.tool_results(1)[0]["content"], "3 steps done");
}

/// The background catalog fill starts at most `[limits]
/// servers_started_at_once` servers at a time (8 by default), and with more
/// servers than that stops each once it has listed its tools.
#[test]
fn the_background_fill_starts_a_bounded_number_of_servers_at_once() {
    let env = TestEnv::new();
    let width = 3;
    env.write_config(&format!("[limits]\nservers_started_at_once = {width}\n"));
    let delay = env.home.path().join("handshake-delay");
    std::fs::write(&delay, "600").unwrap();
    let n = width + 4;
    for i in 0..n {
        env.add_test_server(
            &format!("s{i}"),
            &format!(
                "args = [\"--handshake-delay-file\", {:?}]",
                delay.display().to_string()
            ),
        );
    }
    // The model answers after the fill has had time for two waves.
    env.fake
        .push(Reply::text("done").delayed(std::time::Duration::from_millis(3000)));
    env.run(&["-q", "go"]).ok();
    let number = |line: &str, prefix: &str| -> Option<u128> {
        line.split_once(prefix)?.1.trim().parse().ok()
    };
    let mut spans = Vec::new();
    for i in 0..n {
        let log = env.server_log(&format!("s{i}"));
        let start = log.lines().find_map(|l| number(l, ") from "));
        let end = log.lines().find_map(|l| number(l, "started at "));
        let (Some(start), Some(end)) = (start, end) else {
            panic!("server s{i} was not started by the fill:\n{log}");
        };
        spans.push((start, end));
        crate::assert_contains!(log, "stdin closed, exiting");
    }
    let most = spans
        .iter()
        .map(|(s, _)| spans.iter().filter(|(a, b)| a <= s && s < b).count())
        .max()
        .unwrap();
    assert!(
        (2..=width).contains(&most),
        "{most} servers were starting at once: {spans:?}"
    );
}

/// A server's stderr is drained as bytes: a non-UTF-8 byte or a line of
/// megabytes neither stops the drain (the server would then die on a full
/// pipe) nor ends up whole in an error message.
#[test]
fn stderr_with_odd_bytes_and_huge_lines_is_drained_and_quoted_in_bounds() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    call_and_answer(
        &env,
        &[
            (
                &call_id("noise"),
                "mcp__t__huge",
                r#"{"bytes":5000000,"stderr":true}"#,
            ),
            (
                &call_id("after"),
                "mcp__t__echo",
                r#"{"text":"still here"}"#,
            ),
            (&call_id("boom"), "mcp__t__crash", "{}"),
        ],
    )
    .ok();
    let r = env.tool_results(1);
    assert_eq!(r[0]["content"], "noisy");
    assert_eq!(r[1]["content"], "still here");
    let crash = r[2]["content"].as_str().unwrap();
    crate::assert_contains!(crash, "last stderr: ");
    assert!(
        crash.len() < 3000,
        "the crash message quotes {} bytes",
        crash.len()
    );
    let log = std::fs::read(env.home.path().join("logs/mcp/t.log")).unwrap();
    assert!(
        log.windows(4).any(|w| w == b"caf\xe9"),
        "the log lost the raw byte"
    );
    assert!(log.len() > 5_000_000, "the log lost the long line");
    crate::assert_contains!(String::from_utf8_lossy(&log), "after the noise");
}

/// A result too large for one MCP message (16 MiB) is dropped by the client;
/// the call says so at once instead of waiting out its timeout as "timed out".
#[test]
fn a_result_over_the_message_limit_is_reported_at_once() {
    let env = TestEnv::new();
    env.add_test_server("t", "tool_timeout_ms = 60000");
    env.prefill("t");
    let started = std::time::Instant::now();
    call_and_answer(
        &env,
        &[(&call_id("big"), "mcp__t__huge", r#"{"bytes":17000000}"#)],
    )
    .ok();
    let took = started.elapsed();
    let r = env.tool_results(1);
    let content = r[0]["content"].as_str().unwrap();
    crate::assert_contains!(
        content,
        "the result of `huge` from server `t` was over 16 MiB, the most one MCP message may carry"
    );
    // The timeout would have taken a minute.
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
}
