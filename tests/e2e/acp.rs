//! `hermes acp` (issue 50) driven as an editor drives it: JSON-RPC lines
//! on its stdin, nothing but JSON-RPC on its stdout, against the strict
//! fake provider and real MCP servers the editor passes in `session/new`.

use serde_json::{json, Value};

use crate::support::acp::{initialize, Editor};
use crate::support::calls::{batch, contents};
use crate::support::{call_id, real_server, test_server, wait_for, Reply, TestEnv};

/// A token as long and as odd as GitHub's, given as a server's env.
pub(super) const TOKEN: &str = "ghp_AcpS3cretT0kenValue0123456789abcdEF";

fn new_session(editor: &mut Editor, env: &TestEnv, servers: Value) -> String {
    let r = editor
        .request(
            "session/new",
            json!({"cwd": env.cwd.path(), "mcpServers": servers}),
        )
        .unwrap();
    assert_eq!(r["modes"]["currentModeId"], "ask", "{r}");
    assert_eq!(r["configOptions"][0]["currentValue"], env.model(), "{r}");
    r["sessionId"].as_str().unwrap().to_string()
}

pub(super) fn everything() -> Value {
    json!([{
        "name": "everything",
        "command": real_server("mcp-server-everything"),
        "args": [],
        "env": [{"name": "API_TOKEN", "value": TOKEN}],
    }])
}

/// Every file under `dir`, for what must not be in any.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A home where the model's first reply is one 3-entry `tool_call` — a
/// read, a write (asked about: `ask` is the mode), server-everything's
/// `get_env` (allowed) — and its second the answer "done".
pub(super) fn batch_of_three() -> TestEnv {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"read_file\", \"write_file\"]\ndefer = \"always\"\n");
    env.set_approvals("allow = [\"mcp__everything__*\"]");
    std::fs::write(env.cwd.path().join("a.txt"), "alpha\n").unwrap();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("batch"),
        "tool_call",
        &batch(&[
            ("read_file", json!({"path": "a.txt"})),
            ("write_file", json!({"path": "b.txt", "content": "beta\n"})),
            ("mcp__everything__get_env", json!({})),
        ]),
    )]));
    env.fake.push(Reply::text("done"));
    env
}

