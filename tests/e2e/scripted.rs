//! Scripted runs a fleet can trust (issue 51): an exit code per outcome,
//! `run_summary` last, every event valid against docs/events.schema.json,
//! `--output-schema`, `-o`, `--session-id`, `--ephemeral`, `-C`,
//! `--add-dir` and `--max-budget-tokens`, against the strict fakes.

use serde_json::{json, Value};

use super::approvals::files_env;
use crate::support::calls::batch;
use crate::support::fake_provider::TurnUsage;
use crate::support::{call_id, event_fits_schema, records, Reply, TestEnv};

fn summary(events: &[Value]) -> &Value {
    let last = events.last().expect("events");
    assert_eq!(last["type"], "run_summary", "the last event: {last}");
    last
}

#[test]
fn a_batch_with_one_write_nobody_could_approve_exits_4_and_the_summary_counts_each_entry() {
    let (env, docs) = files_env("");
    let dir = std::fs::canonicalize(docs.path()).unwrap();
    let p = |n: &str| dir.join(n).display().to_string();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("rrw"),
        "tool_call",
        &batch(&[
            ("mcp__files__read_text_file", json!({"path": p("a.txt")})),
            ("mcp__files__read_text_file", json!({"path": p("b.txt")})),
            (
                "mcp__files__write_file",
                json!({"path": p("c.txt"), "content": "x"}),
            ),
        ]),
    )]));
    env.fake
        .push(Reply::text("Read both; the write needs you."));
    let run = env.run(&["--json", "-q", "read a and b, then write c"]);
    run.code(4);
    crate::assert_contains!(
        run.stderr,
        "warning: 1 action(s) were refused because nobody could approve them"
    );
    crate::assert_contains!(run.stderr, "hint: allow them with --approve GLOB or --yolo");
    assert!(!docs.path().join("c.txt").exists());
    let events = run.events();
    assert!(
        events.iter().all(|e| e["type"] != "error"),
        "blocked is not an error event"
    );
    let s = summary(&events);
    assert_eq!(s["exit_code"], 4);
    assert_eq!(
        s["calls"],
        json!({"ok": 2, "error": 0, "denied": 0, "refused": 1, "cancelled": 0})
    );
    assert_eq!(s["model_requests"], 2);
    assert_eq!(s["files_changed"], json!([]));
    let id = events[0]["id"].as_str().unwrap();
    assert_eq!(s["session_id"], id);
    // The fake's usage: 20 in, 11 out per request.
    let tokens = &s["tokens"];
    assert!(
        tokens["input"].as_u64().unwrap() > 0 && tokens["output"].as_u64().unwrap() > 0,
        "{tokens}"
    );
    assert!(s["duration_ms"].is_u64());
}

#[test]
fn a_denial_by_a_rule_is_counted_apart_from_a_refusal_and_exits_0() {
    let (env, docs) = files_env("deny = [\"mcp__files__write_file\"]");
    let dir = std::fs::canonicalize(docs.path()).unwrap();
    let p = |n: &str| dir.join(n).display().to_string();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("rw"),
        "tool_call",
        &batch(&[
            ("mcp__files__read_text_file", json!({"path": p("a.txt")})),
            (
                "mcp__files__write_file",
                json!({"path": p("c.txt"), "content": "x"}),
            ),
        ]),
    )]));
    env.fake.push(Reply::text("The write is not allowed here."));
    let run = env.run(&["--json", "-q", "read a, write c"]);
    run.ok();
    let events = run.events();
    assert_eq!(
        summary(&events)["calls"],
        json!({"ok": 1, "error": 0, "denied": 1, "refused": 0, "cancelled": 0})
    );
}

