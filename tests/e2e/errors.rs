//! Each failure is one clear line (plus a hint), the right exit code, and no
//! corrupted session file.

use std::net::TcpListener;

use crate::support::{records, Reply, Run, TestEnv, KEY_ENV};

#[test]
fn a_missing_key_names_the_variable_and_the_config_key() {
    let env = TestEnv::new();
    let run = Run::from(
        env.cmd()
            .env_remove(KEY_ENV)
            .args(["-q", "hi"])
            .output()
            .unwrap(),
    );
    run.code(2);
    assert_eq!(
        run.error_line(),
        format!("error: provider `fake` needs an API key: {KEY_ENV} is not set")
    );
    crate::assert_contains!(run.stderr, "providers.fake.api_key_env");
    assert!(env.fake.requests().is_empty());
}

/// Only another provider's key is set (a first run after `export
/// ANTHROPIC_API_KEY=…`): the hint names the provider that key is for.
#[test]
fn a_missing_key_with_another_providers_key_set_points_at_that_provider() {
    let env = TestEnv::new();
    let run = Run::from(
        env.cmd()
            .env_remove(KEY_ENV)
            .env(
                "ANTHROPIC_API_KEY",
                "sk-ant-api03-Xq7vR2mN9pL4kT8wJ1cF6hB3dG5sA0zE-yU2iO9pQ4rT7wE1_AA",
            )
            .args(["-q", "hi"])
            .output()
            .unwrap(),
    );
    run.code(2);
    crate::assert_contains!(
        run.stderr,
        "hint: ANTHROPIC_API_KEY is set: run with --provider anthropic"
    );
    crate::assert_not_contains!(run.stderr, "sk-ant-api03");
}

#[test]
fn unauthorized_names_the_provider() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::status(401, r#"{"error":{"message":"bad key"}}"#));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    let line = run.error_line();
    crate::assert_contains!(line, "provider `fake` refused the API key (HTTP 401)");
    crate::assert_contains!(line, env.fake.base_url());
    assert!(run
        .stderr
        .contains(&format!("hint: check the key in {KEY_ENV}")));
}

#[test]
fn rate_limits_are_retried_after_the_servers_retry_after() {
    let env = TestEnv::new();
    with_retries(&env, 3);
    env.fake.push(
        Reply::status(429, r#"{"error":{"message":"slow down"}}"#).with_header("Retry-After", "1"),
    );
    env.fake.push(Reply::text("finally"));
    let run = env.run(&["--json", "-q", "hi"]);
    run.ok();
    let retry: Vec<_> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "retrying")
        .collect();
    assert_eq!(retry.len(), 1);
    assert_eq!(retry[0]["delay_ms"], 1000);
    assert!(retry[0]["reason"].as_str().unwrap().contains("HTTP 429"));
    assert_eq!(env.fake.requests().len(), 2);
}

fn with_retries(env: &TestEnv, n: u32) {
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    std::fs::write(
        env.config_path(),
        text.replace("max_retries = 0", &format!("max_retries = {n}")),
    )
    .unwrap();
}

#[test]
fn server_errors_are_retried_a_bounded_number_of_times() {
    let env = TestEnv::new();
    with_retries(&env, 2);
    for _ in 0..3 {
        env.fake
            .push(Reply::status(503, r#"{"error":{"message":"overloaded"}}"#));
    }
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    let line = run.error_line();
    assert!(line.ends_with("(gave up after 3 attempts)"), "{line}");
    crate::assert_contains!(line, "HTTP 503");
    assert_eq!(env.fake.requests().len(), 3);
}

#[test]
fn a_dropped_connection_is_retried() {
    let env = TestEnv::new();
    with_retries(&env, 2);
    env.fake.push(Reply::Hangup);
    env.fake.push(Reply::text("recovered"));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    assert_eq!(run.stdout, "recovered\n");
    assert_eq!(env.fake.requests().len(), 2);
}

#[test]
fn an_unreachable_base_url_is_one_line_with_the_url() {
    let env = TestEnv::new();
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    with_retries(&env, 3);
    let run = env.run(&[
        "-c",
        &format!("providers.fake.base_url=http://127.0.0.1:{port}/v1"),
        "-q",
        "hi",
    ]);
    run.code(1);
    let line = run.error_line();
    assert!(
        line.starts_with(&format!(
            "error: cannot reach provider `fake` at http://127.0.0.1:{port}/v1/chat/completions"
        )),
        "{line}"
    );
    crate::assert_contains!(run.stderr, "hint: is the server running?");
    // Refused means nothing listens there: no point retrying.
    crate::assert_not_contains!(run.stderr, "retrying");
}

#[test]
fn a_non_json_reply_is_reported_not_panicked_on() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::status(200, "<html>proxy login</html>").with_content_type("text/html"));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    let line = run.error_line();
    crate::assert_contains!(
        line,
        "sent a reply that is not JSON: <html>proxy login</html>"
    );

    env.fake.push(Reply::sse(vec!["{not json".into()]));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    crate::assert_contains!(run.error_line(), "not JSON: {not json");
}

