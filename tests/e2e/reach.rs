//! What the model is told it can reach: the first request's system prompt
//! names every configured server, carries the servers' own instructions and
//! the names of their deferred tools, and the project's AGENTS.md — real
//! servers (filesystem, git, server-everything) and a tracker with a real
//! catalog, their catalogs cached as a user's would be.

use serde_json::Value;

use crate::support::{real_server, records, Reply, TestEnv};

const BUILTINS: &str =
    "builtin = [\"read_file\", \"write_file\", \"edit_file\", \"glob\", \"grep\", \"shell\"]";

/// files, tracker, git and server-everything configured, catalogs cached.
fn four_servers() -> TestEnv {
    let env = TestEnv::new();
    env.write_config(&format!("[tools]\n{BUILTINS}\n"));
    let files = env.cwd.path().display().to_string();
    env.add_server(
        "files",
        &format!(
            "command = {:?}\nargs = [{files:?}]",
            real_server("mcp-server-filesystem")
        ),
    );
    let catalog = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/catalogs/gitlab.json"
    );
    env.add_server(
        "tracker",
        &format!(
            "command = {:?}\nargs = [\"--catalog\", {catalog:?}, \"--title\", \"Team issue tracker\", \
             \"--instructions\", \"Search issues before creating one; link merge requests by id.\"]",
            crate::support::test_server()
        ),
    );
    env.add_server(
        "git",
        &format!("command = {:?}", real_server("mcp-server-git")),
    );
    env.add_server(
        "everything",
        &format!("command = {:?}", real_server("mcp-server-everything")),
    );
    for s in ["files", "tracker", "git", "everything"] {
        env.prefill(s);
    }
    env
}

fn system_of(req: &Value) -> String {
    req["messages"][0]["content"].as_str().unwrap().to_string()
}

/// The instructions server-everything gave at its handshake, as cached.
fn cached_instructions(env: &TestEnv, server: &str) -> String {
    let dir = env.home.path().join("cache/mcp");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with(server))
        .unwrap_or_else(|| panic!("no cached catalog of {server} in {}", dir.display()));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    v["about"]["instructions"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_first_request_names_every_server_its_instructions_and_deferred_tools() {
    let env = four_servers();
    env.fake.push(Reply::text("I can reach four servers."));
    env.fake.push(Reply::text("Still four."));
    env.run(&["-q", "what can you reach?"]).ok();
    let first = env.fake.requests()[0].clone();
    let body = first.json();
    let system = system_of(&body);
    for server in ["files", "tracker", "git", "everything"] {
        crate::assert_contains!(system, format!("\n- {server}"));
    }
    // Deferred: the names are in the prompt, the schemas are not sent.
    crate::assert_contains!(system, "git_status");
    crate::assert_contains!(system, "read_text_file");
    let tools = crate::support::tool_names(&body);
    assert!(!tools.iter().any(|t| t.contains("git_status")), "{tools:?}");
    assert!(tools.contains(&"tool_search".to_string()), "{tools:?}");
    // The servers' own words.
    crate::assert_contains!(system, "- tracker: Team issue tracker —");
    crate::assert_contains!(system, "Search issues before creating one");
    let everything = cached_instructions(&env, "everything");
    assert!(
        everything.len() > 200,
        "server-everything sent {} bytes of instructions",
        everything.len()
    );
    crate::assert_contains!(system, everything[..200].trim());
    // Lean: the whole first request, built-in tools and all.
    let bytes = first.body.len();
    eprintln!(
        "first request: {bytes} bytes, system prompt {} bytes",
        system.len()
    );
    if std::env::var("SHOW_PROMPT").is_ok() {
        eprintln!("{system}");
    }
    assert!(bytes <= 24 * 1024, "{bytes} bytes");
    // The prompt is the session's: a --continue sends it again, byte for byte.
    env.run(&["--continue", "-q", "and now?"]).ok();
    let second = env.fake.requests()[1].json();
    assert_eq!(system_of(&second), system);
    let in_file = records(&env.only_session())
        .into_iter()
        .find(|r| r["type"] == "message" && r["message"]["role"] == "system")
        .unwrap();
    assert_eq!(in_file["message"]["content"], system.as_str());
}

#[test]
fn agents_md_from_the_repository_root_down_is_in_the_prompt() {
    let env = TestEnv::new();
    let root = env.cwd.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(
        root.join("AGENTS.md"),
        "Run ./scripts/test before every commit.\n",
    )
    .unwrap();
    let sub = root.join("crates/core");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("CLAUDE.md"), "In core: no unsafe code.\n").unwrap();
    env.fake.push(Reply::text("ok"));
    let out = crate::support::Run::from(
        env.cmd()
            .current_dir(&sub)
            .args(["-q", "hi"])
            .output()
            .unwrap(),
    );
    out.ok();
    let system = system_of(&env.fake.requests()[0].json());
    let a = system
        .find("Run ./scripts/test before every commit.")
        .expect(&system);
    let b = system.find("In core: no unsafe code.").expect(&system);
    assert!(a < b, "outermost first:\n{system}");
    crate::assert_contains!(system, "Project instructions");
}