#[test]
fn built_in_writes_and_shell_changes_are_the_summarys_files() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\", \"shell\"]\n");
    std::fs::write(env.cwd.path().join("old.txt"), "old\n").unwrap();
    env.fake.push(Reply::tool_calls(&[
        (
            &call_id("w"),
            "write_file",
            r#"{"path":"notes/new.txt","content":"hello\n"}"#,
        ),
        (
            &call_id("s"),
            "shell",
            r#"{"command":"echo more >> old.txt && rm -f gone.txt"}"#,
        ),
    ]));
    env.fake
        .push(Reply::text("Wrote one, appended to the other."));
    let run = env.run(&["--yolo", "--json", "-q", "write and append"]);
    run.ok();
    let events = run.events();
    let s = summary(&events);
    assert_eq!(s["exit_code"], 0);
    assert_eq!(s["calls"]["ok"], 2, "{s}");
    let cwd = std::fs::canonicalize(env.cwd.path()).unwrap();
    let mut files: Vec<(String, String)> = s["files_changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            (
                cwd.join("notes/new.txt").display().to_string(),
                "created".to_string()
            ),
            (
                cwd.join("old.txt").display().to_string(),
                "modified".to_string()
            ),
        ]
    );
}

#[test]
fn each_exit_code_comes_from_its_own_cause() {
    // 0: an answer.
    let env = TestEnv::new();
    env.fake.push(Reply::text("fine"));
    let run = env.run(&["--json", "-q", "hi"]);
    run.ok();
    assert_eq!(summary(&run.events())["exit_code"], 0);

    // 1: the provider fails (the strict fake's 400 to a request it refuses).
    env.fake.push(Reply::status(
        400,
        r#"{"error":{"message":"Invalid 'messages[1].content': string too long.","type":"invalid_request_error","param":"messages[1].content","code":"string_above_max_length"}}"#,
    ));
    let run = env.run(&["--json", "-q", "hi"]);
    run.code(1);
    let events = run.events();
    assert_eq!(events[events.len() - 2]["type"], "error");
    assert_eq!(summary(&events)["exit_code"], 1);

    // 2: a config key hermes does not know.
    std::fs::write(env.config_path(), "modle = \"x\"\n").unwrap();
    env.run(&["-q", "hi"]).code(2);
    env.write_config("");
    // 2: a session id that cannot name a file.
    let run = env.run(&["--session-id", "../up", "-q", "hi"]);
    run.code(2);
    crate::assert_contains!(
        run.error_line(),
        "--session-id \"../up\" cannot name a session"
    );

    // 3: --max-turns reached.
    env.write_config("[tools]\nbuiltin = [\"echo\"]\n");
    for label in ["m1", "m2"] {
        env.fake.push(Reply::tool_calls(&[(
            &call_id(label),
            "echo",
            r#"{"text":"a"}"#,
        )]));
    }
    let run = env.run(&["--json", "--max-turns", "2", "-q", "loop"]);
    run.code(3);
    crate::assert_contains!(run.stderr, "no final answer after 2 model requests");
    assert_eq!(summary(&run.events())["exit_code"], 3);

    // 130: interrupted while the model is slow.
    env.fake
        .push(Reply::text("late").delayed(std::time::Duration::from_secs(20)));
    let child = env.spawn(&["--json", "-q", "slow"]);
    crate::support::wait_for("the request", || env.fake.requests().len() == 5);
    let out = crate::support::stopped(child);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["type"].as_str(), last["exit_code"].as_u64()),
        (Some("run_summary"), Some(130))
    );
}

