//! Deferred tools: the bridge tools end to end through the binary, dispatcher
//! validation, and search quality over real servers' catalogs.

use hermes::config::{Overrides, Paths};
use hermes::mcp::McpRegistry;
use hermes::tools::Registry;
use serde_json::{json, Value};

use crate::support::{call_id, Reply, TestEnv};

/// The raw `"tools":[…]` text of a request body.
fn tools_bytes(body: &str) -> &str {
    let start = body.find("\"tools\":[").unwrap();
    let end = body.find(",\"messages\":[").unwrap();
    &body[start..end]
}

/// `defer = "never"` with no catalog cached: the first request already
/// offers the server's tools (hermes lists them before it), and the list is
/// the same, byte for byte, in every request of the session — after a
/// `--continue` too, even when the server's catalog has changed since.
#[test]
fn never_deferred_tools_are_offered_from_the_first_request_and_kept() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"never\"\n");
    env.add_test_server("t", "");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("a"),
        "mcp__t__echo",
        r#"{"text":"hi"}"#,
    )]));
    env.fake.push(Reply::text("first"));
    env.run(&["-q", "echo hi"]).ok();
    let reqs = env.fake.requests();
    let names = crate::support::tool_names(&reqs[0].json());
    assert!(names.contains(&"mcp__t__echo".to_string()), "{names:?}");
    // The catalog changes between runs: the session still offers its list.
    let cache = env.home.path().join("cache/mcp/t.json");
    let text = std::fs::read_to_string(&cache).unwrap();
    std::fs::write(&cache, text.replace("Echo", "Echoes")).unwrap();
    env.fake.push(Reply::text("second"));
    env.run(&["--continue", "-q", "again"]).ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 3);
    let t0 = tools_bytes(reqs[0].body_str());
    for r in &reqs[1..] {
        assert_eq!(tools_bytes(r.body_str()), t0);
    }
}