#[test]
fn a_truncated_stream_is_an_error_and_nothing_partial_is_saved() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::text("This reply will be cut in the middle").cut_after(3));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    crate::assert_contains!(run.error_line(), "cut the reply off before it was complete");
    crate::assert_contains!(run.stderr, "nothing of this reply was saved");
    // No answer came: the new session is not kept at all.
    assert!(env.sessions().is_empty(), "{:?}", env.sessions());
    // In a session that is kept, the cut reply leaves nothing of itself.
    env.fake.push(Reply::text("whole"));
    env.run(&["-q", "first"]).ok();
    env.fake
        .push(Reply::text("This reply will be cut in the middle").cut_after(3));
    env.run(&["--continue", "-q", "hi"]).code(1);
    let recs = records(&env.only_session());
    let answers: Vec<&serde_json::Value> = recs
        .iter()
        .filter(|r| r["message"]["role"] == "assistant")
        .collect();
    assert_eq!(
        answers.len(),
        1,
        "a partial assistant message was persisted: {recs:?}"
    );
    assert_eq!(recs.last().unwrap()["event"], "turn_ended", "{recs:?}");
}

#[test]
fn an_error_event_mid_stream_is_reported() {
    let env = TestEnv::new();
    env.fake.push(Reply::sse(vec![
        r#"{"error":{"message":"context length exceeded"}}"#.into(),
    ]));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    assert!(run
        .error_line()
        .contains("reported an error: context length exceeded"));
}

#[test]
fn a_bad_config_names_file_line_and_key() {
    let env = TestEnv::new();
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str("retry_bse_ms = 5\n");
    std::fs::write(env.config_path(), &text).unwrap();
    let line_no = text.lines().count();
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    let expected = format!(
        "error: {}:{line_no}: providers.fake.retry_bse_ms: unknown key `retry_bse_ms`",
        env.config_path().display()
    );
    assert!(run.error_line().starts_with(&expected), "{}", run.stderr);
    assert!(env.fake.requests().is_empty());
    assert!(env.sessions().is_empty());
}

#[test]
fn bad_overrides_and_unknown_providers_are_usage_errors() {
    let env = TestEnv::new();
    let run = env.run(&["-c", "max_turns=many", "-q", "hi"]);
    run.code(2);
    assert!(
        run.error_line().starts_with("error: -c max_turns=many: "),
        "{}",
        run.stderr
    );
    let run = env.run(&["--provider", "nowhere", "-q", "hi"]);
    run.code(2);
    crate::assert_contains!(run.error_line(), "unknown provider `nowhere`");
    crate::assert_contains!(run.stderr, "hint: add [providers.nowhere]");
}

#[test]
fn an_unknown_session_id_is_a_usage_error() {
    let env = TestEnv::new();
    let run = env.run(&["--resume", "20990101-000000-abcdef", "-q", "hi"]);
    run.code(2);
    assert_eq!(
        run.error_line(),
        "error: no session with id `20990101-000000-abcdef`"
    );
    assert!(env.sessions().is_empty());
}

#[test]
fn a_garbage_line_in_a_session_is_reported_and_the_file_left_alone() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("one"));
    let id = env.run_for_session_id(&["--json", "-q", "hi"]);
    let path = env.only_session();
    let mut bytes = std::fs::read(&path).unwrap();
    let lines = bytes.iter().filter(|b| **b == b'\n').count();
    // Insert garbage as the second line.
    let first_nl = bytes.iter().position(|b| *b == b'\n').unwrap();
    bytes.splice(
        first_nl + 1..first_nl + 1,
        b"garbage here\n".iter().copied(),
    );
    std::fs::write(&path, &bytes).unwrap();

    let run = env.run(&["--resume", &id, "-q", "again"]);
    run.code(1);
    assert!(
        run.error_line().starts_with(&format!(
            "error: {}:2: not a valid session record",
            path.display()
        )),
        "{}",
        run.stderr
    );
    crate::assert_contains!(run.stderr, "hint: ");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the session file was modified"
    );
    assert_eq!(lines + 1, bytes.iter().filter(|b| **b == b'\n').count());
    assert_eq!(env.fake.requests().len(), 1);
}

