//! Plan mode and `update_plan` (issue 52): reads and investigation run,
//! what would change files is refused with a result that names plan mode
//! (neither `--yolo` nor an allow rule lifts it, a deny rule still holds),
//! `shell` sees the working folder read-only; the plan is an event, an
//! editor's update, and Claude Code's `TodoWrite` to hooks.

use serde_json::{json, Value};

use super::approvals::files_env;
use crate::support::calls::{batch, contents};
use crate::support::{call_id, Reply, TestEnv};

fn plan_env() -> TestEnv {
    let env = TestEnv::new();
    env.write_config(
        "[tools]\nbuiltin = [\"read_file\", \"write_file\", \"shell\", \"update_plan\"]\n",
    );
    std::fs::write(
        env.cwd.path().join("notes.txt"),
        "the parser drops the last line\n",
    )
    .unwrap();
    env
}

#[test]
fn in_plan_mode_with_yolo_a_read_runs_and_a_write_is_refused_naming_plan_mode() {
    let env = plan_env();
    env.fake.push(Reply::tool_calls(&[
        (&call_id("r"), "read_file", r#"{"path":"notes.txt"}"#),
        (
            &call_id("w"),
            "write_file",
            r#"{"path":"fix.txt","content":"x"}"#,
        ),
    ]));
    env.fake
        .push(Reply::text("Plan: 1. fix the parser 2. add a test"));
    let run = env.run(&["--mode", "plan", "--yolo", "--json", "-q", "fix the parser"]);
    run.ok();
    assert!(
        !env.cwd.path().join("fix.txt").exists(),
        "the write never ran"
    );
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "the parser drops the last line");
    crate::assert_contains!(r[1], "`write_file` was not run: denied by mode plan");
    crate::assert_contains!(r[1], "plan mode: only reads and investigation run");
    crate::assert_contains!(r[1], "Shift-Tab or /mode");
    // The model is told the mode at the head of the message.
    let first = env.last_user_text(0);
    assert!(first.starts_with("[hermes: plan mode is on."), "{first}");
    let events = run.events();
    let last = events.last().unwrap();
    assert_eq!(
        last["calls"],
        json!({"ok": 1, "error": 0, "denied": 1, "refused": 0, "cancelled": 0})
    );
}

#[test]
fn an_allow_rule_does_not_lift_plan_mode_and_a_deny_rule_still_holds() {
    let env = TestEnv::new();
    env.write_config(
        "[tools]\nbuiltin = [\"read_file\", \"write_file\"]\n\n[approvals]\nmode = \"plan\"\n\
         allow = [\"write_file\"]\ndeny = [\"read_file\"]\n",
    );
    std::fs::write(env.cwd.path().join("a.txt"), "a").unwrap();
    env.fake.push(Reply::tool_calls(&[
        (&call_id("r"), "read_file", r#"{"path":"a.txt"}"#),
        (
            &call_id("w"),
            "write_file",
            r#"{"path":"b.txt","content":"b"}"#,
        ),
    ]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "denied by rule approvals.deny");
    crate::assert_contains!(r[1], "denied by mode plan");
    assert!(!env.cwd.path().join("b.txt").exists());
}

#[test]
fn in_plan_mode_a_command_reads_but_cannot_write_the_folder() {
    let env = plan_env();
    env.fake.push(Reply::tool_calls(&[
        (&call_id("c"), "shell", r#"{"command":"cat notes.txt && wc -l < notes.txt"}"#),
        (&call_id("w"), "shell", r#"{"command":"echo fixed > made.txt"}"#),
        (&call_id("t"), "shell", r#"{"command":"echo scratch > \"$TMPDIR/scratch.txt\" && cat \"$TMPDIR/scratch.txt\""}"#),
    ]));
    env.fake.push(Reply::text("investigated"));
    env.run(&["--mode", "plan", "--yolo", "-q", "look around"])
        .ok();
    let r = contents(&env.tool_results(1));
    assert!(
        r[0].starts_with("the parser drops the last line\n1\n"),
        "{r:?}"
    );
    // The write failed: the folder is read-only to the command.
    assert!(r[1].starts_with("Error:"), "{r:?}");
    crate::assert_contains!(r[1], "made.txt: Read-only file system");
    assert!(!env.cwd.path().join("made.txt").exists());
    // The temp folder stays writable.
    assert!(r[2].starts_with("scratch\n"), "{r:?}");
    // Out of plan mode the same command writes.
    env.fake.push(Reply::tool_calls(&[(
        &call_id("w2"),
        "shell",
        r#"{"command":"echo fixed > made.txt"}"#,
    )]));
    env.fake.push(Reply::text("done"));
    env.run(&["--yolo", "-q", "now fix it"]).ok();
    assert!(env.cwd.path().join("made.txt").exists());
}

#[test]
fn an_mcp_tool_not_marked_read_only_is_refused_in_plan_mode_and_a_read_only_one_runs() {
    let (env, docs) = files_env("mode = \"plan\"");
    let dir = std::fs::canonicalize(docs.path()).unwrap();
    let p = |n: &str| dir.join(n).display().to_string();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("rw"),
        "tool_call",
        &batch(&[
            ("mcp__files__read_text_file", json!({"path": p("a.txt")})),
            ("mcp__files__create_directory", json!({"path": p("new")})),
        ]),
    )]));
    env.fake.push(Reply::text("planned"));
    env.run(&["--yolo", "-q", "plan it"]).ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(r[0], "note A");
    crate::assert_contains!(r[1], "denied by mode plan");
    assert!(!docs.path().join("new").exists());
}

#[test]
fn update_plan_is_offered_accepted_and_emitted_as_plan_updated() {
    let env = plan_env();
    let plan = json!({"explanation": "tests first", "plan": [
        {"step": "Read notes.txt", "status": "completed"},
        {"step": "Fix the parser", "status": "in_progress"},
        {"step": "Run the suite", "status": "pending"}]});
    env.fake.push(Reply::tool_calls(&[(
        &call_id("p"),
        "update_plan",
        &plan.to_string(),
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("p2"),
        "update_plan",
        r#"{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}"#,
    )]));
    env.fake.push(Reply::text("on it"));
    let run = env.run(&["--json", "-q", "fix the parser"]);
    run.ok();
    let tools: Vec<String> = env.fake.requests()[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(tools.contains(&"update_plan".to_string()), "{tools:?}");
    let events = run.events();
    let updates: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "plan_updated")
        .collect();
    assert_eq!(updates.len(), 1, "the second, invalid plan is not shown");
    assert_eq!(updates[0]["explanation"], "tests first");
    assert_eq!(updates[0]["plan"], plan["plan"]);
    assert_eq!(contents(&env.tool_results(1)), ["Plan updated"]);
    crate::assert_contains!(
        contents(&env.tool_results(2))[1],
        "at most one step can be in_progress"
    );
    // In text mode the plan is a checklist on stderr.
    env.fake.push(Reply::tool_calls(&[(
        &call_id("p3"),
        "update_plan",
        &plan.to_string(),
    )]));
    env.fake.push(Reply::text("on it"));
    let run = env.run(&["-q", "fix the parser"]);
    crate::assert_contains!(
        run.stderr,
        "plan (1/3): tests first\n  ✔ Read notes.txt\n  ▶ Fix the parser\n  ☐ Run the suite"
    );
    assert_eq!(run.stdout, "on it\n");
}

#[test]
fn a_hook_sees_update_plan_as_claude_codes_todo_write() {
    let env = plan_env();
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let log = env.home.path().join("todo.log");
    let hook = dir.join("todo-log.py");
    std::fs::write(
        &hook,
        format!(
            "import json, sys\nd = json.load(sys.stdin)\nopen({:?}, 'a').write(d['tool_name'] + ' ' + json.dumps(d['tool_input']) + '\\n')\n",
            log.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("settings.json"),
        format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "TodoWrite", "hooks": [{{"type": "command", "command": "python3 {}"}}]}}]}}}}"#,
            hook.display()
        ),
    )
    .unwrap();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("p"),
        "update_plan",
        r#"{"plan":[{"step":"Fix the parser","status":"in_progress"}]}"#,
    )]));
    env.fake.push(Reply::text("on it"));
    env.run(&["-q", "go"]).ok();
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        logged.trim(),
        r#"TodoWrite {"todos": [{"activeForm": "Fix the parser", "content": "Fix the parser", "status": "in_progress"}]}"#
    );
}

