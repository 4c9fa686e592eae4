//! What a network does to a remote server, each fault brought on cue by a
//! proxy in front of the real server-everything: a stream cut in the middle
//! of a result, a session the server forgot, a token refused mid-session, a
//! server too slow for the call's timeout. Each ends in a result or a
//! one-line error that says what happened, and the session goes on.

use std::time::Duration;

use serde_json::json;

use crate::support::calls::{batch, contents};
use crate::support::everything::Everything;
use crate::support::fault_proxy::{Fault, FaultProxy};
use crate::support::{call_id, Reply, TestEnv};

/// server-everything behind a fault proxy, configured as server `ev` with
/// `extra` config lines.
fn proxied(extra: &str) -> (Everything, FaultProxy, TestEnv) {
    let ev = Everything::start();
    let proxy = FaultProxy::start(ev.port);
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"never\"\n");
    env.add_server(
        "ev",
        &format!("url = \"http://127.0.0.1:{}/mcp\"\n{extra}", proxy.port),
    );
    (ev, proxy, env)
}

/// A one-shot run whose model calls `echo` on `ev` once per message, in
/// one batch; the results in entry order.
fn echo_batch(env: &TestEnv, messages: &[&str]) -> Vec<String> {
    let entries: Vec<_> = messages
        .iter()
        .map(|m| ("mcp__ev__echo", json!({ "message": m })))
        .collect();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("echoes"),
        "tool_call",
        &batch(&entries),
    )]));
    env.fake.push(Reply::text("done"));
    let out = crate::support::Run::from(
        env.cmd()
            .env("EV_TOKEN", "ev-token-31415926535")
            .args(["-q", "echo"])
            .output()
            .unwrap(),
    );
    out.ok();
    contents(&env.tool_results(1))
}

#[test]
fn a_stream_cut_mid_result_is_resumed_after_the_last_event_it_brought() {
    let (_ev, proxy, env) = proxied("concurrency = 1");
    proxy.on_next("\"cut here\"", Fault::CutMidResult);
    let r = echo_batch(&env, &["cut here", "after the cut"]);
    // The result came again on a GET that resumed after the last event
    // the cut stream delivered (the server keeps an event store).
    assert_eq!(r, ["Echo: cut here", "Echo: after the cut"]);
    assert!(
        proxy
            .seen()
            .iter()
            .any(|s| s.method == "GET" && s.last_event_id.is_some()),
        "{:?}",
        proxy.seen()
    );
}

#[test]
fn an_expired_session_is_initialised_again_and_the_call_goes_through() {
    let (_ev, proxy, env) = proxied("");
    proxy.on_next("\"forgotten\"", Fault::Answer(404, ""));
    let r = echo_batch(&env, &["forgotten"]);
    assert_eq!(r[0], "Echo: forgotten");
    assert_eq!(
        proxy.count("\"method\":\"initialize\""),
        2,
        "{:?}",
        proxy.seen()
    );
}

#[test]
fn a_token_refused_mid_session_names_the_variable_to_fix() {
    let (_ev, proxy, env) = proxied("bearer_token_env = \"EV_TOKEN\"\nconcurrency = 1");
    proxy.on_next(
        "\"refused\"",
        Fault::Answer(401, "www-authenticate: Bearer error=\"invalid_token\"\r\n"),
    );
    let r = echo_batch(&env, &["fine", "refused", "fine again"]);
    assert_eq!(r[0], "Echo: fine");
    assert_eq!(
        r[1],
        "Error: server `ev` refused the token in $EV_TOKEN (Bearer error=\"invalid_token\"); set a valid token and try again"
    );
    assert_eq!(r[2], "Echo: fine again");
}

#[test]
fn a_server_too_slow_for_the_timeout_is_cancelled_and_told() {
    let (_ev, proxy, env) = proxied("tool_timeout_ms = 400");
    proxy.on_next("\"slowpoke\"", Fault::Delay(Duration::from_secs(3)));
    let r = echo_batch(&env, &["slowpoke"]);
    crate::assert_contains!(
        r[0],
        "`echo` on server `ev` timed out after 400 ms and was cancelled"
    );
    crate::support::wait_for("notifications/cancelled", || {
        proxy.count("notifications/cancelled") == 1
    });
}

