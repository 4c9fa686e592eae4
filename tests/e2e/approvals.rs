//! Approvals settled entry by entry in one-shot runs, where nobody can
//! answer: rules by glob and by argument, MCP annotations, the flags that
//! open up, the `approval` events and session records, the per-turn cap.

use serde_json::{json, Value};

use crate::support::calls::{batch, contents};
use crate::support::{call_id, real_server, records, Reply, TestEnv};

/// A home with the real filesystem server (`files`, serving a folder with
/// two notes) behind the bridge and `approvals` as the `[approvals]` table.
pub(super) fn files_env(approvals: &str) -> (TestEnv, tempfile::TempDir) {
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\ndefer = \"always\"\n\n[approvals]\n{approvals}\n"
    ));
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(docs.path().join("a.txt"), "note A").unwrap();
    std::fs::write(docs.path().join("b.txt"), "note B").unwrap();
    let dir = std::fs::canonicalize(docs.path()).unwrap();
    env.add_server(
        "files",
        &format!(
            "command = {:?}\nargs = [{:?}]",
            real_server("mcp-server-filesystem"),
            dir.display().to_string()
        ),
    );
    env.prefill("files");
    (env, docs)
}

fn read_read_write(docs: &std::path::Path) -> String {
    let dir = std::fs::canonicalize(docs).unwrap();
    let p = |n: &str| dir.join(n).display().to_string();
    batch(&[
        ("mcp__files__read_text_file", json!({"path": p("a.txt")})),
        ("mcp__files__read_text_file", json!({"path": p("b.txt")})),
        (
            "mcp__files__write_file",
            json!({"path": p("c.txt"), "content": "written"}),
        ),
    ])
}

fn approvals_recorded(env: &TestEnv) -> Vec<Value> {
    records(&env.only_session())
        .into_iter()
        .filter(|r| r["event"] == "approval")
        .collect()
}

#[test]
fn under_the_default_config_reads_run_and_the_write_is_refused_naming_the_flags_in_one_round_trip()
{
    // An empty [approvals] table: hermes' own defaults.
    let (env, docs) = files_env("");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("rrw"),
        "tool_call",
        &read_read_write(docs.path()),
    )]));
    env.fake
        .push(Reply::text("Read both; the write needs you."));
    let run = env.run(&["-q", "read a and b, then write c"]);
    run.code(4); // refused for want of an approver: blocked
    assert_eq!(env.fake.requests().len(), 2, "one model round trip");
    let r = contents(&env.tool_results(1));
    assert_eq!(r[0], "note A");
    assert_eq!(r[1], "note B");
    crate::assert_contains!(
        r[2],
        "`mcp__files__write_file` was not run: it needs the user's approval"
    );
    crate::assert_contains!(r[2], "--approve 'mcp__files__write_file' or --yolo");
    assert!(!docs.path().join("c.txt").exists(), "the write did not run");
    crate::assert_contains!(
        run.stderr,
        "✗ mcp__files__write_file needs approval (annotation destructiveHint (nobody to ask)); allow it with --approve"
    );
    let rec = approvals_recorded(&env);
    let seen: Vec<(String, String)> = rec
        .iter()
        .map(|r| {
            (
                r["decision"].as_str().unwrap().into(),
                r["by"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("allow".into(), "annotation readOnlyHint".into()),
            ("allow".into(), "annotation readOnlyHint".into()),
            (
                "deny".into(),
                "annotation destructiveHint (nobody to ask)".into()
            ),
        ]
    );
    assert_eq!(rec[2]["tool"], "mcp__files__write_file");
}

#[test]
fn approve_flags_let_the_write_run() {
    let (env, docs) = files_env("mode = \"ask\"");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("rrw"),
        "tool_call",
        &read_read_write(docs.path()),
    )]));
    env.fake.push(Reply::text("All three done."));
    env.run(&["--approve", "mcp__files__*", "-q", "go"]).ok();
    assert_eq!(
        std::fs::read_to_string(docs.path().join("c.txt")).unwrap(),
        "written"
    );
    let rec = approvals_recorded(&env);
    assert_eq!(rec[2]["by"], "--approve");
}

#[test]
fn a_destructive_tool_is_asked_even_under_auto_unless_a_rule_names_it() {
    let (env, docs) = files_env("mode = \"auto\"");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("w1"),
        "tool_call",
        &read_read_write(docs.path()),
    )]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).code(4); // refused for want of an approver: blocked
    assert!(!docs.path().join("c.txt").exists());
    let rec = approvals_recorded(&env);
    assert_eq!(rec[0]["by"], "mode auto");
    assert_eq!(rec[2]["by"], "annotation destructiveHint (nobody to ask)");

    let (env, docs) = files_env("mode = \"auto\"\nallow = [\"mcp__files__write_file\"]");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("w2"),
        "tool_call",
        &read_read_write(docs.path()),
    )]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    assert!(docs.path().join("c.txt").exists(), "allowed by name");
}