/// In a terminal: Shift-Tab steps the mode ask → auto → plan (the typed
/// text kept), shown in the prompt and the status line; a plan-mode
/// answer is put to the person, and "y" goes back to the mode they came
/// from, tells the model the plan was approved and sends it on.
#[test]
fn shift_tab_cycles_the_modes_and_approving_a_plan_switches_back_and_says_so() {
    use crate::support::tmux::Tmux;
    let env = plan_env();
    env.write_config(
        "[tools]\nbuiltin = [\"read_file\", \"update_plan\"]\n\n[approvals]\nmode = \"ask\"\n",
    );
    let term = Tmux::start(&env, &[]);
    term.wait_for("the prompt", |s| s.lines().any(|l| l.trim_end() == "›"));
    term.type_keys("fix the parser");
    term.press("BTab");
    term.wait_for("auto, the text kept", |s| {
        s.contains("mode auto: changes run without asking")
            && s.contains("· mode auto ·")
            && s.lines().any(|l| l.trim_end() == "› fix the parser")
    });
    term.press("BTab");
    term.wait_for("plan, in the prompt and the status line", |s| {
        s.lines().any(|l| l.trim_end() == "(plan) › fix the parser") && s.contains("· mode plan")
    });
    env.fake.push(Reply::tool_calls(&[(
        &call_id("p"),
        "update_plan",
        r#"{"plan":[{"step":"Read notes.txt","status":"completed"},{"step":"Fix the parser","status":"pending"}]}"#,
    )]));
    env.fake
        .push(Reply::text("Plan: fix the parser's last line."));
    term.press("Enter");
    term.wait_for("the checklist and the question", |s| {
        s.contains("✔ Read notes.txt")
            && s.contains("☐ Fix the parser")
            && s.contains("run this plan? y: yes")
    });
    let first = env.last_user_text(0);
    assert!(first.starts_with("[hermes: plan mode is on."), "{first}");
    env.fake.push(Reply::text("Done: fixed."));
    term.type_line("y");
    term.wait_for("approved, back to ask, the model sent on", |s| {
        s.contains("plan approved: mode auto") && s.contains("Done: fixed.")
    });
    let approved = env.last_user_text(2);
    assert!(
        approved
            .starts_with("[hermes: the person approved your plan and left plan mode (now auto)"),
        "{approved}"
    );
    crate::assert_contains!(approved, "Go ahead with the plan.");
    term.wait_for("the mode they came from, no longer plan", |s| {
        s.contains("· mode auto ·") && s.lines().rev().any(|l| l.trim_end() == "›")
    });
    term.type_line("/quit");
    crate::support::wait_for("hermes to leave", || term.exited());
    // Resumed, the plan is shown as it last stood.
    let again = Tmux::start(&env, &["--continue"]);
    again.wait_for("the plan again", |s| {
        s.contains("plan (1/2):")
            && s.contains("☐ Fix the parser")
            && s.contains("— resumed session")
    });
    again.type_line("/quit");
}