/// The search-then-batch task with the four servers: `tool_search`, one
/// batch across three servers, the answer. Its three requests together stay
/// under a quarter of the leanest peer's 136 KB for the same task.
#[test]
fn a_search_then_batch_task_stays_under_a_quarter_of_the_leanest_peer() {
    use crate::support::call_id;
    use serde_json::json;
    let env = four_servers();
    let notes = env.cwd.path().join("notes.md");
    std::fs::write(&notes, "the notes").unwrap();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("search"),
        "tool_search",
        &json!({"queries": ["read a text file", "git status", "echo"]}).to_string(),
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("batch"),
        "tool_call",
        &crate::support::calls::batch(&[
            ("mcp__files__read_text_file", json!({"path": notes})),
            ("mcp__git__git_status", json!({"repo_path": env.cwd.path()})),
            ("mcp__everything__echo", json!({"message": "ticket 42"})),
        ]),
    )]));
    env.fake.push(Reply::text(
        "Read the notes, checked git, echoed the ticket.",
    ));
    env.run(&["-q", "read notes.md, check git status and echo ticket 42"])
        .ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 3);
    let bytes: usize = reqs.iter().map(|r| r.body.len()).sum();
    eprintln!(
        "search-then-batch task: {bytes} bytes in 3 requests ({:?})",
        reqs.iter().map(|r| r.body.len()).collect::<Vec<_>>()
    );
    assert!(bytes <= 136 * 1024 / 4, "{bytes} bytes");
}

/// A server's `list_changed` mid-session is told at the start of the next
/// turn, in that turn's message; nothing sent before changes.
#[test]
fn tools_that_appear_mid_session_are_told_in_the_next_turn() {
    use crate::support::call_id;
    use serde_json::json;
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("add"),
        "tool_call",
        &crate::support::calls::batch(&[("mcp__t__add_tool", json!({}))]),
    )]));
    env.fake.push(Reply::text("added one"));
    env.fake.push(Reply::text("noted"));
    env.fake.push(Reply::text("nothing new"));
    let run = env.run_with_stdin(
        &["--interactive"],
        "add a tool\nwhat changed?\nand now?\n/quit\n",
    );
    run.ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 4);
    let last_user = |n: usize| env.last_user_text(n);
    assert!(!last_user(0).contains("[hermes: the MCP tools changed"));
    let told = last_user(2);
    assert!(
        told.starts_with(
            "[hermes: the MCP tools changed since your last turn — new: mcp__t__added."
        ),
        "{told}"
    );
    assert!(told.ends_with("\n\nwhat changed?"), "{told}");
    assert!(
        !last_user(3).contains("tools changed"),
        "told once: {}",
        last_user(3)
    );
    // The system prompt is the one the session began with.
    let system = |n: usize| reqs[n].json()["messages"][0].clone();
    assert_eq!(system(0), system(3));
}
