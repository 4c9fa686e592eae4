//! The development loop inside the sandbox (issue 67): a session's own
//! loopback, background processes started, read, stopped and ended with
//! their session, and what they write landing while they run — driven
//! through the real binary, as root and as a normal user.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::e2e::sandbox::{env_for, shells};
use crate::support::users;
use crate::support::{Reply, TestEnv};

/// A python3 one-liner that serves on 127.0.0.1:`port`, reaches itself,
/// and prints what it got — what a web project's tests do.
fn serve_and_reach(port: u16) -> String {
    format!(
        "python3 -c \"
import socket, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', {port})); s.listen()
def answer():
    c, _ = s.accept(); c.sendall(b'pong'); c.close()
threading.Thread(target=answer).start()
c = socket.create_connection(('127.0.0.1', {port})); print('got', c.recv(4).decode())
\""
    )
}

/// A python3 one-liner that connects to 127.0.0.1:`port` and prints
/// `reached BODY` or `refused ERROR`.
fn reach(port: u16) -> String {
    format!(
        "python3 -c \"
import urllib.request
try:
    print('reached', urllib.request.urlopen('http://127.0.0.1:{port}/', timeout=3).read()[:60])
except Exception as e:
    print('refused', e)
\""
    )
}

/// One model reply: the calls `(tool, arguments)` with fresh ids.
fn reply(tag: &str, calls: &[(&str, Value)]) -> Reply {
    let labels: Vec<String> = (0..calls.len()).map(|i| format!("{tag}-{i}")).collect();
    let list: Vec<(&str, &str, Value)> = calls
        .iter()
        .zip(&labels)
        .map(|((name, args), label)| (label.as_str(), *name, args.clone()))
        .collect();
    crate::support::calls::reply_calls(&list)
}

/// Runs `steps` (one model reply each, then "done") in one run; every
/// result's text, in order.
fn steps(env: &TestEnv, steps: &[Vec<(&str, Value)>]) -> Vec<String> {
    let before = env.fake.requests().len();
    for (i, s) in steps.iter().enumerate() {
        env.fake.push(reply(&format!("step{i}"), s));
    }
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let n = env.fake.requests().len();
    let all = env.results_of(n - 1);
    let _ = before;
    all.into_iter().map(|(_, text, _)| text).collect()
}

/// A free port on this machine's loopback.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Processes of this machine whose command line holds `needle`.
fn running(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if e.file_name()
            .to_str()
            .is_some_and(|n| n.parse::<u32>().is_ok())
        {
            if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
                let c = String::from_utf8_lossy(&c).replace('\0', " ");
                if c.contains(needle) && !c.contains("python3 -c") {
                    out.push(c);
                }
            }
        }
    }
    out
}