#[test]
fn bridge_tools_replace_mcp_tools_and_stay_byte_identical() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("a"),
        "tool_search",
        r#"{"queries":["echo text back"]}"#,
    )]));
    env.fake.push(Reply::text("first"));
    let first = env.run(&["--json", "-q", "find an echo tool"]);
    first.ok();
    let id = first.events()[0]["id"].as_str().unwrap().to_string();
    env.fake.push(Reply::text("second"));
    env.run(&["--resume", &id, "-q", "again"]).ok();

    let reqs = env.fake.requests();
    assert_eq!(
        crate::support::tool_names(&reqs[0].json()),
        ["tool_search", "tool_describe", "tool_call"]
    );
    let t0 = tools_bytes(reqs[0].body_str());
    for r in &reqs[1..] {
        assert_eq!(
            tools_bytes(r.body_str()),
            t0,
            "the bridge tool definitions changed within the session"
        );
    }
    // tool_search answered from the cache; the one start after the prefill
    // is the warm-up for the tool it found (tests/e2e/warmup.rs).
    assert_eq!(env.server_log("t").matches("recv initialize").count(), 2);
    let result: Value =
        serde_json::from_str(env.tool_results(1)[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(result["results"][0]["matches"][0], "mcp__t__echo");
    let echo = &result["tools"]["mcp__t__echo"];
    assert_eq!(echo["source"], "t");
    assert_eq!(echo["required"], json!(["text"]));
}

#[test]
fn describe_then_call_through_the_bridge() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::tool_calls(&[
        (&call_id("a"), "tool_describe", r#"{"names":["mcp__t__echo","mcp__t__nope"]}"#),
        (&call_id("b"), "tool_call", r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"via bridge"}}]}"#),
        (&call_id("c"), "tool_call", r#"{"calls":"[{\"name\":\"mcp__t__echo\",\"arguments\":\"{\\\"text\\\":\\\"lenient\\\"}\"}]"}"#),
        (&call_id("d"), "tool_call", r#"{"name":"mcp__t__echo","arguments":{"text":"bare"}}"#),
    ]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let r = env.tool_results(1);
    let described: Value = serde_json::from_str(r[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        described["tools"][0]["input_schema"]["required"],
        json!(["text"])
    );
    assert!(described["tools"][1]["error"]
        .as_str()
        .unwrap()
        .starts_with("unknown tool `mcp__t__nope`"));
    assert_eq!(r[1]["content"], "via bridge");
    assert_eq!(r[2]["content"], "lenient");
    assert_eq!(r[3]["content"], "bare");
}

#[test]
fn every_malformed_call_gets_an_error_the_model_can_fix() {
    let env = TestEnv::deferred(&[("t", "")]);
    let eleven: Vec<Value> = (0..11)
        .map(|i| json!({"name": "mcp__t__echo", "arguments": {"text": i.to_string()}}))
        .collect();
    let cases: Vec<(&str, String, &str)> = vec![
        ("unparseable", r#"{"calls":"[{\"name\": oops"}"#.into(), "Error: tool_call: `calls` is a string that is not valid JSON"),
        ("not an object", r#"{"calls":["mcp__t__echo"]}"#.into(), "Error: tool_call: entry 1 is a string, not an object"),
        ("no name", r#"{"calls":[{"arguments":{}}]}"#.into(), "Error: tool_call: entry 1 has no string `name`"),
        ("too many", json!({"calls": eleven}).to_string(), "Error: tool_call takes at most 10 entries; you sent 11."),
        ("unknown", r#"{"calls":[{"name":"mcp__t__echoo","arguments":{}}]}"#.into(), "Error: unknown tool `mcp__t__echoo`; closest: `mcp__t__echo`"),
        ("bare suffix", r#"{"calls":[{"name":"echo","arguments":{"text":"x"}}]}"#.into(), "Error: `echo` is not a full tool name; use `mcp__t__echo`"),
        ("schema", r#"{"calls":[{"name":"mcp__t__slow","arguments":{"ms":"soon","label":7}}]}"#.into(), "Error: arguments for `mcp__t__slow` do not match its input schema: /label: 7 is not of type \"string\"; /ms: \"soon\" is not of type \"integer\""),
    ];
    let calls: Vec<(String, &str, String)> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, args, _))| (call_id(&format!("c{i}")), "tool_call", args.clone()))
        .collect();
    let refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, n, a)| (id.as_str(), *n, a.as_str()))
        .collect();
    env.fake.push(Reply::tool_calls(&refs));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let results = env.tool_results(1);
    for ((case, _, expected), got) in cases.iter().zip(&results) {
        let got = got["content"].as_str().unwrap();
        assert!(got.starts_with(expected), "{case}: got {got:?}");
    }
    // None of these reached the server.
    crate::assert_not_contains!(env.server_log("t"), "tools/call");
}

#[test]
fn a_batch_that_reaches_the_dispatcher_gets_the_legacy_answer() {
    let env = TestEnv::deferred(&[("t", "")]);
    let paths = Paths::under(env.home.path());
    let merged = hermes::config::load_merged(&paths, env.cwd.path(), &Overrides::default())
        .unwrap()
        .file;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let out = rt.block_on(async {
        let mcp = std::sync::Arc::new(McpRegistry::new(&hermes::config::mcp_servers(&merged), &paths).unwrap());
        let reg = Registry::default().with_mcp(mcp.clone());
        let call = hermes::model::ToolCall {
            id: call_id("x"),
            name: "tool_call".into(),
            arguments: r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"a"}},{"name":"mcp__t__echo","arguments":{"text":"b"}}]}"#.into(),
        };
        let out = hermes::agent::run_tool_call(
            &reg,
            &call,
            &tokio_util::sync::CancellationToken::new(),
        )
        .await;
        mcp.shutdown().await;
        out
    });
    assert!(out.is_error);
    assert_eq!(
        out.content,
        "tool_call takes exactly one entry for local tools; you sent 2.\nRetry with only: {\"calls\":[{\"arguments\":{\"text\":\"a\"},\"name\":\"mcp__t__echo\"}]}"
    );
}

fn real_env() -> TestEnv {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    let docs = env.cwd.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("plan.md"), "step one: ship").unwrap();
    env.add_real_servers(&docs);
    env
}

