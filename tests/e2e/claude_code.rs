//! A Claude Code setup working unchanged (issue 34): hooks in
//! `.claude/settings.json` and `~/.claude/settings.json`, written as Claude
//! Code's users write them — its matchers (`Edit|Write`, `Read`, `Bash`, a
//! regex over `mcp__…`), scripts that find themselves through
//! `$CLAUDE_PROJECT_DIR`, test `tool_name` and read `tool_input.file_path`
//! and `.command`, and answer in each of its forms. The fixtures are ours,
//! written from Claude Code's documented interface.

use std::path::Path;

use serde_json::json;

use crate::support::calls::{builtins_env, contents, reply_calls};
use crate::support::users;
use crate::support::{Reply, TestEnv};

/// `.claude/settings.json` as a project commits it: a guard for protected
/// files (exit 2, stderr), a secrets guard in Python (the JSON
/// `permissionDecision` form), a log of every shell command, and a
/// formatter after each edit. Claude Code's own `permissions` sit beside
/// them, as they do in real files (and become approval rules).
const SETTINGS: &str = r#"{
  "permissions": {
    "allow": ["Bash(npm run lint)", "Read(./src/**)"],
    "deny": ["Read(./.env)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          { "type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/protect-files.sh" }
        ]
      },
      {
        "matcher": "Read",
        "hooks": [
          { "type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR/.claude/hooks/no_secrets.py\"", "timeout": 10 }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"tool_input\"][\"command\"])' >> \"$CLAUDE_PROJECT_DIR\"/.claude/commands.log" }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [
          { "type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/format.sh", "timeout": 30 }
        ]
      }
    ]
  }
}
"#;

