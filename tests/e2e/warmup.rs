//! Servers started before the call arrives: on the hits of a tool_search or
//! tool_describe, on the user's own words when a turn starts, and on resume
//! for the tools the last turn used — and never for nothing.

use std::time::Duration;

use crate::support::fake_provider::call_id;
use crate::support::{Reply, TestEnv};

/// A deferred env with the test server `t` (catalog cached) and `warm_up`.
fn env_with(warm_up: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\ndefer = \"always\"\nwarm_up = \"{warm_up}\"\n"
    ));
    env.add_test_server("t", "");
    env.prefill("t");
    // The log from here on: runs, not the catalog fill above.
    let _ = std::fs::remove_file(env.home.path().join("logs/mcp/t.log"));
    env
}

/// Milliseconds stamped on the test server's log lines for `what`.
fn stamps(env: &TestEnv, what: &str) -> Vec<u128> {
    env.server_log("t")
        .lines()
        .filter(|l| l.contains(what))
        .filter_map(|l| l.rsplit_once(" at=")?.1.trim().parse().ok())
        .collect()
}

/// The model searches, thinks 800 ms, then calls what it found.
fn search_then_call(env: &TestEnv) {
    env.fake.push(Reply::tool_calls(&[(
        &call_id("search"),
        "tool_search",
        r#"{"queries":["echo text back"]}"#,
    )]));
    env.fake.push(
        Reply::tool_calls(&[(
            &call_id("call"),
            "tool_call",
            r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"hi"}}]}"#,
        )])
        .delayed(Duration::from_millis(800)),
    );
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "say hi through the server"]).ok();
}

#[test]
fn a_search_hit_starts_its_server_before_the_call_arrives() {
    let warm = env_with("hits");
    search_then_call(&warm);
    let (start, call) = (
        stamps(&warm, "recv initialize"),
        stamps(&warm, "recv tools/call"),
    );
    assert_eq!(
        (start.len(), call.len()),
        (1, 1),
        "{}",
        warm.server_log("t")
    );
    assert!(
        call[0] - start[0] >= 600,
        "started {} ms before the call",
        call[0] - start[0]
    );
    // The same run with the warm-up off starts the server on the call.
    let cold = env_with("off");
    search_then_call(&cold);
    let (start, call) = (
        stamps(&cold, "recv initialize"),
        stamps(&cold, "recv tools/call"),
    );
    assert_eq!((start.len(), call.len()), (1, 1));
    assert!(call[0] - start[0] < 600, "{} ms", call[0] - start[0]);
}

#[test]
fn the_users_words_start_the_server_they_point_at_and_small_talk_starts_none() {
    let env = env_with("predict");
    env.fake
        .push(Reply::text("Sure.").delayed(Duration::from_millis(700)));
    env.run(&["-q", "echo this text back to me"]).ok();
    assert_eq!(stamps(&env, "recv initialize").len(), 1, "not started");
    assert!(stamps(&env, "recv tools/call").is_empty());
    // Words that point at no tool start nothing.
    let env = env_with("predict");
    env.fake
        .push(Reply::text("Hello!").delayed(Duration::from_millis(700)));
    env.run(&["-q", "hello, how are you today?"]).ok();
    assert!(
        stamps(&env, "recv initialize").is_empty(),
        "{}",
        env.server_log("t")
    );
    // And `hits` does not guess from the user's words.
    let env = env_with("hits");
    env.fake
        .push(Reply::text("Sure.").delayed(Duration::from_millis(700)));
    env.run(&["-q", "echo this text back to me"]).ok();
    assert!(stamps(&env, "recv initialize").is_empty());
}

#[test]
fn describe_starts_the_servers_of_the_tools_it_names() {
    let env = env_with("hits");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("describe"),
        "tool_describe",
        r#"{"names":["mcp__t__slow"]}"#,
    )]));
    env.fake
        .push(Reply::text("I know enough.").delayed(Duration::from_millis(700)));
    env.run(&["-q", "look it up"]).ok();
    assert_eq!(stamps(&env, "recv initialize").len(), 1);
}

