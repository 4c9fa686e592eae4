//! `hermes rewind` (issue 49): a turn's files — written, edited, and what
//! its shell command deleted, made and appended to — put back as they
//! were, a file the person edited since left as they made it, and the
//! conversation taken back by a record appended to the session file.

use serde_json::json;

use crate::support::calls::ALL_BUILTINS;
use crate::support::users;
use crate::support::{call_id, Reply, TestEnv};

fn call(id: &str, tool: &str, args: serde_json::Value) -> (String, String, String) {
    (call_id(id), tool.to_string(), args.to_string())
}

fn reply(env: &TestEnv, calls: &[(String, String, String)]) {
    let borrowed: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    env.fake.push(Reply::tool_calls(&borrowed));
    env.fake.push(Reply::text("done"));
}

/// Turn one's calls: a file written, one edited, and a command that
/// deletes one, makes one, appends to one, makes a folder with a file in
/// it, rewrites a binary one with another mode (where there is a
/// `bin/`), removes a folder and closes another (where there is an `old/`).
fn turn_one() -> Vec<(String, String, String)> {
    vec![
        call(
            "w1",
            "write_file",
            json!({"path": "a.txt", "content": "new a\n"}),
        ),
        call(
            "w0",
            "write_file",
            json!({"path": "docs/new/b.md", "content": "b\n"}),
        ),
        call(
            "e1",
            "edit_file",
            json!({"path": "b.txt", "old_string": "fn main() {}", "new_string": "fn main() { run() }"}),
        ),
        call(
            "s1",
            "shell",
            json!({"command": "rm gone.txt && echo made > made.txt && echo line two >> appended.txt && mkdir -p new/deep && echo x > new/deep/f.txt && if [ -d bin ]; then printf 'x' > bin/tool.bin && chmod 700 bin/tool.bin; fi && if [ -d old ]; then rm -r old && chmod 700 shut; fi"}),
        ),
    ]
}

/// Every built-in offered, and the files turn one finds; a writer and a
/// reader of the working folder's files.
#[allow(clippy::type_complexity)]
fn before_turn_one(
    env: &TestEnv,
) -> (
    impl Fn(&str, &str) + '_,
    impl Fn(&str) -> Option<String> + '_,
) {
    env.write_config(&format!("[tools]\nbuiltin = {ALL_BUILTINS}\n"));
    let cwd = env.cwd.path();
    let w = move |p: &str, text: &str| std::fs::write(cwd.join(p), text).unwrap();
    let read = move |p: &str| std::fs::read_to_string(cwd.join(p)).ok();
    w("b.txt", "fn main() {}\n");
    w("gone.txt", "to be deleted\n");
    w("appended.txt", "line one\n");
    (w, read)
}

/// Turn two's call: another file written.
fn turn_two() -> Vec<(String, String, String)> {
    vec![call(
        "w2",
        "write_file",
        json!({"path": "c.txt", "content": "from the model\n"}),
    )]
}

