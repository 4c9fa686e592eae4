//! hermes' own tools on real files and real processes: with no MCP server,
//! a model reads, writes, edits and runs commands in the working folder —
//! the shell inside the kernel's sandbox, proven by what the kernel
//! refuses (a file that must not appear, a connection that must fail).

use std::path::PathBuf;

use serde_json::json;

use crate::support::calls::contents;
use crate::support::{call_id, Reply, TestEnv};

const ALL: &str = r#"["read_file", "write_file", "edit_file", "glob", "grep", "shell", "web_fetch", "update_plan"]"#;

/// A home offering every built-in tool, `approvals` as its `[approvals]`
/// lines, and `tools` as more `[tools]` lines.
fn env_with(approvals: &str, tools: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\nbuiltin = {ALL}\n{tools}\n\n[approvals]\n{approvals}\n"
    ));
    env
}

fn call(label: &str, name: &str, args: serde_json::Value) -> (String, String, String) {
    (call_id(label), name.to_string(), args.to_string())
}

fn reply(calls: &[(String, String, String)]) -> Reply {
    let borrowed: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    Reply::tool_calls(&borrowed)
}

/// A folder outside every folder the sandbox lets a command write to: not
/// under the working folder, nor under the temp folder hermes is given
/// (each test's own, `TestEnv::tmp`) — wherever the checkout lives.
fn outside() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "outside-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The issue's run: no MCP server, auto approval — write a file, edit it,
/// read it back with two `shell` calls in one reply, and a command that
/// writes outside the working folder, refused by the kernel.
#[test]
fn write_edit_and_two_shells_in_one_reply_with_the_kernel_refusing_a_write_outside() {
    let env = env_with("mode = \"auto\"", "");
    let out = outside();
    let escaped = out.join("escaped.txt");
    env.fake.push(reply(&[call(
        "write",
        "write_file",
        json!({"path": "notes.md", "content": "# Notes\nfirst line\n"}),
    )]));
    env.fake.push(reply(&[call(
        "edit",
        "edit_file",
        json!({"path": "notes.md", "old_string": "first line", "new_string": "edited line"}),
    )]));
    env.fake.push(reply(&[
        call("cat", "shell", json!({"command": "cat notes.md"})),
        call(
            "escape",
            "shell",
            json!({"command": format!("echo escaped > {}", escaped.display())}),
        ),
    ]));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["-q", "keep notes"]);
    run.ok();
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("notes.md")).unwrap(),
        "# Notes\nedited line\n"
    );
    assert_eq!(
        contents(&env.tool_results(1)),
        ["created notes.md (2 lines, 19 bytes)"]
    );
    let r = contents(&env.tool_results(3));
    assert_eq!(r[1], "edited notes.md: 1 replacement at line 2");
    assert_eq!(r[2], "# Notes\nedited line\n[exit code 0]");
    crate::support::assert_write_refused(&r[3]);
    crate::assert_contains!(r[3], "[exit code 1]");
    assert!(!escaped.exists(), "the kernel let the write through");
    // Off a terminal each entry is a line, the edit followed by its diff.
    crate::assert_contains!(
        run.stderr,
        "✓ edit_file notes.md — edited notes.md: 1 replacement at line 2"
    );
    crate::assert_contains!(run.stderr, "    -first line\n    +edited line\n");
    crate::assert_contains!(run.stderr, "✓ shell $ cat notes.md — # Notes");
    // The one request that offered them carried every built-in, directly.
    let names = crate::support::tool_names(&env.fake.requests()[0].json());
    assert_eq!(
        names,
        [
            "read_file",
            "write_file",
            "edit_file",
            "glob",
            "grep",
            "shell",
            "shell_output",
            "shell_kill",
            "web_fetch",
            "update_plan"
        ]
    );
}