const LABELLED: &[(&str, &str)] = &[
    ("read a text file", "mcp__files__read_text_file"),
    ("show the contents of a file", "mcp__files__read_text_file"),
    ("list the files in a folder", "mcp__files__list_directory"),
    ("make a new directory", "mcp__files__create_directory"),
    ("rename a file", "mcp__files__move_file"),
    ("find files matching a pattern", "mcp__files__search_files"),
    (
        "file size and modification time",
        "mcp__files__get_file_info",
    ),
    (
        "overwrite a file with new content",
        "mcp__files__write_file",
    ),
    ("edit lines in a file", "mcp__files__edit_file"),
    (
        "read several files at once",
        "mcp__files__read_multiple_files",
    ),
    ("view an image file", "mcp__files__read_media_file"),
    (
        "which directories am I allowed to access",
        "mcp__files__list_allowed_directories",
    ),
    ("recursive tree of a folder", "mcp__files__directory_tree"),
    ("what time is it in Tokyo", "mcp__time__get_current_time"),
    (
        "convert 3pm New York time to London time",
        "mcp__time__convert_time",
    ),
    ("git status of the repository", "mcp__git__git_status"),
    ("show unstaged changes", "mcp__git__git_diff_unstaged"),
    ("commit my changes with a message", "mcp__git__git_commit"),
    ("stage files for commit", "mcp__git__git_add"),
    ("show recent commit history", "mcp__git__git_log"),
    ("create a new branch", "mcp__git__git_create_branch"),
    ("switch to another branch", "mcp__git__git_checkout"),
    ("list branches", "mcp__git__git_branch"),
    ("unstage everything", "mcp__git__git_reset"),
    ("differences between two branches", "mcp__git__git_diff"),
    ("echo back a message", "mcp__everything__echo"),
    ("add two numbers", "mcp__everything__get_sum"),
    (
        "compress a file with gzip",
        "mcp__everything__gzip_file_as_resource",
    ),
    (
        "print the environment variables",
        "mcp__everything__get_env",
    ),
    (
        "run a long operation with progress updates",
        "mcp__everything__trigger_long_running_operation",
    ),
];

#[test]
fn search_recall_at_3_over_real_servers_is_at_least_0_9() {
    let env = real_env();
    let paths = Paths::under(env.home.path());
    let merged = hermes::config::load_merged(&paths, env.cwd.path(), &Overrides::default())
        .unwrap()
        .file;
    let mcp = std::sync::Arc::new(
        McpRegistry::new(&hermes::config::mcp_servers(&merged), &paths).unwrap(),
    );
    let catalog = Registry::default().with_mcp(mcp).catalog();
    assert!(
        catalog.tools.len() >= 40,
        "catalogs missing: {} tools",
        catalog.tools.len()
    );
    let mut misses = Vec::new();
    for (q, want) in LABELLED {
        let got = catalog.index().search(q, 3);
        if !got.contains(want) {
            misses.push(format!("{q:?} → {got:?} (wanted {want})"));
        }
    }
    let recall = 1.0 - misses.len() as f64 / LABELLED.len() as f64;
    eprintln!(
        "recall@3 = {recall:.3} over {} queries; misses: {misses:#?}",
        LABELLED.len()
    );
    assert!(recall >= 0.9, "recall@3 = {recall:.3}; misses: {misses:#?}");
}

#[test]
fn a_model_that_sees_only_the_bridge_finds_and_calls_real_tools() {
    let env = real_env();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("s"),
        "tool_search",
        r#"{"queries":["current time in a timezone","read a text file"],"limit":3}"#,
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("t"),
        "tool_call",
        r#"{"calls":[{"name":"mcp__time__get_current_time","arguments":{"timezone":"UTC"}}]}"#,
    )]));
    let plan = env.cwd.path().join("docs/plan.md").display().to_string();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("f"),
        "tool_call",
        &json!({"calls": [{"name": "mcp__files__read_text_file", "arguments": {"path": plan}}]})
            .to_string(),
    )]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "what's the time, and what's in the plan?"])
        .ok();
    let reqs = env.fake.requests();
    assert_eq!(
        crate::support::tool_names(&reqs[0].json()),
        ["tool_search", "tool_describe", "tool_call"]
    );
    let search: Value =
        serde_json::from_str(env.tool_results(1)[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        search["results"][0]["matches"][0],
        "mcp__time__get_current_time"
    );
    let files = search["results"][1]["matches"].as_array().unwrap();
    assert!(
        files.contains(&json!("mcp__files__read_text_file")),
        "{files:?}"
    );
    assert!(env.tool_results(2).last().unwrap()["content"]
        .as_str()
        .unwrap()
        .contains("\"timezone\": \"UTC\""));
    assert_eq!(
        env.tool_results(3).last().unwrap()["content"],
        "step one: ship"
    );
}

#[test]
fn auto_defers_past_the_tool_count_threshold() {
    let env = TestEnv::new();
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::text("a"));
    env.fake.push(Reply::text("b"));
    env.run(&["-q", "hi"]).ok();
    env.run(&["-c", "tools.defer_max_tools=5", "-q", "hi"]).ok();
    let reqs = env.fake.requests();
    assert_eq!(
        crate::support::tool_names(&reqs[0].json()).len(),
        9,
        "9 tools are under the default threshold"
    );
    assert_eq!(
        crate::support::tool_names(&reqs[1].json()),
        ["tool_search", "tool_describe", "tool_call"]
    );
}