#[test]
fn an_editor_sees_each_entry_of_a_batch_asks_about_the_write_and_loads_it_all_back() {
    let env = batch_of_three();

    let mut editor = Editor::start(&env, &[]);
    let init = editor.request("initialize", initialize()).unwrap();
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert_eq!(init["agentCapabilities"]["mcpCapabilities"]["sse"], true);
    assert_eq!(init["authMethods"][0]["id"], "fake");
    assert!(editor
        .request("authenticate", json!({"methodId": "fake"}))
        .is_ok());
    let id = new_session(&mut editor, &env, everything());

    let done = prompted(&mut editor, &id, "go");
    assert_eq!(done["stopReason"], "end_turn");

    // Three tool calls, in entry order, each its own; each completed.
    let calls: Vec<&Value> = editor.of_kind("tool_call");
    let titles: Vec<&str> = calls.iter().map(|c| c["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Read a.txt", "Write b.txt", "everything: get_env"]);
    let kinds: Vec<&str> = calls.iter().map(|c| c["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["read", "edit", "read"]);
    let ids: Vec<&str> = calls
        .iter()
        .map(|c| c["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(ids[0] != ids[1] && ids[1] != ids[2]);
    assert_eq!(
        calls[1]["locations"][0]["path"],
        json!(env.cwd.path().join("b.txt"))
    );
    for cid in &ids {
        let last = editor
            .updates
            .iter()
            .rev()
            .find(|u| u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == *cid)
            .unwrap_or_else(|| panic!("no update for {cid}: {:?}", editor.updates));
        assert_eq!(last["status"], "completed", "{last}");
    }
    // The write, and it only, was asked about, as itself, before it ran.
    assert_eq!(editor.asked.len(), 1, "{:?}", editor.asked);
    assert_eq!(editor.asked[0]["toolCall"]["toolCallId"], ids[1]);
    let options: Vec<&str> = editor.asked[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        options,
        ["allow_once", "allow_always", "allow_always", "reject_once"]
    );
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("b.txt")).unwrap(),
        "beta\n"
    );
    let written = editor
        .updates
        .iter()
        .find(|u| u["toolCallId"] == ids[1] && u["status"] == "completed")
        .unwrap();
    let diff = written["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "diff")
        .expect("the write's diff");
    assert_eq!(diff["newText"], "beta\n");
    let text: String = editor
        .of_kind("agent_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "done");

    // The server saw its token; nothing hermes wrote or sent has it.
    let got_env = editor
        .updates
        .iter()
        .find(|u| u["toolCallId"] == ids[2] && u["status"] == "completed")
        .unwrap();
    crate::assert_contains!(got_env.to_string(), "API_TOKEN");
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
    for r in env.fake.requests() {
        crate::assert_not_contains!(String::from_utf8_lossy(&r.body), TOKEN);
    }
    for f in files_under(env.home.path()) {
        let bytes = std::fs::read(&f).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(TOKEN),
            "the token is in {}",
            f.display()
        );
    }

    // Loaded again in a new process: the conversation told as it was.
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let loaded = editor
        .request(
            "session/load",
            json!({"sessionId": id, "cwd": env.cwd.path(), "mcpServers": everything()}),
        )
        .unwrap();
    assert_eq!(loaded["modes"]["currentModeId"], "ask");
    // (The provider's model list comes when it comes, and the commands
    // after the conversation: not part of it.)
    let told: Vec<&Value> = editor
        .updates
        .iter()
        .filter(|u| u["sessionUpdate"] != "config_option_update")
        .filter(|u| u["sessionUpdate"] != "available_commands_update")
        .collect();
    let kinds: Vec<&str> = told
        .iter()
        .map(|u| u["sessionUpdate"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user_message_chunk",
            "tool_call",
            "tool_call",
            "tool_call",
            "agent_message_chunk"
        ]
    );
    assert_eq!(told[0]["content"]["text"], "go");
    for u in &told[1..4] {
        assert_eq!(u["status"], "completed", "{u}");
    }
    // The loaded session goes on: its next request starts with the last
    // one, byte for byte (the prompt cache holds).
    env.fake.push(Reply::text("again"));
    let r = prompted(&mut editor, &id, "more");
    assert_eq!(r["stopReason"], "end_turn");
    let posts: Vec<_> = env
        .fake
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .collect();
    assert_eq!(posts.len(), 3);
    let breaks = crate::support::wire::prefix_breaks(&posts);
    assert!(breaks.is_empty(), "{breaks:#?}");
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

#[test]
fn a_denied_write_fails_and_a_cancel_stops_the_batch_before_its_next_entry() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\"]\ndefer = \"always\"\n");
    env.set_approvals("");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("w"),
        "write_file",
        &json!({"path": "c.txt", "content": "no\n"}).to_string(),
    )]));
    env.fake.push(Reply::text("not written"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let servers = json!([{"name": "t", "command": test_server(), "args": [], "env": []}]);
    let id = new_session(&mut editor, &env, servers);
    editor.answers.push_back("reject_once".into());
    let r = prompted(&mut editor, &id, "write c");
    assert_eq!(r["stopReason"], "end_turn");
    assert_eq!(editor.asked.len(), 1);
    assert!(!env.cwd.path().join("c.txt").exists());
    let failed = editor.of_kind("tool_call_update");
    assert_eq!(failed.last().unwrap()["status"], "failed", "{failed:?}");

    // Auto: nothing asked from here on; another model. A slow entry,
    // cancelled.
    editor
        .request(
            "session/set_mode",
            json!({"sessionId": id, "modeId": "auto"}),
        )
        .unwrap();
    let options = editor
        .request(
            "session/set_config_option",
            json!({"sessionId": id, "configId": "model", "value": "test-model-mini"}),
        )
        .unwrap();
    assert_eq!(
        options["configOptions"][0]["currentValue"],
        "test-model-mini"
    );
    env.fake.push(Reply::tool_calls(&[(
        &call_id("slow"),
        "tool_call",
        &batch(&[
            ("mcp__t__slow", json!({"ms": 20000, "label": "running"})),
            ("mcp__t__slow", json!({"ms": 10, "label": "waiting1"})),
        ]),
    )]));
    let prompt = editor.send_request(
        "session/prompt",
        json!({"sessionId": id, "prompt": [{"type": "text", "text": "slow"}]}),
    );
    wait_for("the slow entry to start", || {
        env.server_log("t").contains("slow start running")
    });
    let asked_at = std::time::Instant::now();
    editor.notify("session/cancel", json!({"sessionId": id}));
    let r = editor.answer_to(prompt).unwrap();
    assert_eq!(r["stopReason"], "cancelled");
    assert!(asked_at.elapsed() < std::time::Duration::from_secs(5));
    let sent = env
        .fake
        .requests()
        .into_iter()
        .rfind(|r| r.method == "POST")
        .unwrap()
        .json();
    assert_eq!(sent["model"], "test-model-mini");
    let log = env.server_log("t");
    assert_eq!(log.matches("recv tools/call").count(), 1, "{log}");
    crate::assert_not_contains!(log, "waiting1");
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
    let server: i32 = log
        .lines()
        .find_map(|l| l.strip_prefix("test server: pid "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap();
    wait_for("the server to be gone", || {
        // SAFETY: kill(2) with signal 0 only checks whether the pid exists.
        unsafe { libc::kill(server, 0) != 0 }
    });
}

#[test]
fn bad_requests_get_errors_that_say_what_to_fix_and_nothing_else_reaches_stdout() {
    let env = TestEnv::new();
    let mut editor = Editor::start(&env, &[]);
    let early = editor
        .request(
            "session/new",
            json!({"cwd": env.cwd.path(), "mcpServers": []}),
        )
        .unwrap_err();
    crate::assert_contains!(early["message"].as_str().unwrap(), "initialize first");
    editor.send(&json!("not an object"));
    // A byte that is not UTF-8: that line answered, the connection kept.
    editor.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"fly\xff\"}");
    let e = editor.answer_to(99).unwrap_err();
    assert_eq!(e["code"], -32600, "{e}");
    editor.request("initialize", initialize()).unwrap();
    let errors: Vec<&String> = editor
        .stdout
        .iter()
        .filter(|l| l.contains("\"id\":null"))
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "the line that is no object: {:?}",
        editor.stdout
    );
    let e = editor
        .request("session/new", json!({"cwd": "relative", "mcpServers": []}))
        .unwrap_err();
    assert_eq!(e["code"], -32602);
    let e = editor
        .request("session/prompt", json!({"sessionId": "nope", "prompt": []}))
        .unwrap_err();
    crate::assert_contains!(e["message"].as_str().unwrap(), "no session nope");
    let e = editor.request("session/fly", json!({})).unwrap_err();
    assert_eq!(e["code"], -32601);
    let e = editor
        .request("authenticate", json!({"methodId": "fake"}))
        .map(|_| ());
    assert!(e.is_ok());
    let (status, _) = editor.finish();
    assert!(status.success());

    // Without the key: authenticate names the variable.
    let mut editor = Editor::start(&env, &[(crate::support::KEY_ENV, "")]);
    editor.request("initialize", initialize()).unwrap();
    let e = editor
        .request("authenticate", json!({"methodId": "fake"}))
        .unwrap_err();
    assert_eq!(e["code"], -32000);
    crate::assert_contains!(e["message"].as_str().unwrap(), "HERMES_TEST_KEY is not set");
    editor.finish();
}

#[test]
fn a_provider_failure_is_an_error_naming_the_provider() {
    let env = TestEnv::new();
    env.fake.push(Reply::status(401, r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let e = editor
        .request(
            "session/prompt",
            json!({"sessionId": id, "prompt": [{"type": "text", "text": "hi"}]}),
        )
        .unwrap_err();
    let message = e["message"].as_str().unwrap();
    crate::assert_contains!(message, "401");
    assert!(e["data"]["hint"].is_string(), "{e}");
    editor.finish();
}

/// Anthropic's thinking, streamed, reaches the editor as thought chunks
/// before the answer; the answer's end is the turn's stop reason.
#[test]
fn thinking_streams_as_thought_chunks_and_a_cut_answer_is_max_tokens() {
    use crate::support::{Api, Block, Stop};
    let env = TestEnv::with_api(Api::Anthropic);
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    std::fs::write(
        env.config_path(),
        format!("{text}thinking_budget = 2048\nmax_tokens = 4096\n"),
    )
    .unwrap();
    env.fake.push(Reply::turn(
        vec![
            Block::Thinking("The user wants a haiku; keep it short.".into()),
            Block::Text("Autumn moonlight".into()),
        ],
        Stop::MaxTokens,
    ));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let r = prompted(&mut editor, &id, "a haiku");
    assert_eq!(r["stopReason"], "max_tokens");
    let kinds: Vec<&str> = editor
        .updates
        .iter()
        .map(|u| u["sessionUpdate"].as_str().unwrap())
        .collect();
    let first_text = kinds
        .iter()
        .position(|k| *k == "agent_message_chunk")
        .unwrap();
    let thought: String = editor
        .of_kind("agent_thought_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(thought, "The user wants a haiku; keep it short.");
    assert!(
        kinds[..first_text].contains(&"agent_thought_chunk"),
        "{kinds:?}"
    );
    editor.finish();
}

/// A session another hermes has open is not loaded under it: the
/// one-writer lock holds, and the error names the holder.
#[test]
fn loading_a_session_another_hermes_has_open_is_refused_naming_it() {
    let env = TestEnv::new();
    let mut holder = Editor::start(&env, &[]);
    holder.request("initialize", initialize()).unwrap();
    let id = new_session(&mut holder, &env, json!([]));
    let mut other = Editor::start(&env, &[]);
    other.request("initialize", initialize()).unwrap();
    let e = other
        .request(
            "session/load",
            json!({"sessionId": id, "cwd": env.cwd.path(), "mcpServers": []}),
        )
        .unwrap_err();
    crate::assert_contains!(
        e["message"].as_str().unwrap(),
        format!("is in use by another hermes (pid {})", holder.child.id())
    );
    assert!(
        e["data"]["hint"].as_str().unwrap().contains("--fork"),
        "{e}"
    );
    other.finish();
    holder.finish();
}

/// The editor goes away mid-turn (its end of stdin closes): the turn is
/// stopped, the servers with it, and hermes exits cleanly — nothing left
/// running, the session file whole.
#[test]
fn an_editor_that_goes_away_mid_turn_leaves_nothing_running() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("slow"),
        "tool_call",
        &batch(&[("mcp__t__slow", json!({"ms": 30000, "label": "running"}))]),
    )]));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let servers = json!([{"name": "t", "command": test_server(), "args": [], "env": []}]);
    let id = new_session(&mut editor, &env, servers);
    editor.send_request(
        "session/prompt",
        json!({"sessionId": id, "prompt": [{"type": "text", "text": "slow"}]}),
    );
    wait_for("the slow entry to start", || {
        env.server_log("t").contains("slow start running")
    });
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
    let server: i32 = env
        .server_log("t")
        .lines()
        .find_map(|l| l.strip_prefix("test server: pid "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap();
    wait_for("the server to be gone", || {
        // SAFETY: kill(2) with signal 0 only checks whether the pid exists.
        unsafe { libc::kill(server, 0) != 0 }
    });
    for r in crate::support::records(&env.session_path(&id)) {
        assert!(r.is_object());
    }
}

/// An editor that offers `fs/read_text_file` is asked first: the model
/// reads the buffer the person sees, unsaved changes and all; a file the
/// editor cannot give is read from the disk.
#[test]
fn read_file_reads_the_editors_buffer_and_the_disk_when_it_cannot_say() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"read_file\"]\n");
    let cwd = env.cwd.path();
    std::fs::write(cwd.join("open.rs"), "fn saved() {}\n").unwrap();
    std::fs::write(cwd.join("closed.rs"), "fn on_disk() {}\n").unwrap();
    env.fake.push(Reply::tool_calls(&[
        (
            &call_id("r1"),
            "read_file",
            &json!({"path": "open.rs"}).to_string(),
        ),
        (
            &call_id("r2"),
            "read_file",
            &json!({"path": "closed.rs"}).to_string(),
        ),
    ]));
    env.fake.push(Reply::text("read both"));
    let mut editor = Editor::start(&env, &[]);
    editor.buffers.insert(
        cwd.join("open.rs").display().to_string(),
        "fn unsaved_edit() {}\n".into(),
    );
    let mut init = initialize();
    init["clientCapabilities"]["fs"]["readTextFile"] = json!(true);
    editor.request("initialize", init).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let r = prompted(&mut editor, &id, "read");
    assert_eq!(r["stopReason"], "end_turn");
    let results = env.tool_results(1);
    let text: Vec<&str> = results
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    crate::assert_contains!(text[0], "fn unsaved_edit() {}");
    crate::assert_contains!(text[1], "fn on_disk() {}");
    assert_eq!(editor.read_asked.len(), 2, "{:?}", editor.read_asked);
    editor.finish();
}

