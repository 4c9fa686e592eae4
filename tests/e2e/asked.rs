//! What the person at the terminal is asked, and what an answer lets run
//! (issue 33), in a real terminal (tmux): a command cannot type into
//! hermes' own terminal to answer for the person; an answer covers only
//! what it was asked about; a file swapped while its question is open is
//! not written through; a paste never attaches a file; a question shows
//! the change that will be made; a server's form that asks for a secret
//! does not echo it and says it is the server's.

use std::path::PathBuf;

use serde_json::json;

use crate::support::calls::{batch, builtins_env, contents, reply_calls};
use crate::support::tmux::Tmux;
use crate::support::users::{self, User};
use crate::support::{call_id, Reply, TestEnv};

fn outside(env: &TestEnv) -> PathBuf {
    let dir = env.home.path().join("outside");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn answer(term: &Tmux, question: &str, line: &str) {
    term.wait_for(question, |s| s.contains(question));
    term.type_line(line);
}

/// A command that pushes `/yolo` into the terminal with TIOCSTI and
/// writes escape sequences to `/dev/tty`: nothing arrives, so the next
/// write outside the folder is still asked — and refused.
#[test]
fn a_command_cannot_type_into_hermes_terminal() {
    for user in users::each() {
        let env = builtins_env(user, "mode = \"auto\"");
        let escaped = outside(&env).join("escaped.txt");
        let inject = "import fcntl, termios, os\n\
            for fd in (0, 1, 2):\n\
            \x20 try:\n\
            \x20   [fcntl.ioctl(fd, termios.TIOCSTI, bytes([c])) for c in b'/yolo\\n']\n\
            \x20 except OSError as e: print('fd', fd, e.errno)\n\
            try:\n\
            \x20 t = os.open('/dev/tty', os.O_RDWR)\n\
            \x20 [fcntl.ioctl(t, termios.TIOCSTI, bytes([c])) for c in b'/yolo\\n']\n\
            \x20 os.write(t, b'\\x1b]0;pwned\\x07\\x1b[2J')\n\
            except OSError as e: print('tty', e.errno)\n";
        std::fs::write(env.cwd.path().join("inject.py"), inject).unwrap();
        env.fake.push(reply_calls(&[(
            "inject",
            "shell",
            json!({"command": "/usr/bin/python3 inject.py"}),
        )]));
        env.fake.push(reply_calls(&[(
            "escape",
            "write_file",
            json!({"path": escaped.display().to_string(), "content": "out"}),
        )]));
        env.fake.push(Reply::text("done"));
        let term = Tmux::start(&env, &[]);
        let title = term.pane("#{pane_title}");
        term.type_line("go");
        answer(&term, "a write outside the working folder", "n");
        term.wait_for("the turn's end", |s| s.contains("done"));
        let screen = term.screen();
        assert!(
            !escaped.exists(),
            "as {}: the write ran unasked:\n{screen}",
            user.name()
        );
        crate::assert_not_contains!(screen, "yolo on");
        assert_eq!(term.pane("#{pane_title}"), title, "the title was changed");
        // Each way in was refused by the kernel, not merely unseen.
        let r = contents(&env.tool_results(1));
        for refused in ["fd 0 ", "fd 1 ", "fd 2 ", "tty "] {
            crate::assert_contains!(r[0], refused);
        }
        term.type_line("/quit");
    }
}

/// "s" on an in-folder write covers in-folder writes, never one outside;
/// "s" on `bash run_tests.sh` covers that command line, never `bash -c`.
#[test]
fn an_answer_covers_only_what_it_was_asked_about() {
    let env = builtins_env(User::current(), "");
    let cwd = env.cwd.path();
    let out = outside(&env).join("out.txt");
    std::fs::write(cwd.join("run_tests.sh"), "echo tests ran\n").unwrap();
    env.fake.push(reply_calls(&[(
        "w1",
        "write_file",
        json!({"path": "notes.md", "content": "one"}),
    )]));
    env.fake.push(reply_calls(&[
        (
            "w2",
            "write_file",
            json!({"path": "other.md", "content": "two"}),
        ),
        (
            "w3",
            "write_file",
            json!({"path": out.display().to_string(), "content": "three"}),
        ),
    ]));
    env.fake.push(reply_calls(&[(
        "s1",
        "shell",
        json!({"command": "bash run_tests.sh"}),
    )]));
    env.fake.push(reply_calls(&[
        ("s2", "shell", json!({"command": "bash run_tests.sh"})),
        ("s3", "shell", json!({"command": "bash -c \"touch pwned\""})),
    ]));
    env.fake.push(Reply::text("done"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    answer(&term, "write_file wants to run", "s");
    answer(&term, "a write outside the working folder", "n");
    answer(&term, "shell wants to run", "s");
    term.wait_for("the second command's question", |s| {
        s.contains("touch pwned")
    });
    term.type_line("n");
    term.wait_for("the turn's end", |s| s.contains("done"));
    assert!(
        cwd.join("other.md").exists(),
        "the in-folder write was asked again"
    );
    assert!(
        !out.exists(),
        "the outside write ran on the session's answer"
    );
    assert!(
        !cwd.join("pwned").exists(),
        "bash -c ran on run_tests.sh's answer"
    );
    let r = contents(&env.tool_results(4));
    assert_eq!(
        r.iter().filter(|c| c.contains("tests ran")).count(),
        2,
        "{r:?}"
    );
    term.type_line("/quit");
}

/// While a write's question is open, its file is swapped for a link out of
/// the folder: the approved write does not follow it. Changed instead, the
/// write is asked again on the file as it is now.
#[test]
fn a_file_changed_while_its_question_is_open_is_not_written_as_approved() {
    for user in users::each() {
        let env = builtins_env(user, "");
        let cwd = env.cwd.path();
        let target = outside(&env).join("target.txt");
        std::fs::write(&target, "theirs\n").unwrap();
        std::fs::write(cwd.join("notes.md"), "mine\n").unwrap();
        std::fs::write(cwd.join("plan.md"), "first\n").unwrap();
        env.fake.push(reply_calls(&[(
            "swap",
            "write_file",
            json!({"path": "notes.md", "content": "approved\n"}),
        )]));
        env.fake.push(reply_calls(&[(
            "change",
            "write_file",
            json!({"path": "plan.md", "content": "approved\n"}),
        )]));
        env.fake.push(Reply::text("done"));
        let term = Tmux::start(&env, &[]);
        term.type_line("go");
        term.wait_for("the question", |s| s.contains("write_file wants to run"));
        std::fs::remove_file(cwd.join("notes.md")).unwrap();
        std::os::unix::fs::symlink(&target, cwd.join("notes.md")).unwrap();
        term.type_line("y");
        term.wait_for("the second question", |s| s.contains("plan.md"));
        std::fs::write(cwd.join("plan.md"), "changed meanwhile\n").unwrap();
        term.type_line("y");
        answer(&term, "changed after you were asked", "n");
        term.wait_for("the turn's end", |s| s.contains("done"));
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "theirs\n",
            "as {}",
            user.name()
        );
        assert_eq!(
            std::fs::read_to_string(cwd.join("plan.md")).unwrap(),
            "changed meanwhile\n"
        );
        let r = contents(&env.tool_results(1));
        crate::assert_contains!(r[0], "is a symbolic link now");
        term.type_line("/quit");
    }
}

/// An `@` in pasted text attaches nothing; a typed `@` of a file outside
/// the folder is asked about first; one inside attaches, read no further
/// than the output budget however big the file.
#[test]
fn only_what_the_person_types_attaches_and_outside_is_asked_first() {
    let env = builtins_env(User::current(), "");
    let secret = outside(&env).join("secret.txt");
    std::fs::write(&secret, "the secret marker 7f3a\n").unwrap();
    let cwd = env.cwd.path();
    std::fs::write(cwd.join("notes.md"), "in-folder notes\n").unwrap();
    let big = cwd.join("big.log");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&big).unwrap());
        for i in 0..400_000u32 {
            writeln!(
                f,
                "log line {i:08} with some text to make it longer than it needs"
            )
            .unwrap();
        }
    }
    for _ in 0..4 {
        env.fake.push(Reply::text("ok"));
    }
    let term = Tmux::start(&env, &[]);
    term.paste(&format!(
        "see this log:\nerror at @{}\nthanks",
        secret.display()
    ));
    term.press("Enter");
    term.wait_for("the first answer", |s| s.matches("ok").count() >= 1);
    term.type_line(&format!("read @{}", secret.display()));
    answer(&term, "outside the working folder? [y/N]", "n");
    term.wait_for("the refusal", |s| s.contains("not allowed"));
    // The message is back in the editor: cleared, then a new one.
    term.press("C-u");
    term.type_line("read @notes.md and @big.log");
    term.wait_for("the attachments", |s| s.contains("attached @big.log"));
    crate::support::wait_for("the message sent", || env.fake.requests().len() >= 2);
    term.type_line("/quit");
    let bodies: Vec<String> = env
        .fake
        .requests()
        .iter()
        .map(|r| r.body_str().to_string())
        .collect();
    for b in &bodies {
        crate::assert_not_contains!(b, "secret marker 7f3a");
    }
    let last = bodies.last().unwrap();
    crate::assert_contains!(last, "in-folder notes");
    crate::assert_contains!(last, "of big.log; read on with offset=");
    assert!(
        last.len() < 200_000,
        "the big file went whole: {} bytes",
        last.len()
    );
}

