//! One-shot runs: streaming, the tool loop, JSON events, max turns.

use crate::support::{call_id, records, Reply, TestEnv};

#[test]
fn one_shot_streams_the_reply_and_writes_a_session() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("Hello there, friend."));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    assert_eq!(run.stdout, "Hello there, friend.\n");

    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(r.header("authorization"), Some("Bearer test-key"));
    let body = r.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1]["content"], "hi");

    let recs = records(&env.only_session());
    let types: Vec<&str> = recs.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["meta", "message", "message", "event", "message"]);
    assert_eq!(recs[4]["message"]["role"], "assistant");
    assert_eq!(recs[4]["message"]["content"], "Hello there, friend.");
    assert_eq!(recs[3]["event"], "usage");
    assert_eq!(recs[3]["total_tokens"], 31);
}

#[cfg(unix)]
#[test]
fn session_files_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "hi"]).ok();
    let mode = std::fs::metadata(env.only_session())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn prompt_from_stdin_with_dash_or_a_pipe() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("one"));
    env.fake.push(Reply::text("two"));
    env.run_with_stdin(&["-q", "-"], "from dash\n").ok();
    env.run_with_stdin(&[], "from pipe").ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs[0].json()["messages"][1]["content"], "from dash\n");
    assert_eq!(reqs[1].json()["messages"][1]["content"], "from pipe");
}

#[test]
fn tool_calls_run_and_their_results_go_back_to_the_model() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"echo\"]\n");
    env.fake.push(Reply::tool_calls(&[
        (&call_id("a"), "echo", r#"{"text":"ping"}"#),
        (&call_id("b"), "nope", "{}"),
    ]));
    env.fake.push(Reply::text("all done"));
    let run = env.run(&["-q", "use the tools"]);
    run.ok();
    assert_eq!(run.stdout, "all done\n");
    crate::assert_contains!(run.stderr, "⏺ echo {\"text\":\"ping\"}");

    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 2);
    let first = reqs[0].json();
    assert_eq!(first["tools"][0]["function"]["name"], "echo");
    let msgs = reqs[1].json()["messages"].as_array().unwrap().clone();
    assert_eq!(msgs[2]["role"], "assistant");
    assert_eq!(
        msgs[2]["tool_calls"][0]["function"]["arguments"],
        r#"{"text":"ping"}"#
    );
    assert_eq!(
        msgs[3],
        serde_json::json!({"role":"tool","tool_call_id":call_id("a"),"content":"ping"})
    );
    assert_eq!(msgs[4]["tool_call_id"], call_id("b"));
    let err = msgs[4]["content"].as_str().unwrap();
    assert!(err.starts_with("Error: unknown tool `nope`"), "{err}");

    let recs = records(&env.only_session());
    let results: Vec<_> = recs.iter().filter(|r| r["type"] == "tool_result").collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["content"], "ping");
    assert_eq!(results[1]["is_error"], true);
}

#[test]
fn json_mode_prints_one_event_per_line() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("hey"));
    let run = env.run(&["--json", "-q", "hi"]);
    run.ok();
    let events = run.events();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"session_started"));
    assert_eq!(events[0]["schema"], 4, "the stream's version");
    assert!(types.contains(&"text_delta"));
    assert!(types.contains(&"usage"));
    assert_eq!(types[types.len() - 2..], ["turn_done", "run_summary"]);
    assert_eq!(events[events.len() - 2]["text"], "hey");
}

#[test]
fn max_turns_stops_a_model_that_keeps_calling_tools() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"echo\"]\n");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("c1"),
        "echo",
        r#"{"text":"a"}"#,
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("c2"),
        "echo",
        r#"{"text":"b"}"#,
    )]));
    let run = env.run(&["--max-turns", "2", "-q", "loop"]);
    run.code(3);
    assert!(run
        .error_line()
        .contains("no final answer after 2 model requests"));
    assert_eq!(env.fake.requests().len(), 2);
}

