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