#[test]
fn a_torn_last_line_is_skipped_and_the_session_goes_on() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("one"));
    let id = env.run_for_session_id(&["--json", "-q", "hi"]);
    let path = env.only_session();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(br#"{"type":"message","ts":"x","mess"#);
    std::fs::write(&path, &bytes).unwrap();
    let before = bytes.len();

    env.fake.push(Reply::text("two"));
    let run = env.run(&["--resume", &id, "-q", "again"]);
    run.ok();
    crate::assert_contains!(run.stderr, "warning: ");
    crate::assert_contains!(run.stderr, "torn last line");
    let after = std::fs::read(&path).unwrap();
    assert_eq!(&after[..before], &bytes[..], "earlier bytes changed");

    // And it loads cleanly again, with both turns.
    env.fake.push(Reply::text("three"));
    let run = env.run(&["--resume", &id, "-q", "third"]);
    run.ok();
    crate::assert_not_contains!(run.stderr, "warning");
    let msgs = env.fake.requests()[2].json()["messages"].clone();
    assert_eq!(msgs.as_array().unwrap().len(), 6);
}

#[test]
fn an_empty_prompt_is_a_usage_error() {
    let env = TestEnv::new();
    let run = env.run_with_stdin(&["-q", "-"], "  \n");
    run.code(2);
    assert_eq!(run.error_line(), "error: the prompt is empty");
}

#[test]
fn forbidden_is_reported_like_unauthorized() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::status(403, r#"{"error":{"message":"no access"}}"#));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    crate::assert_contains!(
        run.error_line(),
        "provider `fake` refused the API key (HTTP 403)"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_while_waiting_for_the_model_exits_130_and_saves_nothing_partial() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::text("too late").delayed(std::time::Duration::from_secs(10)));
    let child = env.spawn(&["-q", "hi"]);
    crate::support::wait_for("the request", || !env.fake.requests().is_empty());
    crate::support::stopped(child);
    let recs = records(&env.only_session());
    assert!(
        recs.iter().all(|r| r["message"]["role"] != "assistant"),
        "{recs:?}"
    );
    let last_message = recs.iter().rev().find(|r| r["type"] == "message").unwrap();
    assert_eq!(last_message["message"]["content"], "hi");
    assert_eq!(recs.last().unwrap()["event"], "turn_ended", "{recs:?}");
}

/// A full disk (here: a file-size limit) takes part of a record; the session
/// file must keep whole records only.
#[cfg(unix)]
#[test]
fn a_record_that_does_not_fit_on_disk_leaves_no_partial_line() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("short"));
    env.run(&["-q", "hi"]).ok();
    let before = crate::support::records(&env.only_session()).len();
    let prompt = "a long question ".repeat(8_000);
    // 32 blocks: the session so far fits, the 128 KB prompt does not.
    let script = format!(
        "ulimit -f 32; trap '' XFSZ; exec {:?} --continue -q \"$1\"",
        env!("CARGO_BIN_EXE_hermes")
    );
    let run = crate::support::Run::from(
        env.command("sh")
            .args(["-c", &script, "sh", &prompt])
            .output()
            .unwrap(),
    );
    run.code(1);
    crate::assert_contains!(run.error_line(), "File too large");
    let bytes = std::fs::read(env.only_session()).unwrap();
    assert!(
        bytes.ends_with(b"\n"),
        "a partial record was left at the end"
    );
    let recs = crate::support::records(&env.only_session());
    assert!(
        recs.len() > before
            && !recs.iter().any(|r| r["message"]["role"] == "user"
                && r["message"]["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("a long question"))),
        "the prompt that did not fit was saved: {} records",
        recs.len()
    );
    assert_eq!(env.fake.requests().len(), 1, "the model was asked");
}

/// A reply over `max_reply_bytes` is refused as it streams in, and nothing of
/// it is saved.
#[test]
fn a_reply_over_its_size_limit_is_refused_and_nothing_is_saved() {
    let env = TestEnv::new();
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str("max_reply_bytes = 20000\n");
    std::fs::write(env.config_path(), text).unwrap();
    env.fake
        .push(Reply::text(&"all work and no play ".repeat(5000)));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    crate::assert_contains!(run.error_line(), "sent a reply larger than 20000 bytes");
    crate::assert_contains!(run.stderr, "raise providers.fake.max_reply_bytes");
    assert!(
        env.sessions().is_empty(),
        "no answer came, no session is kept"
    );
}

/// A reply that keeps trickling (each piece well inside the idle timeout)
/// still ends at `request_timeout_ms`.
#[test]
fn a_reply_that_never_finishes_ends_at_the_request_deadline() {
    let env = TestEnv::new();
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str("request_timeout_ms = 400\n");
    std::fs::write(env.config_path(), text).unwrap();
    let pieces: Vec<String> = (0..60)
        .map(|_| crate::support::fake_provider::delta(serde_json::json!({"content": ""})))
        .collect();
    env.fake
        .push(Reply::sse(pieces).paced(std::time::Duration::from_millis(50)));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    crate::assert_contains!(run.error_line(), "did not finish its reply within 0.4 s");
}