#[test]
fn resume_sends_the_earlier_messages_byte_identical() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"echo\"]\n");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("c1"),
        "echo",
        r#"{"text": "x", "n": [1, 2]}"#,
    )]));
    env.fake.push(Reply::text("first answer"));
    let first = env.run(&["--json", "-q", "hi"]);
    first.ok();
    let id = first.events()[0]["id"].as_str().unwrap().to_string();

    env.fake.push(Reply::text("second answer"));
    env.run(&["--resume", &id, "-q", "again"]).ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 3);
    let before = reqs[1].body_str();
    let after = reqs[2].body_str();
    // The earlier request ends with `]}` (messages array, object); everything
    // before that must be the exact start of the resumed request.
    let shared = &before[..before.len() - 2];
    assert!(
        after.starts_with(shared),
        "resumed request diverges at byte {}",
        before
            .bytes()
            .zip(after.bytes())
            .take_while(|(a, b)| a == b)
            .count()
    );
    assert_eq!(&after[shared.len()..shared.len() + 1], ",");
    let msgs = reqs[2].json()["messages"].as_array().unwrap().clone();
    assert_eq!(msgs.last().unwrap()["content"], "again");
    assert_eq!(env.sessions().len(), 1);
}

#[test]
fn continue_picks_the_latest_session_of_this_directory() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("a"));
    env.fake.push(Reply::text("b"));
    env.fake.push(Reply::text("c"));
    env.run(&["-q", "one"]).ok();
    env.run(&["-q", "two"]).ok();
    env.run(&["--continue", "-q", "three"]).ok();
    assert_eq!(env.sessions().len(), 2);
    let msgs = env.fake.requests()[2].json()["messages"].clone();
    assert_eq!(msgs[1]["content"], "two");
    assert_eq!(msgs[3]["content"], "three");
}

#[test]
fn an_answer_cut_at_the_output_limit_is_flagged() {
    use crate::support::fake_provider::{delta, finish, usage};
    let env = TestEnv::new();
    env.fake.push(Reply::sse(vec![
        delta(serde_json::json!({"role": "assistant", "content": "The three steps are: one, two"})),
        finish("length"),
        usage(11, 4096),
    ]));
    let run = env.run(&["-q", "list the steps"]);
    run.ok();
    assert_eq!(run.stdout, "The three steps are: one, two\n");
    crate::assert_contains!(run.stderr, "warning: the model stopped at its output limit");
}

/// What the model gets back from one `echo` of `bytes` characters, with
/// `config` (which must enable the built-in `echo`).
fn echo_result(config: &str, bytes: usize) -> String {
    let env = TestEnv::new();
    env.write_config(config);
    let args = serde_json::json!({ "text": "y".repeat(bytes) }).to_string();
    env.fake
        .push(Reply::tool_calls(&[(&call_id("big"), "echo", &args)]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    env.tool_results(1)[0]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A built-in tool's output gets the same cut as an MCP server's: a huge
/// `echo` does not become a 21 MB request.
#[test]
fn builtin_output_is_cut_like_mcp_output() {
    let result = echo_result("[tools]\nbuiltin = [\"echo\"]\n", 300_000);
    assert!(
        result.len() < 70_000,
        "{} bytes went back to the model",
        result.len()
    );
    assert!(
        result.ends_with("[output cut: 234464 of 300000 bytes not shown]"),
        "{}",
        &result[result.len() - 80..]
    );
}

/// `[limits] tool_output_bytes` sets that cut.
#[test]
fn the_tool_output_cut_is_a_config_key() {
    let result = echo_result(
        "[tools]\nbuiltin = [\"echo\"]\n[limits]\ntool_output_bytes = 1000\n",
        5000,
    );
    assert!(
        result.ends_with("[output cut: 4000 of 5000 bytes not shown]"),
        "{result}"
    );
}
