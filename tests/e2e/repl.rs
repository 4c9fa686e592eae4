//! The interactive loop, driven through a pipe with `--interactive`.

use std::io::Write;

use crate::support::{call_id, records, wait_for, Reply, TestEnv};

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
    crate::assert_contains!(run.stdout, "hello from the repl\n");
    crate::assert_contains!(run.stdout, "fresh start\n");
    crate::assert_contains!(
        run.stderr,
        "  /new               start a new session (the current one stays on disk) (also /clear)"
    );
    crate::assert_contains!(run.stderr, "unknown command /bogus");
    crate::assert_contains!(run.stderr, "new session ");

    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 2, "input after /quit was sent");
    // /new: the second turn starts from an empty conversation.
    let msgs = reqs[1].json()["messages"].as_array().unwrap().clone();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[1]["content"], "again");
    assert_eq!(env.sessions().len(), 2);
    let history = std::fs::read_to_string(env.home.path().join("history.txt")).unwrap();
    crate::assert_contains!(history, "again");
}

#[test]
fn repl_keeps_going_after_a_failed_turn() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::status(400, r#"{"error":{"message":"bad request"}}"#));
    env.fake.push(Reply::text("second try works"));
    let run = env.run_with_stdin(&["--interactive"], "one\ntwo\n");
    run.ok();
    crate::assert_contains!(run.stderr, "error: provider `fake` answered HTTP 400");
    crate::assert_contains!(run.stdout, "second try works");
}

/// `/stop` typed in a real terminal (a pty from `script`) while a tool runs.
#[cfg(target_os = "linux")]
#[test]
fn slash_stop_in_a_terminal_stops_the_running_turn() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("c1"),
        "tool_call",
        r#"{"calls":[{"name":"mcp__t__slow","arguments":{"ms":20000,"label":"long"}}]}"#,
    )]));
    env.fake.push(Reply::text("never asked"));
    let (child, mut stdin) = repl_in_a_terminal(&env, std::path::Path::new("/dev/null"));
    stdin.write_all(b"run the slow tool\r").unwrap();
    wait_for("the tool to start", || {
        env.server_log("t").contains("slow start long")
    });
    stdin.write_all(b"/stop\r").unwrap();
    wait_for("the MCP cancellation", || {
        env.server_log("t").contains("cancelled request")
    });
    stdin.write_all(b"/quit\r").unwrap();
    let out = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    crate::assert_contains!(screen, "stopped.");
    assert_eq!(
        env.fake.requests().len(),
        1,
        "a model request followed the stop"
    );
    let path = env.sessions().pop().unwrap();
    let result = records(&path)
        .into_iter()
        .find(|r| r["type"] == "tool_result")
        .unwrap();
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("interrupted by the user while running"),
        "{result}"
    );
}

/// hermes' REPL in a pseudo-terminal (`script`, which copies the screen to
/// `typescript`), started: its session file exists, so what is typed from
/// now on is read by its line editor.
pub(crate) fn repl_in_a_terminal(
    env: &TestEnv,
    typescript: &std::path::Path,
) -> (std::process::Child, std::process::ChildStdin) {
    let mut child = env
        .command("script")
        .args(["-qfec", env!("CARGO_BIN_EXE_hermes")])
        .arg(typescript)
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    wait_for("the REPL to start", || env.sessions().len() == 1);
    (child, stdin)
}

/// The pid of the hermes process below `pid` (`script` runs it through a
/// shell, which may or may not exec it).
#[cfg(target_os = "linux")]
fn hermes_below(pid: u32) -> Option<i32> {
    let parent_of = |p: &std::path::Path| -> Option<(i32, i32, String)> {
        let stat = std::fs::read_to_string(p.join("stat")).ok()?;
        let (head, after) = stat.rsplit_once(')')?;
        let comm = head.split_once('(')?.1.to_string();
        let ppid = after.split_whitespace().nth(1)?.parse().ok()?;
        let me = p.file_name()?.to_str()?.parse().ok()?;
        Some((me, ppid, comm))
    };
    let procs: Vec<(i32, i32, String)> = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| parent_of(&e.path()))
        .collect();
    let mut frontier = vec![pid as i32];
    while let Some(p) = frontier.pop() {
        for (me, ppid, comm) in &procs {
            if *ppid == p {
                if comm == "hermes" {
                    return Some(*me);
                }
                frontier.push(*me);
            }
        }
    }
    None
}

