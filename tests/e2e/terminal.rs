//! Input that is never lost or fatal, and output that is safe for the
//! user's terminal (issue: the terminal day).

use std::io::Read;
use std::process::Stdio;

use serde_json::json;

use crate::support::fake_provider::{delta, finish};
use crate::support::{Reply, TestEnv};

#[test]
fn bytes_that_are_not_utf8_on_stdin_are_replaced_not_fatal() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("ok"));
    let run = env.run_with_stdin(&["-q", "-"], b"caf\xe9 au lait");
    run.ok();
    crate::assert_contains!(run.stderr, "not UTF-8; each was replaced with \u{FFFD}");
    assert_eq!(env.last_user_text(0), "caf\u{FFFD} au lait");
}

#[test]
fn a_prompt_and_piped_data_are_sent_together() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("summary"));
    let run = env.run_with_stdin(&["-q", "summarise this"], b"line one\n```code```\n");
    run.ok();
    assert_eq!(
        env.last_user_text(0),
        "summarise this\n\n````\nline one\n```code```\n````\n",
        "the data as a fenced block after the text, the fence longer than any inside"
    );
    // Nothing piped (stdin is /dev/null): the prompt alone.
    env.fake.push(Reply::text("plain"));
    env.run(&["-q", "just this"]).ok();
    assert_eq!(env.last_user_text(1), "just this");
}

#[test]
fn a_piped_repl_line_that_is_not_utf8_is_sent_with_the_byte_replaced() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("bien"));
    env.fake.push(Reply::text("still here"));
    let run = env.run_with_stdin(&["--interactive"], b"caf\xe9\r\nhello\n/quit\n");
    run.ok();
    crate::assert_contains!(run.stderr, "not UTF-8; each was replaced with \u{FFFD}");
    crate::assert_contains!(run.stdout, "still here");
    assert_eq!(env.last_user_text(0), "caf\u{FFFD}");
    assert_eq!(env.last_user_text(1), "hello");
}

#[test]
fn escape_sequences_from_the_model_never_reach_the_terminal() {
    let env = TestEnv::new();
    env.fake.push(Reply::sse(vec![
        delta(json!({"content": "Hi\u{1b}]52;c;ZXZp"})),
        delta(json!({"content": "bA==\u{7} there\u{1b}[2J\u{1b}]0;pwned\u{1b}\\\u{1b}[?1049h"})),
        delta(json!({"content": ", friend\u{8}\u{7}\n"})),
        finish("stop"),
    ]));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    assert_eq!(run.stdout, "Hi there, friend\n");
    // The session keeps what the model sent: only the terminal is spared.
    let saved = std::fs::read_to_string(env.only_session()).unwrap();
    crate::assert_contains!(saved, "\\u001b]52;c;");
    let show = env.run(&["sessions", "show", "--", &session_id(&env)]);
    show.ok();
    crate::assert_not_contains!(show.stdout, "\u{1b}");
    crate::assert_contains!(show.stdout, "Hi there, friend");
}

fn session_id(env: &TestEnv) -> String {
    env.only_session()
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_closed_stdout_ends_sessions_show_cleanly() {
    let env = TestEnv::new();
    let big = "all work and no play\n".repeat(20_000);
    env.fake.push(Reply::sse(vec![
        delta(json!({"content": big})),
        finish("stop"),
    ]));
    env.run(&["-q", "write a lot"]).ok();
    let mut child = env
        .cmd()
        .args(["sessions", "show", &session_id(&env)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take()); // `| head -c 64`
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    crate::assert_not_contains!(stderr, "panicked");
}

#[test]
fn an_empty_repl_session_is_not_kept_and_continue_finds_the_last_real_one() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("the real one"));
    let run = env.run_with_stdin(&["--interactive"], "hello\n/quit\n");
    run.ok();
    let real = session_id(&env);
    crate::assert_contains!(run.stderr, format!("resume with: hermes --resume {real}"));
    // Opened and left without a word: nothing kept, nothing to resume.
    let run = env.run_with_stdin(&["--interactive"], "/quit\n");
    run.ok();
    crate::assert_not_contains!(run.stderr, "resume with");
    assert_eq!(env.sessions().len(), 1, "{:?}", env.sessions());
    env.fake.push(Reply::text("continued"));
    env.run(&["--continue", "-q", "and now?"]).ok();
    assert_eq!(session_id(&env), real);
}