/// The user messages of a Chat Completions request, in order.
fn prompts(req: &serde_json::Value) -> Vec<String> {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn rewind_puts_a_turns_files_back_keeps_hand_edits_and_drops_its_conversation() {
    for user in users::each() {
        let env = TestEnv::new().run_as(user);
        let cwd = env.cwd.path();
        let (w, read) = before_turn_one(&env);
        std::fs::create_dir_all(cwd.join("bin")).unwrap();
        w("bin/tool.bin", "\u{0}\u{1}binary\u{2}");
        use std::os::unix::fs::PermissionsExt;
        let mode_of =
            |p: &str| std::fs::metadata(cwd.join(p)).unwrap().permissions().mode() & 0o7777;
        let set_mode = |p: &str, m: u32| {
            std::fs::set_permissions(cwd.join(p), std::fs::Permissions::from_mode(m)).unwrap()
        };
        for d in ["old/inner", "old/empty", "shut"] {
            std::fs::create_dir_all(cwd.join(d)).unwrap();
        }
        w("old/inner/x.txt", "x\n");
        set_mode("old", 0o750);
        set_mode("old/empty", 0o701);
        set_mode("shut", 0o755);

        reply(&env, &turn_one());
        env.run(&["--yolo", "-q", "turn one"]).ok();
        assert_eq!(read("made.txt").as_deref(), Some("made\n"));
        assert!(!cwd.join("old").exists());
        assert_eq!(mode_of("shut"), 0o700);
        reply(&env, &turn_two());
        env.run(&["--continue", "--yolo", "-q", "turn two"]).ok();
        // The person's own edit, after the turn.
        w("c.txt", "edited by hand\n");
        let session = env.only_session();
        let before = std::fs::read(&session).unwrap();

        let list = env.run(&["rewind", "--list"]);
        list.ok();
        for expected in [
            "turn one",
            "turn two",
            "created a.txt",
            "modified b.txt",
            "deleted gone.txt",
            "created made.txt",
            "created new/deep/f.txt",
            "created docs/new/b.md",
            "modified appended.txt",
            "modified bin/tool.bin",
            "created c.txt",
        ] {
            crate::assert_contains!(list.stdout, expected);
        }

        // Without --yes and no terminal to ask on: nothing happens.
        let asked = env.run(&["rewind", "1"]);
        asked.code(2);
        crate::assert_contains!(asked.stderr, "--yes");
        assert_eq!(read("a.txt").as_deref(), Some("new a\n"));

        let done = env.run(&["rewind", "1", "--yes"]);
        done.ok();
        assert_eq!(read("a.txt"), None, "as {}: {}", user.name(), done.stdout);
        assert_eq!(read("b.txt").as_deref(), Some("fn main() {}\n"));
        assert_eq!(read("gone.txt").as_deref(), Some("to be deleted\n"));
        assert_eq!(read("made.txt"), None);
        assert_eq!(read("appended.txt").as_deref(), Some("line one\n"));
        assert!(!cwd.join("new").exists(), "the folder it made goes too");
        assert!(!cwd.join("docs").exists(), "and the file tools' too");
        crate::assert_contains!(done.stdout, "removed folder new");
        assert_eq!(
            std::fs::read(cwd.join("bin/tool.bin")).unwrap(),
            b"\x00\x01binary\x02"
        );
        assert_eq!(mode_of("bin/tool.bin"), 0o644, "its mode back too");
        // The folders it removed made again, with their modes; the one it
        // closed open again.
        assert_eq!(read("old/inner/x.txt").as_deref(), Some("x\n"));
        assert_eq!(mode_of("old"), 0o750);
        assert_eq!(mode_of("old/empty"), 0o701);
        assert_eq!(mode_of("shut"), 0o755);
        crate::assert_contains!(done.stdout, "made folder old/empty again");
        assert_eq!(read("c.txt").as_deref(), Some("edited by hand\n"));
        crate::assert_contains!(done.stdout, "kept c.txt");
        crate::assert_contains!(done.stdout, "restored gone.txt");

        // Nothing in the file rewritten: it starts with every byte it had.
        let after = std::fs::read(&session).unwrap();
        assert!(after.len() > before.len() && after.starts_with(&before));

        // The next request carries neither turn; what came before them is
        // sent as turn one's first request sent it.
        let first = env.fake.requests()[0].json();
        env.fake.push(Reply::text("fresh start"));
        env.run(&["--continue", "--yolo", "-q", "turn three"]).ok();
        let next = env.fake.requests().last().unwrap().json();
        assert_eq!(prompts(&next), ["turn three"]);
        assert_eq!(next["messages"][0], first["messages"][0]);
        let listed = env.run(&["rewind", "--list"]);
        crate::assert_contains!(listed.stdout, "(files rewound, conversation rewound)");
        crate::assert_contains!(listed.stdout, "turn three");
    }
}

/// A session another hermes has open is not rewound under it: refused,
/// naming the holder, before any file is put back.
#[test]
fn a_session_in_use_is_not_rewound() {
    let env = TestEnv::new();
    let (_, read) = before_turn_one(&env);
    reply(&env, &turn_two());
    env.run(&["--yolo", "-q", "write c"]).ok();
    env.fake
        .push(Reply::text("slow").delayed(std::time::Duration::from_secs(3)));
    let holder = env.spawn(&["--continue", "-q", "take your time"]);
    crate::support::wait_for("the holder's request", || env.fake.requests().len() == 3);
    let refused = env.run(&["rewind", "1", "--yes"]);
    refused.code(1);
    crate::assert_contains!(
        refused.error_line(),
        format!("is in use by another hermes (pid {})", holder.id())
    );
    assert_eq!(read("c.txt").as_deref(), Some("from the model\n"));
    crate::support::stopped(holder);
}

/// Bad turns and sessions say what to do.
#[test]
fn rewind_names_what_is_wrong() {
    let env = TestEnv::new();
    env.write_config("");
    let none = env.run(&["rewind", "--list"]);
    none.code(2);
    crate::assert_contains!(none.stderr, "no session was started in");
    env.fake.push(Reply::text("hi"));
    env.run(&["-q", "only turn"]).ok();
    let far = env.run(&["rewind", "5", "--yes"]);
    far.code(2);
    crate::assert_contains!(far.stderr, "has no turn 5");
    crate::assert_contains!(far.stderr, "1 to 1");
}

/// In the REPL, the same as `hermes rewind 1`: Esc Esc at an empty prompt
/// opens the picker of turns; turn 1 and "code and conversation" put back
/// what its file tools and its shell command changed, keep the file the
/// person edited by hand since, and leave both turns out of the next
/// request, in the same session.
#[test]
fn esc_esc_in_the_repl_picks_a_turn_and_rewinds_it() {
    let env = TestEnv::new();
    let (w, read) = before_turn_one(&env);
    reply(&env, &turn_one());
    reply(&env, &turn_two());
    env.fake.push(Reply::text("after the rewind"));
    let term = crate::support::tmux::Tmux::start(&env, &["--yolo"]);
    term.type_line("turn one");
    term.wait_for("the first answer", |s| s.matches("done").count() == 1);
    term.type_line("turn two");
    // The answer, then the prompt back: an Esc before it would stop the turn.
    term.wait_for("the prompt after the second answer", |s| {
        // The prompt is `(yolo) › ` under --yolo.
        s.contains("created c.txt")
            && s.rsplit("done")
                .next()
                .is_some_and(|t| t.contains("\n(yolo) ›"))
    });
    assert_eq!(read("made.txt").as_deref(), Some("made\n"));
    w("c.txt", "edited by hand\n");
    std::thread::sleep(std::time::Duration::from_millis(200));
    term.press("Escape");
    std::thread::sleep(std::time::Duration::from_millis(150));
    term.press("Escape");
    term.wait_for("the turns", |s| {
        s.contains("rewind to before turn") && s.contains("turn one") && s.contains("c.txt")
    });
    // The newest first: down to turn 1, then "code and conversation".
    term.press("Down");
    term.press("Enter");
    term.wait_for("what goes back", |s| s.contains("code and conversation"));
    term.press("Enter");
    term.wait_for("the report", |s| s.contains("kept c.txt"));
    let screen = term.screen();
    for restored in ["a.txt", "b.txt", "gone.txt", "made.txt", "appended.txt"] {
        crate::assert_contains!(screen, &format!("restored {restored}"));
    }
    assert_eq!(read("a.txt"), None);
    assert_eq!(read("b.txt").as_deref(), Some("fn main() {}\n"));
    assert_eq!(read("gone.txt").as_deref(), Some("to be deleted\n"));
    assert_eq!(read("made.txt"), None);
    assert_eq!(read("appended.txt").as_deref(), Some("line one\n"));
    assert_eq!(read("c.txt").as_deref(), Some("edited by hand\n"));
    term.type_line("start over");
    term.wait_for("the answer", |s| s.contains("after the rewind"));
    let last = env.fake.requests().last().unwrap().json();
    assert_eq!(prompts(&last), ["start over"]);
    term.type_line("/quit");
}

/// A subagent's changes are its parent's turn's: rewinding that turn puts
/// back what the subagent wrote too.
#[test]
fn a_subagents_changes_rewind_with_its_parents_turn() {
    let env = TestEnv::new();
    env.write_config(
        "[tools]\nbuiltin = [\"agent\", \"write_file\", \"read_file\"]\n[approvals]\nmode = \"auto\"\n",
    );
    let cwd = env.cwd.path();
    std::fs::write(cwd.join("notes.txt"), "as it was\n").unwrap();
    // The parent starts a subagent; the subagent writes; each answers.
    let (agent, write) = (
        call(
            "sub",
            "agent",
            json!({"prompt": "rewrite notes.txt", "description": "rewrite the notes"}),
        ),
        call(
            "sw",
            "write_file",
            json!({"path": "notes.txt", "content": "the subagent's\n"}),
        ),
    );
    env.fake
        .push(Reply::tool_calls(&[(&agent.0, &agent.1, &agent.2)]));
    env.fake
        .push(Reply::tool_calls(&[(&write.0, &write.1, &write.2)]));
    env.fake.push(Reply::text("subagent done"));
    env.fake.push(Reply::text("parent done"));
    env.run(&["--yolo", "-q", "delegate"]).ok();
    assert_eq!(
        std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
        "the subagent's\n"
    );
    // The subagent wrote it: its record is under its id in the parent's file.
    let records = crate::support::records(&env.only_session());
    assert!(
        records
            .iter()
            .any(|r| r["agent"].is_string() && r["event"] == "files_changed"),
        "{records:?}"
    );
    let list = env.run(&["rewind", "--list"]);
    crate::assert_contains!(list.stdout, "delegate");
    crate::assert_contains!(list.stdout, "modified notes.txt");
    let done = env.run(&["rewind", "1", "--code-only", "--yes"]);
    done.ok();
    crate::assert_contains!(done.stdout, "restored notes.txt");
    assert_eq!(
        std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
        "as it was\n"
    );
}

/// Back to before turn 2 of three, the conversation only: the next
/// request is the one that started turn 2, its prompt the new one — every
/// message before it as it was sent, so the provider's cache still holds
/// them.
#[test]
fn the_request_after_a_rewind_starts_as_the_rewound_turn_did() {
    let env = TestEnv::new();
    env.write_config("");
    for (i, prompt) in ["first", "second", "third"].iter().enumerate() {
        env.fake.push(Reply::text(&format!("answer {i}")));
        let mut args = vec!["-q", prompt];
        if i > 0 {
            args.insert(0, "--continue");
        }
        env.run(&args).ok();
    }
    env.run(&["rewind", "2", "--conversation-only", "--yes"])
        .ok();
    env.fake.push(Reply::text("again"));
    env.run(&["--continue", "-q", "second, better"]).ok();
    let reqs = env.fake.requests();
    let started = reqs[1].json()["messages"].as_array().unwrap().clone();
    let next = reqs.last().unwrap().json()["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(next.len(), started.len());
    assert_eq!(next[..next.len() - 1], started[..started.len() - 1]);
    assert_eq!(next.last().unwrap()["content"], "second, better");
}

/// Rewinding turn by turn (issue 69): `rewind 2` then `rewind 1` leaves
/// the folder as `rewind 1` alone does — hermes' own restore of turn 2 is
/// not "changed since the turn" — and a hand edit between the two rewinds
/// is still kept and named.
#[test]
fn rewinding_turn_by_turn_equals_rewinding_at_once_and_keeps_a_hand_edit_between() {
    let two_turns = || {
        let env = TestEnv::new();
        env.write_config(&format!("[tools]\nbuiltin = {ALL_BUILTINS}\n"));
        let cwd = env.cwd.path().to_path_buf();
        std::fs::write(cwd.join("edit.txt"), "version 0\n").unwrap();
        std::fs::write(cwd.join("log.txt"), "start\n").unwrap();
        for (n, from, to) in [(1, "version 0", "version 1"), (2, "version 1", "version 2")] {
            reply(
                &env,
                &[
                    call(
                        &format!("e{n}"),
                        "edit_file",
                        json!({"path": "edit.txt", "old_string": from, "new_string": to}),
                    ),
                    call(
                        &format!("s{n}"),
                        "shell",
                        json!({"command": format!("echo turn {n} >> log.txt")}),
                    ),
                ],
            );
            let continued = if n == 1 { vec![] } else { vec!["--continue"] };
            let mut args = continued;
            args.extend(["--yolo", "-q", "go"]);
            env.run(&args).ok();
        }
        (env, cwd)
    };
    let read = |cwd: &std::path::Path, p: &str| std::fs::read_to_string(cwd.join(p)).unwrap();

    let (at_once, a) = two_turns();
    assert_eq!(read(&a, "edit.txt"), "version 2\n");
    at_once.run(&["rewind", "1", "--yes"]).ok();

    let (by_turn, b) = two_turns();
    let second = by_turn.run(&["rewind", "2", "--yes"]);
    second.ok();
    assert_eq!(read(&b, "edit.txt"), "version 1\n");
    let first = by_turn.run(&["rewind", "1", "--yes"]);
    first.ok();
    assert!(!first.stdout.contains("kept"), "{}", first.stdout);
    for p in ["edit.txt", "log.txt"] {
        assert_eq!(read(&b, p), read(&a, p), "{p}");
    }
    assert_eq!(read(&b, "edit.txt"), "version 0\n");
    assert_eq!(read(&b, "log.txt"), "start\n");

    let (edited, c) = two_turns();
    edited.run(&["rewind", "2", "--yes"]).ok();
    std::fs::write(c.join("edit.txt"), "the person's own\n").unwrap();
    let after_edit = edited.run(&["rewind", "1", "--yes"]);
    after_edit.ok();
    crate::assert_contains!(after_edit.stdout, "kept edit.txt — changed since the turn");
    assert_eq!(read(&c, "edit.txt"), "the person's own\n");
    assert_eq!(read(&c, "log.txt"), "start\n");
}
