//! Real setups, round two (issue 54): files written as the users of
//! Claude Code 2.1, VS Code, Cursor and Codex write them. A Claude Code
//! file with events or hook types hermes has no use for never stops
//! hermes — what it cannot run is named once, the rest works; VS Code's
//! JSONC and its variables; agent types in subfolders; `Agent` as the
//! subagent tool's matcher; Codex's named placeholders and `/prompts:NAME`.

use serde_json::json;

use crate::support::calls::{builtins_env, contents, reply_calls};
use crate::support::users;
use crate::support::{Reply, TestEnv};

/// `~/.claude/settings.json` as a Claude Code 2.1 user has it: a guard
/// that works in hermes, beside events and hook types hermes has no moment
/// or runner for.
const SETTINGS_2_1: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": { "defaultMode": "acceptEdits" },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0" }
        ]
      }
    ],
    "PermissionRequest": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/.claude/hooks/auto-approve.sh" }] }
    ],
    "PostToolUseFailure": [
      { "hooks": [{ "type": "command", "command": "~/.claude/hooks/log-failure.sh" }] }
    ],
    "Setup": [
      { "hooks": [{ "type": "command", "command": "npm ci" }] }
    ],
    "Stop": [
      {
        "hooks": [
          { "type": "prompt", "prompt": "Did the assistant finish every task the user asked for? $ARGUMENTS" },
          { "type": "agent", "prompt": "Verify the tests pass", "timeout": 120 }
        ]
      }
    ]
  }
}
"#;

#[test]
fn a_claude_code_2_1_settings_file_never_stops_hermes_and_its_guard_still_blocks() {
    let env = builtins_env(users::User::current(), "mode = \"auto\"");
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("settings.json"), SETTINGS_2_1).unwrap();
    env.fake.push(reply_calls(&[
        ("a", "shell", json!({"command": "rm -rf build"})),
        ("b", "shell", json!({"command": "echo fine"})),
    ]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["-q", "clean up"]);
    run.ok();
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "no rm -rf here");
    crate::assert_contains!(r[1], "fine");
    // PermissionRequest and PostToolUseFailure are hermes' too now
    // (below); Setup has no moment in hermes.
    let named = "hooks.Setup: hermes has no moment for Claude Code's Setup event";
    assert_eq!(run.stderr.matches(named).count(), 1, "{}", run.stderr);
    assert!(
        !run.stderr.contains("PermissionRequest event"),
        "{}",
        run.stderr
    );
    crate::assert_contains!(
        run.stderr,
        "hooks.Stop[0].hooks[0]: a `prompt` hook; hermes runs command hooks only, so it is skipped"
    );
    crate::assert_contains!(run.stderr, "hooks.Stop[0].hooks[1]: a `agent` hook");
    // Every other command works too, in any folder.
    env.run(&["config", "path"]).ok();
    env.run(&["mcp", "list"]).ok();
}

/// A settings file that is not JSON at all: its hooks are not read, a
/// warning names file, line and column, and hermes runs.
#[test]
fn a_settings_file_that_is_not_json_is_a_warning_not_an_exit() {
    let env = builtins_env(users::User::current(), "mode = \"auto\"");
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        "{\n  \"hooks\": {\n    \"PreToolUse\": [\n  }\n}\n",
    )
    .unwrap();
    env.fake.push(Reply::text("hello"));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    crate::assert_contains!(run.stdout, "hello");
    crate::assert_contains!(run.stderr, "settings.json:4: (JSON):");
    crate::assert_contains!(run.stderr, "column");
    crate::assert_contains!(run.stderr, "Claude Code's hooks in it were not read");
}

