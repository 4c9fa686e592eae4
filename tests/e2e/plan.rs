//! Plan mode and `update_plan` (issue 52): reads and investigation run,
//! what would change files is refused with a result that names plan mode
//! (neither `--yolo` nor an allow rule lifts it, a deny rule still holds),
//! `shell` sees the working folder read-only; the plan is an event, a
//! checklist redrawn in place in the terminal, an editor's update, and
//! Claude Code's `TodoWrite` to hooks; an editor's mode picker has plan.

use serde_json::{json, Value};

use super::approvals::files_env;
use crate::support::acp::{initialize, Editor};
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

/// A session left in plan mode and continued in another mode hears that
/// plan mode is off; one continued in plan mode is not told twice.
#[test]
fn a_session_continued_out_of_plan_mode_tells_the_model_it_is_off() {
    let env = plan_env();
    env.fake.push(Reply::text("Plan: fix the parser."));
    env.run(&["--mode", "plan", "-q", "plan it"]).ok();
    env.fake.push(Reply::text("still planning"));
    env.run(&["--continue", "--mode", "plan", "-q", "more"])
        .ok();
    let again = env.last_user_text(1);
    assert_eq!(again, "more", "still in plan mode, not told twice");
    env.fake.push(Reply::text("fixed"));
    env.run(&["--continue", "-q", "go"]).ok();
    let off = env.last_user_text(2);
    assert!(off.starts_with("[hermes: plan mode is off (now "), "{off}");
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

/// In a terminal the checklist is drawn under the running turn and
/// redrawn in place as the model works through it; when the turn ends it
/// is printed once, as it last stood — one checklist in the scrollback,
/// not one per update.
#[test]
fn the_checklist_is_updated_in_place_while_the_turn_runs() {
    use crate::support::tmux::Tmux;
    use std::time::Duration;
    let env = plan_env();
    env.write_config("[tools]\nbuiltin = [\"read_file\", \"update_plan\"]\n");
    let plan = |first: &str, second: &str| {
        format!(
            r#"{{"plan":[{{"step":"Read notes.txt","status":"{first}"}},{{"step":"Fix the parser","status":"{second}"}}]}}"#
        )
    };
    env.fake.push(Reply::tool_calls(&[(
        &call_id("p1"),
        "update_plan",
        &plan("in_progress", "pending"),
    )]));
    env.fake.push(
        Reply::tool_calls(&[(
            &call_id("p2"),
            "update_plan",
            &plan("completed", "in_progress"),
        )])
        .delayed(Duration::from_millis(1500)),
    );
    env.fake
        .push(Reply::text("Fixed the parser.").delayed(Duration::from_millis(1500)));
    let term = Tmux::start(&env, &[]);
    term.wait_for("the prompt", |s| s.lines().any(|l| l.trim_end() == "›"));
    term.type_line("fix the parser");
    term.wait_for("the first plan, live", |s| {
        s.contains("plan (0/2):") && s.contains("▶ Read notes.txt")
    });
    term.wait_for("the second, in its place", |s| {
        s.contains("plan (1/2):") && s.contains("▶ Fix the parser")
    });
    assert!(
        !term.screen().contains("plan (0/2):"),
        "redrawn, not added:\n{}",
        term.screen()
    );
    term.wait_for("the answer and the prompt", |s| {
        s.contains("Fixed the parser.") && s.lines().rev().any(|l| l.trim_end() == "›")
    });
    let all = term.scrollback();
    assert_eq!(all.matches("plan (").count(), 1, "one checklist:\n{all}");
    let answer = all.find("Fixed the parser.").unwrap();
    let checklist = all.find("plan (1/2):").unwrap();
    assert!(
        checklist > answer,
        "printed as it last stood, after the answer:\n{all}"
    );
    crate::assert_contains!(all, "✔ Read notes.txt");
    term.type_line("/quit");
}

/// "e" at "run this plan?": what the person says should change goes to
/// the model as their next message, and planning goes on.
#[test]
fn editing_a_plan_sends_the_change_and_keeps_planning() {
    use crate::support::tmux::Tmux;
    let env = plan_env();
    env.fake.push(Reply::text("Plan: fix the parser."));
    let term = Tmux::start(&env, &["--mode", "plan"]);
    term.wait_for("the plan prompt", |s| {
        s.lines().any(|l| l.trim_end() == "(plan) ›")
    });
    term.type_line("plan the fix");
    term.wait_for("the question", |s| s.contains("plan? (y/n/e) ›"));
    term.type_line("e");
    term.wait_for("what should change", |s| {
        s.contains("what should change? ›")
    });
    env.fake
        .push(Reply::text("Plan: fix the parser, then add a test."));
    term.type_line("add a regression test too");
    term.wait_for("the new plan, put again", |s| {
        s.contains("then add a test.") && s.matches("plan? (y/n/e) ›").count() == 2
    });
    let change = env.last_user_text(1);
    assert_eq!(
        change, "add a regression test too",
        "still planning: no note"
    );
    term.type_line("n");
    term.wait_for("still in plan mode", |s| {
        s.contains("still in plan mode: /mode leaves it")
            && s.lines().rev().any(|l| l.trim_end() == "(plan) ›")
    });
    term.type_line("/quit");
}

/// Plan mode from the editor's mode picker: a write is refused naming plan
/// mode, the model's plan reaches the editor as a `plan` update, and
/// leaving plan mode lets the write run.
#[test]
fn plan_mode_from_the_editor_refuses_a_write_and_the_plan_reaches_it() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\", \"update_plan\"]\n");
    env.fake.push(Reply::tool_calls(&[
        (
            &call_id("w"),
            "write_file",
            r#"{"path":"fix.md","content":"x"}"#,
        ),
        (
            &call_id("p"),
            "update_plan",
            r#"{"plan":[{"step":"Write fix.md","status":"pending"}]}"#,
        ),
    ]));
    env.fake.push(Reply::text("Plan: write fix.md."));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let r = editor
        .request(
            "session/new",
            json!({"cwd": env.cwd.path(), "mcpServers": []}),
        )
        .unwrap();
    let modes: Vec<&str> = r["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["ask", "auto", "plan"]);
    let id = r["sessionId"].as_str().unwrap().to_string();
    editor
        .request(
            "session/set_mode",
            json!({"sessionId": id, "modeId": "plan"}),
        )
        .unwrap();
    let r = editor
        .request(
            "session/prompt",
            json!({"sessionId": id, "prompt": [{"type": "text", "text": "plan the fix"}]}),
        )
        .unwrap();
    assert_eq!(r["stopReason"], "end_turn");
    assert!(!env.cwd.path().join("fix.md").exists());
    assert!(
        editor.asked.is_empty(),
        "plan mode refuses, it does not ask"
    );
    let kinds: Vec<&str> = editor
        .updates
        .iter()
        .filter_map(|u| u["sessionUpdate"].as_str())
        .collect();
    assert!(kinds.contains(&"current_mode_update"), "{kinds:?}");
    let plan = editor
        .updates
        .iter()
        .find(|u| u["sessionUpdate"] == "plan")
        .expect("a plan update");
    assert_eq!(
        plan["entries"],
        json!([{"content": "Write fix.md", "priority": "medium", "status": "pending"}])
    );
    let refused = editor
        .updates
        .iter()
        .find(|u| u["status"] == "failed")
        .expect("the write failed");
    crate::assert_contains!(refused.to_string(), "denied by mode plan");
    // Out of plan mode (auto), the write runs.
    env.fake.push(Reply::tool_calls(&[(
        &call_id("w2"),
        "write_file",
        r#"{"path":"fix.md","content":"x"}"#,
    )]));
    env.fake.push(Reply::text("written"));
    editor
        .request(
            "session/set_mode",
            json!({"sessionId": id, "modeId": "auto"}),
        )
        .unwrap();
    editor
        .request(
            "session/prompt",
            json!({"sessionId": id, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .unwrap();
    assert!(env.cwd.path().join("fix.md").exists());
    let told = env.last_user_text(2);
    assert!(told.starts_with("[hermes: plan mode is off (now"), "{told}");
    editor.finish();
}