/// `additionalDirectories` are working folders too: a write there is not
/// "a write outside the working folder", and under `auto` runs unasked.
#[test]
fn additional_directories_are_written_as_the_working_folder_is() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\"]\n");
    let shared = tempfile::tempdir().unwrap();
    let target = shared.path().join("notes.md");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("w"),
        "write_file",
        &json!({"path": target, "content": "shared\n"}).to_string(),
    )]));
    env.fake.push(Reply::text("written"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let r = editor
        .request(
            "session/new",
            json!({"cwd": env.cwd.path(), "mcpServers": [], "additionalDirectories": [shared.path()]}),
        )
        .unwrap();
    let id = r["sessionId"].as_str().unwrap().to_string();
    editor
        .request(
            "session/set_mode",
            json!({"sessionId": id, "modeId": "auto"}),
        )
        .unwrap();
    let r = prompted(&mut editor, &id, "write");
    assert_eq!(r["stopReason"], "end_turn");
    assert!(editor.asked.is_empty(), "{:?}", editor.asked);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "shared\n");
    editor.finish();
}

/// An editor that offers `fs/write_text_file` writes what the file tools
/// change, after hermes' question and checkpoint: its buffer is the file,
/// and a rewind still puts the old one back.
#[test]
fn writes_go_through_the_editor_that_offers_them_and_rewind_still_undoes_them() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\", \"edit_file\"]\n");
    let cwd = env.cwd.path();
    std::fs::write(cwd.join("lib.rs"), "fn old() {}\n").unwrap();
    env.fake.push(Reply::tool_calls(&[
        (
            &call_id("w"),
            "write_file",
            &json!({"path": "new.rs", "content": "fn new() {}\n"}).to_string(),
        ),
        (
            &call_id("e"),
            "edit_file",
            &json!({"path": "lib.rs", "old_string": "old", "new_string": "renamed"}).to_string(),
        ),
    ]));
    env.fake.push(Reply::text("done"));
    let mut editor = Editor::start(&env, &[]);
    let mut init = initialize();
    init["clientCapabilities"]["fs"] = json!({"readTextFile": true, "writeTextFile": true});
    editor.request("initialize", init).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let r = prompted(&mut editor, &id, "change");
    assert_eq!(r["stopReason"], "end_turn");
    // Writes to different paths may run side by side: compare as a set.
    let mut written: Vec<(String, String)> = editor.written.clone();
    written.sort();
    assert_eq!(
        written,
        [
            (
                cwd.join("lib.rs").display().to_string(),
                "fn renamed() {}\n".to_string()
            ),
            (
                cwd.join("new.rs").display().to_string(),
                "fn new() {}\n".to_string()
            ),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(cwd.join("lib.rs")).unwrap(),
        "fn renamed() {}\n"
    );
    editor.finish();
    // The checkpoint was a copy, not the editor's inode: rewind restores.
    env.run(&["rewind", "1", "--yes", "--code-only"]).ok();
    assert_eq!(
        std::fs::read_to_string(cwd.join("lib.rs")).unwrap(),
        "fn old() {}\n"
    );
    assert!(!cwd.join("new.rs").exists());
}

