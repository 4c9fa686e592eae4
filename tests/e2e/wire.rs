//! What hermes sends is what a real provider accepts, and a session's next
//! request always starts with its previous one, byte for byte — across
//! `--continue` too (contract §5–§7). Every request here goes to the strict
//! fake provider, which answers 400 to what the real API rejects.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::calls::{batch, contents, interrupted_batch, recorded_calls};
use crate::support::fake_provider::{delta, finish, usage};
use crate::support::wire::assert_each_request_extends_the_previous;
use crate::support::{assert_legal_id, call_id, records, Reply, TestEnv};

fn reverse_finishing_batch(tag: &str) -> String {
    batch(&[
        (
            "mcp__t__slow",
            json!({"ms": 600, "label": format!("{tag}-first")}),
        ),
        (
            "mcp__t__slow",
            json!({"ms": 300, "label": format!("{tag}-second")}),
        ),
        (
            "mcp__t__slow",
            json!({"ms": 1, "label": format!("{tag}-third")}),
        ),
    ])
}

#[test]
fn every_request_starts_with_the_previous_one_across_continue_on_a_parallel_server() {
    let env = TestEnv::new();
    // `auto` with no catalog known yet defers; once the catalog is cached the
    // same config would list the tools directly — unless the session keeps
    // the decision it made.
    env.write_config("[tools]\ndefer = \"auto\"\n");
    env.add_test_server("t", "concurrency = \"parallel\"");

    env.fake.push(Reply::tool_calls(&[(
        &call_id("B1"),
        "tool_call",
        &reverse_finishing_batch("one"),
    )]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("B2"),
        "tool_call",
        &reverse_finishing_batch("two"),
    )]));
    env.fake.push(Reply::text("done again"));
    env.run(&["--continue", "-q", "more"]).ok();
    env.fake.push(Reply::text("bye"));
    env.run(&["--continue", "-q", "and again"]).ok();

    let done: Vec<String> = env
        .server_log("t")
        .lines()
        .filter_map(|l| l.strip_prefix("slow done "))
        .map(str::to_string)
        .collect();
    assert_eq!(
        done,
        [
            "one-third",
            "one-second",
            "one-first",
            "two-third",
            "two-second",
            "two-first"
        ],
        "the entries did not finish in reverse order"
    );
    assert_eq!(env.fake.requests().len(), 5);
    assert_each_request_extends_the_previous(&env);
    assert_eq!(
        contents(&env.tool_results(1)),
        [
            "slept 600 ms one-first",
            "slept 300 ms one-second",
            "slept 1 ms one-third"
        ]
    );
    assert!(crate::support::tool_names(&env.fake.requests()[4].json())
        .contains(&"tool_call".to_string()));

    // A new session under the same config now lists the tools directly: the
    // resumed one above kept its bridge tools only because it recorded them.
    env.fake.push(Reply::text("fresh"));
    env.run(&["-q", "new session"]).ok();
    let fresh = crate::support::tool_names(&env.fake.requests()[5].json());
    assert!(
        fresh.contains(&"mcp__t__echo".to_string()) && !fresh.contains(&"tool_call".to_string()),
        "{fresh:?}"
    );
}

#[test]
fn a_batch_with_one_bad_entry_runs_the_others() {
    let env = TestEnv::deferred(&[("t", "")]);
    let args = json!({"calls": [
        {"name": "mcp__t__echo", "arguments": {"text": "a"}},
        {"name": "mcp__t__echo", "arguments": "{\"text\": oops"},
        {"name": "mcp__t__echo", "arguments": {"text": "c"}},
    ]})
    .to_string();
    env.fake
        .push(Reply::tool_calls(&[(&call_id("Bad"), "tool_call", &args)]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    assert_eq!(
        recorded_calls(&env.only_session()).len(),
        3,
        "the batch was not split"
    );
    let r = contents(&env.tool_results(1));
    assert_eq!(r[0], "a");
    assert_eq!(
        r[1],
        "Error: `arguments` of `mcp__t__echo` is a string that is not a JSON object; send an object"
    );
    assert_eq!(r[2], "c");
    assert_eq!(
        env.server_log("t").matches("recv tools/call echo").count(),
        2
    );
}

#[test]
fn a_call_on_a_cold_start_waits_for_its_servers_catalog() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.add_test_server("t", "");
    // No catalog cached: the model (say, from a resumed conversation)
    // already knows the names.
    let one = batch(&[("mcp__t__echo", json!({"text": "through tool_call"}))]);
    env.fake.push(Reply::tool_calls(&[
        (&call_id("Cold1"), "tool_call", &one),
        (&call_id("Cold2"), "mcp__t__echo", r#"{"text":"direct"}"#),
    ]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    assert_eq!(
        contents(&env.tool_results(1)),
        ["through tool_call", "direct"]
    );
}

/// A bare name on a cold start waits for the catalogs as a full name does,
/// so its answer names the full name — as it does once they are cached.
#[test]
fn a_bare_name_on_a_cold_start_is_told_its_full_name() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.add_test_server("probe", "");
    let one = batch(&[("echo", json!({"text": "hi"}))]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("Bare1"), "tool_call", &one)]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    assert_eq!(
        contents(&env.tool_results(1)),
        ["Error: `echo` is not a full tool name; use `mcp__probe__echo`"]
    );
}

/// A streamed reply whose tool calls carry no id, as some
/// OpenAI-compatible servers send them.
fn calls_without_ids(calls: &[(&str, &str)]) -> Reply {
    let mut events = Vec::new();
    for (i, (name, args)) in calls.iter().enumerate() {
        events.push(delta(
            json!({"tool_calls": [{"index": i, "type": "function",
            "function": {"name": name, "arguments": args}}]}),
        ));
    }
    events.push(finish("tool_calls"));
    events.push(usage(20, 10));
    Reply::sse(events)
}

#[test]
fn calls_without_ids_get_ids_unique_in_the_session() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"echo\"]\n");
    for _ in 0..2 {
        env.fake.push(calls_without_ids(&[
            ("echo", r#"{"text":"same"}"#),
            ("echo", r#"{"text":"same"}"#),
        ]));
    }
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    env.fake.push(Reply::text("still fine"));
    env.run(&["--continue", "-q", "more"]).ok();

    let ids: Vec<String> = recorded_calls(&env.only_session())
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 4);
    for id in &ids {
        assert_legal_id(id);
    }
    let unique: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), 4, "ids repeat within the session: {ids:?}");
    assert_each_request_extends_the_previous(&env);
}