#[test]
fn a_mistyped_command_gets_the_nearest_one() {
    let env = TestEnv::new();
    let run = env.run_with_stdin(&["--interactive"], "/aprovals\n/quit\n");
    run.ok();
    crate::assert_contains!(
        run.stderr,
        "unknown command /aprovals; did you mean /approvals?"
    );
}

#[test]
fn shell_completions_come_from_the_same_flags() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish"] {
        let run = env.run(&["completions", shell]);
        run.ok();
        crate::assert_contains!(run.stdout, "--approve");
        crate::assert_contains!(run.stdout, "sessions");
    }
    let run = env.run(&["completions", "tcsh"]);
    run.code(2);
}

#[test]
fn a_failed_turn_is_marked_and_the_next_message_tells_the_model() {
    let env = TestEnv::new();
    env.fake.push(Reply::status(
        400,
        r#"{"error":{"message":"scripted failure"}}"#,
    ));
    env.fake.push(Reply::text("second try works"));
    let run = env.run_with_stdin(&["--interactive"], "one\ntwo\n/quit\n");
    run.ok();
    let next = env.last_user_text(1);
    assert!(
        next.starts_with("[hermes: the previous request was ended by an error (provider `fake` answered HTTP 400")
            && next.ends_with("\n\ntwo"),
        "{next}"
    );
    let ended: Vec<serde_json::Value> = crate::support::records(&env.only_session())
        .into_iter()
        .filter(|r| r["event"] == "turn_ended")
        .collect();
    assert_eq!(ended.len(), 1);
    // A session resumed after a turn that got no answer says so too.
    env.fake
        .push(Reply::status(400, r#"{"error":{"message":"again"}}"#));
    env.run(&["--continue", "-q", "three"]).code(1);
    env.fake.push(Reply::text("ok"));
    env.run(&["--continue", "-q", "four"]).ok();
    let last = env.last_user_text(3);
    assert!(
        last.starts_with("[hermes: the previous request was interrupted") && last.ends_with("four"),
        "{last}"
    );
}

#[test]
fn hermes_with_words_opens_the_repl_with_that_first_message() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("on it"));
    let run = env.run_with_stdin(&["--interactive", "fix", "the failing test"], "/quit\n");
    run.ok();
    assert_eq!(env.last_user_text(0), "fix the failing test");
    crate::assert_contains!(run.stdout, "on it");
    crate::assert_contains!(run.stderr, "› fix the failing test");
}

/// Off a terminal, words and a pipe are a one-shot run (issue 50): what
/// the pipe carries is data after the words — an editor's JSON-RPC lines
/// are never sent to the model as messages one by one.
#[test]
fn words_with_a_pipe_are_one_run_and_the_pipe_is_their_data() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("reviewed"));
    let line = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;
    let run = env.run_with_stdin(&["review", "this"], format!("{line}\n{line}\n"));
    run.ok();
    assert_eq!(
        env.fake.requests().len(),
        1,
        "one request, not one per line"
    );
    let sent = env.last_user_text(0);
    assert!(sent.starts_with("review this\n"), "{sent}");
    assert_eq!(sent.matches("initialize").count(), 2, "{sent}");
    crate::assert_contains!(run.stdout, "reviewed");
    crate::assert_not_contains!(run.stderr, "›");
}

