//! The ACP TypeScript SDK's client as the editor (tests/fixtures/acp/
//! editor.mjs): hermes driven by the protocol's other implementation,
//! every message it sends checked against the protocol's JSON Schema.

use serde_json::{json, Value};

use super::acp::{batch_of_three, everything, TOKEN};
use crate::support::{call_id, Reply, TestEnv};

/// The ACP TypeScript SDK's client as the editor, each message hermes
/// sends checked against the protocol's JSON Schema: the same batch, the
/// write allowed through its question, the session loaded back.
#[test]
fn the_typescript_sdks_client_drives_hermes_and_every_message_matches_the_schema() {
    let env = batch_of_three();
    // The window known: each request is followed by a `usage_update`.
    let mut config = std::fs::read_to_string(env.config_path()).unwrap();
    config.push_str("context_window = 200000\n");
    std::fs::write(env.config_path(), config).unwrap();
    let (events, stdout) = sdk_editor(&env, &everything().to_string(), None);
    let of = |name: &str| -> Vec<&Value> { events.iter().filter(|e| e["event"] == name).collect() };
    assert_eq!(of("prompted")[0]["result"]["stopReason"], "end_turn");
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|e| e["update"]["sessionUpdate"].as_str())
        .collect();
    for k in ["usage_update", "available_commands_update"] {
        assert!(kinds.contains(&k), "no {k}: {kinds:?}");
    }
    assert_eq!(of("commanded")[0]["result"]["stopReason"], "end_turn");
    let loading = events.iter().position(|e| e["event"] == "loading").unwrap();
    let calls: Vec<&str> = events[..loading]
        .iter()
        .filter(|e| e["update"]["sessionUpdate"] == "tool_call")
        .map(|e| e["update"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["Read a.txt", "Write b.txt", "everything: get_env"]);
    let completed = events[..loading]
        .iter()
        .filter(|e| e["update"]["status"] == "completed")
        .count();
    assert_eq!(completed, 3);
    assert_eq!(of("permission").len(), 1);
    assert_eq!(of("permission")[0]["toolCall"]["title"], "Write b.txt");
    let loaded = events.iter().position(|e| e["event"] == "loaded").unwrap();
    let replayed: Vec<&str> = events[loading..loaded]
        .iter()
        .filter_map(|e| e["update"]["sessionUpdate"].as_str())
        .filter(|k| *k != "config_option_update" && *k != "available_commands_update")
        .collect();
    assert_eq!(
        replayed,
        [
            "user_message_chunk",
            "tool_call",
            "tool_call",
            "tool_call",
            "agent_message_chunk"
        ]
    );
    crate::assert_not_contains!(stdout, TOKEN);
    // The thread history, through the SDK: listed, resumed, closed.
    let session = of("session")[0]["result"]["sessionId"].clone();
    assert_eq!(
        of("listed")[0]["result"]["sessions"][0]["sessionId"],
        session
    );
    assert_eq!(of("resumed").len(), 1, "{events:?}");
    assert_eq!(of("closed")[0]["result"], json!({}));
}

/// Plan mode picked through the SDK's `session/set_mode`: the mode and
/// plan updates hermes sends pass the protocol's schema and the SDK's own
/// parsing, and the write is refused without a question.
#[test]
fn the_typescript_sdks_client_sets_plan_mode_and_takes_the_plan() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\", \"update_plan\"]\n");
    env.fake.push(Reply::tool_calls(&[
        (&call_id("w"), "write_file", r#"{"path":"fix.md","content":"x"}"#),
        (
            &call_id("p"),
            "update_plan",
            r#"{"plan":[{"step":"Write fix.md","status":"in_progress"},{"step":"Run the tests","status":"pending"}],"explanation":"small fix"}"#,
        ),
    ]));
    env.fake
        .push(Reply::text("Plan: write fix.md, then run the tests."));
    let (events, _) = sdk_editor(&env, "[]", Some("plan"));
    let of = |name: &str| -> Vec<&Value> { events.iter().filter(|e| e["event"] == name).collect() };
    assert_eq!(of("prompted")[0]["result"]["stopReason"], "end_turn");
    assert!(
        of("permission").is_empty(),
        "plan mode refuses, it does not ask"
    );
    let update = |kind: &str| {
        events
            .iter()
            .find(|e| e["update"]["sessionUpdate"] == kind)
            .unwrap_or_else(|| panic!("no {kind} update: {events:?}"))
    };
    assert_eq!(
        update("current_mode_update")["update"]["currentModeId"],
        "plan"
    );
    assert_eq!(
        update("plan")["update"]["entries"],
        json!([
            {"content": "Write fix.md", "priority": "medium", "status": "in_progress"},
            {"content": "Run the tests", "priority": "medium", "status": "pending"}
        ])
    );
    assert!(!env.cwd.path().join("fix.md").exists());
}

