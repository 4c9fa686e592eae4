//! Long sessions against a model with a small window: the fake refuses a
//! request past it with each API's real 400 and reports each request's true
//! size, so hermes' meter, its compaction and its recovery are tested
//! against what a provider really does.

use crate::support::fake_provider::{Api, Block, Recorded, Reply, Stop};
use crate::support::{records, TestEnv};

const WINDOW: u64 = 8_000;

/// A test per API, each running `$body` against it.
macro_rules! per_api {
    ($body:ident: $openai:ident, $anthropic:ident, $bedrock:ident, $gemini:ident, $responses:ident) => {
        per_api!($body: $openai, $anthropic, $bedrock);
        #[test]
        fn $gemini() {
            $body(Api::Gemini);
        }
        #[test]
        fn $responses() {
            $body(Api::Responses);
        }
    };
    ($body:ident: $openai:ident, $anthropic:ident, $bedrock:ident) => {
        #[test]
        fn $openai() {
            $body(Api::OpenAi);
        }
        #[test]
        fn $anthropic() {
            $body(Api::Anthropic);
        }
        #[test]
        fn $bedrock() {
            $body(Api::Bedrock);
        }
    };
}

/// Marks the request that asks for a summary (hermes' instruction).
const SUMMARY_ASK: &str = "is about to outgrow the model's context window";

/// About 6 KB of a user's message: part `n` of an incident report, plain
/// words (no quotes or newlines, so the JSON bodies carry it as it is).
fn long_message(n: usize) -> String {
    let mut s = format!("Part {n} of the incident report for the payments cluster. ");
    let lines = [
        "At 02:14 UTC the ledger-writer pods on node pool blue started to restart in a loop",
        "the readiness probe on port 8443 timed out after 3 s while the JVM was still warming up",
        "the autoscaler added four replicas which made the connection storm against postgres worse",
        "pgbouncer hit max_client_conn at 2000 and refused new sessions for about nine minutes",
        "the retry budget in the checkout service was exhausted and customers saw error 502",
        "the on-call engineer rolled back deploy 4117 of ledger-writer at 02:41 UTC",
    ];
    let mut i = 0;
    while s.len() < 6_000 {
        s.push_str(&format!("Item {n}.{i}: {}. ", lines[i % lines.len()]));
        i += 1;
    }
    s
}

/// Answers a summary request with a summary, any other with a short note.
fn answer(req: &Recorded) -> Reply {
    if req.body_str().contains(SUMMARY_ASK) {
        Reply::text(
            "The user is writing an incident report for the payments cluster in parts. So far: \
             ledger-writer pods restarted in a loop after deploy 4117, readiness probe timeouts on \
             port 8443, autoscaler made a connection storm, pgbouncer max_client_conn 2000 was hit, \
             checkout returned 502, rollback at 02:41 UTC. Each part was acknowledged.",
        )
    } else {
        Reply::text("Noted; send the next part.")
    }
}

fn small_window(api: Api) -> TestEnv {
    let env = TestEnv::with_api(api);
    env.fake.with_window(WINDOW).respond_with(answer);
    // The fake provider's table comes last in the file: this key is its.
    append_config(&env, &format!("context_window = {WINDOW}\n"));
    env
}

/// Adds `lines` at the end of the config (inside `[providers.fake]`, unless
/// they open a table of their own).
fn append_config(env: &TestEnv, lines: &str) {
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str(lines);
    std::fs::write(env.config_path(), text).unwrap();
}

/// The first `usage` event of a `--json` run.
fn usage_event(run: &crate::support::Run) -> serde_json::Value {
    run.events()
        .into_iter()
        .find(|e| e["type"] == "usage")
        .expect("a usage event")
}

/// How many requests do not start with the request before them: the
/// points where the prompt cache starts over. Each is described on stderr,
/// which a failing test shows.
fn prefix_breaks(reqs: &[Recorded]) -> usize {
    let breaks = crate::support::wire::prefix_breaks(reqs);
    for b in &breaks {
        eprintln!("{b}");
    }
    breaks.len()
}

/// Sends part `n` of the report in a run of its own (the first starts the
/// session, the others `--continue` it); the part as sent.
fn send_part(env: &TestEnv, n: usize) -> String {
    let msg = long_message(n);
    let mut args = vec!["-q", msg.as_str()];
    if n > 1 {
        args.insert(0, "--continue");
    }
    env.run(&args).ok();
    msg
}