#[test]
fn an_argument_condition_denies_one_entry_and_lets_its_sibling_run() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.set_approvals(
        "mode = \"auto\"\nrules = [{ tool = \"mcp__t__echo\", when = { \"/text\" = \"^main$\" }, \
         decision = \"deny\", reason = \"never touch main\" }]",
    );
    env.fake.push(Reply::tool_calls(&[(
        &call_id("cond"),
        "tool_call",
        &batch(&[
            ("mcp__t__echo", json!({"text": "main"})),
            ("mcp__t__echo", json!({"text": "dev"})),
        ]),
    )]));
    env.fake.push(Reply::text("one of two"));
    let run = env.run(&["--json", "-q", "go"]);
    run.ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(
        r[0],
        "Error: `mcp__t__echo` was not run: denied by rule approvals.rules[0] (never touch main)"
    );
    assert_eq!(r[1], "dev");
    let events: Vec<Value> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "approval")
        .collect();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["decision"], "deny");
    assert_eq!(events[0]["reason"], "never touch main");
    assert_eq!(events[1]["decision"], "allow");
}

#[test]
fn a_bad_condition_names_its_key() {
    let env = TestEnv::new();
    env.write_config(
        "[approvals]\nrules = [{ tool = \"x\", when = { \"/a\" = \"(\" }, decision = \"deny\" }]\n",
    );
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    crate::assert_contains!(
        run.error_line(),
        "approvals.rules[0].when.\"/a\" must be a regular expression"
    );
}

#[test]
fn the_turn_cap_stops_calls_past_it_unrun() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.set_approvals("mode = \"auto\"\nmax_tool_calls_per_turn = 2");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("cap"),
        "tool_call",
        &batch(&[
            ("mcp__t__echo", json!({"text": "1"})),
            ("mcp__t__echo", json!({"text": "2"})),
            ("mcp__t__echo", json!({"text": "3"})),
        ]),
    )]));
    env.fake.push(Reply::text("capped"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(&r[..2], ["1", "2"]);
    crate::assert_contains!(r[2], "limit of 2 tool calls");
}

/// A home with our test server behind the bridge and `hooks` appended
/// (TOML `[[hooks.pre_tool_call]]` tables).
fn hooked_env(hooks: &str) -> TestEnv {
    let env = TestEnv::deferred(&[("t", "concurrency = \"parallel\"")]);
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push('\n');
    cfg.push_str(hooks);
    std::fs::write(env.config_path(), cfg).unwrap();
    env
}

/// Writes an executable hook script into the home; returns its path.
fn script(env: &TestEnv, name: &str, body: &str) -> String {
    let path = env.home.path().join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path.display().to_string()
}

fn two_echoes(env: &TestEnv) {
    env.fake.push(Reply::tool_calls(&[(
        &call_id("hooked"),
        "tool_call",
        &batch(&[
            ("mcp__t__echo", json!({"text": "first"})),
            ("mcp__t__echo", json!({"text": "second"})),
        ]),
    )]));
    env.fake.push(Reply::text("done"));
}

#[test]
fn a_claude_code_hook_denies_with_a_reason_and_rewrites_input() {
    let env = TestEnv::deferred(&[("t", "")]);
    // Claude Code's own stdin fields decide; the answer is Claude Code's JSON.
    let hook = script(
        &env,
        "guard.sh",
        r#"input=$(cat)
# Both entries' hooks run at once: each writes whole, then renames.
echo "$input" > "$HOME/hook-stdin.$$" && mv "$HOME/hook-stdin.$$" "$HOME/hook-stdin.json"
case "$input" in
  *'"text":"first"'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"first is reserved"}}' ;;
  *) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"text":"rewritten"}}}' ;;