/// A project's `.vscode/mcp.json` as VS Code writes it — a comment, a
/// trailing comma, `${workspaceFolder}` and `${env:…}` — is read; a
/// `.cursor/mcp.json` without a server object, and a broken one, are
/// warnings and hermes runs.
#[test]
fn vs_codes_jsonc_and_its_variables_are_read_and_a_broken_editor_file_is_a_warning() {
    let env = TestEnv::new();
    let cwd = env.cwd.path();
    std::fs::create_dir_all(cwd.join(".vscode")).unwrap();
    std::fs::create_dir_all(cwd.join(".cursor")).unwrap();
    std::fs::write(
        cwd.join(".vscode/mcp.json"),
        r#"{
  // Servers for this workspace
  "servers": {
    "docs": {
      "type": "stdio",
      "command": "node",
      "args": ["${workspaceFolder}/tools/docs-server.js", "--root", "${workspaceFolder}",],
      "env": { "DOCS_DIR": "${env:DOCS_DIR}" }, /* set in your shell */
    },
  },
}
"#,
    )
    .unwrap();
    std::fs::write(cwd.join(".cursor/mcp.json"), "{\n  \"inputs\": []\n}\n").unwrap();
    let trusted = env.run(&["trust"]);
    trusted.ok();
    let root = std::fs::canonicalize(cwd).unwrap();
    crate::assert_contains!(
        trusted.stderr,
        format!("\"{}/tools/docs-server.js\"", root.display())
    );
    crate::assert_contains!(trusted.stderr, "DOCS_DIR = \"${DOCS_DIR}\"");
    let listed = env.run(&["mcp", "list"]);
    listed.ok();
    crate::assert_contains!(listed.stdout, "docs");
    env.fake.push(Reply::text("ok"));
    let ran = env.run(&["-q", "hi"]);
    ran.ok();
    crate::assert_contains!(
        ran.stderr,
        ".cursor/mcp.json:1: mcpServers: no `mcpServers` (or `servers`) object: nothing to read; its servers were not read"
    );
    // Really broken (a missing colon on line 3): named with line and
    // column, that file only.
    std::fs::write(
        cwd.join(".vscode/mcp.json"),
        "{\n  // comment\n  \"servers\" {}\n}\n",
    )
    .unwrap();
    env.run(&["trust"]).ok();
    env.fake.push(Reply::text("ok"));
    let ran = env.run(&["-q", "hi"]);
    ran.ok();
    crate::assert_contains!(ran.stderr, ".vscode/mcp.json:3: mcpServers:");
    crate::assert_contains!(ran.stderr, "line 3 column");
}

/// Agent types in subfolders of `.claude/agents` are read, as Claude Code
/// reads them; a hook whose matcher is `Agent` (Claude Code 2.1's name for
/// its subagent tool) runs for hermes' `agent` tool.
#[test]
fn agent_types_in_subfolders_are_read_and_agent_matches_the_agent_tool() {
    let env = TestEnv::new();
    env.write_config(
        "[tools]\nbuiltin = [\"read_file\", \"agent\"]\n[approvals]\nmode = \"auto\"\n",
    );
    let cwd = env.cwd.path();
    for (path, name) in [
        (".claude/agents/code-reviewer.md", "code-reviewer"),
        (
            ".claude/agents/security/secrets-auditor.md",
            "secrets-auditor",
        ),
        (
            ".claude/agents/frontend/react/a11y-checker.md",
            "a11y-checker",
        ),
    ] {
        let file = cwd.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            format!("---\nname: {name}\ndescription: Reviews for {name}\ntools: Read, Grep\n---\nYou review code.\n"),
        )
        .unwrap();
    }
    std::fs::write(
        cwd.join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Agent", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    env.run(&["trust"]).ok();
    let run = env.run_with_stdin(&["--interactive"], "/agents\n/quit\n");
    run.ok();
    for name in ["code-reviewer", "secrets-auditor", "a11y-checker"] {
        crate::assert_contains!(run.stderr, name);
    }
    let tested = env.run(&[
        "hooks",
        "test",
        ".claude/settings.json#PreToolUse[0].hooks[0]",
        "--tool",
        "agent",
        "--args",
        r#"{"type": "code-reviewer", "prompt": "look"}"#,
    ]);
    tested.ok();
    crate::assert_contains!(tested.stderr, "runs: its matcher \"Agent\"");
}