const PROTECT: &str = r#"#!/bin/bash
# Refuses edits to env files and to .git, as the docs' example does.
input=$(cat)
file_path=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("tool_input", {}).get("file_path", ""))')
case "$file_path" in
  *.env|*/.env.*|*/.git/*)
    echo "Blocked: $file_path is a protected file" >&2
    exit 2
    ;;
esac
exit 0
"#;

const NO_SECRETS: &str = r#"import json
import sys

data = json.load(sys.stdin)
if data.get("tool_name") != "Read":
    sys.exit(0)
path = data.get("tool_input", {}).get("file_path", "")
if "secret" in path:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{path} holds credentials; ask the user for what you need",
        }
    }))
sys.exit(0)
"#;

const FORMAT: &str = r#"#!/bin/bash
# A formatter after every write: trailing blanks go, and the model is told.
file_path=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["tool_input"]["file_path"] if d["tool_response"]["success"] else "")')
[ -n "$file_path" ] || exit 0
sed -i 's/[[:space:]]*$//' "$file_path"
echo "{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"formatted $(basename "$file_path")\"}}"
"#;

/// The project: a repository with its `.claude` folder.
fn project(cwd: &Path) {
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    std::fs::create_dir_all(cwd.join(".claude/hooks")).unwrap();
    std::fs::write(cwd.join(".claude/settings.json"), SETTINGS).unwrap();
    for (name, body, exec) in [
        ("protect-files.sh", PROTECT, true),
        ("no_secrets.py", NO_SECRETS, false),
        ("format.sh", FORMAT, true),
    ] {
        let p = cwd.join(".claude/hooks").join(name);
        std::fs::write(&p, body).unwrap();
        if exec {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    std::fs::create_dir_all(cwd.join("config")).unwrap();
    std::fs::write(
        cwd.join("config/secrets.json"),
        "{\"token\": \"s3cr3t-value\"}",
    )
    .unwrap();
}

/// The model writes `.env`, reads the secrets file, writes a source file
/// with trailing blanks and runs a command.
fn script(env: &TestEnv) {
    env.fake.push(reply_calls(&[
        (
            "env",
            "write_file",
            json!({"path": ".env", "content": "API_KEY=x\n"}),
        ),
        (
            "secret",
            "read_file",
            json!({"path": "config/secrets.json"}),
        ),
        (
            "src",
            "write_file",
            json!({"path": "src/app.py", "content": "x = 1   \nprint(x)  \n"}),
        ),
        ("sh", "shell", json!({"command": "echo hello"})),
    ]));
    env.fake.push(Reply::text("done"));
}

#[test]
fn a_projects_claude_code_hooks_guard_and_format_once_trusted() {
    for user in users::each() {
        guards_and_formats(user);
    }
}

fn guards_and_formats(user: users::User) {
    let env = builtins_env(user, "mode = \"auto\"");
    let cwd = env.cwd.path();
    project(cwd);
    // Untrusted, the hooks are held back, and the warning says from where.
    let held = env.run(&[
        "hooks",
        "test",
        ".claude/settings.json#PreToolUse[0].hooks[0]",
        "--tool",
        "write_file",
    ]);
    assert!(
        held.stderr
            .contains(".claude/settings.json sets `approvals`, `hooks` — not applied")
            && held.stderr.contains("hermes trust"),
        "{}",
        held.stderr
    );
    let trusted = env.run(&["trust"]);
    trusted.ok();
    assert!(
        trusted.stderr.contains(".claude/settings.json"),
        "{}",
        trusted.stderr
    );
    assert!(
        trusted.stderr.contains("protect-files.sh"),
        "the scripts are named: {}",
        trusted.stderr
    );

    script(&env);
    env.run(&["-q", "go"]).ok();
    let results = contents(&env.tool_results(1));
    assert!(
        results[0].contains("Blocked:") && results[0].contains("/.env is a protected file"),
        "the exit-2 guard's stderr reaches the model: {results:?}"
    );
    assert!(!cwd.join(".env").exists(), ".env was written");
    assert!(
        results[1].contains("config/secrets.json holds credentials"),
        "the JSON deny and its reason: {results:?}"
    );
    assert!(
        !results[1].contains("s3cr3t-value"),
        "the secret was read: {results:?}"
    );
    assert_eq!(
        std::fs::read_to_string(cwd.join("src/app.py")).unwrap(),
        "x = 1\nprint(x)\n",
        "the PostToolUse formatter ran on the written file"
    );
    assert!(
        results[2].contains("[hook] formatted app.py"),
        "additionalContext reaches the model: {results:?}"
    );
    assert!(results[3].contains("hello"), "{results:?}");
    assert_eq!(
        std::fs::read_to_string(cwd.join(".claude/commands.log")).unwrap(),
        "echo hello\n",
        "the Bash hook read tool_input.command"
    );
    // A settings file that appears later in the trusted folder (a pull, a
    // command) holds every project hook again until trusted anew.
    std::fs::write(
        cwd.join(".claude/settings.local.json"),
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    let again = env.run(&["hooks", "test", "none", "--tool", "shell"]);
    assert!(
        again
            .stderr
            .contains("it changed since this folder was trusted"),
        "{}",
        again.stderr
    );
}

/// `hermes hooks test` honours the matcher and says why.
#[test]
fn hooks_test_says_which_hooks_run_for_a_tool_and_why() {
    let env = builtins_env(users::User::current(), "mode = \"auto\"");
    project(env.cwd.path());
    env.run(&["trust"]).ok();
    let name = ".claude/settings.json#PreToolUse[0].hooks[0]";
    let skipped = env.run(&[
        "hooks",
        "test",
        name,
        "--tool",
        "read_file",
        "--args",
        "{\"path\": \"a\"}",
    ]);
    skipped.ok();
    assert!(
        skipped.stdout.contains("not run: its matcher \"Edit|Write\" (exact names) does not name `read_file` (`Read` to Claude Code's hooks)"),
        "{}",
        skipped.stdout
    );
    let blocked = env.run(&[
        "hooks",
        "test",
        name,
        "--tool",
        "write_file",
        "--args",
        "{\"path\": \".env\", \"content\": \"\"}",
    ]);
    assert!(
        blocked
            .stdout
            .starts_with("deny: blocked by the pre_tool_call hook: Blocked:"),
        "{}",
        blocked.stdout
    );
    assert!(
        blocked.stderr.contains("runs: its matcher \"Edit|Write\""),
        "{}",
        blocked.stderr
    ); // Without a name: every tool hook, whether it runs and why, and what
       // the pre hooks decide together.
    let all = env.run(&[
        "hooks",
        "test",
        "--tool",
        "read_file",
        "--args",
        "{\"path\": \"config/secrets.json\"}",
    ]);
    all.ok();
    crate::assert_contains!(
        all.stdout,
        "pre_tool_call .claude/settings.json#PreToolUse[0].hooks[0]: not run — its matcher \"Edit|Write\" (exact names) does not name `read_file` (`Read` to Claude Code's hooks)"
    );
    crate::assert_contains!(
        all.stdout,
        "pre_tool_call .claude/settings.json#PreToolUse[1].hooks[0]: runs — its matcher \"Read\" (exact names) names `read_file`"
    );
    crate::assert_contains!(all.stdout, "the pre hooks together: deny: ");
    crate::assert_contains!(all.stdout, "config/secrets.json holds credentials");
}

/// The user's own `~/.claude/settings.json` applies without trust: a
/// regex matcher over an MCP server's tools, the older `decision` form,
/// and `continue: false`, which ends the turn.
#[test]
fn the_users_claude_code_hooks_match_mcp_tools_by_regex() {
    let env = TestEnv::deferred(&[("t", "")]);
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let hook = dir.join("mcp-guard.py");
    std::fs::write(
        &hook,
        r#"import json, sys
d = json.load(sys.stdin)
text = d["tool_input"].get("text", "")
if text == "blocked":
    print(json.dumps({"decision": "block", "reason": "no blocked text on " + d["tool_name"]}))
elif text == "halt":
    print(json.dumps({"continue": False, "stopReason": "the user's policy ends here"}))
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("settings.json"),
        format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "mcp__t__.*", "hooks": [{{"type": "command", "command": "python3 {}"}}]}}],
  "SessionEnd": [{{"hooks": [{{"type": "command", "command": "cat > {}"}}]}}]}}}}"#,
            hook.display(),
            dir.join("ended.json").display()
        ),
    )
    .unwrap();
    env.fake.push(reply_calls(&[
        ("a", "mcp__t__echo", json!({"text": "blocked"})),
        ("b", "mcp__t__echo", json!({"text": "fine"})),
    ]));
    env.fake.push(reply_calls(&[(
        "c",
        "mcp__t__echo",
        json!({"text": "halt"}),
    )]));
    env.fake.push(Reply::text("should not be asked for"));
    let run = env.run(&["-q", "go"]);
    let first = contents(&env.tool_results(1));
    assert_eq!(
        first[0], "Error: no blocked text on mcp__t__echo",
        "{first:?}"
    );
    assert!(first[1].contains("fine"), "{first:?}");
    assert!(
        run.stderr
            .contains("a hook ended the turn: the user's policy ends here"),
        "{}",
        run.stderr
    );
    assert_eq!(
        env.fake.requests().len(),
        2,
        "the turn ended at the hook's stop"
    );
    // SessionEnd hears the run end, even one a hook stopped.
    let ended = std::fs::read_to_string(dir.join("ended.json")).unwrap();
    crate::assert_contains!(ended, r#""reason":"other""#);
}

/// A settings file a person got wrong is one line naming file, line and
/// key — a warning: the hook is skipped and hermes runs (the file is
/// Claude Code's; issue 54).
#[test]
fn a_broken_claude_settings_file_names_file_line_and_key() {
    let env = builtins_env(users::User::current(), "mode = \"auto\"");
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash(\", \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}\n    ]\n  }\n}\n",
    )
    .unwrap();
    env.fake.push(Reply::text("hello"));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    assert!(
        run.stderr.contains("`Bash(` is not a regular expression")
            && run.stderr.contains("the hook is skipped"),
        "{}",
        run.stderr
    );
    std::fs::write(dir.join("settings.json"), "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\"}]}\n    ]\n  }\n}\n").unwrap();
    env.fake.push(Reply::text("hello"));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    assert!(
        run.stderr
            .contains("settings.json:3: hooks.PreToolUse[0].hooks[0].command"),
        "{}",
        run.stderr
    );
}

/// The turn's own moments, from `~/.claude/settings.json` as its users
/// write them: SessionStart and UserPromptSubmit add context (plain stdout,
/// as Claude Code takes it), UserPromptSubmit blocks a prompt with a
/// password, Stop sends the model on once (it checks `stop_hook_active`).
/// What they added is in the session: `--continue` replays it byte for
/// byte.
#[test]
fn session_prompt_and_stop_hooks_act_as_in_claude_code() {
    let env = TestEnv::new();
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(dir.join("hooks")).unwrap();
    let prompt_guard = dir.join("hooks/prompt_guard.py");
    std::fs::write(
        &prompt_guard,
        r#"import json, sys
d = json.load(sys.stdin)
if "password" in d["prompt"].lower():
    print(json.dumps({"decision": "block", "reason": "prompts must not hold passwords"}))
else:
    print("Current branch: main")
"#,
    )
    .unwrap();
    let stop_guard = dir.join("hooks/stop_guard.py");
    std::fs::write(
        &stop_guard,
        r#"import json, sys
d = json.load(sys.stdin)
if not d.get("stop_hook_active"):
    print(json.dumps({"decision": "block", "reason": "run the tests before you finish"}))
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("settings.json"),
        format!(
            r#"{{
  "hooks": {{
    "SessionStart": [{{"matcher": "startup", "hooks": [{{"type": "command", "command": "echo 'Project conventions: tabs, not spaces'"}}]}}],
    "UserPromptSubmit": [{{"hooks": [{{"type": "command", "command": "python3 {}"}}]}}],
    "Stop": [{{"hooks": [{{"type": "command", "command": "python3 {}"}}]}}]
  }}
}}"#,
            prompt_guard.display(),
            stop_guard.display()
        ),
    )
    .unwrap();
    env.fake.push(Reply::text("fixed"));
    env.fake.push(Reply::text("tests pass; fixed"));
    let run = env.run(&["-q", "fix the bug"]);
    run.ok();
    crate::assert_contains!(run.stdout, "tests pass; fixed");
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 2, "the Stop hook sent the model on once");
    let first = reqs[0].body_str().to_string();
    crate::assert_contains!(first, "fix the bug");
    crate::assert_contains!(first, "[hook] Project conventions: tabs, not spaces");
    crate::assert_contains!(first, "[hook] Current branch: main");
    crate::assert_contains!(reqs[1].body_str(), "[hook] run the tests before you finish");

    // Resumed: SessionStart's matcher is `startup`, so it adds nothing;
    // the Stop hook sends the model on once a turn.
    env.fake.push(Reply::text("and now"));
    env.fake.push(Reply::text("and now, tested"));
    env.run(&["--continue", "-q", "next"]).ok();
    crate::support::wire::assert_each_request_extends_the_previous(&env);
    let last = env.fake.requests()[3].body_str().to_string();
    assert_eq!(last.matches("Project conventions").count(), 1, "{last}");

    // Blocked: not sent, not recorded, and said.
    let before = env.fake.requests().len();
    let blocked = env.run(&["--continue", "-q", "my password is hunter2"]);
    assert_ne!(blocked.code, 0);
    crate::assert_contains!(
        blocked.stderr,
        "the prompt was not sent: prompts must not hold passwords"
    );
    assert_eq!(
        env.fake.requests().len(),
        before,
        "a blocked prompt reached the provider"
    );
}

/// A repository set up for Claude Code — `.mcp.json`, hooks in
/// `.claude/settings.json`, `.claude/commands/review.md`, a skill in
/// `.claude/skills/` — trusted once, works in hermes' REPL: `/review` is
/// listed on Tab with where it comes from, runs its `!` command through the
/// shell and sends its prompt; the hook blocks the `.env` write; the
/// server is called; the skill is in the system prompt and `/NAME` loads it.
#[test]
fn a_claude_code_repository_works_in_the_repl_once_trusted() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\ndefer = \"always\"\nbuiltin = {}\n\n[approvals]\nmode = \"auto\"\n",
        crate::support::calls::ALL_BUILTINS
    ));
    let cwd = env.cwd.path();
    crate::support::git_init(cwd);
    std::fs::write(cwd.join("app.py"), "print('hi')\n").unwrap();
    std::fs::write(
        cwd.join(".mcp.json"),
        format!(
            "{{\"mcpServers\": {{\"t\": {{\"command\": {:?}}}}}}}\n",
            crate::support::test_server()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(cwd.join(".claude/commands")).unwrap();
    std::fs::create_dir_all(cwd.join(".claude/skills/release-notes")).unwrap();
    std::fs::write(
        cwd.join(".claude/settings.json"),
        r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Write",
        "hooks": [
          {
            "type": "command",
            "command": "python3 -c 'import json,sys; p=json.load(sys.stdin)[\"tool_input\"][\"file_path\"]; sys.exit(2 if p.endswith(\".env\") and not print(\"env files are off limits\", file=sys.stderr) else 0)'"
          }
        ]
      }
    ]
  }
}
"#,
    )
    .unwrap();
    std::fs::write(
        cwd.join(".claude/commands/review.md"),
        "---\ndescription: Review the working tree's changes\nargument-hint: [focus]\n---\n\
         Review these changes, focusing on $ARGUMENTS:\n\n!`git status --short`\n",
    )
    .unwrap();
    std::fs::write(
        cwd.join(".claude/skills/release-notes/SKILL.md"),
        "---\nname: release-notes\ndescription: Turn a list of changes into release notes. Use when \
         the user asks for release notes.\n---\n\n1. Group the changes under Features and Fixes.\n",
    )
    .unwrap();
    env.run(&["trust"]).ok();
    env.run(&["mcp", "test", "t"]).ok();

    env.fake.push(Reply::tool_calls(&[(
        &crate::support::call_id("review"),
        "tool_call",
        &crate::support::calls::batch(&[
            ("write_file", json!({"path": ".env", "content": "K=1\n"})),
            ("mcp__t__echo", json!({"text": "from the repo's server"})),
        ]),
    )]));
    env.fake.push(Reply::text("reviewed"));
    env.fake.push(Reply::text("notes written"));
    let term = crate::support::tmux::Tmux::start(&env, &[]);
    term.type_keys("/re");
    term.wait_for("the command in the menu as it is typed", |s| {
        s.contains("Review the working tree's changes (project .claude/commands)")
    });
    term.press("C-u");
    term.type_line("/review security");
    term.wait_for("the answer", |s| s.contains("reviewed"));
    term.type_line("/release-notes for v2");
    term.wait_for("the second answer", |s| s.contains("notes written"));
    term.type_line("/quit");

    let reqs = env.fake.requests();
    let first = reqs[0].json();
    let system = first["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    crate::assert_contains!(
        system,
        "- release-notes: Turn a list of changes into release notes."
    );
    crate::assert_contains!(system, ".claude/skills/release-notes/SKILL.md");
    let prompt = first["messages"][1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    crate::assert_contains!(prompt, "Review these changes, focusing on security:");
    crate::assert_contains!(prompt, "?? app.py");
    let results = contents(&env.tool_results(1));
    crate::assert_contains!(results.join("\n"), "env files are off limits");
    crate::assert_contains!(results.join("\n"), "from the repo's server");
    assert!(
        !cwd.join(".env").exists(),
        "the hook did not block the write"
    );
    let last = reqs.last().unwrap().body_str().to_string();
    crate::assert_contains!(last, "Use the skill `release-notes`");
    crate::assert_contains!(last, "Group the changes under Features and Fixes.");
    crate::assert_contains!(last, "for v2");
}

/// A project with more skills than the 4 KB catalog describes (47, as in a
/// real collection): every one is still named in the system prompt, under
/// its folder, and the model reads one from past the described part by its
/// `NAME/SKILL.md` there.
#[test]
fn skills_past_the_budget_are_named_and_read() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"read_file\"]\n");
    let cwd = env.cwd.path();
    let names: Vec<String> = (0..47).map(|i| format!("team-skill-{i:02}")).collect();
    for n in &names {
        let dir = cwd.join(".claude/skills").join(n);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: {n}\ndescription: How our team handles the {n} part of a release, \
                 step by step, with the checks the reviewers expect before anything ships.\n---\n\n\
                 1. The secret word of {n} is heron.\n"
            ),
        )
        .unwrap();
    }
    let last = names.last().unwrap();
    let path = cwd.join(".claude/skills").join(last).join("SKILL.md");
    env.fake.push(Reply::tool_calls(&[(
        &crate::support::call_id("read"),
        "read_file",
        &json!({"path": path}).to_string(),
    )]));
    env.fake.push(Reply::text("heron"));
    env.run(&["-q", "what is the secret word of the last skill?"])
        .ok();
    let reqs = env.fake.requests();
    let system = reqs[0].json()["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(system.len() < 12_000, "{}", system.len());
    for n in &names {
        crate::assert_contains!(system, n);
    }
    crate::assert_contains!(system, "(read NAME/SKILL.md)");
    crate::assert_not_contains!(system, "not listed");
    let read = contents(&env.tool_results(1)).join("\n");
    crate::assert_contains!(read, &format!("The secret word of {last} is heron."));
}