/// Ten built-in definitions (`update_plan`, `shell_output`, `shell_kill`
/// and `web_fetch` too) cost at most 5 KiB of every request.
#[test]
fn the_built_in_definitions_are_small() {
    let env = env_with("mode = \"auto\"", "");
    env.fake.push(Reply::text("hi"));
    env.run(&["-q", "hi"]).ok();
    let body = env.fake.requests()[0].json();
    let bytes = serde_json::to_string(&body["tools"]).unwrap().len();
    assert!(bytes <= 5120, "{bytes} bytes of tool definitions");
    let system = body["messages"][0]["content"].as_str().unwrap().to_string();
    crate::assert_contains!(system, "Working directory: ");
    crate::assert_contains!(
        system,
        format!(
            "Platform: {} {}; shell: bash",
            std::env::consts::OS,
            std::env::consts::ARCH
        )
    );
}

/// Without `[tools.shell] network = true` a command cannot connect to a
/// listening port (the fake provider's); with it, it can.
#[test]
fn the_sandbox_refuses_network_connections_unless_configured() {
    for (network, expect) in [(false, "refused"), (true, "connected")] {
        let tools = if network {
            "\n[tools.shell]\nnetwork = true\n"
        } else {
            ""
        };
        let env = env_with("mode = \"auto\"", tools);
        let port = env.fake.port();
        env.fake.push(reply(&[call(
            "net",
            "shell",
            json!({"command": format!(
                "if exec 3<>/dev/tcp/127.0.0.1/{port}; then echo connected; else echo refused; fi"
            )}),
        )]));
        env.fake.push(Reply::text("ok"));
        env.run(&["-q", "connect"]).ok();
        let r = contents(&env.tool_results(1));
        crate::assert_contains!(r[0], format!("{expect}\n[exit code 0]"));
        if !network {
            crate::assert_not_contains!(r[0], "connected");
        }
    }
}

/// A command that never ends is killed at its timeout with everything it
/// started; one that leaves a daemon behind returns when it exits, and
/// the daemon goes with it.
#[test]
fn a_timeout_and_a_daemon_take_their_whole_process_group_with_them() {
    let env = env_with("mode = \"auto\"", "");
    env.fake.push(reply(&[call(
        "forever",
        "shell",
        json!({"command": "sleep 300.101 & wait", "timeout_ms": 700}),
    )]));
    env.fake.push(reply(&[call(
        "daemon",
        "shell",
        json!({"command": "nohup sleep 300.102 >/dev/null 2>&1 & setsid sleep 300.103 & echo started"}),
    )]));
    env.fake.push(Reply::text("ok"));
    let started = std::time::Instant::now();
    env.run(&["-q", "go"]).ok();
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let timed_out = contents(&env.tool_results(1));
    crate::assert_contains!(
        timed_out[0],
        "[timed out after 700 ms; the command and what it started were killed]"
    );
    let daemon = contents(&env.tool_results(2));
    assert_eq!(daemon[1], "started\n[exit code 0]");
    for marker in ["300.101", "300.102", "300.103"] {
        crate::support::wait_for(&format!("sleep {marker} to be gone"), || {
            crate::support::processes_with_arg(marker).is_empty()
        });
    }
}

