//! Subagents (the built-in `agent` tool) against the strict fake provider
//! answering three conversations at once, 300 ms a reply, and two real
//! MCP server processes: two subagents of one reply run together, each on
//! its own server, each server started once for the whole run; the
//! parent's answer quotes both; the session holds both conversations;
//! `--continue` extends the parent's last request; a stop midway leaves
//! every call paired; agent types in Claude Code's format wait for trust.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::calls::batch;
use crate::support::fake_provider::Recorded;
use crate::support::tmux::Tmux;
use crate::support::{call_id, records, Reply, TestEnv};

/// How long the fake takes to answer each request: a model's pace.
const PACE: Duration = Duration::from_millis(300);

const SUBAGENT: &str = "You are a subagent of hermes";

/// A home with the `agent` built-in, tools behind the bridge, and two
/// servers, `alpha` and `beta` (each its own test-server process).
fn env() -> TestEnv {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"agent\"]\ndefer = \"always\"\n");
    for name in ["alpha", "beta"] {
        env.add_test_server(name, "concurrency = \"parallel\"");
        env.prefill(name);
    }
    env
}

/// Which conversation a request belongs to: `parent`, `alpha` or `beta`.
fn who(req: &Recorded) -> &'static str {
    let body = req.body_str();
    if !body.contains(SUBAGENT) {
        "parent"
    } else if body.contains("Task alpha") {
        "alpha"
    } else {
        "beta"
    }
}

/// The fake's model: the parent sends two `agent` calls, then quotes both
/// results; each subagent echoes through its own server (`tool`, with
/// `arguments`), then answers with what it got.
fn model(tool: &'static str, arguments: Value) -> impl Fn(&Recorded) -> Reply + Send + Sync {
    move |req: &Recorded| {
        let done = req.tool_results();
        let reply = match who(req) {
            "parent" if done.is_empty() => Reply::tool_calls(&[
                (
                    &call_id("agentalpha"),
                    "agent",
                    &json!({"prompt": "Task alpha: echo `from alpha` with the alpha server.",
                        "description": "alpha echo"})
                    .to_string(),
                ),
                (
                    &call_id("agentbeta"),
                    "agent",
                    &json!({"prompt": "Task beta: echo `from beta` with the beta server.",
                        "description": "beta echo"})
                    .to_string(),
                ),
            ]),
            "parent" if done.len() == 2 => Reply::text(&format!(
                "Both subagents answered. 1: {} 2: {}",
                done[0], done[1]
            )),
            "parent" => Reply::text("Thanks noted."),
            side if done.is_empty() => {
                let mut args = arguments.clone();
                if let Some(t) = args.get_mut("text") {
                    *t = json!(format!("from {side}"));
                }
                Reply::tool_calls(&[(
                    &call_id(&format!("{side}call")),
                    "tool_call",
                    &batch(&[(&format!("mcp__{side}__{tool}"), args)]),
                )])
            }
            side => Reply::text(&format!("{side} got: {}", done[0])),
        };
        reply.delayed(PACE)
    }
}

/// The `pid` lines a server's log gained since `before` bytes: one per
/// process started.
fn starts(env: &TestEnv, server: &str, before: usize) -> usize {
    env.server_log(server)[before..]
        .matches("test server: pid")
        .count()
}