#[test]
fn a_resumed_repl_shows_the_last_exchanges() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("The answer is 42."));
    env.run(&["-q", "what is the answer?"]).ok();
    let run = env.run_with_stdin(&["--interactive", "--continue"], "/quit\n");
    run.ok();
    crate::assert_contains!(run.stderr, "› what is the answer?");
    crate::assert_contains!(run.stderr, "The answer is 42.");
    crate::assert_contains!(
        run.stderr,
        format!(
            "— resumed session {} (1 message(s) of yours) —",
            session_id(&env)
        )
    );
}

#[test]
fn repl_commands_for_model_tools_servers_usage_and_sessions() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::text("answered"));
    env.fake.push(Reply::text("resumed answer"));
    let run = env.run_with_stdin(
        &["--interactive"],
        "/tools echo text back\n/mcp\n/model other-model\nhi \\\nthere\n/usage\n/sessions\n/clear\n/resume\nagain\n/quit\n",
    );
    run.ok();
    crate::assert_contains!(run.stderr, "mcp__t__echo");
    // Running or not depends on the background catalog fill's timing.
    crate::assert_contains!(run.stderr, " 9 tools");
    crate::assert_contains!(run.stderr, "model other-model from the next request on");
    let first = env.fake.requests()[0].json();
    assert_eq!(first["model"], "other-model");
    assert_eq!(
        env.last_user_text(0),
        "hi \nthere",
        "a trailing backslash goes on"
    );
    crate::assert_contains!(run.stderr, "1 model request(s)");
    crate::assert_contains!(run.stderr, "new session");
    crate::assert_contains!(run.stderr, "— resumed session");
    // /resume went back to the first conversation: its history was sent.
    let second = env.fake.requests()[1].json();
    assert_eq!(second["messages"].as_array().unwrap().len(), 4, "{second}");
}

#[test]
fn each_result_is_labelled_with_its_entry_in_plain_output() {
    let env = TestEnv::deferred(&[("t", "concurrency = \"parallel\"")]);
    env.fake.push(Reply::tool_calls(&[(
        &crate::support::call_id("plain"),
        "tool_call",
        &crate::support::calls::batch(&[
            ("mcp__t__slow", json!({"ms": 300, "label": "late"})),
            ("mcp__t__echo", json!({"text": "early"})),
        ]),
    )]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["-q", "go"]);
    run.ok();
    // The split child shows its own arguments, not the {"calls":[…]} wrapper,
    // and each result names the tool it belongs to, whatever order they end.
    crate::assert_contains!(run.stderr, "⏺ mcp__t__echo {\"text\":\"early\"}");
    crate::assert_not_contains!(run.stderr, "{\"calls\"");
    crate::assert_contains!(run.stderr, "  ✓ mcp__t__echo {\"text\":\"early\"} — early");
    crate::assert_contains!(
        run.stderr,
        "  ✓ mcp__t__slow {\"label\":\"late\",\"ms\":300} — slept 300 ms late"
    );
}

/// `--yolo` at start shows in the prompt, and the first `/yolo` turns it
/// off: the prompt says so and a write is asked about again (issue 55).
#[test]
fn yolo_from_the_flag_shows_in_the_prompt_and_yolo_turns_it_off() {
    use crate::support::tmux::Tmux;
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\"]\n[approvals]\nmode = \"ask\"\n");
    let term = Tmux::start(&env, &["--yolo"]);
    term.wait_for("(yolo) in the prompt", |s| {
        s.lines().any(|l| l.trim_end() == "(yolo) ›")
    });
    term.type_line("/yolo");
    term.wait_for("yolo off, the plain prompt", |s| {
        s.contains("yolo off: approvals ask again") && s.lines().rev().any(|l| l.trim_end() == "›")
    });
    env.fake.push(Reply::tool_calls(&[(
        &crate::support::call_id("w"),
        "write_file",
        r#"{"path":"notes.txt","content":"x"}"#,
    )]));
    env.fake.push(Reply::text("written"));
    term.type_line("write it");
    term.wait_for("the question, asked again", |s| s.contains("wants to run"));
    term.type_line("y");
    term.wait_for("the answer", |s| s.contains("written"));
    term.type_line("/quit");
}