/// The shell's child gets no API key and the default disposition of
/// SIGXFSZ (hermes ignores it for itself).
#[test]
fn a_command_gets_a_scrubbed_environment_and_default_signals() {
    let env = env_with("mode = \"auto\"", "");
    env.fake.push(reply(&[call(
        "env",
        "shell",
        json!({"command": format!(
            "echo key=${{{}:-none}}; grep SigIgn /proc/self/status", crate::support::KEY_ENV
        )}),
    )]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let r = &contents(&env.tool_results(1))[0];
    crate::assert_contains!(r, "key=none\n");
    let ignored = r
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .map(|h| u64::from_str_radix(h.trim(), 16).unwrap())
        .unwrap();
    assert_eq!(ignored & (1 << (libc::SIGXFSZ - 1)), 0, "SIGXFSZ ignored");
}

/// Under hermes' default approvals a one-shot run reads inside the folder
/// without asking and refuses writes and commands, naming the flags; under
/// `auto` a write outside the working folder — through a symlink too — is
/// still asked, so refused.
#[test]
fn reads_run_and_writes_and_commands_are_asked_writes_outside_always() {
    let env = env_with("", "");
    std::fs::write(env.cwd.path().join("a.txt"), "alpha\n").unwrap();
    env.fake.push(reply(&[
        call("read", "read_file", json!({"path": "a.txt"})),
        call(
            "write",
            "write_file",
            json!({"path": "b.txt", "content": "b"}),
        ),
        call("shell", "shell", json!({"command": "touch c.txt"})),
    ]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).code(4); // refused for want of an approver: blocked
    let r = contents(&env.tool_results(1));
    assert_eq!(r[0], "     1\talpha\n");
    crate::assert_contains!(
        r[1],
        "`write_file` was not run: it needs the user's approval"
    );
    crate::assert_contains!(r[2], "`shell` was not run: it needs the user's approval");
    assert!(!env.cwd.path().join("b.txt").exists());
    assert!(!env.cwd.path().join("c.txt").exists());

    let env = env_with("mode = \"auto\"\nallow = [\"write_file\"]", "");
    let out = outside();
    std::os::unix::fs::symlink(&out, env.cwd.path().join("link")).unwrap();
    env.fake.push(reply(&[
        call(
            "direct",
            "write_file",
            json!({"path": out.join("x.txt"), "content": "x"}),
        ),
        call(
            "linked",
            "write_file",
            json!({"path": "link/y.txt", "content": "y"}),
        ),
        call(
            "inside",
            "write_file",
            json!({"path": "z.txt", "content": "z"}),
        ),
    ]));
    env.fake.push(Reply::text("ok"));
    let run = env.run(&["-q", "go"]);
    run.code(4); // refused for want of an approver: blocked
    let r = contents(&env.tool_results(1));
    for refused in &r[..2] {
        crate::assert_contains!(
            refused,
            "it needs the user's approval (a write outside the working folder)"
        );
    }
    assert_eq!(r[2], "created z.txt (1 lines, 1 bytes)");
    assert!(!out.join("x.txt").exists() && !out.join("y.txt").exists());
}

/// A batch of shells runs one at a time in entry order; two writes to one
/// file land in entry order.
#[test]
fn shells_run_one_at_a_time_and_writes_to_one_path_in_entry_order() {
    let env = env_with("mode = \"auto\"", "");
    let step = |label: &str| {
        format!("echo start {label} >> log; sleep 0.3; echo end {label} >> log; echo {label}")
    };
    env.fake.push(reply(&[
        call("one", "shell", json!({"command": step("one")})),
        call("two", "shell", json!({"command": step("two")})),
        call(
            "w1",
            "write_file",
            json!({"path": "same.txt", "content": "first"}),
        ),
        call(
            "w2",
            "write_file",
            json!({"path": "same.txt", "content": "second"}),
        ),
    ]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let log = std::fs::read_to_string(env.cwd.path().join("log")).unwrap();
    assert_eq!(log, "start one\nend one\nstart two\nend two\n");
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("same.txt")).unwrap(),
        "second"
    );
    let r = contents(&env.tool_results(1));
    // Each result says what its command changed, as it landed.
    assert_eq!(
        r[0],
        "one\n[exit code 0]\n[files changed: created log (18 B)]"
    );
    assert_eq!(
        r[1],
        "two\n[exit code 0]\n[files changed: modified log (36 B)]"
    );
}

/// Reads of the folder after writes to it, in one batch, see the folder
/// as the entries before them left it: `grep` the write before it and not
/// the one after (issue 53: it saw the second write in 5 of 5 runs).
#[test]
fn a_grep_between_two_writes_sees_the_first_and_not_the_second() {
    let env = env_with("mode = \"auto\"", "");
    let write = |label: &str, v: &str| {
        call(
            label,
            "write_file",
            json!({"path": "src/version.txt", "content": format!("version = {v}\n")}),
        )
    };
    let grep = |label: &str| {
        call(
            label,
            "grep",
            json!({"pattern": "version = ", "path": "src"}),
        )
    };
    env.fake.push(reply(&[
        write("w1", "v1"),
        grep("g1"),
        write("w2", "v2"),
        grep("g2"),
        call("l", "glob", json!({"pattern": "**/*.txt"})),
    ]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[1], "version = v1");
    crate::assert_not_contains!(r[1], "v2");
    crate::assert_contains!(r[3], "version = v2");
    crate::assert_contains!(r[4], "version.txt");
}

/// A command may read and write anything: in a split batch, each `cat`
/// runs after the write before it and before the write after it.
#[test]
fn a_command_between_two_writes_sees_the_first_and_not_the_second() {
    let env = env_with("mode = \"auto\"", "defer = \"always\"");
    let write = |v: &str| {
        (
            "write_file",
            json!({"path": "state.txt", "content": format!("{v}\n")}),
        )
    };
    let cat = ("shell", json!({"command": "cat state.txt"}));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("batch"),
        "tool_call",
        &crate::support::calls::batch(&[write("v1"), cat.clone(), write("v2"), cat]),
    )]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(r.len(), 4, "{r:?}");
    crate::assert_contains!(r[1], "v1\n[exit code 0]");
    crate::assert_contains!(r[3], "v2\n[exit code 0]");
}

/// Two reads of different files in one batch run together: each file is a
/// FIFO whose writer (this test) opens the second before the first, so
/// reads taken one after the other in entry order would wait on each other
/// for ever; together, both finish.
#[test]
fn two_reads_of_different_files_in_one_batch_run_together() {
    use std::os::unix::fs::OpenOptionsExt;
    use std::time::{Duration, Instant};
    let env = env_with("mode = \"auto\"", "");
    let (first, second) = (env.cwd.path().join("first"), env.cwd.path().join("second"));
    for f in [&first, &second] {
        assert!(std::process::Command::new("mkfifo")
            .arg(f)
            .status()
            .unwrap()
            .success());
    }
    env.fake.push(reply(&[
        call("a", "read_file", json!({"path": "first"})),
        call("b", "read_file", json!({"path": "second"})),
    ]));
    env.fake.push(Reply::text("ok"));
    let mut child = env.spawn(&["-q", "go"]);
    let (f, s) = (first.clone(), second.clone());
    let writer = std::thread::spawn(move || {
        std::fs::write(&s, "the second file\n").unwrap();
        std::fs::write(&f, "the first file\n").unwrap();
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            // Let the writer go: a reader of each FIFO that reads nothing.
            for p in [&second, &first] {
                let _ = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(p);
            }
            panic!("the two reads waited on each other: they ran one after the other");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.join().unwrap();
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "the first file");
    crate::assert_contains!(r[1], "the second file");
}

/// Hooks in Claude Code's format see `shell` with its command and can
/// block one entry while its sibling runs.
#[test]
fn a_hook_on_shell_blocks_one_command_and_lets_another_run() {
    let env = env_with("mode = \"auto\"", "");
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    std::fs::write(
        env.config_path(),
        format!(
            "{text}\n[[hooks.pre_tool_call]]\nmatch = \"shell\"\n\
             command = \"grep -q 'rm -rf' && {{ echo 'no rm -rf here' >&2; exit 2; }} || exit 0\"\n"
        ),
    )
    .unwrap();
    env.fake.push(reply(&[
        call("bad", "shell", json!({"command": "rm -rf ./build"})),
        call("good", "shell", json!({"command": "echo fine"})),
    ]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "no rm -rf here");
    assert_eq!(r[1], "fine\n[exit code 0]");
}

/// glob and grep on a real tree, .gitignore respected; read_file of a
/// binary file says what to do instead.
#[test]
fn glob_grep_and_read_on_a_real_tree() {
    let env = env_with("mode = \"auto\"", "");
    let cwd = env.cwd.path();
    std::fs::create_dir_all(cwd.join("src")).unwrap();
    std::fs::create_dir_all(cwd.join("target")).unwrap();
    std::fs::write(cwd.join(".gitignore"), "target/\n").unwrap();
    std::fs::write(cwd.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    std::fs::write(cwd.join("target/gen.rs"), "pub fn answer() {}\n").unwrap();
    std::fs::write(cwd.join("logo.png"), b"\x89PNG\r\n\x1a\n\x00\x00").unwrap();
    env.fake.push(reply(&[
        call("g", "glob", json!({"pattern": "**/*.rs"})),
        call("r", "grep", json!({"pattern": "fn answer"})),
        call("b", "read_file", json!({"path": "logo.png"})),
    ]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    assert_eq!(r[0], "src/lib.rs\n");
    assert_eq!(r[1], "src/lib.rs:1:pub fn answer() -> u32 { 42 }\n");
    crate::assert_contains!(r[2], "logo.png is a binary file (10 bytes)");
}

/// In a terminal an edit is asked with its target and a coloured diff of
/// the change (`v` shows it whole), and shown again once it ran.
#[cfg(target_os = "linux")]
#[test]
fn an_edit_is_asked_and_shown_as_a_coloured_diff() {
    use std::io::Write;
    let env = env_with("mode = \"ask\"", "");
    std::fs::write(env.cwd.path().join("notes.md"), "# Notes\nfirst line\n").unwrap();
    env.fake.push(reply(&[call(
        "edit",
        "edit_file",
        json!({"path": "notes.md", "old_string": "first line", "new_string": "edited line"}),
    )]));
    env.fake.push(Reply::text("edited"));
    let typescript = env.home.path().join("typescript");
    let (child, mut stdin) = super::repl::repl_in_a_terminal(&env, &typescript);
    let screen = || std::fs::read_to_string(&typescript).unwrap_or_default();
    stdin.write_all(b"fix the notes\r").unwrap();
    crate::support::wait_for("the question", || {
        screen().contains("answer v to see all") || screen().contains("v see all")
    });
    stdin.write_all(b"v\r").unwrap();
    crate::support::wait_for("the whole question", || {
        screen().matches("wants to run").count() >= 2
    });
    stdin.write_all(b"y\r").unwrap();
    crate::support::wait_for("the answer", || screen().contains("edited"));
    stdin.write_all(b"/quit\r").unwrap();
    let _ = child.wait_with_output();
    let s = screen();
    crate::assert_contains!(s, "? edit_file wants to run — mode ask");
    crate::assert_contains!(s, "    path: notes.md");
    crate::assert_contains!(s, "\u{1b}[31m-first line\u{1b}[0m");
    crate::assert_contains!(s, "\u{1b}[32m+edited line\u{1b}[0m");
    crate::assert_contains!(
        s,
        "edit_file notes.md — edited notes.md: 1 replacement at line 2"
    );
    // Asked, shown whole, and shown once more after it ran.
    assert_eq!(s.matches("+edited line").count(), 3, "{s}");
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("notes.md")).unwrap(),
        "# Notes\nedited line\n"
    );
}

/// A `tool_call` batch may name built-ins beside MCP tools: it is split,
/// and each entry goes down its own path.
#[test]
fn a_tool_call_batch_of_built_ins_and_mcp_tools_is_split() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "[tools]\nbuiltin = {ALL}\ndefer = \"always\"\n\n[approvals]\nmode = \"auto\"\n"
    ));
    env.add_test_server("t", "");
    env.prefill("t");
    std::fs::write(env.cwd.path().join("a.txt"), "alpha\n").unwrap();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("mixed"),
        "tool_call",
        &crate::support::calls::batch(&[
            ("read_file", json!({"path": "a.txt"})),
            ("mcp__t__echo", json!({"text": "beta"})),
        ]),
    )]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    assert_eq!(contents(&env.tool_results(1)), ["     1\talpha\n", "beta"]);
}