/// A Codex prompt in `~/.codex/prompts/` with named placeholders, used as
/// Codex's users type it: `/prompts:draftpr FILES=… "TITLE=…"`.
#[test]
fn codex_prompts_take_named_placeholders_and_their_own_spelling() {
    let env = TestEnv::new();
    let prompts = env.home.path().join(".codex/prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(
        prompts.join("draftpr.md"),
        "---\ndescription: Prep a branch, commit, and open a draft PR\nargument-hint: FILES=<paths> TITLE=\"<title>\"\n---\nCreate a branch for $TITLE, stage $FILES, commit, and open a draft PR.\n",
    )
    .unwrap();
    env.fake.push(Reply::text("drafted"));
    let run = env.run_with_stdin(
        &["--interactive"],
        "/prompts:draftpr FILES=src/parser.rs \"TITLE=Fix the parser\"\n/quit\n",
    );
    run.ok();
    let sent = env.last_user_text(0);
    assert_eq!(
        sent,
        "Create a branch for Fix the parser, stage src/parser.rs, commit, and open a draft PR."
    );
}

/// A PermissionRequest hook as Claude Code users write one: it answers for
/// the person where it knows (`allow`, `deny` with a message) and says
/// nothing otherwise.
const PERMISSIONS_PY: &str = r#"import json, sys

data = json.load(sys.stdin)
command = data.get("tool_input", {}).get("command", "")

def decide(behavior, message=None):
    decision = {"behavior": behavior}
    if message:
        decision["message"] = message
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}))

if command.startswith("git push"):
    decide("deny", "pushes wait for review")
elif command.split()[0] in ("echo", "ls"):
    decide("allow")
"#;

/// PostToolUseFailure: logs the failure and tells the model.
const LOG_FAILURE_PY: &str = r#"import json, os, sys

data = json.load(sys.stdin)
with open(os.path.expanduser("~/.claude/failures.jsonl"), "a") as log:
    log.write(json.dumps(data) + "\n")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure",
                  "additionalContext": "the failure was logged; do not retry " + data["tool_name"]}}))
"#;