/// A resumed session shows what the person typed — not the note hermes put
/// before it for the model after a failed request (issue 55).
#[test]
fn a_resumed_view_shows_what_was_typed_without_hermes_notes() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("started"));
    env.run(&["-q", "start"]).ok();
    env.fake.push(Reply::status(
        500,
        r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#,
    ));
    let failed = env.run(&["--continue", "-q", "first try"]);
    assert_ne!(failed.code, 0);
    env.fake.push(Reply::text("done now"));
    env.run(&["--continue", "-q", "go on"]).ok();
    let sent = env.last_user_text(2);
    assert!(sent.starts_with("[hermes: the previous request "), "{sent}");
    let run = env.run_with_stdin(&["--interactive", "--continue"], "/quit\n");
    run.ok();
    crate::assert_contains!(run.stderr, "› go on");
    crate::assert_not_contains!(run.stderr, "[hermes: the previous request");
}

/// `/copy` puts the last answer on the clipboard by OSC 52 — here tmux's
/// buffer — as it was written, escapes and all kept out of the terminal.
#[test]
fn copy_puts_the_last_answer_on_the_clipboard() {
    use crate::support::tmux::Tmux;
    let env = TestEnv::new();
    let answer = "Run `cargo test --lib`\n\n| crate | s |\n|---|--:|\n| rmcp | 41 |";
    env.fake.push(Reply::text(answer));
    let term = Tmux::start(&env, &[]);
    term.accept_clipboard();
    term.type_line("/copy");
    term.wait_for("nothing yet", |s| s.contains("no answer to copy yet"));
    term.type_line("which tests?");
    term.wait_for("the answer", |s| s.contains("rmcp"));
    term.type_line("/copy");
    term.wait_for("copied", |s| s.contains("copied the last answer"));
    crate::support::wait_for("the buffer", || term.buffer() == answer);
    term.type_line("/quit");
}

/// `/export` writes the conversation as Markdown beside the person —
/// their words, the answer, each call a collapsible block with its result —
/// and never overwrites a file.
#[test]
fn export_writes_the_conversation_as_markdown_and_never_overwrites() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"read_file\"]\n");
    std::fs::write(env.cwd.path().join("notes.md"), "Ship on Friday.\n").unwrap();
    env.fake.push(Reply::tool_calls(&[(
        &crate::support::call_id("r"),
        "read_file",
        r#"{"path":"notes.md"}"#,
    )]));
    env.fake
        .push(Reply::text("The notes say: **ship on Friday**."));
    let run = env.run_with_stdin(
        &["--interactive"],
        "when do we ship?\n/export\n/export talk.md\n/export talk.md\n/quit\n",
    );
    run.ok();
    let talk = std::fs::read_to_string(env.cwd.path().join("talk.md")).unwrap();
    assert!(talk.starts_with("# hermes session "), "{talk}");
    crate::assert_contains!(talk, "## You\n\nwhen do we ship?\n");
    crate::assert_contains!(talk, "<details><summary>✓ read_file notes.md</summary>");
    crate::assert_contains!(talk, "Ship on Friday.");
    crate::assert_contains!(talk, "The notes say: **ship on Friday**.");
    let named: Vec<_> = std::fs::read_dir(env.cwd.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("hermes-") && n.ends_with(".md"))
        .collect();
    assert_eq!(named.len(), 1, "{named:?}");
    crate::assert_contains!(run.stderr, "talk.md exists; give /export another file name");
}