esac"#,
    );
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str(&format!(
        "\n[[hooks.pre_tool_call]]\nname = \"guard\"\nmatch = \"mcp__t__*\"\ncommand = {hook:?}\n"
    ));
    std::fs::write(env.config_path(), cfg).unwrap();
    two_echoes(&env);
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(r, ["Error: first is reserved", "rewritten"]);
    let stdin: Value = serde_json::from_str(
        &std::fs::read_to_string(env.home.path().join("hook-stdin.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
    assert_eq!(
        stdin["tool_name"], "mcp__t__echo",
        "the underlying tool, never tool_call"
    );
    assert!(stdin["tool_use_id"].as_str().unwrap().starts_with("call_"));
    assert!(stdin["session_id"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(stdin["transcript_path"]
        .as_str()
        .unwrap()
        .ends_with(".jsonl"));
    assert!(stdin["cwd"].is_string());
    assert!(stdin["tool_input"]["text"].is_string());
    // Both entries' decisions are records (checked concurrently: any order).
    let mut by: Vec<String> = approvals_recorded(&env)
        .iter()
        .map(|r| r["by"].as_str().unwrap().to_string())
        .collect();
    by.sort();
    assert_eq!(
        by,
        ["hook", "mode auto"],
        "the hook's denial is a record too"
    );

    // hermes hooks test runs the same hook and prints its verdict.
    let run = env.run(&[
        "hooks",
        "test",
        "guard",
        "--tool",
        "mcp__t__echo",
        "--args",
        r#"{"text":"first"}"#,
    ]);
    run.ok();
    assert_eq!(run.stdout.trim(), "deny: first is reserved");
    let run = env.run(&[
        "hooks",
        "test",
        "pre_tool_call[0]",
        "--tool",
        "mcp__t__echo",
        "--args",
        r#"{"text":"x"}"#,
    ]);
    run.ok();
    assert_eq!(
        run.stdout,
        "allow\nupdated input: {\"text\":\"rewritten\"}\n"
    );
    let run = env.run(&["hooks", "test", "nope", "--tool", "x"]);
    run.code(2);
    crate::assert_contains!(run.error_line(), "no hook named `nope`");
}

#[test]
fn exit_2_blocks_and_garbage_output_has_no_opinion() {
    let env = hooked_env(
        "[[hooks.pre_tool_call]]\nmatch = \"mcp__t__echo\"\n\
         command = \"grep -q second && { echo 'second is blocked' >&2; exit 2; }; echo 'not json {'\"\n",
    );
    two_echoes(&env);
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(r[0], "first", "garbage on stdout with exit 0: no opinion");
    assert_eq!(
        r[1],
        "Error: blocked by the pre_tool_call hook: second is blocked"
    );
}

#[test]
fn a_timed_out_hook_blocks_and_its_children_die_with_it() {
    let env = hooked_env("");
    let pidfile = env.home.path().join("sleeper.pid");
    let hook = script(
        &env,
        "slow.sh",
        &format!(
            "sleep 30 &\necho $! > {:?}\nwait",
            pidfile.display().to_string()
        ),
    );
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str(&format!(
        "\n[[hooks.pre_tool_call]]\nmatch = \"mcp__t__echo\"\ncommand = {hook:?}\ntimeout_ms = 300\n"
    ));
    std::fs::write(env.config_path(), cfg).unwrap();
    two_echoes(&env);
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "gave no answer within 300 ms");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    crate::support::wait_for("the hook's sleep to be killed", || {
        // SAFETY: kill(2) with signal 0 only checks that the process exists.
        unsafe { libc::kill(pid, 0) != 0 }
    });
}

#[test]
fn a_hook_sees_no_secrets_of_hermes() {
    let env = hooked_env("");
    let dump = env.home.path().join("hook-env.txt");
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str(&format!(
        "\n[[hooks.pre_tool_call]]\ncommand = \"env > {}\"\n",
        dump.display()
    ));
    std::fs::write(env.config_path(), cfg).unwrap();
    two_echoes(&env);
    env.cmd()
        .env("OPENAI_API_KEY", "sk-secret")
        .args(["-q", "go"])
        .output()
        .unwrap();
    let seen = std::fs::read_to_string(&dump).unwrap();
    crate::assert_not_contains!(seen, "sk-secret");
    crate::assert_not_contains!(seen, crate::support::KEY_ENV);
    crate::assert_contains!(seen, "HERMES_TOOL=mcp__t__echo");
    crate::assert_contains!(seen, "PATH=");
}

#[test]
fn a_hook_asking_is_refused_in_a_one_shot_run() {
    let env = hooked_env(
        "[[hooks.pre_tool_call]]\nmatch = \"mcp__t__echo\"\n\
         command = \"echo '{\\\"hookSpecificOutput\\\":{\\\"permissionDecision\\\":\\\"ask\\\",\\\"permissionDecisionReason\\\":\\\"check with a human\\\"}}'\"\n",
    );
    two_echoes(&env);
    env.run(&["-q", "go"]).code(4); // refused for want of an approver: blocked
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "needs the user's approval (hook)");
    let rec = approvals_recorded(&env);
    assert_eq!(rec[0]["by"], "hook (nobody to ask)");
    assert_eq!(rec[0]["reason"], "check with a human");
}

#[test]
fn ask_is_the_default_and_a_one_shot_write_is_refused_under_it() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.set_approvals("");
    two_echoes(&env);
    let run = env.run(&["-q", "go"]);
    run.code(4); // refused for want of an approver: blocked
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "needs the user's approval (mode ask)");
    crate::assert_contains!(run.stderr, "--approve 'mcp__t__echo'");
    crate::assert_not_contains!(env.server_log("t"), "tools/call");
}

