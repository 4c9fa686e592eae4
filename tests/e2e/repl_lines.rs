//! What a tool round leaves in the terminal's scrollback (issue 53): a
//! refused entry told once, in its place among the round's entries; a
//! custom command's `` !`cmd` `` shown as it ended — run, or blocked by a
//! hook — before its prompt is sent or refused, and nothing of it in the
//! next turn.

use crate::support::tmux::Tmux;
use crate::support::{call_id, Reply, TestEnv};

/// A home in `mode` with a custom command `/st` (its `!` line runs) and
/// `/bad` (a pre_tool_call hook blocks its `!` line).
fn custom_env(mode: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\nbuiltin = [\"shell\", \"read_file\", \"write_file\"]\n\
         [approvals]\nmode = \"{mode}\"\n\
         [[hooks.pre_tool_call]]\nmatch = \"shell\"\n\
         command = \"grep -q forbidden && {{ echo 'no forbidden here' >&2; exit 2; }} || exit 0\"\n"
    ));
    std::fs::write(env.cwd.path().join("a.txt"), "alpha\n").unwrap();
    with_commands(
        &env,
        &[
            (
                "st",
                "Say where we are",
                "Where we are:\n\n!`echo from-the-command`",
            ),
            ("bad", "Blocked", "Blocked:\n\n!`echo forbidden`"),
        ],
    );
    env
}

/// The project's `.claude/commands/NAME.md` for each (name, description,
/// body), the folder trusted.
pub(super) fn with_commands(env: &TestEnv, commands: &[(&str, &str, &str)]) {
    let cwd = env.cwd.path();
    std::fs::create_dir_all(cwd.join(".claude/commands")).unwrap();
    std::fs::write(cwd.join(".claude/settings.json"), "{}\n").unwrap();
    for (name, description, body) in commands {
        std::fs::write(
            cwd.join(format!(".claude/commands/{name}.md")),
            format!("---\ndescription: {description}\n---\n{body}\n"),
        )
        .unwrap();
    }
    env.run(&["trust"]).ok();
}

/// The scrollback's lines, trailing blanks cut.
fn lines(term: &Tmux) -> Vec<String> {
    term.scrollback()
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect()
}

fn position(lines: &[String], what: &str) -> usize {
    lines
        .iter()
        .position(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what:?}:\n{}", lines.join("\n")))
}

#[test]
fn an_entry_the_person_denies_is_told_once_in_its_place() {
    let env = custom_env("ask");
    env.fake.push(Reply::tool_calls(&[
        (&call_id("r"), "read_file", r#"{"path":"a.txt"}"#),
        (
            &call_id("w"),
            "write_file",
            r#"{"path":"b.txt","content":"x"}"#,
        ),
        (
            &call_id("r2"),
            "read_file",
            r#"{"path":"a.txt","offset":1}"#,
        ),
    ]));
    env.fake.push(Reply::text("done"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    term.wait_for("the question", |s| s.contains("wants to run"));
    term.type_line("n");
    term.wait_for("the answer", |s| s.contains("done"));
    let all = lines(&term);
    let denied: Vec<&String> = all.iter().filter(|l| l.contains("denied by you")).collect();
    assert_eq!(denied.len(), 1, "told once:\n{}", all.join("\n"));
    let first = position(&all, "✓ read_file a.txt");
    let write = position(&all, "✗ write_file b.txt — denied by you");
    let last = all
        .iter()
        .rposition(|l| l.contains("✓ read_file a.txt"))
        .unwrap();
    assert!(
        first < write && write < last,
        "in its place:\n{}",
        all.join("\n")
    );
    term.type_line("/quit");
}

#[test]
fn a_custom_commands_shell_line_shows_how_it_ended_and_nothing_of_it_after() {
    let env = custom_env("auto");
    env.fake.push(Reply::text("answered"));
    env.fake.push(Reply::text("second answer"));
    let term = Tmux::start(&env, &[]);
    term.type_line("/st");
    term.wait_for("the answer", |s| s.contains("answered"));
    term.type_line("/bad");
    term.wait_for("the refusal", |s| s.contains("did not run"));
    term.type_line("after");
    term.wait_for("the next turn", |s| s.contains("second answer"));
    let all = lines(&term);
    let shown = all.join("\n");
    crate::assert_not_contains!(shown, "cancelled");
    let ran = position(&all, "✓ shell $ echo from-the-command — from-the-command");
    assert!(ran < position(&all, "answered"), "{shown}");
    let blocked: Vec<usize> = all
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("✗ shell"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(blocked.len(), 1, "told once:\n{shown}");
    // Cut with … at the block's 80 columns.
    crate::assert_contains!(
        all[blocked[0]],
        "blocked by the pre_tool_call hook: no forbidden h…"
    );
    let refused = position(&all, "`echo forbidden` did not run");
    let next = position(&all, "› after");
    assert!(blocked[0] < refused && refused < next, "{shown}");
    assert_eq!(env.fake.requests().len(), 2, "/bad was not sent");
    term.type_line("/quit");
}

/// Under `ask`, the `!` line's question answered, it shows as run — not
/// cancelled — once its prompt's turn has ended.
#[test]
fn a_custom_commands_asked_shell_line_shows_as_run_after_the_turn() {
    let env = custom_env("ask");
    env.fake.push(Reply::text("answered"));
    let term = Tmux::start(&env, &[]);
    term.type_line("/st");
    term.wait_for("the question", |s| s.contains("wants to run"));
    term.type_line("y");
    term.wait_for("the answer", |s| s.contains("answered"));
    let all = lines(&term);
    let shown = all.join("\n");
    crate::assert_not_contains!(shown, "cancelled");
    let ran = position(&all, "✓ shell $ echo from-the-command — from-the-command");
    assert!(ran < position(&all, "answered"), "{shown}");
    term.type_line("/quit");
}

/// A custom command that names its own model and is not sent — what it
/// attaches is outside the folder — leaves the session on its model: the
/// next message goes to the model the config names.
#[test]
fn a_custom_command_not_sent_leaves_the_sessions_model() {
    let env = TestEnv::new();
    with_commands(&env, &[]);
    std::fs::write(
        env.cwd.path().join(".claude/commands/far.md"),
        "---\ndescription: Reads a file far away\nmodel: another-model\n---\nRead @/etc/hostname\n",
    )
    .unwrap();
    env.fake.push(Reply::text("answered on the session model"));
    let term = Tmux::start(&env, &[]);
    term.type_line("/far");
    term.wait_for("the refusal", |s| s.contains("outside the working folder"));
    term.type_line("hello");
    term.wait_for("the answer", |s| {
        s.contains("answered on the session model")
    });
    term.type_line("/quit");
    let models: Vec<String> = env
        .fake
        .requests()
        .iter()
        .filter_map(|r| serde_json::from_slice::<serde_json::Value>(&r.body).ok())
        .filter_map(|b| b["model"].as_str().map(str::to_string))
        .collect();
    assert_eq!(models, [env.model()], "{}", term.scrollback());
}