/// Words typed while a question waits, then Enter, are no answer: they are
/// kept and come back in the line once the question is answered — never
/// lost, never sent without the person's own Enter (issue 55).
#[test]
fn words_typed_at_a_question_come_back_after_it_and_are_not_sent() {
    use crate::support::tmux::Tmux;
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\"]\n[approvals]\nmode = \"ask\"\n");
    env.fake.push(Reply::tool_calls(&[(
        &crate::support::call_id("w"),
        "write_file",
        r#"{"path":"notes.txt","content":"x"}"#,
    )]));
    env.fake.push(Reply::text("written"));
    let term = Tmux::start(&env, &[]);
    term.type_line("write the notes");
    term.wait_for("the question", |s| s.contains("wants to run"));
    term.type_line("also check the tests");
    term.wait_for("kept, the question still open", |s| {
        s.contains("not an answer; kept for after the question")
    });
    term.type_line("y");
    term.wait_for("the answer, and the words back in the line", |s| {
        s.contains("written") && s.lines().any(|l| l.trim_end() == "› also check the tests")
    });
    assert_eq!(env.fake.requests().len(), 2, "the words were not sent");
    assert!(env.cwd.path().join("notes.txt").exists());
    env.fake.push(Reply::text("checked"));
    term.press("Enter");
    term.wait_for("sent on Enter", |s| s.contains("checked"));
    assert_eq!(env.last_user_text(2), "also check the tests");
    term.type_line("/quit");
}

/// The status line fits the width: at 80 columns with a question waiting,
/// fields are dropped (the session first, then the context) rather than
/// wrapped onto a second row; what waits is always said.
#[test]
fn the_status_line_fits_the_width_and_drops_fields_rather_than_wrap() {
    use crate::support::tmux::Tmux;
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\"]\n[approvals]\nmode = \"ask\"\n");
    env.fake.push(Reply::tool_calls(&[(
        &crate::support::call_id("w"),
        "write_file",
        r#"{"path":"notes.txt","content":"x"}"#,
    )]));
    env.fake.push(Reply::text("written"));
    // A window size makes the context a field of its own.
    let mut config = std::fs::read_to_string(env.config_path()).unwrap();
    config.push_str("context_window = 262144\n");
    std::fs::write(env.config_path(), config).unwrap();
    let model = "accounts/fireworks/models/qwen3-coder-480b-a35b-instruct";
    let term = Tmux::start(&env, &["--model", model]);
    term.resize(80, 24);
    term.type_line("write the notes");
    term.wait_for("the question on the status line", |s| {
        s.contains("1 question waiting")
    });
    let screen = term.screen();
    let status = screen
        .lines()
        .find(|l| l.contains("1 question waiting"))
        .unwrap();
    // One row, within the width: the model first, the session and the
    // context dropped, nothing spilled onto another row.
    assert_eq!(
        status.trim_end(),
        format!("{model} · 1 question waiting"),
        "{screen}"
    );
    // And on no other row (the banner may show the session).
    assert_eq!(screen.matches("1 question waiting").count(), 1, "{screen}");
    assert!(!screen.contains("context 0%"), "{screen}");
    // Wider, the context comes back; the line is fitted again on resize.
    term.resize(120, 24);
    term.wait_for("the context back", |s| {
        s.lines()
            .any(|l| l.contains("context 0% of 262 144 · 1 question waiting"))
    });
    term.type_line("y");
    term.wait_for("the answer", |s| s.contains("written"));
    term.type_line("/quit");
}

/// A byte that is not UTF-8 typed during a turn is said at once, where it
/// was typed — the line queued with U+FFFD in its place.
#[test]
fn a_byte_that_is_not_utf8_typed_during_a_turn_is_warned_at_once() {
    use crate::support::tmux::Tmux;
    let env = TestEnv::new();
    env.fake
        .push(Reply::text("slow answer").delayed(std::time::Duration::from_secs(3)));
    env.fake.push(Reply::text("bien"));
    let term = Tmux::start(&env, &[]);
    term.type_line("first");
    term.wait_for("the turn", |s| s.contains("Esc stops the turn"));
    term.type_bytes(b"un caf\xe9 au lait\r");
    term.wait_for("the warning while the turn runs", |s| {
        s.contains("where a typed byte was not UTF-8") && !s.contains("slow answer")
    });
    term.wait_for("the queued line sent", |s| s.contains("bien"));
    assert_eq!(env.last_user_text(1), "un caf\u{FFFD} au lait");
    assert_eq!(
        term.scrollback()
            .matches("where a typed byte was not UTF-8")
            .count(),
        1,
        "said once:\n{}",
        term.scrollback()
    );
    term.type_line("/quit");
}