#[test]
fn a_hook_that_leaves_a_child_holding_its_output_still_answers() {
    // The block is printed, then the hook exits while `sleep` keeps its
    // stdout open: the answer counts at once, not at the timeout.
    let env = hooked_env(
        "[[hooks.pre_tool_call]]\nmatch = \"mcp__t__echo\"\ntimeout_ms = 3000\n\
         command = \"sleep 8 & echo '{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"held\\\"}'\"\n",
    );
    two_echoes(&env);
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(r, ["Error: held", "Error: held"]);
}

/// `--json --json-answers`: the script reading the events is asked, in
/// entry order, and answers each question by its call id on stdin — one
/// write allowed once, the other denied with a reason the model reads.
#[test]
fn a_json_script_is_asked_and_answers_each_entry_on_stdin() {
    use std::io::{BufRead, Write};
    let (env, docs) = files_env("mode = \"ask\"");
    let dir = std::fs::canonicalize(docs.path()).unwrap();
    let p = |n: &str| dir.join(n).display().to_string();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("rww"),
        "tool_call",
        &batch(&[
            ("mcp__files__read_text_file", json!({"path": p("a.txt")})),
            (
                "mcp__files__write_file",
                json!({"path": p("c.txt"), "content": "yes"}),
            ),
            (
                "mcp__files__write_file",
                json!({"path": p("d.txt"), "content": "no"}),
            ),
        ]),
    )]));
    env.fake.push(Reply::text("One written, one refused."));
    let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "write both"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut events = Vec::new();
    let mut asked = Vec::new();
    for line in stdout.lines() {
        let ev: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if ev["type"] == "approval_asked" {
            let id = ev["id"].as_str().unwrap().to_string();
            // A line that answers nothing changes nothing.
            if asked.is_empty() {
                writeln!(stdin, r#"{{"id":"call_nobody","answer":"once"}}"#).unwrap();
                writeln!(stdin, "y").unwrap();
            }
            let answer = match asked.len() {
                0 => r#""answer":"once""#.to_string(),
                _ => r#""answer":"deny","reason":"not today""#.to_string(),
            };
            writeln!(stdin, r#"{{"id":"{id}",{answer}}}"#).unwrap();
            asked.push(ev.clone());
        }
        events.push(ev);
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(asked.len(), 2, "{events:?}");
    assert_eq!(asked[0]["name"], "mcp__files__write_file");
    assert_eq!(
        asked[0]["arguments"],
        json!({"path": p("c.txt"), "content": "yes"}),
        "the arguments whole, as JSON"
    );
    assert_eq!(asked[1]["arguments"]["path"], p("d.txt"));
    assert!(asked[0]["grants"].is_string(), "{}", asked[0]);
    crate::assert_contains!(
        stderr,
        "no question waits for an answer about call `call_nobody`"
    );
    crate::assert_contains!(stderr, "--json-answers: not an answer");
    let settled: Vec<(String, String)> = events
        .iter()
        .filter(|e| e["type"] == "approval" && e["name"] == "mcp__files__write_file")
        .map(|e| {
            (
                e["decision"].as_str().unwrap().into(),
                e["by"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        settled,
        [
            ("allow".into(), "you, once".into()),
            ("deny".into(), "you".into())
        ]
    );
    assert_eq!(std::fs::read_to_string(dir.join("c.txt")).unwrap(), "yes");
    assert!(!dir.join("d.txt").exists(), "the denied write did not run");
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[2], "denied by you (not today)");
    // Each question came before its answer's event, in entry order.
    let kinds: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "approval_asked" || e["type"] == "approval")
        .filter(|e| e["name"] == "mcp__files__write_file")
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["approval_asked", "approval", "approval_asked", "approval"]
    );
}

#[test]
fn json_answers_needs_the_prompt_as_text() {
    let env = TestEnv::new();
    let run = env.run(&["--json", "--json-answers", "-q", "-"]);
    run.code(2);
    crate::assert_contains!(run.stderr, "--json-answers reads answers on stdin");
    let run = env.run(&["--json-answers", "-q", "hi"]);
    run.code(2);
}
