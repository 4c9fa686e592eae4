//! The interactive loop, driven through a pipe with `--interactive`.

use crate::support::{Reply, TestEnv};

#[test]
fn repl_chats_and_runs_slash_commands() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("hello from the repl"));
    env.fake.push(Reply::text("fresh start"));
    let run = env.run_with_stdin(
        &["--interactive"],
        "hi\n/help\n/bogus\n/new\nagain\n/quit\nnever sent\n",
    );
    run.ok();
    assert!(
        run.stdout.contains("hello from the repl\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("fresh start\n"), "{}", run.stdout);
    assert!(
        run.stderr.contains("/new       start a new session"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("unknown command /bogus"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("new session "), "{}", run.stderr);

    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 2, "input after /quit was sent");
    // /new: the second turn starts from an empty conversation.
    let msgs = reqs[1].json()["messages"].as_array().unwrap().clone();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[1]["content"], "again");
    assert_eq!(env.sessions().len(), 2);
    let history = std::fs::read_to_string(env.home.path().join("history.txt")).unwrap();
    assert!(history.contains("again"), "{history}");
}

#[test]
fn repl_keeps_going_after_a_failed_turn() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::status(400, r#"{"error":{"message":"bad request"}}"#));
    env.fake.push(Reply::text("second try works"));
    let run = env.run_with_stdin(&["--interactive"], "one\ntwo\n");
    run.ok();
    assert!(
        run.stderr
            .contains("error: provider `fake` answered HTTP 400"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("second try works"), "{}", run.stdout);
}