#[test]
fn two_subagents_of_one_reply_run_together_on_their_own_servers() {
    let env = env();
    env.fake.respond_with(model("echo", json!({"text": ""})));
    let logs: Vec<usize> = ["alpha", "beta"]
        .iter()
        .map(|s| env.server_log(s).len())
        .collect();
    let run = env.run(&["--json", "-q", "ask two subagents to echo"]);
    run.ok();

    // The parent's answer quotes both subagents' results.
    let events = run.events();
    let done = events.iter().find(|e| e["type"] == "turn_done").unwrap();
    let answer = done["text"].as_str().unwrap();
    crate::assert_contains!(answer, "alpha got: from alpha");
    crate::assert_contains!(answer, "beta got: from beta");

    // Six requests: the parent's two, and two for each subagent — the
    // subagents' overlapping: each started before the other finished.
    let reqs = env.fake.requests();
    assert_eq!(
        reqs.len(),
        6,
        "{:?}",
        reqs.iter().map(who).collect::<Vec<_>>()
    );
    let times = |side: &str| -> Vec<Instant> {
        reqs.iter()
            .filter(|r| who(r) == side)
            .map(|r| r.first_byte)
            .collect()
    };
    let (alpha, beta) = (times("alpha"), times("beta"));
    assert_eq!((alpha.len(), beta.len()), (2, 2));
    assert!(
        alpha[0] < beta[1] && beta[0] < alpha[1],
        "the two conversations overlap"
    );

    // One process per server for the whole run, shared by the subagents.
    assert_eq!(starts(&env, "alpha", logs[0]), 1);
    assert_eq!(starts(&env, "beta", logs[1]), 1);

    // `--json`: each subagent's events under its id.
    let sub: Vec<&Value> = events.iter().filter(|e| e["type"] == "subagent").collect();
    let ids: std::collections::BTreeSet<&str> =
        sub.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [call_id("agentalpha"), call_id("agentbeta")]
            .iter()
            .map(String::as_str)
            .collect()
    );
    assert!(sub
        .iter()
        .any(|e| e["event"]["type"] == "tool_call_started"
            && e["event"]["name"] == "mcp__alpha__echo"));

    // The session: the parent's conversation, and both subagents' under
    // their ids, each shown whole by `sessions show --agent`.
    let session = env.only_session();
    let recs = records(&session);
    for id in [call_id("agentalpha"), call_id("agentbeta")] {
        let own: Vec<&Value> = recs.iter().filter(|r| r["agent"] == json!(id)).collect();
        assert!(own.iter().any(|r| r["event"] == "subagent_started"), "{id}");
        assert!(own.iter().any(|r| r["type"] == "tool_result"), "{id}");
    }
    let sid = session.file_stem().unwrap().to_string_lossy().to_string();
    let shown = env.run(&["sessions", "show", &sid, "--agent", &call_id("agentbeta")]);
    shown.ok();
    crate::assert_contains!(shown.stdout, "Task beta");
    crate::assert_contains!(shown.stdout, "beta got: from beta");
    let all = env.run(&["sessions", "show", &sid]);
    crate::assert_contains!(all.stdout, &format!("--agent {}", call_id("agentalpha")));

    // The result the parent got points at the whole conversation.
    let parent_last = reqs.iter().rfind(|r| who(r) == "parent").unwrap();
    let told = parent_last.tool_results();
    crate::assert_contains!(told[0], "alpha got: from alpha");
    crate::assert_contains!(told[0], &format!("hermes sessions show {sid} --agent"));

    // --continue: the parent's next request starts with its last one.
    env.run(&["--continue", "-q", "thanks"]).ok();
    let parents: Vec<Recorded> = env
        .fake
        .requests()
        .into_iter()
        .filter(|r| who(r) == "parent")
        .collect();
    assert_eq!(parents.len(), 3);
    let before = parents[1].body_str();
    assert!(
        parents[2]
            .body_str()
            .starts_with(&before[..before.len() - 2]),
        "the continued request extends the last"
    );
}

/// A stop while both subagents' calls run: nothing left unpaired — the
/// parent's `agent` calls and each subagent's own calls all have results
/// in the session file — and no server process left behind.
#[cfg(unix)]
#[test]
fn a_stop_midway_leaves_every_call_paired() {
    let env = env();
    env.fake
        .respond_with(model("slow", json!({"ms": 20000, "label": "x"})));
    let child = env.spawn(&["-q", "ask two subagents to wait"]);
    crate::support::wait_for("both subagents' slow calls", || {
        env.server_log("alpha").contains("recv tools/call slow")
            && env.server_log("beta").contains("recv tools/call slow")
    });
    crate::support::stopped(child);
    let recs = records(&env.only_session());
    let agents: Vec<Option<String>> = vec![
        None,
        Some(call_id("agentalpha")),
        Some(call_id("agentbeta")),
    ];
    for agent in agents {
        let mine = |r: &&Value| r["agent"].as_str().map(str::to_string) == agent;
        let called = crate::support::tool_call_ids(recs.iter().filter(mine));
        let answered: Vec<String> = recs
            .iter()
            .filter(mine)
            .filter(|r| r["type"] == "tool_result")
            .map(|r| r["tool_call_id"].as_str().unwrap().to_string())
            .collect();
        assert!(!called.is_empty(), "{agent:?} made calls");
        for c in &called {
            assert!(answered.contains(c), "{agent:?}: call {c} unpaired");
        }
    }
    // Every server process the run started is gone.
    for server in ["alpha", "beta"] {
        let log = env.server_log(server);
        let pid: i32 = log
            .rsplit("test server: pid ")
            .next()
            .and_then(|l| l.split_whitespace().next())
            .and_then(|p| p.parse().ok())
            .unwrap();
        crate::support::wait_for(&format!("{server} ({pid}) to be gone"), || {
            // SAFETY: kill(2) with signal 0 only asks whether `pid` exists.
            unsafe { libc::kill(pid, 0) != 0 }
        });
    }
}

