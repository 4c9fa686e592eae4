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

/// A run that fails before any answer leaves no session, so `--continue`
/// lands in the last one that worked; a failure later in a session keeps it.
#[test]
fn a_run_that_fails_before_any_answer_leaves_no_session() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("kept"));
    let kept = env.run_for_session_id(&["--json", "-q", "hello"]);
    env.fake
        .push(Reply::status(401, r#"{"error":{"message":"bad key"}}"#));
    env.run(&["-q", "this one fails"]).code(1);
    assert_eq!(env.sessions().len(), 1, "{:?}", env.sessions());
    env.fake.push(Reply::text("back"));
    let run = env.run(&["--json", "--continue", "-q", "again"]);
    run.ok();
    assert_eq!(run.events()[0]["id"], kept.as_str());
    // A resumed session is kept whatever its run does.
    env.fake
        .push(Reply::status(401, r#"{"error":{"message":"bad key"}}"#));
    env.run(&["--continue", "-q", "fails now"]).code(1);
    assert_eq!(env.sessions().len(), 1);
    // The REPL does the same with a session nothing was answered in.
    env.fake
        .push(Reply::status(401, r#"{"error":{"message":"bad key"}}"#));
    let run = env.run_with_stdin(&["--interactive"], "no luck\n/quit\n");
    run.ok();
    crate::assert_contains!(run.stderr, "no answer came in this session; it is not kept");
    assert_eq!(env.sessions().len(), 1);
}

#[test]
fn sessions_are_removed_by_id_and_pruned_by_age() {
    let env = TestEnv::new();
    let mut ids = Vec::new();
    for q in ["one", "two", "three"] {
        env.fake.push(Reply::text("ok"));
        ids.push(env.run_for_session_id(&["--json", "-q", q]));
    }
    let run = env.run(&["sessions", "rm", &ids[0], "nope"]);
    run.code(2);
    crate::assert_contains!(run.stdout, format!("removed {}", ids[0]));
    crate::assert_contains!(run.stderr, "error: no session with id `nope`");
    assert_eq!(env.sessions().len(), 2);
    // `two` was last written 40 days ago; `three` just now.
    let old = env.session_path(&ids[1]);
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(40 * 86_400);
    std::fs::File::options()
        .append(true)
        .open(&old)
        .unwrap()
        .set_modified(then)
        .unwrap();
    let run = env.run(&["sessions", "prune", "--older-than", "30d", "--dry-run"]);
    run.ok();
    crate::assert_contains!(run.stdout, format!("would remove {}  two", ids[1]));
    assert_eq!(env.sessions().len(), 2);
    let run = env.run(&["sessions", "prune", "--older-than", "30d"]);
    run.ok();
    crate::assert_contains!(run.stdout, format!("removed {}  two", ids[1]));
    crate::assert_contains!(run.stderr, "1 session removed, last written over 30d ago");
    assert_eq!(env.sessions(), vec![env.session_path(&ids[2])]);
    let run = env.run(&["sessions", "prune", "--older-than", "30"]);
    run.code(2);
    crate::assert_contains!(run.error_line(), "`30` has no known unit");
}

/// A session another hermes has open is not removed under it.
#[test]
fn a_session_in_use_is_not_removed() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("first"));
    let id = env.run_for_session_id(&["--json", "-q", "hello"]);
    env.fake
        .push(Reply::text("slow").delayed(std::time::Duration::from_secs(2)));
    let holder = env.spawn(&["--continue", "-q", "take your time"]);
    crate::support::wait_for("the holder's request", || env.fake.requests().len() == 2);
    let run = env.run(&["sessions", "rm", &id]);
    run.code(1);
    crate::assert_contains!(
        run.stderr,
        format!("error: session {id} is in use by another hermes")
    );
    holder.wait_with_output().unwrap();
    assert_eq!(env.sessions().len(), 1);
}

/// A fork's title says it is a fork, and `/resume PREFIX` with several
/// matches lists them to choose from.
#[test]
fn forks_are_titled_and_a_resume_prefix_with_several_matches_asks_which() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("first"));
    let id = env.run_for_session_id(&["--json", "-q", "plan the trip"]);
    env.fake.push(Reply::text("forked"));
    let fork = env.run_for_session_id(&["--json", "--resume", &id, "--fork", "-q", "by train"]);
    let run = env.run(&["sessions", "list"]);
    crate::assert_contains!(run.stdout, format!("(fork of {id}) plan the trip"));
    // Both ids share their date: a prefix of it matches both.
    let prefix = &id[..8];
    assert!(fork.starts_with(prefix));
    env.fake.push(Reply::text("picked"));
    let run = env.run_with_stdin(
        &["--interactive"],
        format!("/resume {prefix}\n2\nwhich one?\n/quit\n"),
    );
    run.ok();
    crate::assert_contains!(run.stderr, "2 sessions match:");
    crate::assert_contains!(run.stderr, format!("  1  {fork}"));
    crate::assert_contains!(run.stderr, format!("  2  {id}"));
    // The second request went to the original session (newest first: the fork is 1).
    let body = env.fake.requests().last().unwrap().json();
    let texts: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        texts.contains(&"plan the trip") && !texts.iter().any(|t| t.contains("by train")),
        "{texts:?}"
    );
    assert_eq!(*texts.last().unwrap(), "which one?");
}