/// SIGTERM ends an interactive session waiting at its prompt: the line
/// editor's read abandoned, the terminal mode put back, no server left
/// running, exit 143.
#[cfg(target_os = "linux")]
#[test]
fn sigterm_at_the_prompt_ends_the_repl_and_stops_its_servers() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("warm"),
        "mcp__t__echo",
        r#"{"text":"warm"}"#,
    )]));
    env.fake.push(Reply::text("ready"));
    let typescript = env.home.path().join("typescript");
    let (child, mut stdin) = repl_in_a_terminal(&env, &typescript);
    stdin.write_all(b"start the server\r").unwrap();
    // Back at the prompt: the answer shown, then the prompt again.
    wait_for("the prompt after the answer", || {
        std::fs::read_to_string(&typescript).is_ok_and(|t| {
            t.split_once("ready")
                .is_some_and(|(_, after)| after.contains('›'))
        })
    });
    let pid = hermes_below(child.id()).expect("hermes under script");
    // SAFETY: kill(2) with the pid of hermes, which this test started.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let out = child.wait_with_output().unwrap();
    let screen = std::fs::read_to_string(&typescript).unwrap_or_default();
    assert_eq!(out.status.code(), Some(143), "{screen}");
    crate::assert_contains!(screen, "stopped by SIGTERM");
    // No server is left running.
    let server: i32 = env
        .server_log("t")
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("test server: pid "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap();
    wait_for("the server to be gone", || {
        // SAFETY: kill(2) with signal 0 only checks whether the pid exists.
        unsafe { libc::kill(server, 0) != 0 }
    });
}