/// Agent types in Claude Code's format: a project's wait for `hermes
/// trust`; once trusted, a subagent of that type gets its prompt and only
/// its tools — a call outside them is refused at the scope check.
#[test]
fn a_projects_agent_types_wait_for_trust_and_hold_their_subagents_to_their_tools() {
    let env = env();
    let agents = env.cwd.path().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("alpha-only.md"),
        "---\nname: alpha-only\ndescription: Works with the alpha server only.\n\
         tools: mcp__alpha, Read\nmodel: inherit\n---\n\nYou are the alpha specialist.\n",
    )
    .unwrap();
    env.fake.push(Reply::text("no subagent"));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    crate::assert_contains!(run.stderr, "agent type(s) of this project");
    crate::assert_contains!(run.stderr, "run `hermes trust` to use them");
    assert!(!env.fake.requests()[0].body_str().contains("alpha-only"));

    let trusted = env.run(&["trust"]);
    trusted.ok();
    crate::assert_contains!(
        trusted.stderr,
        "and its agent types, as they are now (a change asks again):\n    .claude/agents/alpha-only.md"
    );
    crate::assert_not_contains!(trusted.stderr, "cannot show it");
    env.fake.clear_requests();
    let typed =
        json!({"prompt": "Task beta: use beta.", "description": "typed", "type": "alpha-only"});
    env.fake.push(Reply::tool_calls(&[(
        &call_id("typed"),
        "agent",
        &typed.to_string(),
    )]));
    // The subagent reaches for beta, outside its type's tools.
    env.fake.push(Reply::tool_calls(&[(
        &call_id("outside"),
        "tool_call",
        &batch(&[("mcp__beta__echo", json!({"text": "x"}))]),
    )]));
    env.fake.push(Reply::text("could not use beta"));
    env.fake.push(Reply::text("the subagent could not"));
    let run = env.run(&["-q", "use the alpha-only type"]);
    run.ok();
    let reqs = env.fake.requests();
    crate::assert_contains!(
        reqs[0].body_str(),
        "- alpha-only: Works with the alpha server only."
    );
    let sub = reqs[1].body_str();
    crate::assert_contains!(sub, "You are the alpha specialist.");
    let refused = reqs[2].tool_results();
    crate::assert_contains!(refused[0], "not among the tools this agent may use");
    assert!(!env.server_log("beta").contains("recv tools/call echo"));
}

/// Under `mode = "ask"`: the parent starts one subagent (`alpha echo`),
/// which sends `entries` as one batch, then answers `said`; the parent
/// then answers `answer`.
fn one_asking_subagent(entries: &[(&str, Value)], said: &str, answer: &str) -> TestEnv {
    let env = env();
    env.set_approvals("mode = \"ask\"");
    let task = json!({"prompt": "Task alpha: run the calls.", "description": "alpha echo"});
    env.fake.push(Reply::tool_calls(&[(
        &call_id("agentalpha"),
        "agent",
        &task.to_string(),
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("alphacall"),
        "tool_call",
        &batch(entries),
    )]));
    env.fake.push(Reply::text(said));
    env.fake.push(Reply::text(answer));
    env
}

