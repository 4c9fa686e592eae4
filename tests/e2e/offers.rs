//! What servers offer the user, used in the REPL: a server's prompt as
//! `/server:prompt` (its required argument asked for), a resource as an
//! `@server:uri` mention and a local file as `@path` (both completed with
//! Tab), `/init` — against real server-everything, in a real terminal, and
//! a prompt that appears mid-session (`prompts/list_changed`).

use serde_json::Value;

use crate::support::fake_provider::call_id;
use crate::support::tmux::Tmux;
use crate::support::{real_server, records, Reply, TestEnv};

/// The text of features.md as server-everything serves it.
fn features_md() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        ".test-servers/npm/node_modules/@modelcontextprotocol/server-everything/dist/docs/features.md",
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn everything() -> TestEnv {
    let env = TestEnv::new();
    env.add_server(
        "everything",
        &format!("command = {:?}", real_server("mcp-server-everything")),
    );
    env.prefill("everything");
    env
}

#[test]
fn a_servers_prompt_and_resource_used_in_the_repl() {
    let env = everything();
    std::fs::write(env.cwd.path().join("notes.md"), "Ship on Friday.\n").unwrap();
    env.fake.push(Reply::text("Sunny in Paris."));
    env.fake.push(Reply::text("Summarised."));
    env.fake.push(Reply::text("More."));
    let term = Tmux::start(&env, &[]);

    // The prompt, completed with Tab, its required argument asked for.
    term.type_keys("/everything:args");
    term.press("Tab");
    term.wait_for("the completed prompt", |s| {
        s.contains("› /everything:args-prompt")
    });
    term.press("Enter");
    term.wait_for("the question for city", |s| {
        s.contains("city (Name of the city):")
    });
    term.type_line("Paris");
    term.wait_for("the answer", |s| s.contains("Sunny in Paris."));
    assert_eq!(env.last_user_text(0), "What's weather in Paris?");

    // A resource and a file, both completed with Tab.
    term.type_keys("summarise @everything:demo://resource/static/document/feat");
    term.press("Tab");
    // Taking an entry puts a space after it.
    term.type_keys("and @not");
    term.press("Tab");
    // The line may wrap (at 80 columns it does).
    term.wait_for("both completed", |s| {
        s.replace('\n', "")
            .contains("document/features.md and @notes.md")
    });
    term.press("Enter");
    term.wait_for("the second answer", |s| s.contains("Summarised."));
    let screen = term.screen();
    crate::assert_contains!(screen, "attached @notes.md (23 bytes)");
    let sent = env.last_user_text(1);
    let uri = "@everything:demo://resource/static/document/features.md";
    assert_eq!(
        sent,
        format!(
            "summarise {uri} and @notes.md\n\n<attachment name=\"{uri}\">\n{}\n</attachment>\
             \n\n<attachment name=\"@notes.md\">\n     1\tShip on Friday.\n</attachment>",
            features_md().trim_end_matches('\n')
        )
    );
    term.type_line("/quit");
    term.wait_for("hermes to leave", |s| s.contains("resume with"));

    // The session holds what was sent: --continue replays it byte for byte.
    env.run(&["--continue", "-q", "more"]).ok();
    let before: Vec<Value> = env.fake.requests()[1].json()["messages"]
        .as_array()
        .unwrap()
        .clone();
    let after = env.fake.requests()[2].json()["messages"].clone();
    assert_eq!(after.as_array().unwrap()[..before.len()], before[..]);
}

#[test]
fn what_cannot_be_attached_or_asked_says_why_and_sends_nothing() {
    let env = everything();
    std::fs::write(env.cwd.path().join("blob.bin"), [0u8, 159, 146, 150]).unwrap();
    std::fs::write(env.cwd.path().join("AGENTS.md"), "# Agents\n").unwrap();
    env.fake.push(Reply::text("ok"));
    let run = env.run_with_stdin(
        &["--interactive"],
        "look at @blob.bin\n/everything:no-such-prompt\n/everything:args-prompt\n\n\
         @everything:demo://resource/static/document/nope.md\n/init\nmail @alice about it\n",
    );
    run.ok();
    crate::assert_contains!(run.stderr, "error: cannot attach @blob.bin: ");
    crate::assert_contains!(
        run.stderr,
        "blob.bin is a binary file (4 bytes); only text and PNG, JPEG, GIF or WebP images can be attached; the message was not sent"
    );
    crate::assert_contains!(
        run.stderr,
        "server `everything` offers no prompt `no-such-prompt`; it has "
    );
    crate::assert_contains!(run.stderr, "city is required; the prompt was not sent");
    crate::assert_contains!(
        run.stderr,
        "error: cannot attach @everything:demo://resource/static/document/nope.md: server `everything` refused resources/read"
    );
    crate::assert_contains!(run.stderr, "AGENTS.md already exists in this folder");
    crate::assert_contains!(
        run.stderr,
        "@alice is neither a file here nor a server's resource; sent as typed"
    );
    // Only the last line reached the model, as typed.
    assert_eq!(env.fake.requests().len(), 1);
    assert_eq!(env.last_user_text(0), "mail @alice about it");
}

#[test]
fn init_asks_the_model_for_an_agents_md() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("Here it is."));
    env.run_with_stdin(&["--interactive"], "/init\n").ok();
    let asked = env.last_user_text(0);
    assert!(
        asked.starts_with("Draft an AGENTS.md for this repository"),
        "{asked}"
    );
}

/// A prompt a server adds mid-session is offered at once: its
/// `prompts/list_changed` lists it again and rewrites its cached catalog.
#[test]
fn a_prompt_added_mid_session_can_be_used() {
    let env = TestEnv::new();
    env.add_test_server("t", "args = [\"--prompts\"]");
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("a"),
        "mcp__t__add_tool",
        "{}",
    )]));
    env.fake.push(Reply::text("added"));
    env.fake.push(Reply::text("Reviewed."));
    let run = env.run_with_stdin(&["--interactive"], "add a prompt\n/t:review 42\n");
    run.ok();
    assert_eq!(
        env.last_user_text(2),
        "Review change 42: read its diff, then list what must change.",
        "{}\n{}",
        run.stderr,
        env.server_log("t")
    );
    crate::assert_contains!(env.server_log("t"), "recv prompts/list");
    // The session records the prompt's text as the user's message.
    let session = records(&env.only_session());
    assert!(session.iter().any(|r| r["message"]["role"] == "user"
        && r["message"]["content"]
            == "Review change 42: read its diff, then list what must change."));
}