/// Claude Code's PermissionRequest, PostToolUseFailure and SessionEnd run
/// at hermes' moments: the PermissionRequest hook answers for the person
/// (an allowed command runs without a question, a denied one is refused
/// with the hook's message, one it says nothing of is asked); a failed
/// call reaches PostToolUseFailure, not PostToolUse; SessionEnd hears the
/// run end.
#[test]
fn permission_request_failure_and_session_end_hooks_run_at_their_moments() {
    use std::io::{BufRead, Write};
    let env = builtins_env(users::User::current(), "mode = \"ask\"");
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(dir.join("hooks")).unwrap();
    std::fs::write(dir.join("hooks/permissions.py"), PERMISSIONS_PY).unwrap();
    std::fs::write(dir.join("hooks/log-failure.py"), LOG_FAILURE_PY).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        r#"{
  "hooks": {
    "PermissionRequest": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "python3 ~/.claude/hooks/permissions.py" }] }
    ],
    "PostToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "cat >> ~/.claude/succeeded.jsonl" }] }
    ],
    "PostToolUseFailure": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "python3 ~/.claude/hooks/log-failure.py", "timeout": 30 }] }
    ],
    "SessionEnd": [
      { "hooks": [{ "type": "command", "command": "cat > ~/.claude/session-end.json" }] }
    ]
  }
}
"#,
    )
    .unwrap();
    env.fake.push(reply_calls(&[
        ("a", "shell", json!({"command": "echo from-the-hook"})),
        ("b", "shell", json!({"command": "git push origin main"})),
        ("c", "shell", json!({"command": "ls /no/such/folder"})),
        ("d", "shell", json!({"command": "printf asked"})),
    ]));
    env.fake.push(Reply::text("done"));
    let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "go"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut asked = Vec::new();
    for line in stdout.lines() {
        let ev: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if ev["type"] == "approval_asked" {
            asked.push(ev["arguments"]["command"].as_str().unwrap().to_string());
            writeln!(stdin, r#"{{"id":{},"answer":"once"}}"#, ev["id"]).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Only the command the hook said nothing of was put to the person.
    assert_eq!(asked, ["printf asked"], "{stderr}");
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "from-the-hook");
    crate::assert_contains!(r[1], "pushes wait for review");
    crate::assert_contains!(r[2], "[hook] the failure was logged; do not retry Bash");
    crate::assert_contains!(r[3], "asked");
    // The failure went to PostToolUseFailure with its error; the two
    // commands that ran went to PostToolUse, and only they.
    let failures = std::fs::read_to_string(dir.join("failures.jsonl")).unwrap();
    let failure: serde_json::Value = serde_json::from_str(failures.trim()).unwrap();
    assert_eq!(failure["hook_event_name"], "PostToolUseFailure");
    assert_eq!(failure["tool_input"]["command"], "ls /no/such/folder");
    crate::assert_contains!(failure["error"].as_str().unwrap(), "No such file");
    assert_eq!(failure["is_interrupt"], false);
    let succeeded: Vec<String> = std::fs::read_to_string(dir.join("succeeded.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["hook_event_name"], "PostToolUse");
            v["tool_input"]["command"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(succeeded, ["echo from-the-hook", "printf asked"]);
    let ended: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("session-end.json")).unwrap())
            .unwrap();
    assert_eq!(ended["hook_event_name"], "SessionEnd");
    assert_eq!(ended["reason"], "other");
    assert_eq!(
        ended["transcript_path"],
        env.only_session().display().to_string()
    );
}

/// `hermes hooks test` finds a hook the way a real turn does: a matcher
/// written with the server's own name (`get-tiny-image`, as Claude Code
/// users write it) runs for the tool hermes exposes as `get_tiny_image`,
/// named either way.
#[test]
fn hooks_test_resolves_a_servers_own_tool_name_as_a_turn_does() {
    let env = TestEnv::new();
    env.add_server(
        "everything",
        &format!(
            "command = {:?}\nargs = [\"stdio\"]",
            crate::support::real_server("mcp-server-everything")
        ),
    );
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "mcp__everything__get-tiny-image",
  "hooks": [{"type": "command", "command": "echo 'no images today' >&2; exit 2"}]}]}}"#,
    )
    .unwrap();
    let name = "~/.claude/settings.json#PreToolUse[0].hooks[0]";
    for tool in [
        "mcp__everything__get_tiny_image",
        "mcp__everything__get-tiny-image",
    ] {
        let run = env.run(&["hooks", "test", name, "--tool", tool]);
        crate::assert_contains!(
            run.stdout,
            "deny: blocked by the pre_tool_call hook: no images today"
        );
        let all = env.run(&["hooks", "test", "--tool", tool]);
        crate::assert_contains!(all.stdout, "runs — its matcher");
    }
    // A tool of the same server the matcher does not name is not run.
    let run = env.run(&["hooks", "test", name, "--tool", "mcp__everything__echo"]);
    crate::assert_contains!(run.stdout, "not run: its");
}

/// A custom command in a one-shot run (issue 70): `hermes -q "/review
/// src/lib.rs"` is expanded as the REPL expands it — its arguments, its
/// `` !`cmd` `` run down the tool path — and its `model: haiku`, Claude
/// Code's alias, runs on the session's model with a word saying so.
#[test]
fn a_custom_command_is_expanded_in_a_one_shot_run_and_an_alias_runs_on_the_sessions_model() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"shell\"]\n[approvals]\nmode = \"auto\"\n");
    let dir = env.cwd.path().join(".claude/commands");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("review.md"),
        "---\ndescription: Review a file for bugs\nargument-hint: <file>\nmodel: haiku\n---\n\
         Review $ARGUMENTS for bugs.\n\nThe branch: !`echo feature-42`\n",
    )
    .unwrap();
    env.fake.push(Reply::text("Looks fine."));
    let run = env.run(&["-q", "/review src/lib.rs"]);
    run.ok();
    let sent = env.fake.requests()[0].json();
    let user = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    crate::assert_contains!(user, "Review src/lib.rs for bugs.");
    crate::assert_contains!(user, "The branch: feature-42");
    assert_ne!(sent["model"], "haiku");
    crate::assert_contains!(run.stderr, "/review asks for `haiku`, Claude Code's alias");
    // A prompt that only starts with a slash is sent as it is.
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "/etc/hosts has a typo"]).ok();
    let again = env.fake.requests()[1].json();
    let last = again["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    crate::assert_contains!(last["content"].as_str().unwrap(), "/etc/hosts has a typo");
}