fn gone_within(needle: &str, within: Duration) -> Vec<String> {
    let start = Instant::now();
    loop {
        let left = running(needle);
        if left.is_empty() || start.elapsed() > within {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_command_serves_on_its_loopback_and_reaches_itself() {
    for user in users::each() {
        let env = env_for(user, "");
        let out = shells(&env, &[serve_and_reach(free_port())]);
        crate::assert_contains!(out[0], "got pong");
        crate::assert_contains!(out[0], "[exit code 0]");
    }
}

#[test]
fn the_hosts_loopback_services_are_out_of_reach() {
    for user in users::each() {
        let env = env_for(user, "");
        // A service of this machine's, as a local database or the
        // provider would be.
        let host = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = host.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for c in host.incoming().flatten() {
                use std::io::Write;
                let mut c = c;
                let _ = c.write_all(b"HTTP/1.0 200 OK\r\n\r\nsecret");
            }
        });
        let out = shells(&env, &[reach(port)]);
        crate::assert_contains!(out[0], "refused");
        assert!(!out[0].contains("secret"), "{}", out[0]);
    }
}

#[test]
fn a_background_server_is_reached_read_and_stopped() {
    for user in users::each() {
        let env = env_for(user, "");
        let port = free_port();
        let results = steps(
            &env,
            &[
                vec![(
                    "shell",
                    json!({"command": format!("exec python3 -m http.server {port} --bind 127.0.0.1"),
                           "background": true, "wait_for_port": port, "timeout_ms": 20000}),
                )],
                vec![("shell", json!({"command": reach(port)}))],
                vec![("shell_output", json!({"id": 1}))],
                vec![("shell_kill", json!({"id": 1}))],
                vec![("shell_output", json!({"id": 7}))],
            ],
        );
        crate::assert_contains!(results[0], "process 1 runs");
        crate::assert_contains!(results[0], &format!("listens on port {port}"));
        crate::assert_contains!(results[1], "reached b'<!DOCTYPE");
        // The server's log of that request.
        crate::assert_contains!(results[2], "\"GET / HTTP/1.1\" 200");
        crate::assert_contains!(results[3], "process 1 stopped (shell_kill)");
        crate::assert_contains!(results[4], "no background process 7: this session's are 1");
        assert!(running(&format!("http.server {port}")).is_empty());
    }
}

/// Spawns `hermes --json go` in `env` with `steps` queued; calls `each`
/// with every event line until it returns `false`, then lets the run end.
fn watch_json(env: &TestEnv, steps: &[Vec<(&str, Value)>], mut each: impl FnMut(&Value) -> bool) {
    use std::io::BufRead;
    for (i, s) in steps.iter().enumerate() {
        env.fake.push(reply(&format!("json{i}"), s));
    }
    env.fake.push(Reply::text("done"));
    let mut child = env
        .cmd()
        .args(["--json", "go"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut watching = true;
    for line in out.lines() {
        let Ok(line) = line else { break };
        if watching {
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                watching = each(&v);
            }
        }
    }
    child.wait().unwrap();
}

#[test]
fn a_sandbox_server_is_reached_from_the_host_only_once_forwarded() {
    for user in users::each() {
        for forward in ["never", "always"] {
            let env = env_for(
                user,
                &format!("[tools.shell]\nforward_ports = \"{forward}\""),
            );
            let port = free_port();
            let mut seen = Vec::new();
            watch_json(
                &env,
                &[
                    vec![(
                        "shell",
                        json!({"command": format!("exec python3 -m http.server {port} --bind 127.0.0.1"),
                               "background": true, "wait_for_port": port, "timeout_ms": 20000}),
                    )],
                    vec![("shell", json!({"command": "sleep 4"}))],
                ],
                |ev| {
                    let t = ev["type"].as_str().unwrap_or("").to_string();
                    if t == "tool_call_started"
                        && ev["arguments"].as_str().unwrap_or("").contains("sleep 4")
                    {
                        // The server runs; nothing was forwarded yet: not here.
                        let direct = std::net::TcpStream::connect(("127.0.0.1", port));
                        seen.push(format!(
                            "direct {}",
                            if direct.is_ok() { "reached" } else { "refused" }
                        ));
                    }
                    if t == "port_forwarded" {
                        let host = ev["host"].as_u64().unwrap() as u16;
                        let got = reqwest_get(host);
                        seen.push(format!("forwarded {}", got.lines().next().unwrap_or("")));
                    }
                    t != "turn_done"
                },
            );
            let seen = seen.join("\n");
            crate::assert_contains!(seen, "direct refused");
            if forward == "always" {
                crate::assert_contains!(seen, "forwarded HTTP/1.0 200 OK");
            } else {
                assert!(!seen.contains("forwarded"), "{seen}");
            }
        }
    }
}

/// `GET /` on this machine's `port`, the answer's head.
fn reqwest_get(port: u16) -> String {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return "refused".into();
    };
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = s.write_all(b"GET / HTTP/1.0\r\nHost: x\r\n\r\n");
    let mut got = String::new();
    let _ = s.read_to_string(&mut got);
    got
}

#[test]
fn a_watchers_writes_land_while_it_runs_and_what_would_run_is_held() {
    for user in users::each() {
        let env = env_for(user, "");
        crate::e2e::guard::git_init(env.cwd.path());
        let watcher = "for i in $(seq 1 200); do echo \"build $i\" > dist.txt; sleep 0.2; done";
        // The project's own `.git` is read-only inside; a repository the
        // process makes beside it is judged as git will see it.
        let planter = "git init -q nested && printf '#!/bin/sh\\ntouch pwned\\n' > nested/.git/hooks/post-commit && chmod +x nested/.git/hooks/post-commit; exec sleep 600";
        let results = steps(
            &env,
            &[
                vec![
                    ("shell", json!({"command": watcher, "background": true})),
                    ("shell", json!({"command": planter, "background": true})),
                ],
                vec![(
                    "shell",
                    json!({"command": "sleep 2.5; cat dist.txt; ls nested/.git/hooks/post-commit"}),
                )],
                vec![
                    ("shell_output", json!({"id": 1})),
                    ("shell_output", json!({"id": 2})),
                ],
            ],
        );
        // The next command, in its own overlay of the real folder, sees
        // what the watcher wrote: it landed while the watcher ran.
        crate::assert_contains!(results[2], "build ");
        crate::assert_contains!(results[2], "No such file or directory");
        crate::assert_contains!(results[3], "[files changed: created dist.txt");
        crate::assert_contains!(results[4], "[held back so far, not written: ");
        crate::assert_contains!(results[4], "nested/.git/hooks/post-commit — ");
        assert!(!env
            .cwd
            .path()
            .join("nested/.git/hooks/post-commit")
            .exists());
        crate::assert_contains!(
            std::fs::read_to_string(env.cwd.path().join("dist.txt")).unwrap(),
            "build "
        );
    }
}

#[test]
fn nothing_is_left_after_the_run_or_a_sigkilled_hermes() {
    for (i, user) in users::each().into_iter().enumerate() {
        let env = env_for(user, "");
        let tag = format!("3{}{i}.5", std::process::id() % 1000);
        // The run ends with its process running.
        steps(
            &env,
            &[vec![(
                "shell",
                json!({"command": format!("exec sleep {tag}"), "background": true}),
            )]],
        );
        assert_eq!(
            gone_within(&format!("sleep {tag}"), Duration::from_secs(5)),
            Vec::<String>::new()
        );
        // hermes is SIGKILLed while its process runs.
        let tag = format!("4{}{i}.5", std::process::id() % 1000);
        env.fake.push(reply(
            "bg",
            &[(
                "shell",
                json!({"command": format!("exec sleep {tag}"), "background": true}),
            )],
        ));
        env.fake
            .push(reply("fg", &[("shell", json!({"command": "sleep 60"}))]));
        let mut child = env.cmd().args(["-q", "go"]).spawn().unwrap();
        crate::support::wait_for("the background process", || {
            !running(&format!("sleep {tag}")).is_empty()
        });
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(
            gone_within(&format!("sleep {tag}"), Duration::from_secs(5)),
            Vec::<String>::new()
        );
    }
}

#[test]
fn bad_input_is_said_and_a_process_that_ends_at_once_is_not_waited_for() {
    let env = env_for(users::User::current(), "");
    let results = steps(
        &env,
        &[
            vec![(
                "shell",
                json!({"command": "sleep 1", "background": true, "wait_for_output": "(unclosed"}),
            )],
            vec![(
                "shell",
                json!({"command": "echo oops; exit 3", "background": true, "wait_for_output": "never printed", "timeout_ms": 30000}),
            )],
            vec![("shell_kill", json!({"id": 9}))],
        ],
    );
    crate::assert_contains!(results[0], "wait_for_output is not a regular expression");
    crate::assert_contains!(results[1], "oops");
    crate::assert_contains!(results[1], "process 1 exited with code 3");
    crate::assert_contains!(results[2], "no background process 9: this session's are 1");
}

#[test]
fn ps_lists_kill_stops_and_new_ends_them_in_the_terminal() {
    use crate::support::tmux::Tmux;
    let env = env_for(users::User::current(), "");
    let (one, two) = (
        format!("5{}1.5", std::process::id() % 1000),
        format!("5{}2.5", std::process::id() % 1000),
    );
    env.fake.push(reply(
        "bg",
        &[
            (
                "shell",
                json!({"command": format!("echo serving; exec sleep {one}"), "background": true,
                       "wait_for_output": "serving"}),
            ),
            (
                "shell",
                json!({"command": format!("exec sleep {two}"), "background": true}),
            ),
        ],
    ));
    env.fake.push(Reply::text("both started"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    term.wait_for("the turn's end", |s| s.contains("both started"));
    term.wait_for("the status line's count", |s| {
        s.contains("2 processes running")
    });
    term.type_line("/ps");
    term.wait_for("the list", |s| {
        s.contains("  1  running") && s.contains("  2  running")
    });
    let screen = term.screen();
    crate::assert_contains!(screen, &format!("  exec sleep {two}"));
    crate::assert_contains!(screen, "       serving");
    term.type_line("/kill 1");
    term.wait_for("the kill", |s| s.contains("process 1 stopped."));
    assert_eq!(
        gone_within(&format!("sleep {one}"), Duration::from_secs(5)),
        Vec::<String>::new()
    );
    assert!(!running(&format!("sleep {two}")).is_empty());
    term.wait_for("the count", |s| s.contains("1 process running"));
    term.type_line("/new");
    assert_eq!(
        gone_within(&format!("sleep {two}"), Duration::from_secs(5)),
        Vec::<String>::new()
    );
    term.type_line("/quit");
}

#[test]
fn a_one_shot_run_says_each_process_ended_before_its_summary() {
    let env = env_for(users::User::current(), "");
    env.fake.push(reply(
        "bg",
        &[
            (
                "shell",
                json!({"command": "exec sleep 600", "background": true}),
            ),
            (
                "shell",
                json!({"command": "echo built", "background": true, "timeout_ms": 10000}),
            ),
        ],
    ));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["--json", "go"]);
    let events = run.events();
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    let started = types.iter().filter(|t| **t == "process_started").count();
    assert_eq!(started, 2, "{types:?}");
    let exited: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "process_exited")
        .collect();
    assert_eq!(exited.len(), 2, "{types:?}");
    assert!(
        exited.iter().any(|e| e["exit_code"] == 0 && e["id"] == 2),
        "{exited:?}"
    );
    assert!(
        exited
            .iter()
            .any(|e| e["stopped"] == "the run ended" && e["id"] == 1),
        "{exited:?}"
    );
    let last = events.last().unwrap();
    assert_eq!(last["type"], "run_summary");
    assert_eq!(last["processes"], json!({"started": 2, "exited_ok": 1}));
}

#[test]
fn an_editor_sees_a_background_process_start_as_a_call_and_end_while_no_prompt_runs() {
    use crate::support::acp::{initialize, Editor};
    let env = env_for(users::User::current(), "");
    env.fake.push(reply(
        "bg",
        &[(
            "shell",
            json!({"command": "sleep 1.5; echo bye; exit 5", "background": true}),
        )],
    ));
    env.fake.push(Reply::text("started"));
    let mut editor = Editor::start(&env, &[]);
    editor.request("initialize", initialize()).unwrap();
    let r = editor
        .request(
            "session/new",
            json!({"cwd": env.cwd.path(), "mcpServers": []}),
        )
        .unwrap();
    let id = r["sessionId"].as_str().unwrap().to_string();
    let r = editor
        .request(
            "session/prompt",
            json!({"sessionId": id, "prompt": [{"type": "text", "text": "start it"}]}),
        )
        .unwrap();
    assert_eq!(r["stopReason"], "end_turn");
    let listed = editor
        .updates
        .iter()
        .any(|u| u["toolCallId"] == "process-1" && u["sessionUpdate"] == "tool_call");
    assert!(listed, "{:#?}", editor.updates);
    // The prompt has answered; the process ends a second later.
    editor.until("the process' end", |updates| {
        updates.iter().any(|u| {
            u["toolCallId"] == "process-1"
                && u["sessionUpdate"] == "tool_call_update"
                && u["status"] == "failed"
        })
    });
    let ended = editor
        .updates
        .iter()
        .find(|u| u["toolCallId"] == "process-1" && u["status"] == "failed")
        .unwrap();
    crate::assert_contains!(ended.to_string(), "background process 1 exited with code 5");
    editor.finish();
}

#[test]
fn at_the_prompt_an_exit_is_told_and_an_opened_port_is_offered_and_forwarded() {
    use crate::support::tmux::Tmux;
    let env = env_for(users::User::current(), "");
    let port = free_port();
    env.fake.push(reply(
        "bg",
        &[
            (
                "shell",
                json!({"command": format!("exec python3 -m http.server {port} --bind 127.0.0.1"),
                       "background": true}),
            ),
            (
                "shell",
                json!({"command": "sleep 2; exit 4", "background": true}),
            ),
        ],
    ));
    env.fake.push(Reply::text("both started"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    term.wait_for("the turn's end", |s| s.contains("both started"));
    // Nothing typed: the prompt waits, and is told.
    term.wait_for("the exit", |s| {
        s.contains("background process 2 exited with code 4")
    });
    term.wait_for("the offer", |s| {
        s.contains(&format!(
            "process 1 listens on port {port} in the sandbox — /forward {port}"
        ))
    });
    assert_eq!(
        reqwest_get(port),
        "refused",
        "not reached before it is forwarded"
    );
    term.type_line(&format!("/forward {port}"));
    term.wait_for("the forward", |s| {
        s.contains(&format!(
            "port {port} of the sandbox is at http://127.0.0.1:"
        ))
    });
    let host: u16 = term
        .screen()
        .lines()
        .find_map(|l| {
            l.split("http://127.0.0.1:")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap();
    crate::assert_contains!(reqwest_get(host), "HTTP/1.0 200 OK");
    term.type_line("/ps");
    term.wait_for("the forward in the list", |s| {
        s.contains(&format!("ports {port}→127.0.0.1:{host}"))
    });
    term.type_line("/quit");
}

/// With `sandbox = "landlock"` (no namespaces) there is no loopback of the
/// session's own, and a background process' writes land as made: when it
/// ends, what changed is named, and what should have been held fails its
/// result, as a foreground command's does.
#[test]
fn in_landlock_mode_a_background_process_runs_without_a_loopback_and_its_changes_are_named() {
    for user in users::each() {
        let env = env_for(user, "[tools.shell]\nsandbox = \"landlock\"");
        let results = steps(
            &env,
            &[
                vec![("shell", json!({"command": serve_and_reach(free_port())}))],
                vec![(
                    "shell",
                    json!({"command": "echo made > made.txt; mkdir -p nested/.git/hooks && echo 'touch x' > nested/.git/hooks/pre-commit; exec sleep 600",
                           "background": true, "wait_for_output": "never", "timeout_ms": 1500}),
                )],
                vec![("shell_kill", json!({"id": 1}))],
            ],
        );
        crate::assert_contains!(results[0], "PermissionError");
        crate::assert_contains!(results[2], "process 1 stopped (shell_kill)");
        crate::assert_contains!(results[2], "created made.txt");
        crate::assert_contains!(
            results[2],
            "[changed without review (the sandbox is Landlock and seccomp only here): nested/.git/hooks/pre-commit — "
        );
    }
}

/// A background command is asked like a foreground one, and the question
/// says it keeps running.
#[test]
fn the_question_about_a_background_command_says_it_keeps_running() {
    use std::io::{BufRead, Write};
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"shell\"]\n\n[approvals]\nmode = \"ask\"\n");
    env.fake.push(reply(
        "ask",
        &[
            (
                "shell",
                json!({"command": "exec sleep 600", "background": true}),
            ),
            ("shell", json!({"command": "true"})),
        ],
    ));
    env.fake.push(Reply::text("asked"));
    let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "go"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut why = Vec::new();
    for line in stdout.lines() {
        let ev: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if ev["type"] == "approval_asked" {
            why.push(ev["why"].as_str().unwrap().to_string());
            let id = ev["id"].as_str().unwrap();
            writeln!(stdin, r#"{{"id":"{id}","answer":"deny"}}"#).unwrap();
        }
    }
    child.wait().unwrap();
    assert_eq!(why.len(), 2, "{why:?}");
    crate::assert_contains!(why[0], "it keeps running in the background after this call");
    assert!(!why[1].contains("background"), "{}", why[1]);
}

/// At most 16 run at once in a session, and each for at most
/// `background_max_s`: past either, refused or stopped, saying what to do.
#[test]
fn the_seventeenth_is_refused_and_one_past_its_time_is_stopped() {
    let env = env_for(
        users::User::current(),
        "[tools.shell]\nbackground_max_s = 1",
    );
    let many: Vec<(&str, Value)> = (0..17)
        .map(|_| {
            (
                "shell",
                json!({"command": "exec sleep 600", "background": true}),
            )
        })
        .collect();
    let results = steps(
        &env,
        &[
            many,
            vec![("shell", json!({"command": "sleep 2"}))],
            vec![("shell_output", json!({"id": 16}))],
        ],
    );
    crate::assert_contains!(results[15], "process 16 runs");
    crate::assert_contains!(
        results[16],
        "16 background processes are running in this session, the most it may have; stop one with shell_kill"
    );
    crate::assert_contains!(
        results[18],
        "process 16 stopped (it ran for [tools.shell] background_max_s, 1 s)"
    );
}
