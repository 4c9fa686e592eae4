//! The prompt and the turn as a person works them, in a real terminal
//! (tmux): Ctrl-C, `/compact` at any size, the time a wait has taken, an
//! approval's answers at 80 columns, the entries a stop leaves unstarted.

use serde_json::json;

use crate::support::fake_provider::call_id;
use crate::support::tmux::Tmux;
use crate::support::{Reply, TestEnv};

/// Ctrl-C on a line with text clears it; at an empty prompt it says how to
/// quit, and a second one quits.
#[test]
fn ctrl_c_clears_the_line_then_twice_at_an_empty_prompt_quits() {
    let env = TestEnv::new();
    let term = Tmux::start(&env, &[]);
    term.type_keys("half a thought");
    term.wait_for("the typed line", |s| s.contains("› half a thought"));
    term.press("C-c");
    term.wait_for("the line cleared", |s| !s.contains("half a thought"));
    crate::assert_not_contains!(term.screen(), "Ctrl-C again");
    term.press("C-c");
    term.wait_for("how to quit", |s| {
        s.contains("(Ctrl-C again to quit; Ctrl-D or /quit also quit)")
    });
    assert!(!term.exited());
    term.press("C-c");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !term.exited() {
        assert!(std::time::Instant::now() < deadline, "{}", term.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(env.fake.requests().is_empty(), "nothing was sent");
}

/// `/compact` on a short conversation summarises all but the newest
/// exchange and says how much it saved.
#[test]
fn compact_on_a_short_conversation_summarises_all_but_the_newest_exchange() {
    let env = TestEnv::new();
    env.fake.push(Reply::text(
        "The fixture is read before the server starts, so load() sees an empty file. \
         Move the read after start() and keep the 5 s timeout.",
    ));
    env.fake
        .push(Reply::text("Yes: the CancellationToken stays."));
    env.fake.push(Reply::text(
        "Summary: the fixture read moves after start(); timeout 5 s.",
    ));
    let term = Tmux::start(&env, &[]);
    term.type_line("why does the fixture test fail?");
    // Wrapped between words at any width.
    term.wait_for("the first answer", |s| {
        s.replace('\n', " ").contains("keep the 5 s timeout")
    });
    term.type_line("and the token?");
    term.wait_for("the second answer", |s| {
        s.contains("CancellationToken stays")
    });
    term.type_line("/compact");
    term.wait_for("what it saved", |s| {
        s.contains("compacted the conversation: about") && s.contains("older messages summarised")
    });
    crate::assert_not_contains!(term.screen(), "nothing to compact");
    assert_eq!(env.fake.requests().len(), 3);
    let summary = env.fake.requests()[2].json();
    let text = summary["messages"].to_string();
    crate::assert_contains!(text, "why does the fixture test fail?");
    // The newest exchange stays word for word, not summarised.
    crate::assert_not_contains!(text, "and the token?");
    term.type_line("/quit");
}

/// A session whose approvals are asked, with the test server `t` (its
/// `extra` config lines) behind the bridge.
fn asking(extra: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n\n[approvals]\nmode = \"ask\"\n");
    env.add_test_server("t", extra);
    env.prefill("t");
    env
}

/// A provider that sends nothing for a while: the spinner counts the time.
#[test]
fn the_spinner_shows_how_long_the_provider_has_been_silent() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::text("late").delayed(std::time::Duration::from_millis(3500)));
    let term = Tmux::start(&env, &[]);
    term.type_line("hello");
    term.wait_for("the time waited", |s| {
        s.lines()
            .any(|l| l.contains("thinking… 2s") || l.contains("thinking… 3s"))
    });
    term.wait_for("the answer", |s| s.contains("late"));
    term.type_line("/quit");
}

/// At 80 columns the answers of an approval question are broken between
/// words, never inside one.
#[test]
fn the_answers_of_a_question_fit_80_columns_whole_words() {
    let env = asking("");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("ask"),
        "tool_call",
        &json!({"calls": [{"name": "mcp__t__echo", "arguments": {"text": "hi"}}]}).to_string(),
    )]));
    env.fake.push(Reply::text("done"));
    let term = Tmux::start(&env, &[]);
    term.resize(80, 30);
    term.type_line("echo it");
    term.wait_for("the question", |s| s.contains("v see all"));
    let screen = term.screen();
    let lines: Vec<&str> = screen.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("  y allow once"))
        .unwrap();
    let last = lines.iter().position(|l| l.contains("v see all")).unwrap();
    let hint: Vec<&str> = lines[first..=last].iter().map(|l| l.trim()).collect();
    assert_eq!(
        hint.join(" "),
        "y allow once · s allow mcp__t__echo for this session · a always (config.toml) · n deny (n REASON tells the model why) · v see all",
        "{screen}"
    );
    term.type_line("y");
    term.wait_for("the answer", |s| s.contains("done"));
    term.type_line("/quit");
}

/// A stop while the first entry's question waits: the entries after it
/// never started, and each is shown under its own tool, in its place.
#[test]
fn entries_a_stop_leaves_unstarted_are_shown_under_their_own_tools() {
    let env = asking("concurrency = \"parallel\"");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("stop"),
        "tool_call",
        &json!({"calls": [
            {"name": "mcp__t__echo", "arguments": {"text": "asked"}},
            {"name": "mcp__t__slow", "arguments": {"ms": 10, "label": "after"}},
        ]})
        .to_string(),
    )]));
    let term = Tmux::start(&env, &[]);
    term.type_line("run both");
    term.wait_for("the first question", |s| s.contains("v see all"));
    term.type_line("/stop");
    term.wait_for("the stop", |s| s.contains("stopped."));
    let screen = term.screen();
    crate::assert_not_contains!(screen, "✗ tool_call");
    crate::assert_contains!(screen, "mcp__t__slow");
    let slow = screen
        .lines()
        .find(|l| l.contains("mcp__t__slow") && l.contains("cancelled before it started"));
    assert!(slow.is_some(), "{screen}");
    term.type_line("/quit");
}