/// Twelve ~6 KB messages, one run then eleven `--continue`s, under an
/// 8 000-token window: no run fails, no request is refused, the newest
/// message is sent whole, and compactions break the cache at most 6 times.
fn twelve_long_turns(api: Api) {
    let env = small_window(api);
    for n in 1..=12 {
        let msg = send_part(&env, n);
        let reqs = env.fake.requests();
        let last = reqs.last().unwrap();
        assert!(
            last.body_str().contains(&msg),
            "turn {n}: the newest message is not in the last request"
        );
    }
    assert_eq!(env.fake.overflows(), 0, "a request was refused as too long");
    let reqs = env.fake.requests();
    let breaks = prefix_breaks(&reqs);
    let summaries = reqs
        .iter()
        .filter(|r| r.body_str().contains(SUMMARY_ASK))
        .count();
    assert!(summaries >= 2, "{summaries} summaries for 12 turns of 6 KB");
    eprintln!(
        "{api:?}: {} requests, {summaries} summaries, {breaks} prefix breaks",
        reqs.len()
    );
    assert!(
        breaks <= 6,
        "{breaks} requests broke the prefix of the one before ({} requests, {summaries} summaries)",
        reqs.len()
    );
    // Every request stayed inside the window, with room for the answer.
    for r in &reqs {
        let t = crate::support::fake_provider::tokens(r);
        assert!(t <= WINDOW, "a request of {t} tokens");
    }
    // The file says what happened, and a last --continue replays it.
    let compactions = records(&env.only_session())
        .into_iter()
        .filter(|r| r["type"] == "compaction")
        .count();
    assert!(compactions >= 2, "{compactions} compaction records");
}

per_api!(
    twelve_long_turns: twelve_long_turns_fit_an_8000_token_window_openai,
    twelve_long_turns_fit_an_8000_token_window_anthropic,
    twelve_long_turns_fit_an_8000_token_window_bedrock,
    twelve_long_turns_fit_an_8000_token_window_gemini,
    twelve_long_turns_fit_an_8000_token_window_responses
);

/// A session grown past the window before hermes compacted (here: with no
/// window known, so nothing compacts ahead) is continued: the provider's
/// refusal names the window, hermes compacts and sends again, once.
fn a_refusal_compacts_and_retries(api: Api) {
    let env = TestEnv::with_api(api);
    // A window no request comes near: each answer reports its request's
    // true size, as a real provider's usage does.
    env.fake.with_window(1_000_000).respond_with(answer);
    for n in 1..=3 {
        send_part(&env, n);
    }
    // The model's window turns out smaller than the session.
    env.fake.with_window(5_000);
    let before = env.fake.requests().len();
    let msg = long_message(4);
    let run = env.run(&["--continue", "--json", "-q", &msg]);
    run.ok();
    assert_eq!(env.fake.overflows(), 1, "one refusal, then it fits");
    // Refused, then summaries (the history is longer than one summary
    // request may carry: two, a window's worth at a time), then answered.
    let reqs = &env.fake.requests()[before..];
    let (last, summaries) = reqs[1..].split_last().unwrap();
    // gpt-5's window is known (400 000 tokens) and the refusal names no
    // numbers: hermes keeps the window and raises its rate, so one summary
    // request carries the history. The others know no window until the
    // refusal's numbers (or the refused request's size) give one.
    let want = if api == Api::Responses { 1 } else { 2 };
    assert_eq!(summaries.len(), want, "{} requests", reqs.len());
    assert!(summaries.iter().all(|r| r.body_str().contains(SUMMARY_ASK)));
    assert!(last.body_str().contains(&msg) && !last.body_str().contains(SUMMARY_ASK));
    // The second summary carries the first, not the messages it replaced.
    assert!(!summaries[want - 1].body_str().contains(&long_message(1)) || want == 1);
    let compacted: Vec<_> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "compacted")
        .collect();
    assert_eq!(compacted.len(), 1);
    assert_eq!(compacted[0]["reason"], "refused");
}

per_api!(
    a_refusal_compacts_and_retries: a_context_refusal_compacts_and_retries_openai,
    a_context_refusal_compacts_and_retries_anthropic,
    a_context_refusal_compacts_and_retries_bedrock,
    a_context_refusal_compacts_and_retries_gemini,
    a_context_refusal_compacts_and_retries_responses
);

/// With no window in config or hermes' table, the provider's model listing
/// (vLLM's `max_model_len`) gives it, asked once a run and only once the
/// conversation is large enough to matter; compaction then keeps every
/// request inside it.
#[test]
fn the_window_a_server_lists_is_used_when_nothing_else_names_one() {
    the_window_a_server_lists_is_used(Api::OpenAi);
}

/// The same with Gemini's listing (`models[].inputTokenLimit`).
#[test]
fn the_window_geminis_listing_gives_is_used() {
    the_window_a_server_lists_is_used(Api::Gemini);
}