#[test]
fn max_budget_tokens_stops_before_the_request_that_would_pass_it() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"echo\"]\n");
    env.fake.push(
        Reply::tool_calls(&[(&call_id("b1"), "echo", r#"{"text":"a"}"#)]).with_usage(TurnUsage {
            input: 90_000,
            output: 5_000,
            cache_read: 0,
            cache_write: 0,
        }),
    );
    env.fake.push(Reply::text("never sent"));
    let run = env.run(&["--json", "--max-budget-tokens", "95100", "-q", "go"]);
    run.code(3);
    assert_eq!(
        env.fake.requests().len(),
        1,
        "the second request was not sent"
    );
    crate::assert_contains!(run.stderr, "95000 tokens were spent");
    crate::assert_contains!(run.stderr, "past --max-budget-tokens 95100");
    let events = run.events();
    let s = summary(&events);
    assert_eq!(
        (s["exit_code"].as_u64(), s["model_requests"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(s["tokens"]["input"], 90_000);
}

#[test]
fn the_event_schema_refuses_an_invented_type_and_a_summary_without_its_counts() {
    assert!(event_fits_schema(&json!({"type": "warning", "message": "m"})).is_ok());
    let invented = event_fits_schema(&json!({"type": "turn_finished", "text": "x"}));
    assert!(invented.is_err(), "an unknown type must be invalid");
    let partial = json!({"type": "run_summary", "session_id": "s", "exit_code": 0, "duration_ms": 1,
        "model_requests": 1, "tokens": {"input": 1, "output": 1, "cached": 0},
        "calls": {"ok": 1}, "files_changed": []});
    assert!(event_fits_schema(&partial).is_err());
    let nested_bad = json!({"type": "subagent", "id": "c", "description": "d",
        "event": {"type": "made_up"}});
    assert!(
        event_fits_schema(&nested_bad).is_err(),
        "a subagent's event is checked too"
    );
}

const VERDICT: &str = r#"{"type":"object","additionalProperties":false,"required":["verdict","failures"],
"properties":{"verdict":{"enum":["pass","fail"]},"failures":{"type":"integer","minimum":0}}}"#;

#[test]
fn output_schema_sends_the_format_corrects_a_prose_answer_once_and_prints_the_json_alone() {
    let env = TestEnv::new();
    std::fs::write(env.cwd.path().join("verdict.json"), VERDICT).unwrap();
    env.fake
        .push(Reply::text("All the tests pass, nothing failed."));
    env.fake.push(Reply::text(
        "```json\n{\"verdict\": \"pass\", \"failures\": 0}\n```",
    ));
    let run = env.run(&[
        "--output-schema",
        "verdict.json",
        "-o",
        "answer.json",
        "-q",
        "did the tests pass?",
    ]);
    run.ok();
    assert_eq!(
        run.stdout, "{\"failures\":0,\"verdict\":\"pass\"}\n",
        "the JSON alone on stdout"
    );
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("answer.json")).unwrap(),
        "{\"failures\":0,\"verdict\":\"pass\"}\n"
    );
    crate::assert_contains!(run.stderr, "the answer is not one JSON value");
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 2);
    let first = reqs[0].json();
    let format = &first["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(
        format["json_schema"]["strict"], true,
        "a closed schema is enforced"
    );
    assert_eq!(
        format["json_schema"]["schema"]["required"],
        json!(["verdict", "failures"])
    );
    crate::assert_contains!(
        first["messages"][1]["content"].as_str().unwrap(),
        "valid against this JSON Schema"
    );
    let told = env.last_user_text(1);
    crate::assert_contains!(told, "[hermes: the answer is not one JSON value");
    crate::assert_contains!(told, "Answer again with only the JSON value");
    // The second request starts with the first, byte for byte.
    let (a, b) = (
        reqs[0].json()["messages"].clone(),
        reqs[1].json()["messages"].clone(),
    );
    assert_eq!(
        a.as_array().unwrap()[..],
        b.as_array().unwrap()[..a.as_array().unwrap().len()]
    );
}