/// In the terminal: a subagent's calls are asked in the parent's
/// terminal, the question naming the subagent; its slow call shows on the
/// nested line under the `agent` entry while it runs, though a quick call
/// beside it finished later; what is answered runs.
#[test]
fn a_subagents_question_names_it_and_its_step_shows_under_its_entry() {
    let env = one_asking_subagent(
        &[
            ("mcp__alpha__echo", json!({"text": "hello"})),
            ("mcp__alpha__slow", json!({"ms": 3000, "label": "nap"})),
        ],
        "alpha got: hello",
        "The subagent said hello.",
    );
    let term = Tmux::start(&env, &[]);
    term.type_line("start a subagent");
    for tool in ["mcp__alpha__echo", "mcp__alpha__slow"] {
        term.wait_for(tool, |s| {
            s.contains(tool) && s.contains("asked by subagent [alpha echo]")
        });
        term.type_line("y");
    }
    term.wait_for("the slow call on the nested line", |s| {
        s.lines()
            .any(|l| l.contains("↳ [alpha echo] mcp__alpha__slow") && l.contains("running"))
    });
    term.wait_for("the answer", |s| s.contains("The subagent said hello."));
    assert!(env.server_log("alpha").contains("recv tools/call echo"));
    term.type_line("/quit");
}

/// Claude Code's SubagentStart and SubagentStop hooks, in the user's
/// `~/.claude/settings.json` as its users write them, each with a matcher
/// on the agent type: SubagentStart's `additionalContext` goes with the
/// scout's prompt (not the reviewer's); the SubagentStop script reads the
/// event and, the first time, blocks with a reason — so the reviewer goes
/// on with that reason as its next prompt — and lets it stop the second
/// time (`stop_hook_active`). The scout's end and the parent's run no
/// SubagentStop.
#[test]
fn claude_code_subagent_hooks_add_context_and_send_a_typed_subagent_on_once() {
    let env = env();
    let claude = env.home.path().join(".claude");
    std::fs::create_dir_all(claude.join("agents")).unwrap();
    for (name, body) in [("reviewer", "You review."), ("scout", "You scout.")] {
        std::fs::write(
            claude.join("agents").join(format!("{name}.md")),
            format!("---\nname: {name}\ndescription: The {name}.\n---\n\n{body}\n"),
        )
        .unwrap();
    }
    let log = env.tmp().join("subagent-stop.jsonl");
    std::fs::write(
        claude.join("check-review.py"),
        format!(
            r#"import json, sys
event = json.load(sys.stdin)
with open({log:?}, "a") as f:
    f.write(json.dumps(event) + "\n")
if not event["stop_hook_active"]:
    print(json.dumps({{"decision": "block", "reason": "List the files you reviewed."}}))
"#,
            log = log.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(
        claude.join("settings.json"),
        r#"{
  "hooks": {
    "SubagentStart": [
      {
        "matcher": "scout",
        "hooks": [
          {
            "type": "command",
            "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SubagentStart\", \"additionalContext\": \"Scout only the src folder.\"}}'"
          }
        ]
      }
    ],
    "SubagentStop": [
      {
        "matcher": "reviewer",
        "hooks": [{ "type": "command", "command": "python3 ~/.claude/check-review.py" }]
      }
    ]
  }
}
"#,
    )
    .unwrap();
    let start = |id: &str, kind: &str| {
        (
            call_id(id),
            json!({"prompt": format!("Task {kind}."), "description": kind, "type": kind})
                .to_string(),
        )
    };
    let (review, scout) = (start("review", "reviewer"), start("scout", "scout"));
    env.fake.respond_with(move |req: &Recorded| {
        let body = req.body_str();
        let done = req.tool_results();
        // A subagent's system prompt is its type's body.
        if !body.contains("You review.") && !body.contains("You scout.") {
            return if done.is_empty() {
                Reply::tool_calls(&[
                    (&review.0, "agent", &review.1),
                    (&scout.0, "agent", &scout.1),
                ])
            } else {
                Reply::text(&format!("Reports: {}", done.join(" | ")))
            };
        }
        if body.contains("You scout.") {
            return Reply::text("scouted");
        }
        if body.contains("List the files you reviewed.") {
            Reply::text("reviewed: a.rs, b.rs")
        } else {
            Reply::text("reviewed")
        }
    });
    let run = env.run(&["-q", "review and scout"]);
    run.ok();
    let answer = run.stdout.clone();
    crate::assert_contains!(answer, "reviewed: a.rs, b.rs");
    crate::assert_contains!(answer, "scouted");
    let reqs = env.fake.requests();
    let first = |marker: &str| {
        reqs.iter()
            .find(|r| r.body_str().contains(marker))
            .unwrap()
            .body_str()
            .to_string()
    };
    crate::assert_contains!(
        first("You scout."),
        "Task scout.\\n\\n[hook] Scout only the src folder."
    );
    crate::assert_not_contains!(first("You review."), "Scout only");

    let events: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 2, "{events:?}");
    let session = env.only_session();
    for (event, active) in events.iter().zip([false, true]) {
        assert_eq!(event["hook_event_name"], "SubagentStop");
        assert_eq!(event["agent_id"], json!(call_id("review")));
        assert_eq!(event["agent_type"], "reviewer");
        assert_eq!(event["stop_hook_active"], active);
        assert_eq!(
            event["agent_transcript_path"].as_str().unwrap(),
            session.display().to_string()
        );
    }
}