fn the_window_a_server_lists_is_used(api: Api) {
    let env = TestEnv::with_api(api);
    env.fake
        .with_window(WINDOW)
        .list_window(WINDOW)
        .respond_with(answer);
    env.run(&["-q", "a short question"]).ok();
    assert_eq!(
        env.fake.listings(),
        0,
        "a small request asks for no listing"
    );
    for n in 1..=5 {
        send_part(&env, n + 1);
    }
    assert_eq!(env.fake.overflows(), 0, "a request was refused as too long");
    assert!(env.fake.listings() >= 1);
    let compactions = records(&env.only_session())
        .into_iter()
        .filter(|r| r["type"] == "compaction")
        .count();
    assert!(compactions >= 1);
}

/// `--json` usage events say how full the window is; a warning comes once
/// it passes `warn_at`.
#[test]
fn usage_events_carry_the_window_and_a_warning_comes_at_the_threshold() {
    let env = small_window(Api::OpenAi);
    append_config(&env, "[context]\nwarn_at = 0.5\n");
    let run = env.run(&["--json", "-q", &long_message(1)]);
    run.ok();
    let usage = usage_event(&run);
    assert_eq!(usage["context_window"], WINDOW);
    let used = usage["context_tokens"].as_u64().unwrap();
    let prompt = usage["prompt_tokens"].as_u64().unwrap();
    assert!(used > prompt && used < WINDOW, "{usage}");
    let run = env.run(&["--continue", "--json", "-q", &long_message(2)]);
    run.ok();
    let run = env.run(&["--continue", "--json", "-q", &long_message(3)]);
    run.ok();
    let warnings: Vec<String> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "warning")
        .map(|e| e["message"].as_str().unwrap().to_string())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("of the context window of test-model")),
        "{warnings:?}"
    );
}

/// A window set per model wins over the provider's; a bad share is refused
/// naming its line.
#[test]
fn a_models_own_window_wins_and_a_bad_share_names_its_line() {
    let env = TestEnv::new();
    env.fake.respond_with(answer);
    append_config(
        &env,
        "context_window = 100000\n[providers.fake.models.\"test-model\"]\ncontext_window = 9000\n",
    );
    let run = env.run(&["--json", "-q", "hi"]);
    run.ok();
    assert_eq!(usage_event(&run)["context_window"], 9000);
    append_config(&env, "[context]\ncompact_at = 80\n");
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    let line = run.error_line();
    assert!(line.contains("context.compact_at"), "{line}");
    assert!(line.contains("at most 1"), "{line}");
}

