//! Splitting tool_call batches before persistence (contract §5–§8), end to end:
//! the real binary, the fake provider, real MCP servers and our test server.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::calls::{batch, contents, interrupted_batch, recorded_calls};
use crate::support::fake_gateway::FakeGateway;
use crate::support::{assert_legal_id, call_id, real_server, records, Reply, TestEnv};

#[test]
fn a_local_batch_is_split_before_it_is_persisted_and_costs_one_round_trip() {
    let env = TestEnv::deferred(&[("t", "concurrency = \"parallel\"")]);
    let args = batch(&[
        ("mcp__t__echo", json!({"text": "one"})),
        ("mcp__t__echo", json!({"text": "two"})),
        ("mcp__t__slow", json!({"ms": 5, "label": "x"})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("P"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    assert_eq!(
        env.fake.requests().len(),
        2,
        "a batch must cost exactly one model round trip"
    );

    let calls = recorded_calls(&env.only_session());
    assert_eq!(calls.len(), 3);
    assert_eq!(
        calls[0]["id"],
        call_id("P"),
        "child 0 keeps the parent's id"
    );
    let ids: Vec<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
    for (i, id) in ids.iter().enumerate().skip(1) {
        assert_legal_id(id);
        assert!(
            !ids[..i].contains(id),
            "child {i} repeats an earlier id: {ids:?}"
        );
    }
    for c in &calls {
        assert_eq!(c["name"], "tool_call");
        let a: Value = serde_json::from_str(c["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(
            a["calls"].as_array().unwrap().len(),
            1,
            "each child carries one entry"
        );
    }
    let results = env.tool_results(1);
    assert_eq!(contents(&results), ["one", "two", "slept 5 ms x"]);
    let ids: Vec<&Value> = results.iter().map(|r| &r["tool_call_id"]).collect();
    let call_ids: Vec<&Value> = calls.iter().map(|c| &c["id"]).collect();
    assert_eq!(ids, call_ids, "every child has its own paired result");
}

#[test]
fn the_same_message_gives_the_same_child_ids_and_resume_replays_them_byte_for_byte() {
    let env = TestEnv::deferred(&[("t", "")]);
    let args = batch(&[
        ("mcp__t__echo", json!({"text": "a"})),
        ("mcp__t__echo", json!({"b": 1, "text": "b"})),
    ]);
    for _ in 0..2 {
        env.fake
            .push(Reply::tool_calls(&[(&call_id("X"), "tool_call", &args)]));
        env.fake.push(Reply::text("done"));
    }
    // Two sessions, each told apart by the id its run reports (two runs in
    // one second have ids of the same prefix).
    let id = env.run_for_session_id(&["--json", "-q", "go"]);
    let second = env.run_for_session_id(&["--json", "-q", "go"]);
    assert_ne!(id, second);
    let path = env.session_path(&id);
    let ids =
        |p: &Path| -> Vec<Value> { recorded_calls(p).iter().map(|c| c["id"].clone()).collect() };
    let ids_a = ids(&path);
    let ids_b = ids(&env.session_path(&second));
    assert_eq!(ids_a.len(), 2, "the batch was not split");
    assert_eq!(
        ids_a, ids_b,
        "a replayed message must split into the same ids"
    );

    let before = std::fs::read(&path).unwrap();
    env.fake.push(Reply::text("resumed"));
    env.run(&["--resume", &id, "-q", "more"]).ok();
    let after = std::fs::read(&path).unwrap();
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "earlier session bytes changed"
    );
    let reqs = env.fake.requests();
    let earlier = reqs[1].body_str();
    let resumed = reqs[4].body_str();
    assert!(
        resumed.starts_with(&earlier[..earlier.len() - 2]),
        "the resumed request does not replay the split history byte for byte"
    );
}

#[test]
fn rows_that_stay_whole() {
    let env = TestEnv::deferred(&[("t", "")]);
    let gw = FakeGateway::start();
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str(&format!("\n[connectors]\nurl = \"{}\"\n", gw.url()));
    std::fs::write(env.config_path(), cfg).unwrap();

    let connectors = batch(&[
        ("connectors__crm_find_customer", json!({"name": "Ada"})),
        ("connectors__tickets_open", json!({"title": "Broken"})),
    ]);
    let eleven = json!({"calls": (0..11).map(|i| json!({"name": "mcp__t__echo", "arguments": {"text": i.to_string()}})).collect::<Vec<_>>()}).to_string();
    let single = batch(&[("mcp__t__echo", json!({"text": "solo"}))]);
    let malformed = r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"x"}},7]}"#;
    env.fake.push(Reply::tool_calls(&[
        (&call_id("c1"), "tool_call", &connectors),
        (&call_id("c2"), "tool_call", malformed),
        (&call_id("c3"), "tool_call", &eleven),
        (&call_id("c4"), "tool_call", &single),
    ]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();

    let calls = recorded_calls(&env.only_session());
    assert_eq!(calls.len(), 4, "nothing here may be split: {calls:#?}");
    let r = contents(&env.tool_results(1));
    let gw_result: Value = serde_json::from_str(&r[0]).unwrap();
    assert_eq!(gw_result["count"], 2);
    assert_eq!(
        gw_result["results"][0]["content"],
        "connectors__crm_find_customer ok: {\"name\":\"Ada\"}"
    );
    assert_eq!(
        gw_result["results"][1]["content"],
        "connectors__tickets_open ok: {\"title\":\"Broken\"}"
    );
    let dispatches = gw.dispatches();
    assert_eq!(
        dispatches.len(),
        1,
        "a connectors batch is ONE gateway dispatch"
    );
    assert_eq!(dispatches[0]["calls"].as_array().unwrap().len(), 2);
    assert_eq!(dispatches[0]["calls"][0]["id"], call_id("c1"));
    assert!(
        r[1].starts_with("Error: tool_call: entry 2 is a number"),
        "{}",
        r[1]
    );
    assert!(
        r[2].starts_with("Error: tool_call takes at most 10 entries; you sent 11"),
        "{}",
        r[2]
    );
    assert_eq!(r[3], "solo");
}

#[test]
fn a_mixed_batch_splits_and_each_connector_entry_is_its_own_dispatch() {
    let env = TestEnv::deferred(&[("t", "")]);
    let gw = FakeGateway::start();
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str(&format!("\n[connectors]\nurl = \"{}\"\n", gw.url()));
    std::fs::write(env.config_path(), cfg).unwrap();
    let args = batch(&[
        ("connectors__tickets_open", json!({"title": "T"})),
        ("mcp__t__echo", json!({"text": "local"})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("m"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    assert_eq!(recorded_calls(&env.only_session()).len(), 2);
    assert_eq!(
        contents(&env.tool_results(1)),
        ["connectors__tickets_open ok: {\"title\":\"T\"}", "local"]
    );
    assert_eq!(gw.dispatches().len(), 1);
}

#[test]
fn a_hook_blocks_the_write_entry_while_the_read_entry_of_the_batch_runs() {
    let env = TestEnv::new();
    let docs = env.cwd.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("a.txt"), "alpha").unwrap();
    let hook_log = env.home.path().join("hook.log");
    env.write_config(&format!(
        "[tools]\ndefer = \"always\"\n\n[[hooks.pre_tool_call]]\nmatch = \"mcp__files__write*\"\ncommand = \"cat >> {}; echo 'writes are blocked in this repo' >&2; exit 2\"\n",
        hook_log.display()
    ));
    env.add_server(
        "files",
        &format!(
            "command = {:?}\nargs = [{:?}]\nconcurrency = \"parallel\"",
            real_server("mcp-server-filesystem"),
            docs.display().to_string()
        ),
    );
    env.prefill("files");
    let args = batch(&[
        (
            "mcp__files__read_text_file",
            json!({"path": docs.join("a.txt")}),
        ),
        (
            "mcp__files__write_file",
            json!({"path": docs.join("b.txt"), "content": "beta"}),
        ),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("w"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(r[0], "alpha");
    assert_eq!(
        r[1],
        "Error: blocked by the pre_tool_call hook: writes are blocked in this repo"
    );
    assert!(!docs.join("b.txt").exists(), "the blocked write ran");
    let seen: Value =
        serde_json::from_str(std::fs::read_to_string(&hook_log).unwrap().trim()).unwrap();
    assert_eq!(
        seen["tool"], "mcp__files__write_file",
        "the hook must see the underlying tool"
    );
    let child_id = recorded_calls(&env.only_session())[1]["id"].clone();
    assert_legal_id(child_id.as_str().unwrap());
    assert_ne!(child_id, call_id("w"), "the child has an id of its own");
    assert_eq!(
        seen["call_id"], child_id,
        "the hook must see the child's id"
    );
}

#[test]
fn one_denied_entry_leaves_the_others() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.set_approvals("mode = \"auto\"\ndeny = [\"mcp__t__fail\"]");
    let args = batch(&[
        ("mcp__t__echo", json!({"text": "a"})),
        ("mcp__t__fail", json!({})),
        ("mcp__t__echo", json!({"text": "c"})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("d"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["-q", "go"]);
    run.ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(r[0], "a");
    assert_eq!(
        r[1],
        "Error: `mcp__t__fail` was not run: denied by rule approvals.deny[0]"
    );
    assert_eq!(r[2], "c");
    crate::assert_not_contains!(env.server_log("t"), "tools/call fail");
    // On the screen the denied entry is its tool, not `tool_call`.
    crate::assert_contains!(
        run.stderr,
        "  ✗ mcp__t__fail {} — denied by rule approvals.deny[0]"
    );
    crate::assert_not_contains!(run.stderr, "tool_call");
}

#[test]
fn entries_finishing_in_reverse_order_come_back_in_entry_order() {
    let env = TestEnv::deferred(&[("t", "concurrency = \"parallel\"")]);
    let args = batch(&[
        ("mcp__t__slow", json!({"ms": 600, "label": "first"})),
        ("mcp__t__slow", json!({"ms": 300, "label": "second"})),
        ("mcp__t__slow", json!({"ms": 1, "label": "third"})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("r"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["--json", "-q", "go"]);
    run.ok();
    let done: Vec<String> = env
        .server_log("t")
        .lines()
        .filter_map(|l| l.strip_prefix("slow done "))
        .map(str::to_string)
        .collect();
    assert_eq!(
        done,
        ["third", "second", "first"],
        "the server did not finish in reverse order"
    );
    assert_eq!(
        contents(&env.tool_results(1)),
        [
            "slept 600 ms first",
            "slept 300 ms second",
            "slept 1 ms third"
        ]
    );
    // The session file got them as they finished.
    let path = env.sessions().pop().unwrap();
    let persisted: Vec<String> = records(&path)
        .into_iter()
        .filter(|r| r["type"] == "tool_result")
        .map(|r| r["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        persisted,
        [
            "slept 1 ms third",
            "slept 300 ms second",
            "slept 600 ms first"
        ]
    );
}

#[test]
fn parallel_and_serial_servers_each_follow_their_policy() {
    let env = TestEnv::deferred(&[("p", "concurrency = \"parallel\""), ("s", "")]);
    let args = batch(&[
        ("mcp__s__slow", json!({"ms": 200, "label": "s1"})),
        ("mcp__p__slow", json!({"ms": 200, "label": "p1"})),
        ("mcp__s__slow", json!({"ms": 200, "label": "s2"})),
        ("mcp__p__slow", json!({"ms": 200, "label": "p2"})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("m"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let slow = |name: &str| -> Vec<String> {
        env.server_log(name)
            .lines()
            .filter(|l| l.starts_with("slow "))
            .map(|l| l.replace(" ms=200", ""))
            .collect()
    };
    assert_eq!(
        slow("s"),
        [
            "slow start s1",
            "slow done s1",
            "slow start s2",
            "slow done s2"
        ]
    );
    let p = slow("p");
    assert!(
        p[0].starts_with("slow start") && p[1].starts_with("slow start"),
        "{p:?}"
    );
    assert_eq!(
        contents(&env.tool_results(1)),
        [
            "slept 200 ms s1",
            "slept 200 ms p1",
            "slept 200 ms s2",
            "slept 200 ms p2"
        ]
    );
}

#[cfg(unix)]
#[test]
fn stop_mid_batch_never_sends_the_entries_that_had_not_started() {
    let env = TestEnv::deferred(&[("t", "")]);
    let args = batch(&[
        ("mcp__t__slow", json!({"ms": 20000, "label": "running"})),
        ("mcp__t__slow", json!({"ms": 10, "label": "waiting1"})),
        ("mcp__t__slow", json!({"ms": 10, "label": "waiting2"})),
    ]);
    interrupted_batch(&env, &[], &args, "slow start running");

    let log = env.server_log("t");
    assert_eq!(
        log.matches("recv tools/call").count(),
        1,
        "a not-started entry was sent:\n{log}"
    );
    assert!(
        !log.contains("waiting1") && !log.contains("waiting2"),
        "{log}"
    );
    crate::assert_contains!(log, "cancelled request");

    let path = env.sessions().pop().unwrap();
    let recs = records(&path); // every line parses: the file stays valid
    let calls = recorded_calls(&env.only_session());
    let results: Vec<&Value> = recs.iter().filter(|r| r["type"] == "tool_result").collect();
    assert_eq!(results.len(), 3, "every call id must keep a result");
    for c in &calls {
        let r = results
            .iter()
            .find(|r| r["tool_call_id"] == c["id"])
            .expect("paired result");
        assert_eq!(r["is_error"], true);
    }
    let texts: Vec<&str> = results
        .iter()
        .map(|r| r["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts
            .iter()
            .filter(|t| **t == "cancelled before it started")
            .count(),
        2,
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("interrupted by the user while running")),
        "{texts:?}"
    );
    assert_eq!(
        env.fake.requests().len(),
        1,
        "no model request after the stop"
    );
    crate::assert_contains!(log, "stdin closed");
}

#[test]
fn a_connectors_batch_is_checked_entry_by_entry_before_its_one_dispatch() {
    let env = TestEnv::deferred(&[]);
    let gw = FakeGateway::start();
    env.set_approvals("mode = \"auto\"\ndeny = [\"connectors__tickets_*\"]");
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str(&format!("\n[connectors]\nurl = \"{}\"\n", gw.url()));
    std::fs::write(env.config_path(), cfg).unwrap();
    let args = batch(&[
        ("connectors__crm_find_customer", json!({"name": "Ada"})),
        ("connectors__tickets_open", json!({"title": "T"})),
        ("connectors__crm_find_customer", json!({"name": 7})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("g"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let r: Value = serde_json::from_str(&contents(&env.tool_results(1))[0]).unwrap();
    assert_eq!(r["count"], 3);
    assert_eq!(
        r["results"][0]["content"],
        "connectors__crm_find_customer ok: {\"name\":\"Ada\"}"
    );
    assert_eq!(
        r["results"][1]["content"],
        "`connectors__tickets_open` was not run: denied by rule approvals.deny[0]"
    );
    assert!(
        r["results"][2]["content"]
            .as_str()
            .unwrap()
            .contains("/name: 7 is not of type \"string\""),
        "{r}"
    );
    let d = gw.dispatches();
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0]["calls"].as_array().unwrap().len(),
        1,
        "refused entries were sent: {d:?}"
    );
}

/// The turn's cap counts each entry of a connectors batch: a batch past
/// what is left is refused whole and never reaches the gateway.
#[test]
fn a_connectors_batch_counts_each_entry_against_the_turn_cap() {
    let env = TestEnv::deferred(&[("t", "")]);
    let gw = FakeGateway::start();
    env.set_approvals("mode = \"auto\"\nmax_tool_calls_per_turn = 3");
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str(&format!("\n[connectors]\nurl = \"{}\"\n", gw.url()));
    std::fs::write(env.config_path(), cfg).unwrap();
    let pair = |name: &str| {
        batch(&[
            ("connectors__crm_find_customer", json!({"name": name})),
            ("connectors__tickets_open", json!({"title": name})),
        ])
    };
    let (first, second) = (pair("Ada"), pair("Bob"));
    env.fake.push(Reply::tool_calls(&[
        (&call_id("b1"), "tool_call", &first),
        (&call_id("e1"), "mcp__t__echo", r#"{"text":"third"}"#),
        (&call_id("b2"), "tool_call", &second),
    ]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    let done: Value = serde_json::from_str(&r[0]).unwrap();
    assert_eq!(done["count"], 2, "{r:?}");
    assert_eq!(r[1], "third");
    crate::assert_contains!(r[2], "limit of 3 tool calls");
    let d = gw.dispatches();
    assert_eq!(d.len(), 1, "a batch past the cap was sent: {d:?}");

    // A batch larger than what is left is refused and costs nothing: the
    // single call after it still runs.
    let three = batch(&[
        ("connectors__crm_find_customer", json!({"name": "Cy"})),
        ("connectors__tickets_open", json!({"title": "Cy"})),
        ("connectors__crm_find_customer", json!({"name": "Di"})),
    ]);
    env.fake.push(Reply::tool_calls(&[
        (&call_id("e2"), "mcp__t__echo", r#"{"text":"first"}"#),
        (&call_id("b3"), "tool_call", &three),
        (&call_id("e3"), "mcp__t__echo", r#"{"text":"after"}"#),
    ]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "again"]).ok();
    let r = contents(&env.tool_results(3));
    assert_eq!(r[0], "first");
    crate::assert_contains!(r[1], "this batch is 3 tool calls and the turn has 2 left");
    assert_eq!(r[2], "after");
    assert_eq!(gw.dispatches().len(), 1, "the refused batch was sent");
}

/// SIGTERM and SIGHUP stop a run as Ctrl-C does — the turn stopped, every call
/// paired, the servers shut down — and hermes exits with 128 + the signal.
#[cfg(unix)]
#[test]
fn sigterm_and_sighup_stop_the_turn_and_the_servers_before_exiting() {
    for (signal, code, name) in [
        (libc::SIGTERM, 143, "SIGTERM"),
        (libc::SIGHUP, 129, "SIGHUP"),
    ] {
        let env = TestEnv::deferred(&[("t", "")]);
        let args = batch(&[
            ("mcp__t__slow", json!({"ms": 20000, "label": "running"})),
            ("mcp__t__slow", json!({"ms": 10, "label": "waiting"})),
        ]);
        env.fake
            .push(Reply::tool_calls(&[(&call_id("sig"), "tool_call", &args)]));
        let child = env.spawn(&["-q", "go"]);
        crate::support::wait_for("the first entry to start", || {
            env.server_log("t").contains("slow start running")
        });
        // SAFETY: kill(2) with the pid of a child this test spawned.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{name}: {stderr}");
        crate::assert_contains!(stderr, format!("stopped by {name}"));
        let log = env.server_log("t");
        crate::assert_contains!(log, "cancelled request");
        crate::assert_contains!(log, "stdin closed, exiting");
        crate::assert_not_contains!(log, "slow start waiting");
        let results = records(&env.only_session())
            .into_iter()
            .filter(|r| r["type"] == "tool_result")
            .count();
        assert_eq!(results, 2, "{name}: every call id must keep a result");
    }
}

/// A second signal does not wait for the shutdown: a server that ignores
/// both a closed stdin and SIGTERM is killed, and hermes exits at once.
#[cfg(unix)]
#[test]
fn a_second_signal_during_shutdown_exits_at_once_and_leaves_no_server() {
    let env = TestEnv::deferred(&[("t", "args = [\"--linger-ms\", \"30000\"]")]);
    let args = batch(&[("mcp__t__slow", json!({"ms": 20000, "label": "running"}))]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("twice"),
        "tool_call",
        &args,
    )]));
    let child = env.spawn(&["-q", "go"]);
    crate::support::wait_for("the entry to start", || {
        env.server_log("t").contains("slow start running")
    });
    let pid: i32 = env
        .server_log("t")
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("test server: pid "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // `mcp test` (the catalog fill) already left one such line.
    let lingered = || env.server_log("t").matches("lingering").count();
    let before = lingered();
    crate::support::interrupt(&child);
    crate::support::wait_for("the shutdown to begin", || lingered() > before);
    let second = std::time::Instant::now();
    crate::support::interrupt(&child);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    // The graceful shutdown alone would wait 2 s for stdin, then 1 s after SIGTERM.
    let took = second.elapsed();
    assert!(
        took < Duration::from_millis(1500),
        "{took:?}; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::support::wait_for("the server to be gone", || {
        // SAFETY: kill(2) with signal 0 only checks whether the pid exists.
        unsafe { libc::kill(pid, 0) != 0 }
    });
}

/// Each entry of a connectors batch is its own call to the user and the
/// hooks: queued and started under its own id, tool and arguments, and
/// `post_tool_call` once per entry sent — around the one dispatch.
#[test]
fn a_connectors_batch_reports_and_post_hooks_each_entry() {
    let env = TestEnv::new();
    let gw = FakeGateway::start();
    let hook_log = env.home.path().join("post.log");
    env.write_config(&format!(
        "[tools]\ndefer = \"always\"\n\n[connectors]\nurl = \"{}\"\n\n[[hooks.post_tool_call]]\ncommand = \"cat >> {}\"\n",
        gw.url(),
        hook_log.display()
    ));
    let args = batch(&[
        ("connectors__crm_find_customer", json!({"name": "Ada"})),
        ("connectors__tickets_open", json!({"title": "T"})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("cb"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["--json", "-q", "go"]);
    run.ok();
    let started: Vec<(String, String)> = run
        .events()
        .iter()
        .filter(|e| e["type"] == "tool_call_started")
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(started.len(), 2, "{started:?}");
    assert_eq!(
        started[0],
        (call_id("cb"), "connectors__crm_find_customer".to_string())
    );
    assert_eq!(started[1].1, "connectors__tickets_open");
    assert_ne!(started[1].0, started[0].0);
    let seen: Vec<Value> = std::fs::read_to_string(&hook_log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tools: Vec<&str> = seen.iter().map(|h| h["tool"].as_str().unwrap()).collect();
    assert_eq!(
        tools,
        ["connectors__crm_find_customer", "connectors__tickets_open"]
    );
    assert_eq!(seen[1]["call_id"], started[1].0.as_str());
    assert_eq!(gw.dispatches().len(), 1, "still one dispatch");
    // Every sent entry ends, once, under its own id, in the state the
    // gateway gave it.
    let finished: Vec<(String, String, bool, String)> = run
        .events()
        .iter()
        .filter(|e| e["type"] == "tool_call_finished")
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
                e["is_error"].as_bool().unwrap(),
                e["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(finished.len(), 2, "{finished:?}");
    for ((id, name), f) in started.iter().zip(&finished) {
        assert_eq!((&f.0, &f.1, f.2), (id, name, false), "{finished:?}");
        assert!(f.3.starts_with(&format!("{name} ok: ")), "{finished:?}");
    }
}

/// On the terminal, each entry of a connectors batch the gateway ran shows
/// as done, with its own result — never as cancelled.
#[test]
fn a_connectors_batch_shows_each_entry_done() {
    let env = TestEnv::new();
    let gw = FakeGateway::start();
    env.write_config(&format!(
        "[tools]\ndefer = \"always\"\n\n[connectors]\nurl = \"{}\"\n",
        gw.url()
    ));
    let args = batch(&[
        ("connectors__crm_find_customer", json!({"name": "Ada"})),
        ("connectors__tickets_open", json!({"title": "T"})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("cb"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["-q", "go"]);
    run.ok();
    crate::assert_contains!(
        run.stderr,
        "✓ connectors__crm_find_customer {\"name\":\"Ada\"} — connectors__crm_find_customer ok"
    );
    crate::assert_contains!(
        run.stderr,
        "✓ connectors__tickets_open {\"title\":\"T\"} — connectors__tickets_open ok"
    );
    crate::assert_not_contains!(run.stderr, "cancelled");
    crate::assert_not_contains!(run.stderr, "tool_call");
}

/// A write or an edit after a command in the same batch (issue 69), run
/// with no question (`--yolo`): planned again at its turn, on the file as
/// the command left it — never refused as "changed since it was shown".
#[test]
fn a_write_after_a_command_in_one_batch_sees_what_the_command_left() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\nbuiltin = {}\n",
        crate::support::calls::ALL_BUILTINS
    ));
    shell_then_write_batches(&env);
    env.run(&["--yolo", "-q", "go"]).ok();
    assert_the_writes_saw_what_the_commands_left(&env);
}

/// The same four batches put to a person (`--json-answers`, mode ask):
/// each entry is asked once — the write at its turn, its diff the one on
/// the file as the command left it — never again as "changed since".
#[test]
fn a_write_after_a_command_is_asked_once_at_its_turn_with_the_diff_it_writes() {
    use std::io::{BufRead, Write};
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\nbuiltin = {}\n\n[approvals]\nmode = \"ask\"\n",
        crate::support::calls::ALL_BUILTINS
    ));
    shell_then_write_batches(&env);
    let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "go"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut asked: Vec<Value> = Vec::new();
    for line in stdout.lines() {
        let ev: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if ev["type"] == "approval_asked" {
            let id = ev["id"].as_str().unwrap();
            writeln!(stdin, r#"{{"id":"{id}","answer":"once"}}"#).unwrap();
            asked.push(ev);
        }
    }
    assert!(child.wait().unwrap().success());
    let ids: Vec<&str> = asked.iter().map(|a| a["id"].as_str().unwrap()).collect();
    let mut once = ids.clone();
    once.sort();
    once.dedup();
    assert_eq!(once.len(), ids.len(), "an entry asked twice: {ids:?}");
    assert_eq!(ids.len(), 8, "every entry asked: {ids:?}");
    let preview = |label: &str| {
        asked
            .iter()
            .find(|a| a["id"] == call_id(label))
            .and_then(|a| a["preview"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    // What was shown is what the command left, and what was written.
    crate::assert_contains!(preview("e2"), "-beta\n+gamma");
    crate::assert_contains!(preview("w1"), "+written after");
    crate::assert_not_contains!(preview("w1"), "-alpha");
    crate::assert_contains!(preview("w3"), "-made\n+replaced");
    crate::assert_contains!(preview("e4"), "-delta\n+epsilon");
    assert_the_writes_saw_what_the_commands_left(&env);
}

/// One batch of four shell-then-write pairs (issue 69): a write after an
/// `rm`, an edit of what a command appended, a write over what a command
/// made, an edit of what a command rewrote; then "done".
fn shell_then_write_batches(env: &TestEnv) {
    use crate::support::calls::reply_calls;
    let cwd = env.cwd.path();
    for f in ["removed.txt", "appended.txt", "rewritten.txt"] {
        std::fs::write(cwd.join(f), "alpha\n").unwrap();
    }
    env.fake.push(reply_calls(&[
        ("s1", "shell", json!({"command": "rm removed.txt"})),
        (
            "w1",
            "write_file",
            json!({"path": "removed.txt", "content": "written after\n"}),
        ),
        (
            "s2",
            "shell",
            json!({"command": "echo beta >> appended.txt"}),
        ),
        (
            "e2",
            "edit_file",
            json!({"path": "appended.txt", "old_string": "beta", "new_string": "gamma"}),
        ),
        ("s3", "shell", json!({"command": "echo made > made.txt"})),
        (
            "w3",
            "write_file",
            json!({"path": "made.txt", "content": "replaced\n"}),
        ),
        (
            "s4",
            "shell",
            json!({"command": "sed -i s/alpha/delta/ rewritten.txt"}),
        ),
        (
            "e4",
            "edit_file",
            json!({"path": "rewritten.txt", "old_string": "delta", "new_string": "epsilon"}),
        ),
    ]));
    env.fake.push(Reply::text("done"));
}

/// Every entry of [`shell_then_write_batches`] ran, and each write saw
/// what its command left.
fn assert_the_writes_saw_what_the_commands_left(env: &TestEnv) {
    let cwd = env.cwd.path();
    let results = env.results_of(1);
    for (id, text, _) in &results {
        assert!(!text.contains("changed after"), "{id}: {text}");
        assert!(!text.starts_with("Error"), "{id}: {text}");
    }
    let read = |p: &str| std::fs::read_to_string(cwd.join(p)).unwrap();
    assert_eq!(read("removed.txt"), "written after\n");
    assert_eq!(read("appended.txt"), "alpha\ngamma\n");
    assert_eq!(read("made.txt"), "replaced\n");
    assert_eq!(read("rewritten.txt"), "epsilon\n");
}

/// A write after a command, denied at its turn: not written, the model
/// told it was denied; the command's own file stays as the command left it.
#[test]
fn a_write_after_a_command_denied_at_its_turn_is_not_written() {
    use std::io::{BufRead, Write};
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\nbuiltin = {}\n\n[approvals]\nmode = \"ask\"\n",
        crate::support::calls::ALL_BUILTINS
    ));
    env.fake.push(crate::support::calls::reply_calls(&[
        ("mk", "shell", json!({"command": "echo made > m.txt"})),
        (
            "over",
            "write_file",
            json!({"path": "m.txt", "content": "replaced\n"}),
        ),
    ]));
    env.fake.push(Reply::text("done"));
    let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "go"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    for line in stdout.lines() {
        let ev: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if ev["type"] == "approval_asked" {
            let id = ev["id"].as_str().unwrap();
            let answer = if id == call_id("over") {
                "deny"
            } else {
                "once"
            };
            writeln!(stdin, r#"{{"id":"{id}","answer":"{answer}"}}"#).unwrap();
        }
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("m.txt")).unwrap(),
        "made\n"
    );
    let results = env.results_of(1);
    let (_, text, _) = results
        .iter()
        .find(|(id, _, _)| *id == call_id("over"))
        .expect("the write's result");
    crate::assert_contains!(text, "denied");
}