#[test]
fn a_resumed_session_starts_the_servers_its_last_turn_used() {
    // The second resume follows a turn that made no calls: the turn
    // before it still names the server.
    for (mode, starts) in [("hits", 3), ("off", 1)] {
        let env = env_with(mode);
        env.fake.push(Reply::tool_calls(&[(
            &call_id("call"),
            "tool_call",
            r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"hi"}}]}"#,
        )]));
        env.fake.push(Reply::text("done"));
        let r1 = env.run(&["-q", "say hi"]).stderr;
        env.fake
            .push(Reply::text("You're welcome.").delayed(Duration::from_millis(700)));
        let r2 = env.run(&["--continue", "-q", "thanks"]).stderr;
        env.fake
            .push(Reply::text("Bye.").delayed(Duration::from_millis(700)));
        let r3 = env.run(&["--continue", "-q", "bye"]).stderr;
        assert_eq!(
            stamps(&env, "recv initialize").len(),
            starts,
            "warm_up = {mode}: {}",
            env.server_log("t")
        );
        // A server started ahead and never called is stopped at exit.
        assert_eq!(
            env.server_log("t").matches("stdin closed, exiting").count(),
            starts,
            "{mode}\n{}\nRUN1 {r1}\nRUN2 {r2}\nRUN3 {r3}",
            env.server_log("t")
        );
    }
}

/// On a cold start tool_search waits for the catalogs being filled, but no
/// longer than `search_wait_ms`: a server slow to start is named in
/// `not_searched`, and the others' tools are found.
#[test]
fn a_cold_search_answers_within_its_bound_and_names_the_slow_server() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\nsearch_wait_ms = 400\n");
    env.add_test_server("t", "");
    env.prefill("t");
    let delay = env.home.path().join("delay");
    std::fs::write(&delay, "6000").unwrap();
    env.add_test_server(
        "slowpoke",
        &format!(
            "args = [\"--handshake-delay-file\", {:?}]\nstartup_timeout_ms = 20000",
            delay.display().to_string()
        ),
    );
    env.fake.push(Reply::tool_calls(&[(
        &call_id("search"),
        "tool_search",
        r#"{"queries":["echo text back"]}"#,
    )]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "find a tool"]).ok();
    let reqs = env.fake.requests();
    let waited = reqs[1].first_byte - reqs[0].first_byte;
    assert!(waited < Duration::from_millis(3000), "waited {waited:?}");
    let found = env.tool_results(1);
    let answer: serde_json::Value =
        serde_json::from_str(found[0]["content"].as_str().unwrap()).unwrap();
    crate::assert_contains!(answer["not_searched"].as_str().unwrap(), "slowpoke");
    assert_eq!(answer["results"][0]["matches"][0], "mcp__t__echo");
}

/// A guess that fails does not fail the server for the session: the call
/// that follows starts it again, and its error is the call's own.
#[test]
fn a_failed_warm_up_leaves_the_server_for_the_call_to_start() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\nwarm_up = \"hits\"\n");
    let delay = env.home.path().join("delay");
    std::fs::write(&delay, "0").unwrap();
    env.add_test_server(
        "t",
        &format!(
            "args = [\"--handshake-delay-file\", {:?}]\nstartup_timeout_ms = 300",
            delay.display().to_string()
        ),
    );
    env.prefill("t");
    // From now on every start times out.
    std::fs::write(&delay, "1500").unwrap();
    let _ = std::fs::remove_file(env.home.path().join("logs/mcp/t.log"));
    search_then_call(&env);
    let log = env.server_log("t");
    assert_eq!(log.matches("recv initialize").count(), 2, "{log}");
    let out = env.tool_results(2);
    let call = out.last().unwrap()["content"].as_str().unwrap();
    crate::assert_contains!(call, "`t`");
}

/// Guesses never keep more servers up than `servers_started_at_once`.
#[test]
fn warm_ups_stop_at_the_servers_started_at_once_limit() {
    let env = TestEnv::new();
    env.write_config(
        "[tools]\ndefer = \"always\"\nwarm_up = \"hits\"\n[limits]\nservers_started_at_once = 1\n",
    );
    for s in ["a", "b"] {
        env.add_test_server(s, "");
        env.prefill(s);
        let _ = std::fs::remove_file(env.home.path().join(format!("logs/mcp/{s}.log")));
    }
    env.fake.push(Reply::tool_calls(&[(
        &call_id("search"),
        "tool_search",
        r#"{"queries":["echo text back"]}"#,
    )]));
    env.fake
        .push(Reply::text("enough").delayed(Duration::from_millis(700)));
    env.run(&["-q", "find it"]).ok();
    let started = ["a", "b"]
        .iter()
        .filter(|s| env.server_log(s).contains("recv initialize"))
        .count();
    assert_eq!(started, 1);
}