/// A batch that writes a file and then edits it: the edit's question shows
/// the change on the written content, not "old_string was not found".
#[test]
fn an_edit_after_a_write_is_shown_on_what_the_write_leaves() {
    let env = builtins_env(User::current(), "");
    env.fake.push(reply_calls(&[
        (
            "w",
            "write_file",
            json!({"path": "app.py", "content": "a = 1\n"}),
        ),
        (
            "e",
            "edit_file",
            json!({"path": "app.py", "old_string": "a = 1", "new_string": "a = 2"}),
        ),
    ]));
    env.fake.push(Reply::text("done"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    answer(&term, "write_file wants to run", "y");
    term.wait_for("the edit's question", |s| {
        s.contains("edit_file wants to run")
    });
    let screen = term.screen();
    crate::assert_contains!(screen, "-a = 1");
    crate::assert_contains!(screen, "+a = 2");
    crate::assert_not_contains!(screen, "was not found");
    term.type_line("y");
    term.wait_for("the turn's end", |s| s.contains("done"));
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("app.py")).unwrap(),
        "a = 2\n"
    );
    term.type_line("/quit");
}

/// A server's form asking for "OpenAI API key (hermes)": the question says
/// the server asks, not hermes, and what is typed is not shown.
#[test]
fn a_secret_a_servers_form_asks_for_is_not_echoed() {
    let env = TestEnv::deferred(&[("t", "args = [\"--forms\"]")]);
    env.set_approvals("allow = [\"mcp__t__*\"]");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("form"),
        "tool_call",
        &batch(&[("mcp__t__ask_key", json!({}))]),
    )]));
    env.fake.push(Reply::text("thanks"));
    let term = Tmux::start(&env, &[]);
    term.type_line("log me in");
    term.wait_for("the form", |s| {
        s.contains("this form is the server's, not hermes'")
    });
    let typed = "sk-typed-by-hand-0123456789";
    term.wait_for("the secret field", |s| {
        s.contains("[looks secret: not shown as you type")
    });
    term.type_keys(typed);
    std::thread::sleep(std::time::Duration::from_millis(300));
    crate::assert_not_contains!(term.screen(), typed);
    term.press("Enter");
    term.wait_for("the turn's end", |s| s.contains("thanks"));
    crate::assert_not_contains!(term.screen(), typed);
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], &format!("accept a key of {} characters", typed.len()));
    term.type_line("/quit");
}