/// Under `TERM=dumb` (an editor's terminal, `script`), the resume hint at
/// the end has a line of its own, not the prompt's.
#[test]
fn under_term_dumb_the_resume_hint_has_a_line_of_its_own() {
    use crate::support::tmux::Tmux;
    let env = TestEnv::new();
    env.fake.push(Reply::text("hello there"));
    let term = Tmux::start_with(&env, &[], &[("TERM", "dumb")]);
    term.type_line("hi");
    term.wait_for("the answer", |s| s.contains("hello there"));
    term.type_line("/quit");
    term.wait_for("the hint", |s| s.contains("resume with"));
    let screen = term.screen();
    let hint = screen.lines().find(|l| l.contains("resume with")).unwrap();
    assert!(
        hint.starts_with("resume with: hermes --resume "),
        "{screen}"
    );
}

/// `[tui] edit_mode = "vi"`: Esc to normal mode, `0` `dw` `i` edit the line
/// as vi does; Esc at an empty line is vi's, not a rewind.
#[test]
fn vi_editing_edits_the_line_as_vi_does() {
    use crate::support::tmux::Tmux;
    let env = TestEnv::new();
    env.write_config("[tui]\nedit_mode = \"vi\"\n");
    env.fake.push(Reply::text("seen"));
    let term = Tmux::start(&env, &[]);
    term.type_keys("hello world");
    term.press("Escape");
    std::thread::sleep(std::time::Duration::from_millis(100));
    term.type_keys("0dwi");
    term.type_keys("bye ");
    term.wait_for("the edited line", |s| s.contains("› bye world"));
    term.press("Enter");
    term.wait_for("the answer", |s| s.contains("seen"));
    assert_eq!(env.last_user_text(0), "bye world");
    // Esc Esc at an empty prompt: no rewind picker in vi mode.
    term.press("Escape");
    term.press("Escape");
    std::thread::sleep(std::time::Duration::from_millis(300));
    crate::assert_not_contains!(term.screen(), "rewind");
    term.type_keys("i");
    term.type_line("/quit");
}

/// `[tui] theme = "light"`: a diff's added lines, and code, are drawn in
/// darker colours that read on a light background; the default keeps the
/// terminal's own basic ones.
#[test]
fn a_light_theme_draws_diffs_and_code_in_darker_colours() {
    use crate::support::tmux::Tmux;
    for (theme, added, code) in [
        ("light", "\u{1b}[38;5;28m+x", "\u{1b}[38;5;24m"),
        ("dark", "\u{1b}[32m+x", "\u{1b}[36m"),
    ] {
        let env = TestEnv::new();
        env.write_config(&format!(
            "[tools]\nbuiltin = [\"write_file\"]\n[approvals]\nmode = \"ask\"\n[tui]\ntheme = \"{theme}\"\n"
        ));
        env.fake.push(Reply::tool_calls(&[(
            &crate::support::call_id("w"),
            "write_file",
            r#"{"path":"notes.txt","content":"x"}"#,
        )]));
        env.fake.push(Reply::text("Run `cargo test` now."));
        let term = Tmux::start(&env, &[]);
        term.type_line("write the notes");
        term.wait_for("the question", |s| s.contains("wants to run"));
        crate::assert_contains!(term.screen_with_colours(), added);
        term.type_line("y");
        term.wait_for("the answer", |s| s.contains("cargo test"));
        crate::assert_contains!(term.screen_with_colours(), format!("{code}cargo test"));
        term.type_line("/quit");
    }
}

