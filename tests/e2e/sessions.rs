//! `hermes sessions list` and `hermes sessions show`.

use crate::support::{call_id, Reply, TestEnv};

#[test]
fn sessions_are_listed_newest_first_and_shown() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"echo\"]\n");
    env.fake.push(Reply::text("first reply"));
    let a = env.run(&["--json", "-q", "first question"]).events()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("c1"),
        "echo",
        r#"{"text":"pong"}"#,
    )]));
    env.fake.push(Reply::text("second reply"));
    let b = env.run(&["--json", "-q", "second question"]).events()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();

    let run = env.run(&["sessions", "list"]);
    run.ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(
        lines[0].starts_with(&b) && lines[0].contains("second question"),
        "{}",
        run.stdout
    );
    assert!(
        lines[1].starts_with(&a) && lines[1].contains("first question"),
        "{}",
        run.stdout
    );

    let run = env.run(&["sessions", "show", &b]);
    run.ok();
    let out = &run.stdout;
    crate::assert_contains!(out, "› second question");
    crate::assert_contains!(out, "⏺ echo {\"text\":\"pong\"}");
    crate::assert_contains!(out, "✓ pong");
    crate::assert_contains!(out, "second reply");

    // A unique prefix of the id is enough.
    env.run(&["sessions", "show", &a[..a.len() - 2]]).ok();
}

#[test]
fn showing_an_unknown_session_fails_cleanly() {
    let env = TestEnv::new();
    let run = env.run(&["sessions", "show", "nope"]);
    run.code(2);
    assert_eq!(run.error_line(), "error: no session with id `nope`");
}

/// Two runs appending to one session would interleave their records and
/// break every later request's tool-call pairing: the second is refused,
/// naming the holder, and `--fork` continues in a copy.
#[test]
fn a_session_in_use_is_refused_naming_the_holder_and_fork_continues_in_a_copy() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("first"));
    let id = env.run_for_session_id(&["--json", "-q", "hello"]);
    let original = env.session_path(&id);

    env.fake
        .push(Reply::text("slow").delayed(std::time::Duration::from_secs(3)));
    let holder = env.spawn(&["--continue", "-q", "take your time"]);
    crate::support::wait_for("the holder's request", || env.fake.requests().len() == 2);
    let before = std::fs::read(&original).unwrap();

    let refused = env.run(&["--continue", "-q", "me too"]);
    refused.code(1);
    assert_eq!(
        refused.error_line(),
        format!(
            "error: session {id} is in use by another hermes (pid {})",
            holder.id()
        )
    );
    crate::assert_contains!(
        refused.stderr,
        "hint: wait until that run ends, or add --fork"
    );
    assert_eq!(
        std::fs::read(&original).unwrap(),
        before,
        "the refused run wrote to the session"
    );
    assert_eq!(
        env.fake.requests().len(),
        2,
        "the refused run asked the model"
    );

    env.fake.push(Reply::text("from the copy"));
    let forked = env.run_for_session_id(&["--json", "--resume", &id, "--fork", "-q", "branch"]);
    assert_ne!(forked, id);
    let copy = crate::support::records(&env.session_path(&forked));
    assert_eq!(copy[0]["id"], forked.as_str());
    assert!(
        copy.iter()
            .any(|r| r["event"] == "forked" && r["from"] == id.as_str()),
        "{copy:?}"
    );
    let asked = env.fake.requests()[2].json();
    let texts: Vec<&str> = asked["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    // The held session's turn had no answer yet: the copy's next message
    // says so before the user's words.
    assert!(
        texts.contains(&"hello") && texts.iter().any(|t| t.ends_with("\n\nbranch")),
        "{texts:?}"
    );

    let out = holder.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !original.with_extension("jsonl.lock").exists(),
        "the pid note was left behind"
    );
}

#[test]
fn fork_without_a_session_to_copy_is_a_usage_error() {
    let env = TestEnv::new();
    let run = env.run(&["--fork", "-q", "hi"]);
    run.code(2);
    crate::assert_contains!(
        run.error_line(),
        "--fork copies a session, but none was named"
    );
}