/// A script (`--json --json-answers`) is asked a subagent's questions: each
/// comes inside the subagent's `subagent` event, and is answered on stdin
/// by its `id` like the parent's; what it denies does not run.
#[test]
fn a_json_script_answers_a_subagents_questions_by_id() {
    use std::io::{BufRead, Write};
    let env = one_asking_subagent(
        &[
            ("mcp__alpha__echo", json!({"text": "allowed"})),
            ("mcp__alpha__echo", json!({"text": "denied"})),
        ],
        "alpha: one ran",
        "The subagent ran one.",
    );
    let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "start a subagent"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut asked = Vec::new();
    for line in stdout.lines() {
        let ev: Value = serde_json::from_str(&line.unwrap()).unwrap();
        assert_ne!(ev["type"], "approval_asked", "the parent asks nothing");
        if ev["type"] == "subagent" && ev["event"]["type"] == "approval_asked" {
            assert_eq!(ev["id"], json!(call_id("agentalpha")));
            let q = &ev["event"];
            let answer = match q["arguments"]["text"].as_str() {
                Some("allowed") => "once",
                _ => "deny",
            };
            writeln!(stdin, r#"{{"id":{},"answer":"{answer}"}}"#, q["id"]).unwrap();
            asked.push(q.clone());
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(asked.len(), 2, "{asked:?}");
    let log = env.server_log("alpha");
    assert_eq!(log.matches("recv tools/call echo").count(), 1, "{log}");
    let results = env.fake.requests()[2].tool_results();
    crate::assert_contains!(results[0], "allowed");
    crate::assert_contains!(results[1], "denied");
}

/// A subagent waiting for an answer shows what it waits for on its line
/// under the `agent` entry, after the call it finished before — not a
/// stale `thinking…`.
#[test]
fn a_subagent_waiting_for_an_answer_shows_its_last_call_and_what_it_waits_for() {
    let env = env();
    env.set_approvals("mode = \"ask\"");
    let task = json!({"prompt": "Task alpha: echo, then nap.", "description": "alpha echo"});
    env.fake.push(Reply::tool_calls(&[(
        &call_id("agentalpha"),
        "agent",
        &task.to_string(),
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("alphaecho"),
        "tool_call",
        &batch(&[("mcp__alpha__echo", json!({"text": "hello"}))]),
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("alphanap"),
        "tool_call",
        &batch(&[("mcp__alpha__slow", json!({"ms": 100, "label": "nap"}))]),
    )]));
    env.fake.push(Reply::text("alpha napped"));
    env.fake.push(Reply::text("The subagent napped."));
    let term = Tmux::start(&env, &[]);
    term.type_line("start a subagent");
    term.wait_for("the echo asked", |s| {
        s.contains("mcp__alpha__echo") && s.contains("asked by subagent [alpha echo]")
    });
    term.type_line("y");
    term.wait_for("the nap asked, the line saying so", |s| {
        s.lines().any(|l| {
            // Cut with … at the block's 80 columns.
            l.contains("↳ [alpha echo] ✓ mcp__alpha__echo · waiting for your answer: mcp__alpha_…")
        })
    });
    term.type_line("y");
    term.wait_for("the answer", |s| s.contains("The subagent napped."));
    term.type_line("/quit");
}
