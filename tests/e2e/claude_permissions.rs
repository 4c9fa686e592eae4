//! Claude Code's `permissions` (issue 70): a trusted project's
//! `.claude/settings.json`, written as its users write them (ours, not
//! copied), whose `deny` stops `git reset --hard` under `--yolo` and
//! whose other rules mean what they mean in Claude Code.

use serde_json::json;

use crate::support::calls::{builtins_env, reply_calls};
use crate::support::users;
use crate::support::Reply;

/// A team's settings: lint and status allowed, history rewrites, secrets
/// and force pushes denied, commits asked; one tool hermes lacks.
const SETTINGS: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm run lint:*)",
      "Bash(git status)",
      "Read(./src/**)",
      "WebFetch(domain:docs.rs)",
      "Task"
    ],
    "ask": ["Bash(git commit:*)"],
    "deny": [
      "Bash(git reset:*)",
      "Bash(git push --force:*)",
      "Read(./.env)",
      "Read(./secrets/**)"
    ],
    "defaultMode": "acceptEdits"
  }
}
"#;

#[test]
fn a_claude_code_deny_stops_git_reset_under_yolo() {
    for user in users::each() {
        let env = builtins_env(user, "mode = \"auto\"");
        let cwd = env.cwd.path();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(args)
                .current_dir(cwd)
                .env("HOME", env.home.path())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "git {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        git(&["init", "-q"]);
        std::fs::write(cwd.join("work.txt"), "committed\n").unwrap();
        git(&["add", "work.txt"]);
        git(&[
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            "one",
        ]);
        // Uncommitted work a reset would lose.
        std::fs::write(
            cwd.join("work.txt"),
            "committed\nand an afternoon of work\n",
        )
        .unwrap();
        std::fs::write(cwd.join(".env"), "API_TOKEN=hunter2hunter2\n").unwrap();
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::write(cwd.join(".claude/settings.json"), SETTINGS).unwrap();
        // `hermes trust` shows the rules it lets the file set, each with
        // where it came from.
        let trusted = env.run(&["trust"]);
        trusted.ok();
        crate::assert_contains!(
            trusted.stderr,
            "Claude Code's permissions.deny `Bash(git reset:*)` in .claude/settings.json"
        );
        env.fake.push(reply_calls(&[
            ("st", "shell", json!({"command": "git status --short"})),
            ("rs", "shell", json!({"command": "git reset --hard"})),
            (
                "chain",
                "shell",
                json!({"command": "git status && git reset --hard HEAD"}),
            ),
            ("env", "read_file", json!({"path": ".env"})),
        ]));
        env.fake.push(Reply::text("done"));
        let run = env.run(&["--yolo", "-q", "clean up"]);
        run.ok();
        let results: Vec<String> = env.results_of(1).into_iter().map(|(_, t, _)| t).collect();
        crate::assert_contains!(results[0], "work.txt");
        for r in &results[1..3] {
            crate::assert_contains!(r, "denied by rule approvals.rules");
            crate::assert_contains!(
                r,
                "Claude Code's permissions.deny `Bash(git reset:*)` in .claude/settings.json"
            );
        }
        crate::assert_contains!(results[3], "permissions.deny `Read(./.env)`");
        assert_eq!(
            std::fs::read_to_string(cwd.join("work.txt")).unwrap(),
            "committed\nand an afternoon of work\n",
            "as {}",
            user.name()
        );
        // What hermes cannot map is said once, with file and line.
        crate::assert_contains!(
            run.stderr,
            ".claude/settings.json:9: permissions.allow: `Task` names no tool hermes has; it is skipped"
        );
        // `config show` lists each rule with where it came from.
        let shown = env.run(&["config", "show"]);
        crate::assert_contains!(
            shown.stdout,
            "Claude Code's permissions.ask `Bash(git commit:*)`"
        );
    }
}