#[cfg(unix)]
#[test]
fn a_stop_while_the_server_is_still_starting_returns_at_once_and_sends_nothing() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    let delay = env.home.path().join("handshake-delay");
    env.add_test_server(
        "t",
        &format!(
            "args = [\"--handshake-delay-file\", {:?}]\nstartup_timeout_ms = 60000",
            delay.display().to_string()
        ),
    );
    env.prefill("t");
    std::fs::write(&delay, "30000").unwrap();
    let args = batch(&[
        ("mcp__t__echo", json!({"text": "one"})),
        ("mcp__t__echo", json!({"text": "two"})),
    ]);
    let (_, took) = interrupted_batch(&env, &[], &args, "starting slowly");
    // The handshake alone would take 30 s; the stop must not wait for it.
    assert!(took < Duration::from_secs(15), "{took:?}");
    let log = env.server_log("t");
    crate::assert_not_contains!(log, "recv tools/call");
    let recs = records(&env.sessions().pop().unwrap());
    let results: Vec<&str> = recs
        .iter()
        .filter(|r| r["type"] == "tool_result")
        .map(|r| r["content"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["cancelled before it started"; 2]);
}

#[cfg(unix)]
#[test]
fn after_a_stop_no_post_hook_runs_for_entries_that_were_never_sent() {
    let env = TestEnv::new();
    let hook_log = env.home.path().join("post.log");
    env.write_config(&format!(
        "[tools]\ndefer = \"always\"\n\n[[hooks.post_tool_call]]\ncommand = \"cat >> {}\"\n",
        hook_log.display()
    ));
    env.add_test_server("t", "");
    env.prefill("t");
    let args = batch(&[
        ("mcp__t__echo", json!({"text": "before"})),
        ("mcp__t__slow", json!({"ms": 20000, "label": "running"})),
        ("mcp__t__echo", json!({"text": "never1"})),
        ("mcp__t__echo", json!({"text": "never2"})),
    ]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("hooks"),
        "tool_call",
        &args,
    )]));
    let child = env.spawn(&["-q", "go"]);
    // The first entry's post hook has run (it finished before the stop).
    let hooked = || std::fs::read_to_string(&hook_log).unwrap_or_default();
    crate::support::wait_for("the slow entry and the first post hook", || {
        env.server_log("t").contains("slow start running") && hooked().contains("before")
    });
    crate::support::stopped(child);
    let seen = hooked();
    let texts: Vec<Value> = seen
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["arguments"].clone())
        .collect();
    assert_eq!(
        texts,
        [json!({"text": "before"})],
        "post hooks ran for entries that were not sent, or past the stop"
    );
}

#[cfg(unix)]
#[test]
fn queued_and_started_events_carry_the_entry_itself_and_started_means_sent() {
    let env = TestEnv::deferred(&[("t", "")]);
    let args = batch(&[
        ("mcp__t__slow", json!({"ms": 20000, "label": "a"})),
        ("mcp__t__slow", json!({"ms": 10, "label": "b"})),
    ]);
    let (out, _) = interrupted_batch(&env, &["--json"], &args, "slow start a");
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<Value> = recorded_calls(&env.only_session())
        .iter()
        .map(|c| c["id"].clone())
        .collect();
    let find = |kind: &str, id: &Value| events.iter().find(|e| e["type"] == kind && e["id"] == *id);
    for (id, label) in ids.iter().zip(["a", "b"]) {
        let e =
            find("tool_call_queued", id).unwrap_or_else(|| panic!("no queued event for {label}"));
        assert_eq!(e["name"], "mcp__t__slow", "{e}");
        let a: Value = serde_json::from_str(e["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(
            a["label"], label,
            "the event must carry the entry's own arguments: {e}"
        );
    }
    let started = find("tool_call_started", &ids[0]).expect("the first entry started");
    assert_eq!(started["name"], "mcp__t__slow");
    // The serial server's gate held the second entry: queued, never started, never sent.
    assert!(find("tool_call_started", &ids[1]).is_none(), "{events:#?}");
    assert_eq!(
        find("tool_call_finished", &ids[1]).unwrap()["content"],
        "cancelled before it started"
    );
    crate::assert_not_contains!(env.server_log("t"), "slow start b");
}