/// An editor's session ends as a REPL's does when the editor goes away:
/// its SessionEnd hooks run — Claude Code's, from the user's settings —
/// with the reason `other` and the session's id.
#[test]
fn a_sessions_end_hooks_run_when_the_editor_goes_away() {
    let env = TestEnv::new();
    let claude = env.home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join("settings.json"),
        r#"{
  "hooks": {
    "SessionEnd": [
      { "hooks": [{ "type": "command", "command": "cat > ~/.claude/session-end.json" }] }
    ]
  }
}
"#,
    )
    .unwrap();
    env.fake.push(Reply::text("hello"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    prompted(&mut editor, &id, "hi");
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
    let ended = std::fs::read_to_string(claude.join("session-end.json"))
        .unwrap_or_else(|e| panic!("no SessionEnd hook ran ({e}); stderr: {stderr}"));
    let ended: Value = serde_json::from_str(&ended).unwrap();
    assert_eq!(ended["hook_event_name"], "SessionEnd", "{ended}");
    assert_eq!(ended["reason"], "other", "{ended}");
    assert_eq!(ended["session_id"], id.as_str(), "{ended}");
}

/// "Allow for this session" holds in its session only: another ACP
/// session of the same process is asked about the same call again.
#[test]
fn a_session_grant_does_not_reach_another_acp_session() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\"]\n\n[approvals]\nmode = \"ask\"\n");
    let write = |label: &str, file: &str| {
        Reply::tool_calls(&[(
            &call_id(label),
            "write_file",
            &json!({"path": file, "content": "x\n"}).to_string(),
        )])
    };
    env.fake.push(write("first", "one.txt"));
    env.fake.push(Reply::text("done"));
    env.fake.push(write("again", "two.txt"));
    env.fake.push(Reply::text("done"));
    env.fake.push(write("other", "three.txt"));
    env.fake.push(Reply::text("done"));

    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    editor.answers.push_back("allow_session".into());
    let prompt = |editor: &mut Editor, id: &str| {
        assert_eq!(prompted(editor, id, "write")["stopReason"], "end_turn");
    };
    let first = new_session(&mut editor, &env, json!([]));
    prompt(&mut editor, &first);
    prompt(&mut editor, &first);
    assert_eq!(
        editor.asked.len(),
        1,
        "granted for the session: {:?}",
        editor.asked
    );
    let second = new_session(&mut editor, &env, json!([]));
    prompt(&mut editor, &second);
    assert_eq!(
        editor.asked.len(),
        2,
        "another session is asked again: {:?}",
        editor.asked
    );
    for f in ["one.txt", "two.txt", "three.txt"] {
        assert!(env.cwd.path().join(f).exists(), "{f}");
    }
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// A project's custom command in an editor: listed as an ACP slash command
/// (with its argument hint) when the session opens, and `/review FILE`
/// expanded as the REPL expands it — its `!` line asked about as any call.
#[test]
fn an_editor_lists_the_projects_custom_commands_and_a_prompt_runs_one() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"shell\"]\n\n[approvals]\nmode = \"ask\"\n");
    let dir = env.cwd.path().join(".claude/commands");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("review.md"),
        "---\ndescription: Review a file for bugs\nargument-hint: <file>\n---\n\
         Review $ARGUMENTS for bugs.\n\nThe branch: !`echo feature-42`\n",
    )
    .unwrap();
    env.fake.push(Reply::text("Looks fine."));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let listed = editor.of_kind("available_commands_update");
    assert_eq!(listed.len(), 1, "{:?}", editor.updates);
    let review = listed[0]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "review")
        .unwrap_or_else(|| panic!("{}", listed[0]))
        .clone();
    crate::assert_contains!(
        review["description"].as_str().unwrap(),
        "Review a file for bugs"
    );
    assert_eq!(review["input"]["hint"], "<file>");

    let done = prompted(&mut editor, &id, "/review src/lib.rs");
    assert_eq!(done["stopReason"], "end_turn");
    assert_eq!(
        editor.asked.len(),
        1,
        "the `!` line is asked: {:?}",
        editor.asked
    );
    crate::assert_contains!(editor.asked[0].to_string(), "echo feature-42");
    let sent = env.fake.requests()[0].json();
    let user = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .to_string();
    crate::assert_contains!(user, "Review src/lib.rs for bugs.");
    crate::assert_contains!(user, "The branch: feature-42");
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// An editor's thread history: `session/list` gives this folder's sessions,
/// newest first, titled by their first message; `session/resume` opens one
/// without telling it again and the next prompt carries its history;
/// `session/close` ends one (a prompt to it is then refused). The window's
/// use comes as a `usage_update` after each request; the auth method says
/// hermes checks the key itself (`agent`).
#[test]
fn an_editor_lists_resumes_and_closes_sessions_and_sees_the_window_fill() {
    let env = TestEnv::new();
    env.write_config("");
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str("context_window = 200000\n");
    std::fs::write(env.config_path(), text).unwrap();
    env.fake.push(Reply::text("first answer"));
    env.fake.push(Reply::text("second answer"));
    env.fake.push(Reply::text("third answer"));

    let mut editor = Editor::start(&env, &[]);
    let init = editor.request("initialize", initialize()).unwrap();
    let caps = &init["agentCapabilities"]["sessionCapabilities"];
    for c in ["list", "resume", "close"] {
        assert_eq!(caps[c], json!({}), "{init}");
    }
    assert_eq!(init["authMethods"][0]["type"], "agent", "{init}");
    let prompt = |editor: &mut Editor, id: &str, text: &str| {
        assert_eq!(prompted(editor, id, text)["stopReason"], "end_turn");
    };
    let older = new_session(&mut editor, &env, json!([]));
    prompt(&mut editor, &older, "the older thread");
    let usage = editor.of_kind("usage_update");
    assert_eq!(usage.len(), 1, "{:?}", editor.updates);
    assert_eq!(usage[0]["size"], 200000);
    assert!(usage[0]["used"].as_u64().unwrap() > 0, "{}", usage[0]);
    let first_ids: Vec<Value> = editor
        .of_kind("agent_message_chunk")
        .iter()
        .map(|u| u["messageId"].clone())
        .collect();
    assert!(first_ids[0].is_string(), "{:?}", editor.updates);
    assert!(
        first_ids.iter().all(|i| *i == first_ids[0]),
        "one answer, one message: {first_ids:?}"
    );
    let newer = new_session(&mut editor, &env, json!([]));
    prompt(&mut editor, &newer, "the newer thread");
    let last_id = editor.of_kind("agent_message_chunk").last().unwrap()["messageId"].clone();
    assert_ne!(
        last_id, first_ids[0],
        "another prompt's answer is another message"
    );

    let listed = editor
        .request("session/list", json!({"cwd": env.cwd.path()}))
        .unwrap();
    let sessions = listed["sessions"].as_array().unwrap();
    let ids: Vec<&str> = sessions
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [newer.as_str(), older.as_str()], "{listed}");
    assert_eq!(sessions[1]["title"], "the older thread");
    assert!(sessions[0]["updatedAt"].as_str().unwrap().ends_with('Z'));
    assert!(listed.get("nextCursor").is_none());
    let elsewhere = editor
        .request("session/list", json!({"cwd": env.home.path()}))
        .unwrap();
    assert_eq!(elsewhere["sessions"], json!([]), "{elsewhere}");

    // Closed: gone from this process; its file stays, to resume.
    assert_eq!(
        editor
            .request("session/close", json!({"sessionId": older}))
            .unwrap(),
        json!({})
    );
    let refused = editor
        .request(
            "session/prompt",
            json!({"sessionId": older, "prompt": [{"type": "text", "text": "x"}]}),
        )
        .unwrap_err();
    crate::assert_contains!(refused["message"].as_str().unwrap(), "no session");
    let before = editor.updates.len();
    let resumed = editor
        .request(
            "session/resume",
            json!({"sessionId": older, "cwd": env.cwd.path()}),
        )
        .unwrap();
    assert_eq!(resumed["modes"]["currentModeId"], "ask", "{resumed}");
    let told: Vec<&Value> = editor.updates[before..]
        .iter()
        .filter(|u| u["sessionUpdate"] == "user_message_chunk")
        .collect();
    assert!(told.is_empty(), "resume tells nothing again: {told:?}");
    prompt(&mut editor, &older, "and now?");
    let last = env.fake.requests().last().unwrap().body_str().to_string();
    crate::assert_contains!(last, "the older thread");
    crate::assert_contains!(last, "first answer");
    crate::assert_not_contains!(last, "the newer thread");
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// The REPL's commands in an editor: listed with the rest; `/usage` and
/// `/compact` run as the REPL runs them, what they say the agent's message;
/// `/model NAME` switches the next request's model; a typo is answered as
/// one — nothing of it goes to the model.
#[test]
fn an_editors_slash_commands_run_in_hermes_and_a_typo_never_reaches_the_model() {
    let env = TestEnv::new();
    env.write_config("");
    env.fake
        .push(Reply::text("first answer, long enough to summarise"));
    env.fake.push(Reply::text("second answer"));
    env.fake
        .push(Reply::text("A summary of the conversation so far."));
    env.fake.push(Reply::text("third answer"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let names: Vec<String> = editor.of_kind("available_commands_update")[0]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    for n in ["compact", "usage", "context", "model", "mode", "init"] {
        assert!(names.contains(&n.to_string()), "{n} not in {names:?}");
    }
    let said = |editor: &mut Editor, text: &str| -> String {
        let before = editor.updates.len();
        let done = prompted(editor, &id, text);
        assert_eq!(done["stopReason"], "end_turn", "{done}");
        editor.updates[before..]
            .iter()
            .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
            .map(|u| u["content"]["text"].as_str().unwrap().to_string())
            .collect()
    };
    said(&mut editor, "the first question");
    said(&mut editor, "the second question");
    let usage = said(&mut editor, "/usage");
    crate::assert_contains!(usage, "2 model request(s)");
    let typo = said(&mut editor, "/usgae");
    crate::assert_contains!(typo, "unknown command /usgae; did you mean /usage?");
    let compacted = said(&mut editor, "/compact");
    crate::assert_contains!(compacted, "compacted");
    let switched = said(&mut editor, "/model other-model");
    crate::assert_contains!(switched, "other-model");
    said(&mut editor, "the third question");
    let reqs = env.fake.requests();
    assert_eq!(
        reqs.len(),
        4,
        "the commands sent nothing but the summary request"
    );
    let last = reqs[3].json();
    assert_eq!(last["model"], "other-model");
    crate::assert_contains!(reqs[3].body_str(), "A summary of the conversation so far.");
    for r in &reqs {
        crate::assert_not_contains!(r.body_str(), "/usgae");
        crate::assert_not_contains!(r.body_str(), "/usage");
    }
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// A linked file of 200 MiB is read only as far as the message takes it:
/// hermes stays far under 64 MB and the model gets its head, saying it
/// was cut.
#[test]
fn a_huge_linked_file_costs_hermes_its_head_only() {
    let env = TestEnv::new();
    env.write_config("");
    let big = env.cwd.path().join("huge.log");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(200 << 20).unwrap();
    env.fake.push(Reply::text("seen"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let done = editor
        .request(
            "session/prompt",
            json!({"sessionId": id, "prompt": [
                {"type": "text", "text": "what is in this log?"},
                {"type": "resource_link", "name": "huge.log", "uri": format!("file://{}", big.display())},
            ]}),
        )
        .unwrap();
    assert_eq!(done["stopReason"], "end_turn");
    let status = std::fs::read_to_string(format!("/proc/{}/status", editor.child.id())).unwrap();
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    assert!(peak_kb < 64 * 1024, "hermes peaked at {peak_kb} kB");
    let sent = env.fake.requests()[0].body_str().to_string();
    crate::assert_contains!(sent, &format!("the file is {} bytes", 200u64 << 20));
    assert!(sent.len() < 2 << 20, "{} bytes sent", sent.len());
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// What hermes warns of during a prompt reaches the person: a `notice`
/// where the editor shows them, else a line of the agent's message (with
/// a secret hermes knows masked); `$/cancel_request` of a running prompt
/// stops it as `session/cancel` does; a line past hermes' bound is refused
/// without being held, and the connection goes on.
#[test]
fn warnings_reach_the_person_a_prompt_can_be_cancelled_by_request_and_a_huge_line_is_refused() {
    let env = TestEnv::new();
    env.write_config(
        "[[hooks.user_prompt_submit]]\n\
         command = \"echo '{\\\"systemMessage\\\": \\\"the docs build is red\\\"}'\"\n",
    );
    env.fake.push(Reply::text("plain answer"));
    env.fake.push(Reply::text("noticed answer"));
    for (notices, answer) in [(false, "plain answer"), (true, "noticed answer")] {
        let mut editor = Editor::start(&env, &[]);
        let mut init = initialize();
        if notices {
            init["clientCapabilities"]["session"] = json!({"notices": {}});
        }
        editor.request("initialize", init).unwrap();
        let id = new_session(&mut editor, &env, json!([]));
        let done = prompted(&mut editor, &id, "hi");
        assert_eq!(done["stopReason"], "end_turn");
        let text: String = editor
            .of_kind("agent_message_chunk")
            .iter()
            .map(|u| u["content"]["text"].as_str().unwrap())
            .collect();
        crate::assert_contains!(text, answer);
        let notice = editor.of_kind("notice");
        if notices {
            assert_eq!(notice.len(), 1, "{:?}", editor.updates);
            assert_eq!(notice[0]["severity"], "warning");
            crate::assert_contains!(
                notice[0]["title"].as_str().unwrap(),
                "the docs build is red"
            );
            crate::assert_not_contains!(text, "docs build");
        } else {
            assert!(notice.is_empty());
            crate::assert_contains!(text, "warning: the docs build is red");
        }
        let (status, stderr) = editor.finish();
        assert!(status.success(), "{stderr}");
    }

    // A prompt the editor gives up on by `$/cancel_request`.
    env.fake
        .push(Reply::text("late").delayed(std::time::Duration::from_secs(20)));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let asked = editor.send_request(
        "session/prompt",
        json!({"sessionId": id, "prompt": [{"type": "text", "text": "slow"}]}),
    );
    wait_for("the request to reach the provider", || {
        env.fake.requests().len() == 3
    });
    editor.notify("$/cancel_request", json!({"requestId": asked}));
    let done = editor.answer_to(asked).unwrap();
    assert_eq!(done["stopReason"], "cancelled");
    // A line of 100 MiB: refused, and the next request answered.
    let mut huge = vec![b'x'; 100 << 20];
    huge.push(b'\n');
    editor.send_raw(&huge);
    let after = editor.request("session/list", json!({})).unwrap();
    assert!(after["sessions"].is_array());
    crate::assert_contains!(
        editor.stdout.join("\n"),
        "hermes takes at most 96 MiB a line"
    );
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// A server's form goes to an editor that draws forms
/// (`elicitation.form`) as `elicitation/create`, with the server's own
/// schema; what the person fills reaches the server. Against
/// server-everything's `trigger-elicitation-request`.
#[test]
fn a_servers_form_is_answered_by_the_editor() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.set_approvals("allow = [\"mcp__everything__*\"]");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("first"),
        "tool_call",
        &batch(&[("mcp__everything__echo", json!({"message": "start"}))]),
    )]));
    env.fake.push(Reply::text("ready"));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("form"),
        "tool_call",
        &batch(&[("mcp__everything__trigger_elicitation_request", json!({}))]),
    )]));
    env.fake.push(Reply::text("thanks"));
    let mut editor = Editor::start(&env, &[]);
    let mut init = initialize();
    init["clientCapabilities"]["elicitation"] = json!({"form": {}});
    editor.request("initialize", init).unwrap();
    let id = new_session(&mut editor, &env, everything());
    for text in ["start", "fill the form"] {
        let done = prompted(&mut editor, &id, text);
        assert_eq!(done["stopReason"], "end_turn");
    }
    assert_eq!(editor.elicited.len(), 1, "{:?}", editor.elicited);
    let asked = &editor.elicited[0];
    assert_eq!(asked["sessionId"], json!(id));
    assert_eq!(asked["mode"], "form");
    crate::assert_contains!(asked["message"].as_str().unwrap(), "everything: ");
    let schema = &asked["requestedSchema"];
    assert!(
        schema["properties"]
            .as_object()
            .is_some_and(|p| !p.is_empty()),
        "{schema}"
    );
    let result = contents(&env.tool_results(3)).join("\n");
    crate::assert_contains!(result, "Ada Lovelace");
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// Two sessions of one `hermes acp` in two folders, prompting at once:
/// each one's hooks run in its own folder and are told it — never in the
/// folder of the session that prompted last.
#[test]
fn two_sessions_in_two_folders_run_their_hooks_each_in_its_own() {
    let env = TestEnv::new();
    let log = env.home.path().join("stops.log");
    env.write_config(&format!(
        "[[hooks.stop]]\ncommand = \"echo \\\"$(pwd)\\\" >> {}\"\n",
        log.display()
    ));
    let other = env.home.path().join("other-project");
    std::fs::create_dir_all(&other).unwrap();
    // The first session's answer comes late: the second prompts meanwhile.
    env.fake
        .push(Reply::text("first").delayed(std::time::Duration::from_secs(2)));
    env.fake.push(Reply::text("second"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let here = new_session(&mut editor, &env, json!([]));
    let there = session_in(&mut editor, &other);
    let first = editor.send_request(
        "session/prompt",
        json!({"sessionId": here, "prompt": [{"type": "text", "text": "one"}]}),
    );
    wait_for("the first request", || env.fake.requests().len() == 1);
    let second = editor.send_request(
        "session/prompt",
        json!({"sessionId": there, "prompt": [{"type": "text", "text": "two"}]}),
    );
    assert_eq!(editor.answer_to(second).unwrap()["stopReason"], "end_turn");
    assert_eq!(editor.answer_to(first).unwrap()["stopReason"], "end_turn");
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
    let ran: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let real = |p: &std::path::Path| std::fs::canonicalize(p).unwrap().display().to_string();
    assert_eq!(ran, [real(&other), real(env.cwd.path())], "{ran:?}");
}

/// An edit of a file the person has open with unsaved changes is planned
/// on the buffer: the question's diff is of the text they see, and what is
/// written through the editor keeps their unsaved line.
#[test]
fn an_edit_is_planned_on_the_editors_buffer_and_keeps_its_unsaved_changes() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"edit_file\"]\n\n[approvals]\nmode = \"ask\"\n");
    let cwd = env.cwd.path();
    let file = cwd.join("notes.md");
    std::fs::write(&file, "# Notes\nship it\n").unwrap();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("e"),
        "edit_file",
        &json!({"path": "notes.md", "old_string": "ship it", "new_string": "ship it on Monday"})
            .to_string(),
    )]));
    env.fake.push(Reply::text("done"));
    let mut editor = Editor::start(&env, &[]);
    // Typed, not saved: a line the disk does not have yet.
    editor.buffers.insert(
        file.display().to_string(),
        "# Notes\nunsaved: check the tests first\nship it\n".to_string(),
    );
    let mut init = initialize();
    init["clientCapabilities"]["fs"] = json!({"readTextFile": true, "writeTextFile": true});
    editor.request("initialize", init).unwrap();
    let id = new_session(&mut editor, &env, json!([]));
    let r = prompted(&mut editor, &id, "change");
    assert_eq!(r["stopReason"], "end_turn");
    assert_eq!(editor.asked.len(), 1, "{:?}", editor.updates);
    let shown = editor.asked[0]["toolCall"].to_string();
    crate::assert_contains!(shown, "unsaved: check the tests first");
    assert_eq!(
        editor.written,
        [(
            file.display().to_string(),
            "# Notes\nunsaved: check the tests first\nship it on Monday\n".to_string()
        )]
    );
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// A hook that runs the project's code (`make`) in the second session of
/// one `hermes acp`, in another folder, runs in that folder's sandbox: what
/// it writes there lands, what it tries outside does not — it never takes
/// the first session's walls, under which its folder's code would not
/// count as the project's.
#[test]
fn a_hook_in_a_second_folder_runs_in_that_folders_sandbox() {
    let env = TestEnv::new();
    env.write_config(
        "[tools]\nbuiltin = [\"shell\"]\n\n[[hooks.user_prompt_submit]]\ncommand = \"make -s mark\"\n",
    );
    let marks = crate::e2e::sandbox::outside(&env);
    // A folder of its own, outside the home (whose files a command may
    // not change unasked).
    let holder = tempfile::tempdir().unwrap();
    let other = holder.path().join("second-project");
    std::fs::create_dir_all(&other).unwrap();
    for dir in [env.cwd.path(), other.as_path()] {
        std::fs::write(
            dir.join("Makefile"),
            format!(
                "mark:\n\techo ran > hook-ran.txt\n\t-touch {}/$(notdir $(CURDIR)) 2>/dev/null\n",
                marks.display()
            ),
        )
        .unwrap();
    }
    env.fake.push(Reply::text("done"));
    env.fake.push(Reply::text("done again"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let _first = new_session(&mut editor, &env, json!([]));
    let second = session_in(&mut editor, &other);
    let done = prompted(&mut editor, &second, "hi");
    let (status, stderr) = editor.finish();
    assert_eq!(done["stopReason"], "end_turn", "{stderr}");
    assert!(status.success(), "{stderr}");
    assert!(
        other.join("hook-ran.txt").exists(),
        "the hook ran: {stderr}"
    );
    let escaped: Vec<String> = std::fs::read_dir(&marks)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(escaped.is_empty(), "the hook wrote outside: {escaped:?}");
}

/// A server of the config with no folder of its own starts in the folder
/// of the session that uses it — never in the folder the editor started
/// hermes in — and the process' own working folder is left alone.
#[test]
fn a_config_server_starts_in_its_sessions_folder() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.set_approvals("allow = [\"mcp__t__*\"]");
    env.add_server("t", &format!("command = {:?}", test_server()));
    let holder = tempfile::tempdir().unwrap();
    let other = holder.path().join("second-project");
    std::fs::create_dir_all(&other).unwrap();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("cwd"),
        "tool_call",
        &batch(&[("mcp__t__env", json!({"name": "@cwd"}))]),
    )]));
    env.fake.push(Reply::text("done"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let _first = new_session(&mut editor, &env, json!([]));
    let second = session_in(&mut editor, &other);
    let done = prompted(&mut editor, &second, "where?");
    assert_eq!(done["stopReason"], "end_turn");
    let result = contents(&env.tool_results(1)).join("\n");
    assert_eq!(result, other.display().to_string());
    let (status, stderr) = editor.finish();
    assert!(status.success(), "{stderr}");
}

/// Sends `text` to session `id` and waits for the prompt's answer.
fn prompted(editor: &mut Editor, id: &str, text: &str) -> Value {
    editor
        .request(
            "session/prompt",
            json!({"sessionId": id, "prompt": [{"type": "text", "text": text}]}),
        )
        .unwrap()
}

/// A new session in `dir` (not the test's folder), with no servers.
fn session_in(editor: &mut Editor, dir: &std::path::Path) -> String {
    let opened = editor
        .request("session/new", json!({"cwd": dir, "mcpServers": []}))
        .unwrap();
    opened["sessionId"].as_str().unwrap().to_string()
}