/// A background process as the SDK's client sees it: a `tool_call` as it
/// starts, during the prompt, and its `tool_call_update` when it ends
/// after the prompt has answered — each passing the protocol's schema and
/// the SDK's own parsing.
#[test]
fn the_typescript_sdks_client_sees_a_background_process_start_and_end() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"shell\"]\n");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("bg"),
        "shell",
        r#"{"command":"sleep 1; exit 3","background":true}"#,
    )]));
    env.fake.push(Reply::text("started it"));
    let (events, _) = sdk_editor_waiting(&env, "[]", None, 3000);
    let prompted = events
        .iter()
        .position(|e| e["event"] == "prompted")
        .unwrap();
    let started = events[..prompted].iter().position(|e| {
        e["update"]["toolCallId"] == "process-1" && e["update"]["sessionUpdate"] == "tool_call"
    });
    assert!(started.is_some(), "{events:#?}");
    let ended = events[prompted..].iter().find(|e| {
        e["update"]["toolCallId"] == "process-1"
            && e["update"]["sessionUpdate"] == "tool_call_update"
    });
    let ended = ended.unwrap_or_else(|| panic!("no end after the prompt: {events:#?}"));
    assert_eq!(ended["update"]["status"], "failed");
    crate::assert_contains!(ended.to_string(), "background process 1 exited with code 3");
}

/// Runs tests/fixtures/acp/editor.mjs — the ACP TypeScript SDK's client,
/// every message checked against the protocol's schema — against hermes
/// in `env` with `servers` (a JSON array), in `mode` if given. Returns its
/// events and its whole stdout.
fn sdk_editor(env: &TestEnv, servers: &str, mode: Option<&str>) -> (Vec<Value>, String) {
    sdk_editor_waiting(env, servers, mode, 0)
}

/// The same, the editor waiting `wait_ms` after the prompt's answer before
/// it lets hermes go: what hermes tells between prompts reaches it.
fn sdk_editor_waiting(
    env: &TestEnv,
    servers: &str,
    mode: Option<&str>,
    wait_ms: u64,
) -> (Vec<Value>, String) {
    // The driver beside the SDK it imports (ES modules resolve from the
    // script's folder).
    let sdk = crate::support::test_servers().join("acp/node_modules");
    assert!(
        sdk.join("@agentclientprotocol/sdk").exists(),
        "the ACP SDK is not installed under {}: run ./scripts/install-test-servers",
        sdk.display()
    );
    let dir = env.tmp().join("editor");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&sdk, dir.join("node_modules")).unwrap();
    let script = dir.join("editor.mjs");
    std::fs::copy(
        crate::support::repo_root().join("tests/fixtures/acp/editor.mjs"),
        &script,
    )
    .unwrap();
    let out = env
        .command("node")
        .arg(&script)
        .arg(crate::support::bin("hermes"))
        .arg(env.cwd.path())
        .arg(servers)
        .args(mode)
        .env("EDITOR_WAIT_MS", wait_ms.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (events, stdout)
}

/// The independent Python SDK (agent-client-protocol, pinned) as the
/// editor (tests/fixtures/acp/editor.py): every message hermes sends parsed
/// into its models — one it could not take fails it — through a prompt, a
/// slash command run by hermes, the session listed, closed and resumed.
#[test]
fn the_python_sdks_client_drives_hermes_through_commands_list_close_and_resume() {
    let python = crate::support::test_servers().join("py/bin/python");
    assert!(
        python.exists(),
        "the Python test packages are not installed: run ./scripts/install-test-servers"
    );
    let env = TestEnv::new();
    env.write_config("");
    env.fake.push(Reply::text("hello from the model"));
    let out = env
        .command(python.to_str().unwrap())
        .arg(crate::support::repo_root().join("tests/fixtures/acp/editor.py"))
        .arg(crate::support::bin("hermes"))
        .arg(env.cwd.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |name: &str| -> Vec<&Value> { events.iter().filter(|e| e["event"] == name).collect() };
    assert_eq!(
        of("initialized")[0]["result"]["authMethods"][0]["id"],
        "fake"
    );
    let prompted = of("prompted");
    assert_eq!(prompted.len(), 2);
    for p in &prompted {
        assert_eq!(p["result"]["stopReason"], "end_turn", "{p}");
    }
    let said: String = events
        .iter()
        .filter(|e| e["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|e| e["update"]["content"]["text"].as_str())
        .collect();
    crate::assert_contains!(said, "hello from the model");
    crate::assert_contains!(said, "1 model request(s)");
    assert!(
        events
            .iter()
            .any(|e| e["update"]["sessionUpdate"] == "available_commands_update"),
        "{stdout}"
    );
    let session = of("session")[0]["result"]["sessionId"].clone();
    assert_eq!(
        of("listed")[0]["result"]["sessions"][0]["sessionId"],
        session
    );
    assert_eq!(of("closed").len(), 1);
    assert_eq!(of("resumed").len(), 1);
    assert_eq!(env.fake.requests().len(), 1, "/usage reached the model");
}