/// `/diff N` shows what turn N changed — to what the next turn found, not
/// to the file as it is now — drawn in colour; `/diff` outside a git
/// repository shows the last turn that changed files.
#[test]
fn diff_of_a_turn_shows_what_that_turn_changed_in_colour() {
    use crate::support::tmux::Tmux;
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\", \"edit_file\"]\n");
    std::fs::write(env.cwd.path().join("lib.rs"), "fn old() {}\n").unwrap();
    let edit = |id: &str, from: &str, to: &str| {
        (
            crate::support::call_id(id),
            "edit_file",
            json!({"path": "lib.rs", "old_string": from, "new_string": to}).to_string(),
        )
    };
    let (e1, e2) = (edit("e1", "old", "renamed"), edit("e2", "renamed", "last"));
    env.fake.push(Reply::tool_calls(&[
        (
            &crate::support::call_id("w"),
            "write_file",
            &json!({"path": "new.rs", "content": "fn new() {}\n"}).to_string(),
        ),
        (&e1.0, e1.1, &e1.2),
    ]));
    env.fake.push(Reply::text("renamed it"));
    env.fake.push(Reply::tool_calls(&[(&e2.0, e2.1, &e2.2)]));
    env.fake.push(Reply::text("and again"));
    let term = Tmux::start(&env, &[]);
    term.type_line("rename it");
    term.wait_for("the first answer", |s| s.contains("renamed it"));
    term.type_line("once more");
    term.wait_for("the second answer", |s| s.contains("and again"));
    term.type_line("/diff 1");
    term.wait_for("turn 1's diff", |s| s.contains("+++ b/new.rs"));
    let shown = term.screen_with_colours();
    crate::assert_contains!(shown, "\u{1b}[31m-fn old() {}");
    crate::assert_contains!(shown, "\u{1b}[32m+fn renamed() {}");
    crate::assert_contains!(shown, "--- /dev/null");
    let screen = term.screen();
    let after = &screen[screen.rfind("› /diff 1").unwrap()..];
    crate::assert_contains!(after, "+fn renamed() {}");
    crate::assert_not_contains!(after, "+fn last() {}");
    term.type_line("/diff");
    term.wait_for("the last turn's diff", |s| {
        s.contains("not in a git repository; what turn 2 changed") && s.contains("+fn last() {}")
    });
    term.type_line("/diff 7");
    term.wait_for("no such turn", |s| {
        s.contains("there is no turn 7; this session has 2")
    });
    term.type_line("/quit");
}

/// `/diff` in a git repository: the uncommitted changes, staged or not,
/// and the files git does not track yet.
#[test]
fn diff_shows_a_folders_uncommitted_changes_and_new_files() {
    let env = TestEnv::new();
    let cwd = env.cwd.path();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(cwd)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .unwrap();
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
    };
    git(&["init", "-q"]);
    std::fs::write(cwd.join("a.txt"), "one\ntwo\n").unwrap();
    git(&["add", "a.txt"]);
    // Before the first commit: against nothing.
    let run = env.run_with_stdin(&["--interactive"], "/diff\n/quit\n");
    crate::assert_contains!(run.stderr, "+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n");
    git(&["commit", "-q", "-m", "first"]);
    std::fs::write(cwd.join("a.txt"), "one\nzwei\n").unwrap();
    std::fs::create_dir(cwd.join("src")).unwrap();
    std::fs::write(cwd.join("src/b.txt"), "fresh\n").unwrap();
    let run = env.run_with_stdin(&["--interactive"], "/diff\n/quit\n");
    run.ok();
    crate::assert_contains!(run.stderr, "-two\n+zwei\n");
    crate::assert_contains!(
        run.stderr,
        "--- /dev/null\n+++ b/src/b.txt\n@@ -0,0 +1 @@\n+fresh\n"
    );
}