#[test]
fn the_session_is_deleted_when_hermes_is_done() {
    let (_ev, proxy, env) = proxied("");
    env.run(&["mcp", "call", "ev", "echo", r#"{"message":"bye"}"#])
        .ok();
    let seen = proxy.seen();
    let session = seen.iter().find_map(|s| s.session.clone()).unwrap();
    assert!(
        seen.iter()
            .any(|s| s.method == "DELETE" && s.session.as_deref() == Some(&*session)),
        "{seen:?}"
    );
}

#[test]
fn a_server_gone_mid_call_is_reported_with_its_url() {
    let (mut ev, proxy, env) = proxied("concurrency = 1");
    proxy.on_next("\"doomed\"", Fault::Delay(Duration::from_millis(800)));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("doomed"),
        "tool_call",
        &batch(&[("mcp__ev__echo", json!({ "message": "doomed" }))]),
    )]));
    env.fake.push(Reply::text("done"));
    let child = env.spawn(&["-q", "echo"]);
    crate::support::wait_for("the doomed call to reach the proxy", || {
        proxy.count("\"doomed\"") == 1
    });
    ev.kill();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(
        r[0],
        format!(
            "Error: server `ev` at http://127.0.0.1:{}/mcp lost the connection (",
            proxy.port
        )
    );
    crate::assert_contains!(
        r[0],
        "during the call to `echo`; hermes connects again on the next call"
    );
    crate::assert_not_contains!(r[0], "rmcp::");
}

/// server-everything restarted under a session: it answers the old session
/// id with 400 and a JSON-RPC error without an id, not 404. hermes reads it
/// as the lost session it is, starts a new one and sends the call again —
/// instead of waiting out the tool timeout for an answer that never comes.
#[test]
fn a_restarted_server_gets_a_new_session_and_the_call_goes_through() {
    let (ev, proxy, env) = proxied("tool_timeout_ms = 60000");
    let port = ev.port;
    let ev = std::sync::Arc::new(std::sync::Mutex::new(Some(ev)));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("before"),
        "tool_call",
        &batch(&[("mcp__ev__echo", json!({ "message": "before" }))]),
    )]));
    let served = std::sync::atomic::AtomicUsize::new(0);
    let holder = ev.clone();
    env.fake.respond_with(move |_| {
        if served.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
            return Reply::text("done");
        }
        // The server restarts between the two calls, on the same port.
        let mut slot = holder.lock().unwrap();
        drop(slot.take());
        *slot = Some(Everything::on(port, "streamableHttp"));
        Reply::tool_calls(&[(
            &call_id("after"),
            "tool_call",
            &batch(&[("mcp__ev__echo", json!({ "message": "after" }))]),
        )])
    });
    let started = std::time::Instant::now();
    let run = env.run(&["-q", "echo twice"]);
    // The fake's responder holds the server: end it here, whatever follows.
    drop(ev.lock().unwrap().take());
    run.ok();
    assert_eq!(contents(&env.tool_results(1)), ["Echo: before"]);
    let after = contents(&env.tool_results(2));
    assert_eq!(
        after.last().map(String::as_str),
        Some("Echo: after"),
        "{after:?}"
    );
    assert_eq!(
        proxy.count("\"method\":\"initialize\""),
        2,
        "{:?}",
        proxy.seen()
    );
    // Not waited out: far under the 60 s tool timeout.
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// A server gone between two calls (its port closed): the second call fails
/// at once with the server's URL, not after the 60 s tool timeout.
#[test]
fn a_server_gone_between_calls_fails_at_once() {
    let (ev, _proxy, env) = proxied("tool_timeout_ms = 60000");
    let ev = std::sync::Arc::new(std::sync::Mutex::new(Some(ev)));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("before"),
        "tool_call",
        &batch(&[("mcp__ev__echo", json!({ "message": "before" }))]),
    )]));
    let served = std::sync::atomic::AtomicUsize::new(0);
    let holder = ev.clone();
    env.fake.respond_with(move |_| {
        if served.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
            return Reply::text("done");
        }
        drop(holder.lock().unwrap().take());
        Reply::tool_calls(&[(
            &call_id("after"),
            "tool_call",
            &batch(&[("mcp__ev__echo", json!({ "message": "after" }))]),
        )])
    });
    let started = std::time::Instant::now();
    let run = env.run(&["-q", "echo twice"]);
    let took = started.elapsed();
    drop(ev.lock().unwrap().take());
    run.ok();
    let after = contents(&env.tool_results(2));
    let last = after.last().cloned().unwrap_or_default();
    crate::assert_contains!(last, "server `ev`");
    crate::assert_contains!(last, "/mcp lost the connection");
    assert!(!last.contains("timed out"), "{last}");
    assert!(took < Duration::from_secs(20), "took {took:?}: {last}");
}