/// `--yolo` skips questions, never the sandbox; a stop (Ctrl-C) kills a
/// running command with everything it started.
#[test]
fn yolo_keeps_the_sandbox_and_a_stop_kills_the_command_group() {
    let env = env_with("", "");
    let out = outside();
    env.fake.push(reply(&[call(
        "escape",
        "shell",
        json!({"command": format!("touch {}/yolo.txt", out.display())}),
    )]));
    env.fake.push(Reply::text("ok"));
    env.run(&["--yolo", "-q", "go"]).ok();
    crate::support::assert_write_refused(&contents(&env.tool_results(1))[0]);
    assert!(!out.join("yolo.txt").exists());

    env.fake.push(reply(&[call(
        "long",
        "shell",
        json!({"command": "sleep 300.104 & wait"}),
    )]));
    let mut hermes = env.spawn(&["--yolo", "-q", "go"]);
    crate::support::wait_for("the command to start", || {
        !crate::support::processes_with_arg("300.104").is_empty()
    });
    crate::support::interrupt(&hermes);
    let status = hermes.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    crate::support::wait_for("the command's group to be killed", || {
        crate::support::processes_with_arg("300.104").is_empty()
    });
}

/// A write outside the folder is asked every time, so no answer to it may
/// stand: "always" is not offered, and an "always" (or "this session")
/// typed anyway allows that one write only — config.toml gains no rule,
/// and the next in-folder write is still asked.
#[test]
fn always_is_never_offered_for_a_write_outside_and_grants_only_once() {
    use std::io::{BufRead, Write};
    let env = env_with("mode = \"ask\"", "");
    let out = env.home.path().join("elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    env.fake.push(reply(&[call(
        "outside",
        "write_file",
        json!({"path": out.join("o.txt"), "content": "o"}),
    )]));
    env.fake.push(reply(&[call(
        "inside",
        "write_file",
        json!({"path": "i.txt", "content": "i"}),
    )]));
    env.fake.push(Reply::text("done"));
    let before = std::fs::read_to_string(env.config_path()).unwrap();
    let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "write"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut asked = Vec::new();
    for line in stdout.lines() {
        let ev: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if ev["type"] == "approval_asked" {
            let id = ev["id"].as_str().unwrap().to_string();
            let answer = if asked.is_empty() { "always" } else { "deny" };
            writeln!(stdin, r#"{{"id":"{id}","answer":"{answer}"}}"#).unwrap();
            asked.push(ev);
        }
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(
        asked.len(),
        2,
        "the in-folder write is asked too: {asked:?}"
    );
    assert!(asked[0]["grants"].is_null(), "{}", asked[0]);
    assert!(out.join("o.txt").exists(), "the one write answered ran");
    assert!(!env.cwd.path().join("i.txt").exists());
    assert_eq!(std::fs::read_to_string(env.config_path()).unwrap(), before);
}

/// Events show the entry's arguments as the model sent them — a relative
/// path stays relative — with the path hermes resolved (absolute, `..`
/// and links followed) beside them under `resolved_path`; the write lands
/// where that says.
#[test]
fn events_carry_the_models_own_arguments_and_the_resolved_path_beside_them() {
    use std::io::{BufRead, Write};
    let env = env_with("mode = \"ask\"", "");
    std::fs::create_dir_all(env.cwd.path().join("notes")).unwrap();
    let args = json!({"path": "./notes/../n.txt", "content": "n"});
    env.fake
        .push(reply(&[call("rel", "write_file", args.clone())]));
    env.fake.push(Reply::text("done"));
    let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "write"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    for line in stdout.lines() {
        let ev: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if ev["type"] == "approval_asked" {
            let id = ev["id"].as_str().unwrap();
            writeln!(stdin, r#"{{"id":"{id}","answer":"once"}}"#).unwrap();
        }
        if ["approval_asked", "tool_call_queued", "tool_call_started"]
            .contains(&ev["type"].as_str().unwrap_or(""))
        {
            seen.push(ev);
        }
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(seen.len(), 3, "{seen:?}");
    let real = std::fs::canonicalize(env.cwd.path()).unwrap().join("n.txt");
    for ev in &seen {
        let own = match &ev["arguments"] {
            serde_json::Value::String(s) => serde_json::from_str(s).unwrap(),
            v => v.clone(),
        };
        assert_eq!(own, args, "the model's own arguments: {ev}");
        assert_eq!(ev["resolved_path"], real.to_str().unwrap(), "{ev}");
    }
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "n");
}