/// Hooks as Claude Code runs them: an `"if"` in its permission-rule syntax
/// runs a commit guard on `git commit` only (in a chain too), and a hook
/// with no `timeout` may take 11 s — past hermes' old 10 s default —
/// because the default is Claude Code's 60 s.
#[test]
fn an_if_hook_guards_commits_only_and_a_slow_hook_runs_to_its_end() {
    let env = builtins_env(users::User::current(), "mode = \"auto\"");
    let cwd = env.cwd.path();
    std::fs::create_dir_all(cwd.join(".claude")).unwrap();
    let log = cwd.join("guard.log");
    std::fs::write(
        cwd.join(".claude/settings.json"),
        format!(
            r#"{{
  "hooks": {{
    "PreToolUse": [
      {{
        "matcher": "Bash",
        "hooks": [
          {{
            "type": "command",
            "if": "Bash(git commit:*)",
            "command": "echo guarded >> {log}; echo 'run the tests before committing' >&2; exit 2"
          }},
          {{ "type": "command", "if": "Bash(sleep-check)", "command": "sleep 11; echo slow-done >> {log}" }},
          {{ "type": "command", "if": "NotebookEdit", "command": "echo never >> {log}" }}
        ]
      }},
      {{ "matcher": "Skill|MultiEdit", "hooks": [{{ "type": "command", "command": "true" }}] }}
    ]
  }}
}}
"#,
            log = log.display()
        ),
    )
    .unwrap();
    env.run(&["trust"]).ok();
    env.fake.push(reply_calls(&[
        ("st", "shell", json!({"command": "echo status-ran"})),
        (
            "ci",
            "shell",
            json!({"command": "echo staged && git commit -m wip"}),
        ),
        ("slow", "shell", json!({"command": "sleep-check"})),
    ]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["-q", "commit it"]);
    run.ok();
    let results: Vec<String> = env.results_of(1).into_iter().map(|(_, t, _)| t).collect();
    crate::assert_contains!(results[0], "status-ran");
    crate::assert_contains!(results[1], "run the tests before committing");
    // The slow hook ran to its end; the command itself is not a program.
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged, "guarded\nslow-done\n");
    crate::assert_contains!(
        run.stderr,
        "hooks.PreToolUse[0].hooks[2].if: `NotebookEdit` names no tool hermes has; the hook is skipped"
    );
    // A matcher naming a tool hermes lacks is dead, and said so; MultiEdit
    // is hermes' edit_file.
    crate::assert_contains!(
        run.stderr,
        "hooks.PreToolUse[1].matcher: `Skill` names no tool hermes has; it never matches"
    );
    crate::assert_not_contains!(run.stderr, "`MultiEdit` names no tool");
}

/// An `"async": true` hook runs beside the call and never holds it: one
/// that fails (exit 2, which would block) leaves the command running.
#[test]
fn an_async_hook_that_fails_does_not_block_the_call() {
    let env = builtins_env(users::User::current(), "mode = \"auto\"");
    let cwd = env.cwd.path();
    std::fs::create_dir_all(cwd.join(".claude")).unwrap();
    let log = cwd.join("async.log");
    std::fs::write(
        cwd.join(".claude/settings.json"),
        format!(
            r#"{{"hooks": {{"PostToolUse": [{{"matcher": "Bash", "hooks": [
                {{"type": "command", "async": true, "command": "echo async-ran >> {log}; exit 2"}}]}}],
              "PreToolUse": [{{"matcher": "Bash", "hooks": [
                {{"type": "command", "async": true, "command": "echo nope >&2; exit 2"}}]}}]}}}}"#,
            log = log.display()
        ),
    )
    .unwrap();
    env.run(&["trust"]).ok();
    env.fake.push(reply_calls(&[(
        "go",
        "shell",
        json!({"command": "echo not-blocked"}),
    )]));
    // hermes stays up a moment after the call: the hook beside it runs.
    env.fake
        .push(Reply::text("done").delayed(std::time::Duration::from_millis(800)));
    env.run(&["-q", "go"]).ok();
    let result = &env.results_of(1)[0].1;
    crate::assert_contains!(result, "not-blocked");
    crate::assert_not_contains!(result, "nope");
    crate::support::wait_for("the async hook's line", || {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("async-ran"))
    });
}
