//! Approvals settled entry by entry in one-shot runs, where nobody can
//! answer: rules by glob and by argument, MCP annotations, the flags that
//! open up, the `approval` events and session records, the per-turn cap.

use serde_json::{json, Value};

use super::split::{batch, contents};
use crate::support::{call_id, real_server, records, Reply, TestEnv};

/// A home with the real filesystem server (`files`, serving a folder with
/// two notes) behind the bridge and `approvals` as the `[approvals]` table.
fn files_env(approvals: &str) -> (TestEnv, tempfile::TempDir) {
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
fn under_ask_reads_run_and_the_write_is_refused_naming_the_flags_in_one_round_trip() {
    let (env, docs) = files_env("mode = \"ask\"");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("rrw"),
        "tool_call",
        &read_read_write(docs.path()),
    )]));
    env.fake
        .push(Reply::text("Read both; the write needs you."));
    let run = env.run(&["-q", "read a and b, then write c"]);
    run.ok();
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
    env.run(&["-q", "go"]).ok();
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
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str(
        "\n[approvals]\nrules = [{ tool = \"mcp__t__echo\", when = { \"/text\" = \"^main$\" }, \
         decision = \"deny\", reason = \"never touch main\" }]\n",
    );
    std::fs::write(env.config_path(), cfg).unwrap();
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
    let mut cfg = std::fs::read_to_string(env.config_path()).unwrap();
    cfg.push_str("\n[approvals]\nmax_tool_calls_per_turn = 2\n");
    std::fs::write(env.config_path(), cfg).unwrap();
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
