//! `/resume` in the REPL opens a session exactly as `--resume` does: the
//! same deferral and offered tools, the same note for a turn left without
//! an answer — each held per session, not per run.

use crate::support::tmux::Tmux;
use crate::support::{tool_names, Reply, TestEnv};

/// A session that deferred its tools, resumed by `/resume` in a run whose
/// own session offered them directly, goes on offering the bridge.
#[test]
fn a_deferred_session_resumed_in_the_repl_keeps_the_bridge() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::text("first answer"));
    let deferred = env.run_for_session_id(&["--json", "-q", "first"]);
    let bridge = tool_names(&env.fake.requests()[0].json());
    assert!(bridge.contains(&"tool_call".to_string()), "{bridge:?}");
    env.write_config("[tools]\ndefer = \"never\"\n");
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::text("direct answer"));
    env.fake.push(Reply::text("resumed answer"));
    let term = Tmux::start(&env, &[]);
    term.type_line("hi");
    term.wait_for("the answer", |s| s.contains("direct answer"));
    let direct = tool_names(&env.fake.requests()[1].json());
    assert!(direct.iter().any(|n| n == "mcp__t__echo"), "{direct:?}");
    term.type_line(&format!("/resume {deferred}"));
    term.wait_for("resumed", |s| s.contains("— resumed session"));
    term.type_line("again");
    term.wait_for("the answer", |s| s.contains("resumed answer"));
    let resumed = env.fake.requests()[2].json();
    assert_eq!(tool_names(&resumed), bridge);
    // And it extends the resumed session's last request byte for byte.
    let before = env.fake.requests()[0].json()["messages"].clone();
    let after = resumed["messages"].as_array().unwrap();
    assert_eq!(
        after[..before.as_array().unwrap().len()],
        before.as_array().unwrap()[..]
    );
    term.type_line("/quit");
}

/// A session whose last request got no answer, resumed by `/resume`, tells
/// the model so with the next message, as `--resume` does.
#[test]
fn an_unanswered_session_resumed_in_the_repl_says_so() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("answered"));
    let id = env.run_for_session_id(&["--json", "-q", "the first question"]);
    env.fake.push(Reply::status(
        400,
        r#"{"error":{"message":"Invalid request","type":"invalid_request_error","param":null,"code":null}}"#,
    ));
    let run = env.run(&["--continue", "-q", "the question that failed"]);
    assert_ne!(run.code, 0);
    env.fake.push(Reply::text("fresh"));
    env.fake.push(Reply::text("picked up"));
    let term = Tmux::start(&env, &[]);
    term.type_line("hello");
    term.wait_for("the answer", |s| s.contains("fresh"));
    term.type_line(&format!("/resume {id}"));
    term.wait_for("resumed", |s| s.contains("— resumed session"));
    term.type_line("try again");
    term.wait_for("the answer", |s| s.contains("picked up"));
    let text = env.last_user_text(3);
    assert!(
        text.starts_with("[hermes: the previous request was interrupted before you answered it.]"),
        "{text}"
    );
    crate::assert_contains!(text, "try again");
    term.type_line("/quit");
}