/// A Notification hook (Claude Code's, from `~/.claude/settings.json`) is
/// told, with the tool's Claude Code name, when hermes waits for the
/// person's answer.
#[test]
fn a_notification_hook_is_told_when_hermes_asks() {
    let env = builtins_env(User::current(), "mode = \"ask\"");
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let log = env.home.path().join("notified.log");
    std::fs::write(
        dir.join("settings.json"),
        format!(
            r#"{{"hooks": {{"Notification": [{{"hooks": [{{"type": "command", "command": "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"message\"])' >> {}"}}]}}]}}}}"#,
            log.display()
        ),
    )
    .unwrap();
    env.fake.push(reply_calls(&[(
        "sh",
        "shell",
        json!({"command": "echo hi"}),
    )]));
    env.fake.push(Reply::text("done"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    term.wait_for("the question", |s| s.contains("shell wants to run"));
    crate::support::wait_for("the hook's note", || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.ends_with('\n'))
    });
    term.type_line("y");
    term.wait_for("the turn's end", |s| s.contains("done"));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "hermes needs your permission to use Bash\n"
    );
    term.type_line("/quit");
}

/// "For this session" ends with the session (issue 69): a command allowed
/// for one session is asked again after `/new`, and after `/resume` of
/// another; a grant given in the new session holds there.
#[test]
fn a_session_grant_ends_with_its_session() {
    let env = builtins_env(User::current(), "mode = \"ask\"");
    let grant = |tag: &str| reply_calls(&[(tag, "shell", json!({"command": "echo granted"}))]);
    env.fake.push(grant("g1"));
    env.fake.push(Reply::text("first done"));
    env.fake.push(grant("g2"));
    env.fake.push(Reply::text("second asked"));
    env.fake.push(grant("g3"));
    env.fake.push(Reply::text("third ran"));
    env.fake.push(grant("g4"));
    env.fake.push(Reply::text("fourth asked"));
    let term = Tmux::start(&env, &[]);
    let first = {
        term.wait_for("the banner", |s| s.contains("session "));
        let screen = term.screen();
        screen
            .split("session ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string()
    };
    term.type_line("one");
    answer(&term, "shell wants to run", "s");
    term.wait_for("the first turn", |s| s.contains("first done"));
    term.type_line("/new");
    term.type_line("two");
    // Asked again: the grant was the first session's.
    let asked = |n: usize| {
        crate::support::wait_for(&format!("question {n}"), || {
            term.scrollback().matches("shell wants to run").count() == n
        })
    };
    asked(2);
    term.type_line("s");
    term.wait_for("the second turn", |s| s.contains("second asked"));
    // Allowed in this session: it runs unasked.
    term.type_line("three");
    term.wait_for("the third turn", |s| s.contains("third ran"));
    assert_eq!(term.scrollback().matches("shell wants to run").count(), 2);
    term.type_line(&format!("/resume {first}"));
    term.wait_for("the resumed session", |s| {
        s.contains("resumed") || s.contains(&first)
    });
    term.type_line("four");
    asked(3);
    term.type_line("n");
    term.wait_for("the fourth turn", |s| s.contains("fourth asked"));
    term.type_line("/quit");
}