/// In the REPL: each answer is followed by how full the window is;
/// `/compact FOCUS` summarises on demand, the focus in its request, and
/// the next turn starts from the summary; `/usage` says the share.
#[test]
fn the_repl_shows_the_window_and_compacts_on_demand() {
    let env = small_window(Api::OpenAi);
    let input = format!(
        "{}\n{}\n/compact the pgbouncer limits\n/usage\n/context\nand now?\n/quit\n",
        long_message(1),
        long_message(2)
    );
    let run = env.run_with_stdin(&["--interactive"], input);
    run.ok();
    crate::assert_contains!(run.stderr, "compacted the conversation: about ");
    crate::assert_contains!(run.stderr, "older messages summarised");
    crate::assert_contains!(run.stderr, "tokens\n");
    // /context: the parts of the next request.
    crate::assert_contains!(run.stderr, "the next request carries");
    crate::assert_contains!(run.stderr, "  system prompt ");
    crate::assert_contains!(run.stderr, "  conversation (");
    crate::assert_contains!(run.stderr, "  total ");
    assert!(
        run.stderr.matches("context ").count() >= 3,
        "a context line after each answer and after /compact and /usage:\n{}",
        run.stderr
    );
    let reqs = env.fake.requests();
    let ask = reqs
        .iter()
        .find(|r| r.body_str().contains(SUMMARY_ASK))
        .expect("a summary request");
    crate::assert_contains!(ask.body_str(), "most room to: the pgbouncer limits");
    let last = reqs.last().unwrap().body_str();
    crate::assert_contains!(last, "and now?");
    crate::assert_contains!(last, "replaced by this summary");
    assert!(
        !last.contains(&long_message(1)),
        "the summarised part is gone"
    );
    let kinds: Vec<String> = records(&env.only_session())
        .into_iter()
        .filter(|r| r["type"] == "compaction")
        .map(|r| r["reason"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["requested"]);
}

/// With thinking on, every answer carries signed thinking; compaction keeps
/// each kept message's blocks as they came (the strict fake checks every
/// signature on every request) and drops the summarised ones whole.
fn signed_thinking_survives_compaction(api: Api) {
    let env = small_window(api);
    env.fake.respond_with(|req| {
        if req.body_str().contains(SUMMARY_ASK) {
            answer(req)
        } else {
            Reply::turn(
                vec![
                    Block::Thinking("The user sends the report in parts; acknowledge.".into()),
                    Block::Text("Noted; send the next part.".into()),
                ],
                Stop::EndTurn,
            )
        }
    });
    append_config(&env, "thinking_budget = 1024\nmax_tokens = 2048\n");
    for n in 1..=8 {
        send_part(&env, n);
    }
    assert_eq!(env.fake.overflows(), 0);
    let reqs = env.fake.requests();
    assert!(reqs.iter().any(|r| r.body_str().contains(SUMMARY_ASK)));
    // Anthropic's and Bedrock's thinking blocks, Gemini's signed parts,
    // Responses' reasoning items, in a request's history.
    let signed = |r: &Recorded| {
        let body = r.json();
        let turns = body["messages"]
            .as_array()
            .or(body["contents"].as_array())
            .or(body["input"].as_array())
            .cloned()
            .unwrap_or_default();
        turns
            .iter()
            .flat_map(
                |m| match m["content"].as_array().or(m["parts"].as_array()) {
                    Some(blocks) => blocks.clone(),
                    None => vec![m.clone()],
                },
            )
            .filter(|b| {
                b["type"] == "thinking"
                    || b["reasoningContent"].is_object()
                    || b["thoughtSignature"].is_string()
                    || b["type"] == "reasoning"
            })
            .count()
    };
    // After the first compaction, a later request still carries a kept
    // answer's signed thinking (the fake has checked each one).
    let first_summary = reqs
        .iter()
        .position(|r| r.body_str().contains(SUMMARY_ASK))
        .unwrap();
    assert!(
        reqs[first_summary + 1..]
            .iter()
            .filter(|r| !r.body_str().contains(SUMMARY_ASK))
            .any(|r| signed(r) >= 1),
        "the kept answers keep their thinking"
    );
}

// Chat Completions has no signed thinking to keep.
#[test]
fn signed_thinking_survives_compaction_anthropic() {
    signed_thinking_survives_compaction(Api::Anthropic);
}

#[test]
fn signed_thinking_survives_compaction_bedrock() {
    signed_thinking_survives_compaction(Api::Bedrock);
}

#[test]
fn signed_thinking_survives_compaction_gemini() {
    signed_thinking_survives_compaction(Api::Gemini);
}

#[test]
fn signed_thinking_survives_compaction_responses() {
    signed_thinking_survives_compaction(Api::Responses);
}

/// A PreCompact hook (Claude Code's, from `~/.claude/settings.json`) is
/// told of each automatic compaction, with its trigger, before it happens.
#[test]
fn a_pre_compact_hook_is_told_of_each_compaction() {
    let env = small_window(Api::OpenAi);
    let dir = env.home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let log = env.home.path().join("compactions.log");
    std::fs::write(
        dir.join("settings.json"),
        format!(
            r#"{{"hooks": {{"PreCompact": [{{"matcher": "auto", "hooks": [{{"type": "command", "command": "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"trigger\"])' >> {}"}}]}}]}}}}"#,
            log.display()
        ),
    )
    .unwrap();
    for n in 1..=6 {
        send_part(&env, n);
    }
    let compactions = records(&env.only_session())
        .into_iter()
        .filter(|r| r["type"] == "compaction")
        .count();
    assert!(compactions >= 1, "nothing compacted");
    let told = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        told.lines().count() >= compactions && told.lines().all(|l| l == "auto"),
        "{compactions} compactions, the hook was told: {told:?}"
    );
}

/// The summary request `/compact` sends carries the summarised messages
/// as the last request sent them — old tool results whole, not stubbed —
/// so it is a prefix of that request and the prompt cache serves it.
#[test]
fn the_summary_request_starts_as_the_last_request_did() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::tool_calls(&[(
        &crate::support::call_id("huge"),
        "tool_call",
        r#"{"name":"mcp__t__huge","arguments":{"bytes":4000}}"#,
    )]));
    env.fake.push(Reply::text("It is 4000 x's."));
    env.fake.push(Reply::text("Nothing else."));
    env.fake
        .push(Reply::text("Summary: a tool printed 4000 x's."));
    env.run(&["-q", "what does huge print?"]).ok();
    env.run(&["--continue", "-q", "anything else?"]).ok();
    env.run_with_stdin(&["--interactive", "--continue"], "/compact\n/quit\n")
        .ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 4, "three answers and the summary");
    let last = reqs[2].json()["messages"].as_array().unwrap().clone();
    let summary = reqs[3].json()["messages"].as_array().unwrap().clone();
    crate::assert_contains!(reqs[3].body_str(), SUMMARY_ASK);
    let n = summary.len() - 1;
    assert!(n > 2 && n <= last.len(), "{n} of {}", last.len());
    assert_eq!(
        summary[..n],
        last[..n],
        "the summary request diverges from the last request"
    );
    // The history it leaves still drops the old result's body.
    let compaction = records(&env.only_session())
        .into_iter()
        .find(|r| r["type"] == "compaction")
        .unwrap();
    assert_eq!(compaction["stubbed"], 1, "{compaction}");
}