#[test]
fn output_schema_fails_with_exit_1_naming_the_schema_path_when_the_model_never_complies() {
    let env = TestEnv::new();
    std::fs::write(env.cwd.path().join("verdict.json"), VERDICT).unwrap();
    env.fake
        .push(Reply::text(r#"{"verdict":"maybe","failures":0}"#));
    env.fake
        .push(Reply::text(r#"{"verdict":"perhaps","failures":-1}"#));
    let run = env.run(&[
        "--json",
        "--output-schema",
        "verdict.json",
        "-q",
        "did the tests pass?",
    ]);
    run.code(1);
    let events = run.events();
    let error = events
        .iter()
        .find(|e| e["type"] == "error")
        .expect("an error event");
    let message = error["message"].as_str().unwrap();
    crate::assert_contains!(message, "at /verdict");
    crate::assert_contains!(message, "/properties/verdict/enum");
    crate::assert_contains!(message, "/properties/failures/minimum");
    assert_eq!(summary(&events)["exit_code"], 1);
    assert!(summary(&events).get("output").is_none());
}

#[test]
fn output_schema_with_json_puts_the_value_in_the_summary_and_an_open_schema_is_not_strict() {
    let env = TestEnv::new();
    std::fs::write(
        env.cwd.path().join("open.json"),
        r#"{"type":"object","required":["files"],"properties":{"files":{"type":"array","items":{"type":"string"}}}}"#,
    )
    .unwrap();
    env.fake
        .push(Reply::text(r#"{"files":["src/a.rs","src/b.rs"]}"#));
    let run = env.run(&["--json", "--output-schema", "open.json", "-q", "list them"]);
    run.ok();
    let events = run.events();
    assert_eq!(
        summary(&events)["output"],
        json!({"files": ["src/a.rs", "src/b.rs"]})
    );
    assert_eq!(
        env.fake.requests()[0].json()["response_format"]["json_schema"]["strict"],
        false
    );
    // A schema file that is not one is a usage error naming it.
    std::fs::write(env.cwd.path().join("bad.json"), r#"{"type":"objekt"}"#).unwrap();
    let run = env.run(&["--output-schema", "bad.json", "-q", "x"]);
    run.code(2);
    crate::assert_contains!(
        run.error_line(),
        "--output-schema bad.json: not a JSON Schema"
    );
}

#[test]
fn the_native_apis_are_sent_the_schema_their_own_way() {
    use crate::support::fake_provider::Api;
    for api in [Api::Responses, Api::Anthropic, Api::Gemini, Api::Bedrock] {
        let env = TestEnv::with_api(api);
        std::fs::write(env.cwd.path().join("verdict.json"), VERDICT).unwrap();
        env.fake
            .push(Reply::from_turn(crate::support::fake_provider::Turn::text(
                r#"{"verdict":"fail","failures":3}"#,
            )));
        let run = env.run(&[
            "--output-schema",
            "verdict.json",
            "-q",
            "did the tests pass?",
        ]);
        run.ok();
        assert_eq!(
            run.stdout, "{\"failures\":3,\"verdict\":\"fail\"}\n",
            "{api:?}"
        );
        let body = env.fake.requests()[0].json();
        let schema = json!(serde_json::from_str::<Value>(VERDICT).unwrap());
        match api {
            Api::Responses => {
                assert_eq!(body["text"]["format"]["schema"], schema);
                assert_eq!(body["text"]["format"]["strict"], true);
            }
            Api::Anthropic => assert_eq!(body["output_config"]["format"]["schema"], schema),
            Api::Gemini => {
                assert_eq!(body["generationConfig"]["responseJsonSchema"], schema);
                assert_eq!(
                    body["generationConfig"]["responseMimeType"],
                    "application/json"
                );
            }
            // No structured output: the prompt asks and hermes checks.
            _ => assert!(body.to_string().contains("valid against this JSON Schema")),
        }
    }
}

#[test]
fn an_open_schema_is_not_sent_to_the_apis_that_take_closed_ones_only() {
    use crate::support::fake_provider::Api;
    let open =
        r#"{"type":"object","required":["verdict"],"properties":{"verdict":{"type":"string"}}}"#;
    for api in [Api::Anthropic, Api::Bedrock] {
        let env = TestEnv::with_api(api);
        std::fs::write(env.cwd.path().join("open.json"), open).unwrap();
        env.fake
            .push(Reply::from_turn(crate::support::fake_provider::Turn::text(
                r#"{"verdict":"fine"}"#,
            )));
        let run = env.run(&["--output-schema", "open.json", "-q", "verdict?"]);
        run.ok();
        let body = env.fake.requests()[0].json();
        assert!(
            body.get("output_config").is_none() && body.get("outputConfig").is_none(),
            "{api:?}"
        );
        assert_eq!(run.stdout, "{\"verdict\":\"fine\"}\n");
    }
}

#[test]
fn a_named_session_is_continued_by_the_next_run_with_its_id() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("first answer"));
    env.fake.push(Reply::text("second answer"));
    let id = "ci-repo.42_retry";
    let run = env.run(&["--json", "--session-id", id, "-q", "first"]);
    run.ok();
    assert_eq!(run.events()[0]["id"], id);
    let file = env.only_session();
    assert_eq!(file.file_name().unwrap(), "ci-repo.42_retry.jsonl");
    let run = env.run(&["--json", "--session-id", id, "-q", "second"]);
    run.ok();
    let events = run.events();
    assert_eq!(
        (events[0]["id"].as_str(), events[0]["resumed"].as_bool()),
        (Some(id), Some(true))
    );
    assert_eq!(env.sessions(), [file], "one session, continued");
    let reqs = env.fake.requests();
    let first = reqs[0].json()["messages"].as_array().unwrap().clone();
    let second = reqs[1].json()["messages"].as_array().unwrap().clone();
    assert_eq!(
        second[..first.len()],
        first[..],
        "the second run's request extends the first's"
    );
    assert_eq!(second[first.len()]["content"], "first answer");
}

#[test]
fn an_ephemeral_run_leaves_nothing_under_the_sessions_folder() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\"]\n");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("e"),
        "write_file",
        r#"{"path":"out.txt","content":"x"}"#,
    )]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["--ephemeral", "--yolo", "--json", "-q", "write out.txt"]);
    run.ok();
    let events = run.events();
    assert_eq!(events[0]["path"], "");
    assert!(!events[0]["id"].as_str().unwrap().is_empty());
    assert_eq!(summary(&events)["files_changed"][0]["kind"], "created");
    assert!(env.cwd.path().join("out.txt").exists());
    let sessions = env.home.path().join("sessions");
    let left: Vec<_> = walk(&sessions);
    assert!(left.is_empty(), "left under the sessions folder: {left:?}");
    // `--continue` finds nothing to continue.
    env.run(&["--continue", "-q", "again"]).code(2);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn minus_c_runs_in_another_folder_and_add_dir_makes_one_more_writable() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\", \"shell\"]\n");
    let project = tempfile::tempdir().unwrap();
    let extra = tempfile::tempdir().unwrap();
    let project_dir = std::fs::canonicalize(project.path()).unwrap();
    let extra_dir = std::fs::canonicalize(extra.path()).unwrap();
    let target = extra_dir.join("from-hermes.txt");
    let write = format!(
        r#"{{"path":{:?},"content":"x"}}"#,
        target.display().to_string()
    );
    let shell = format!(
        r#"{{"command":"echo y > {}/by-shell.txt"}}"#,
        extra_dir.display()
    );
    let dir = project_dir.display().to_string();
    let extra_arg = extra_dir.display().to_string();
    // Without --add-dir: a write there is outside, asked, and nobody can
    // answer; a command cannot write there in the sandbox.
    env.fake
        .push(Reply::tool_calls(&[(&call_id("x1"), "write_file", &write)]));
    env.fake
        .push(Reply::tool_calls(&[(&call_id("x2"), "shell", &shell)]));
    env.fake.push(Reply::text("could not"));
    env.run(&["-C", &dir, "-q", "write there"]).code(4);
    assert!(
        !target.exists(),
        "outside the working folder without --add-dir"
    );
    assert!(!extra_dir.join("by-shell.txt").exists());
    // With it, both as in the working folder.
    env.fake
        .push(Reply::tool_calls(&[(&call_id("x3"), "write_file", &write)]));
    env.fake
        .push(Reply::tool_calls(&[(&call_id("x4"), "shell", &shell)]));
    env.fake.push(Reply::text("wrote it"));
    env.run(&["-C", &dir, "--add-dir", &extra_arg, "-q", "write there"])
        .ok();
    assert!(target.exists(), "written in the added folder");
    assert!(
        extra_dir.join("by-shell.txt").exists(),
        "a command may write there too"
    );
    for session in env.sessions() {
        assert_eq!(
            records(&session)[0]["cwd"],
            dir,
            "-C is the session's folder"
        );
    }
    let run = env.run(&["-C", "/nonexistent-folder", "-q", "x"]);
    run.code(2);
    crate::assert_contains!(run.error_line(), "-C /nonexistent-folder:");
    let run = env.run(&["--add-dir", "/nonexistent-folder", "-q", "x"]);
    run.code(2);
    crate::assert_contains!(run.error_line(), "--add-dir /nonexistent-folder:");
}