/// Approval prompts in a real terminal: one per entry, in entry order, while
/// the batch waits; allow once, allow for the session, deny with a reason,
/// always (written to config.toml), and Ctrl-C at a prompt.
#[cfg(target_os = "linux")]
#[test]
fn approval_prompts_in_a_terminal_settle_each_entry() {
    use serde_json::json;
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n\n[approvals]\nmode = \"ask\"\n");
    env.add_test_server("t", "concurrency = \"parallel\"");
    env.prefill("t");
    let call = |label: &str, entries: serde_json::Value| {
        Reply::tool_calls(&[(
            &call_id(label),
            "tool_call",
            &json!({ "calls": entries }).to_string(),
        )])
    };
    env.fake.push(call(
        "t1",
        json!([
            {"name": "mcp__t__echo", "arguments": {"text": "one"}},
            {"name": "mcp__t__echo", "arguments": {"text": "two"}},
            {"name": "mcp__t__slow", "arguments": {"ms": 1, "label": "x"}},
        ]),
    ));
    env.fake.push(Reply::text("first done"));
    env.fake.push(call(
        "t2",
        json!([
            {"name": "mcp__t__echo", "arguments": {"text": "three"}},
            {"name": "mcp__t__slow", "arguments": {"ms": 1, "label": "y"}},
        ]),
    ));
    env.fake.push(Reply::text("second done"));
    env.fake.push(call(
        "t3",
        json!([{"name": "mcp__t__fail", "arguments": {}}]),
    ));
    env.fake.push(Reply::text("never asked"));
    let typescript = env.home.path().join("typescript");
    let (child, mut stdin) = repl_in_a_terminal(&env, &typescript);
    let screen = || std::fs::read_to_string(&typescript).unwrap_or_default();
    let prompts = |n: usize| move || screen().matches("wants to run").count() >= n;
    let mut answer = |after: usize, text: &[u8]| {
        wait_for(&format!("prompt {after}"), prompts(after));
        stdin.write_all(text).unwrap();
    };
    answer(0, b"go\r");
    answer(1, b"y\r");
    answer(2, b"s\r");
    answer(3, b"n not now\r");
    wait_for("the first answer", || screen().contains("first done"));
    answer(3, b"again\r");
    // echo is allowed for the session: the next question is slow's.
    answer(4, b"a\r");
    wait_for("the second answer", || screen().contains("second done"));
    answer(4, b"once more\r");
    answer(5, &[3u8]);
    wait_for("the stop", || screen().contains("stopped."));
    stdin.write_all(b"/approvals\r").unwrap();
    wait_for("the approvals list", || screen().contains("(this session)"));
    stdin.write_all(b"/quit\r").unwrap();
    let out = child.wait_with_output().unwrap();
    let screen = screen();
    // hermes ends at /quit; the shell `script` runs it through also saw the
    // Ctrl-C and may report it (130) once hermes is done.
    assert!(
        matches!(out.status.code(), Some(0 | 130)),
        "{:?}\n{}",
        out.status,
        &screen[screen.len().saturating_sub(1500)..]
    );
    crate::assert_contains!(screen, "? mcp__t__echo (server t) wants to run — mode ask");
    crate::assert_contains!(screen, "    text: one");
    crate::assert_contains!(screen, "mcp__t__echo  (this session)");
    // The "always" answer, saved in the config since the run began.
    crate::assert_contains!(
        screen,
        format!("mcp__t__slow  (always, in {})", env.config_path().display())
    );
    assert_eq!(screen.matches("wants to run").count(), 5, "{screen}");
    assert_eq!(env.fake.requests().len(), 5, "no request after the stop");
    let results = |n: usize| {
        env.fake.requests()[n].json()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        results(1),
        [
            "one",
            "two",
            "Error: `mcp__t__slow` was not run: denied by you (not now)"
        ]
    );
    let second = results(3);
    assert_eq!(second[second.len() - 2..], ["three", "slept 1 ms y"]);
    let config = std::fs::read_to_string(env.config_path()).unwrap();
    crate::assert_contains!(config, "allow = [\"mcp__t__slow\"]");
    crate::assert_contains!(config, "mode = \"ask\"");
    let by: Vec<String> = records(&env.sessions().pop().unwrap())
        .into_iter()
        .filter(|r| r["event"] == "approval")
        .map(|r| r["by"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        by,
        [
            "you, once",
            "you, for this session",
            "you",
            "you, for this session",
            "you, always",
            "you, stopping the turn"
        ]
    );
}

/// Tab completes commands in a real terminal.
#[cfg(target_os = "linux")]
#[test]
fn tab_completes_a_command() {
    let env = TestEnv::new();
    let typescript = env.home.path().join("typescript");
    let (child, mut stdin) = repl_in_a_terminal(&env, &typescript);
    stdin.write_all(b"/usa\t\r").unwrap();
    wait_for("the completed command's answer", || {
        std::fs::read_to_string(&typescript).is_ok_and(|t| t.contains("model request(s)"))
    });
    stdin.write_all(b"/quit\r").unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
}

/// On a terminal the answer's Markdown is rendered (and only hermes' own
/// styling reaches it).
#[cfg(target_os = "linux")]
#[test]
fn markdown_is_rendered_on_a_terminal() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("# Plan\n- **first** step\n"));
    let typescript = env.home.path().join("typescript");
    let (child, mut stdin) = repl_in_a_terminal(&env, &typescript);
    stdin.write_all(b"plan it\r").unwrap();
    wait_for("the rendered answer", || {
        std::fs::read_to_string(&typescript).is_ok_and(|t| t.contains("first"))
    });
    stdin.write_all(b"/quit\r").unwrap();
    let _ = child.wait_with_output().unwrap();
    let screen = std::fs::read_to_string(&typescript).unwrap();
    crate::assert_contains!(screen, "\u{1b}[1m\u{1b}[4mPlan\u{1b}[0m");
    crate::assert_contains!(screen, "• \u{1b}[1mfirst\u{1b}[0m step");
    crate::assert_not_contains!(screen, "# Plan");
}
