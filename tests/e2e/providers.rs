//! The same end-to-end scenarios over every provider hermes speaks —
//! OpenAI Chat Completions, Anthropic Messages, Bedrock ConverseStream — each
//! against its strict fake: a text turn, a split `tool_call` batch among
//! signed thinking blocks replayed in place across `--continue`,
//! `redacted_thinking`, retries, a cut stream, a broken frame, bad
//! credentials, and a session that changes provider.

use serde_json::{json, Value};

use crate::support::calls::batch;
use crate::support::fake_anthropic;
use crate::support::fake_bedrock;
use crate::support::wire::assert_each_request_extends_the_previous;
use crate::support::{call_id, records, Run, TestEnv};
use crate::support::{Api, Block, Reply, Stop, Turn};

/// Runs `$body(api)` once per provider, as `$name::{openai, anthropic,
/// bedrock}`, or for the providers listed (`test_name: Api` pairs).
macro_rules! per_api {
    ($name:ident, $body:ident) => {
        per_api!($name, $body, openai: OpenAi, anthropic: Anthropic, bedrock: Bedrock,
            gemini: Gemini, responses: Responses);
    };
    ($name:ident, $body:ident, $($test:ident: $api:ident),+) => {
        mod $name {
            use super::*;
            $(
                #[test]
                fn $test() {
                    $body(Api::$api)
                }
            )+
        }
    };
}

/// The providers whose turns are native block lists.
macro_rules! native_apis {
    ($name:ident, $body:ident) => {
        per_api!($name, $body, anthropic: Anthropic, bedrock: Bedrock,
            gemini: Gemini, responses: Responses);
    };
}

/// Anthropic's two (its thinking blocks, redacted or signed).
macro_rules! claude_apis {
    ($name:ident, $body:ident) => {
        per_api!($name, $body, anthropic: Anthropic, bedrock: Bedrock);
    };
}

/// A home for `api` with our test server `t` behind the bridge, its catalog filled.
fn env_with_server(api: Api, provider_extra: &str) -> TestEnv {
    let env = TestEnv::with_api(api);
    env.write_config("[tools]\ndefer = \"always\"\n");
    if !provider_extra.is_empty() {
        let text = std::fs::read_to_string(env.config_path()).unwrap();
        std::fs::write(env.config_path(), format!("{text}{provider_extra}\n")).unwrap();
    }
    env.add_test_server("t", "concurrency = \"parallel\"");
    env.prefill("t");
    env
}

/// The messages of request `n` as the provider's own JSON.
fn messages(env: &TestEnv, n: usize) -> Vec<Value> {
    env.fake.requests()[n].json()["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Runs hermes with `args`, each variable of `vars` set (`Some`) or removed.
fn run_with(env: &TestEnv, vars: &[(&str, Option<&str>)], args: &[&str]) -> Run {
    let mut cmd = env.cmd();
    for (k, v) in vars {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    Run::from(cmd.args(args).output().unwrap())
}

/// The assistant messages saved in any session (a run that failed before
/// any answer keeps none).
fn assistant_records(env: &TestEnv) -> Vec<Value> {
    env.sessions()
        .iter()
        .flat_map(|s| records(s))
        .filter(|r| r["type"] == "message" && r["message"]["role"] == "assistant")
        .map(|r| r["message"].clone())
        .collect()
}

/// `/model NAME` changes the model of the next request on every provider;
/// Bedrock names it in the (signed) URL, the others in the body.
fn model_switch(api: Api) {
    let env = TestEnv::with_api(api);
    env.fake.push(Reply::text("first"));
    env.fake.push(Reply::text("second"));
    let run = env.run_with_stdin(
        &["--interactive"],
        "one\n/model us.anthropic.claude-haiku-4-5-20251001-v1:0\ntwo\n/quit\n",
    );
    run.ok();
    crate::assert_contains!(run.stderr, "from the next request on");
    // The provider accepted the second request (a REPL turn that fails
    // prints its error and goes on).
    crate::assert_contains!(run.stdout, "second");
    crate::assert_not_contains!(run.stderr, "error");
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 2, "{}", run.stderr);
    match api {
        Api::Bedrock => {
            assert_eq!(reqs[0].path, "/model/test-model/converse-stream");
            assert_eq!(
                reqs[1].path,
                "/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse-stream"
            );
        }
        Api::Gemini => {
            assert_eq!(
                reqs[0].path,
                "/v1beta/models/test-model:streamGenerateContent?alt=sse"
            );
            assert_eq!(
                reqs[1].path,
                "/v1beta/models/us.anthropic.claude-haiku-4-5-20251001-v1%3A0:streamGenerateContent?alt=sse"
            );
        }
        _ => {
            assert_eq!(reqs[0].json()["model"], env.model());
            assert_eq!(
                reqs[1].json()["model"],
                "us.anthropic.claude-haiku-4-5-20251001-v1:0"
            );
        }
    }
}
per_api!(
    model_switch_applies_to_the_next_request,
    model_switch,
    openai: OpenAi,
    anthropic: Anthropic,
    bedrock: Bedrock,
    gemini: Gemini,
    responses: Responses
);

fn text_turn(api: Api) {
    let env = TestEnv::with_api(api);
    env.fake.push(Reply::text("Hello from the model."));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    assert_eq!(run.stdout.trim(), "Hello from the model.");
    let req = &env.fake.requests()[0];
    match api {
        Api::OpenAi => assert_eq!(req.path, "/v1/chat/completions"),
        Api::Anthropic => {
            assert_eq!(req.path, "/v1/messages");
            assert_eq!(req.header("x-api-key"), Some("test-key"));
            assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
            assert_eq!(req.json()["max_tokens"], 8192);
        }
        Api::Bedrock => {
            assert_eq!(req.path, "/model/test-model/converse-stream");
            let auth = req.header("authorization").unwrap_or("");
            assert!(
                auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
                    && auth.contains("/us-east-1/bedrock/aws4_request"),
                "{auth}"
            );
        }
        Api::Gemini => {
            assert_eq!(
                req.path,
                "/v1beta/models/test-model:streamGenerateContent?alt=sse"
            );
            assert_eq!(req.header("x-goog-api-key"), Some("test-key"));
            assert_eq!(req.json()["generationConfig"]["maxOutputTokens"], 8192);
        }
        Api::Responses => {
            assert_eq!(req.path, "/v1/responses");
            assert_eq!(req.header("authorization"), Some("Bearer test-key"));
            let body = req.json();
            assert_eq!(body["store"], false);
            assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
        }
    }
    let saved = assistant_records(&env);
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0]["content"], "Hello from the model.");
    match api {
        Api::OpenAi => assert!(saved[0].get("native").is_none()),
        Api::Anthropic => assert_eq!(
            saved[0]["native"],
            json!({"api": "anthropic", "blocks": [{"type": "text", "text": "Hello from the model."}]})
        ),
        Api::Bedrock => assert_eq!(
            saved[0]["native"],
            json!({"api": "bedrock", "blocks": [{"text": "Hello from the model."}]})
        ),
        // The text joined, and Gemini 3's closing signature on it.
        Api::Gemini => {
            let blocks = saved[0]["native"]["blocks"].as_array().unwrap();
            assert_eq!(saved[0]["native"]["api"], "gemini");
            assert_eq!(blocks.len(), 1, "{blocks:?}");
            assert_eq!(blocks[0]["text"], "Hello from the model.");
            assert!(
                hermes_test_support::fake_gemini::is_signature(
                    blocks[0]["thoughtSignature"].as_str().unwrap()
                ),
                "{blocks:?}"
            );
        }
        Api::Responses => assert_eq!(
            saved[0]["native"],
            json!({"api": "responses", "blocks": [{"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": "Hello from the model."}]}]})
        ),
    }
}
per_api!(
    a_text_turn_is_streamed_and_saved,
    text_turn,
    openai: OpenAi,
    anthropic: Anthropic,
    bedrock: Bedrock,
    gemini: Gemini,
    responses: Responses
);

fn three_entries() -> String {
    batch(&[
        ("mcp__t__slow", json!({"ms": 300, "label": "first"})),
        ("mcp__t__echo", json!({"text": "second"})),
        ("mcp__t__slow", json!({"ms": 1, "label": "third"})),
    ])
}

/// The blocks of the assistant message in request `n`'s history (the last
/// assistant message), whatever the provider's message shape.
fn last_assistant_blocks(env: &TestEnv, n: usize) -> Vec<Value> {
    messages(env, n)
        .into_iter()
        .rev()
        .find(|m| m["role"] == "assistant")
        .and_then(|m| m["content"].as_array().cloned())
        .unwrap_or_default()
}

fn tool_use_ids(api: Api, blocks: &[Value]) -> Vec<String> {
    blocks
        .iter()
        .filter_map(|b| match api {
            Api::Anthropic => (b["type"] == "tool_use").then(|| b["id"].as_str()),
            _ => b.get("toolUse").map(|t| t["toolUseId"].as_str()),
        })
        .map(|id| id.unwrap().to_string())
        .collect()
}

fn thinking_and_a_batch_replay_in_place(api: Api) {
    let env = env_with_server(api, "thinking_budget = 2048\nmax_tokens = 4096");
    let parent = call_id("batch");
    env.fake.push(Reply::turn(
        vec![
            Block::Thinking("The user wants three things; one batch will do.".into()),
            Block::Text("Running all three.".into()),
            Block::Tool {
                id: parent.clone(),
                name: "tool_call".into(),
                args: three_entries(),
            },
        ],
        Stop::ToolUse,
    ));
    env.fake.push(Reply::turn(
        vec![
            Block::Thinking("All three came back.".into()),
            Block::Text("Done.".into()),
        ],
        Stop::EndTurn,
    ));
    let run = env.run(&["-q", "do the three things"]);
    run.ok();
    assert_eq!(env.fake.requests().len(), 2, "one round trip for the batch");

    let first = env.fake.requests()[0].json();
    match api {
        Api::Anthropic => {
            assert_eq!(
                first["thinking"],
                json!({"type": "enabled", "budget_tokens": 2048})
            );
            assert_eq!(
                env.fake.requests()[0].header("anthropic-beta"),
                Some("interleaved-thinking-2025-05-14")
            );
        }
        _ => assert_eq!(
            first["additionalModelRequestFields"]["thinking"],
            json!({"type": "enabled", "budget_tokens": 2048})
        ),
    }

    // The replayed turn: thinking and text as they came, then the children
    // where the parent stood, child 0 under the parent's own id.
    let blocks = last_assistant_blocks(&env, 1);
    assert_eq!(blocks.len(), 5, "{blocks:#?}");
    match api {
        Api::Anthropic => {
            assert_eq!(blocks[0]["type"], "thinking");
            assert_eq!(
                blocks[0]["thinking"],
                "The user wants three things; one batch will do."
            );
            assert_eq!(
                blocks[0]["signature"],
                fake_anthropic::sign("The user wants three things; one batch will do.")
            );
            assert_eq!(
                blocks[1],
                json!({"type": "text", "text": "Running all three."})
            );
        }
        _ => {
            assert_eq!(
                blocks[0]["reasoningContent"]["reasoningText"]["text"],
                "The user wants three things; one batch will do."
            );
            assert_eq!(blocks[1], json!({"text": "Running all three."}));
        }
    }
    let ids = tool_use_ids(api, &blocks);
    assert_eq!(ids.len(), 3);
    assert_eq!(
        ids[0],
        env.wire_id(&parent),
        "child 0 keeps the parent's id"
    );
    for id in &ids {
        assert!(
            id.len() <= 40
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
            "{id}"
        );
    }
    let prefix = if api == Api::Anthropic {
        "toolu_"
    } else {
        "tooluse_"
    };
    assert!(ids.iter().all(|i| i.starts_with(prefix)), "{ids:?}");
    let results = env.results_of(1);
    assert_eq!(
        results.iter().map(|r| r.0.clone()).collect::<Vec<_>>(),
        ids,
        "one result per child, in entry order"
    );
    assert_eq!(results[0].1, "slept 300 ms first");
    assert_eq!(results[1].1, "second");

    // --continue: the same history again, byte for byte, then more.
    env.fake.push(Reply::text("Anything else?"));
    env.run(&["--continue", "-q", "thanks"]).ok();
    assert_eq!(env.fake.requests().len(), 3);
    assert_each_request_extends_the_previous(&env);
}
claude_apis!(
    thinking_and_a_three_entry_batch_replay_in_place_across_continue,
    thinking_and_a_batch_replay_in_place
);

fn redacted_thinking_is_replayed(api: Api) {
    let env = env_with_server(api, "thinking = \"adaptive\"");
    env.fake.push(Reply::turn(
        vec![
            Block::Redacted,
            Block::Tool {
                id: call_id("echo"),
                name: "tool_call".into(),
                args: batch(&[("mcp__t__echo", json!({"text": "hi"}))]),
            },
        ],
        Stop::ToolUse,
    ));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let blocks = last_assistant_blocks(&env, 1);
    match api {
        Api::Anthropic => assert_eq!(blocks[0]["type"], "redacted_thinking"),
        _ => assert!(blocks[0]["reasoningContent"]["redactedContent"].is_string()),
    }
    assert_eq!(env.results_of(1)[0].1, "hi");
}
claude_apis!(
    redacted_thinking_is_replayed_as_it_came,
    redacted_thinking_is_replayed
);

fn a_cut_stream_saves_nothing(api: Api) {
    let env = TestEnv::with_api(api);
    env.fake
        .push(Reply::text("This answer will not arrive whole.").cut_after(4));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    let err = run.error_line();
    assert!(err.contains("cut the reply off"), "{err}");
    assert!(err.contains("provider `fake`"), "{err}");
    assert!(
        assistant_records(&env).is_empty(),
        "nothing half-received is saved"
    );
}
per_api!(
    a_cut_stream_is_an_error_and_nothing_is_saved,
    a_cut_stream_saves_nothing
);

#[test]
fn anthropic_overloaded_529_is_retried_then_succeeds() {
    let env = TestEnv::with_api(Api::Anthropic);
    env.fake.push(Reply::status(
        529,
        &fake_anthropic::error_body("overloaded_error", "Overloaded"),
    ));
    env.fake.push(Reply::named_sse(vec![
        fake_anthropic::events(&Turn::text("x"))[0].clone(),
        fake_anthropic::error_event("overloaded_error", "Overloaded"),
    ]));
    env.fake.push(Reply::text("Made it."));
    let run = env.run(&["-c", "providers.fake.max_retries=2", "--json", "-q", "hi"]);
    run.ok();
    assert_eq!(env.fake.requests().len(), 3);
    let retries: Vec<Value> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "retrying")
        .collect();
    assert_eq!(retries.len(), 2, "{}", run.stdout);
    assert!(retries[0]["reason"].as_str().unwrap().contains("HTTP 529"));
    assert!(retries[1]["reason"]
        .as_str()
        .unwrap()
        .contains("Overloaded"));
}

#[test]
fn anthropic_usage_reports_the_prompt_cache() {
    let env = TestEnv::with_api(Api::Anthropic);
    env.fake.push(Reply::text("cached"));
    let run = env.run(&["--json", "-q", "hi"]);
    run.ok();
    let usage = run
        .events()
        .into_iter()
        .find(|e| e["type"] == "usage")
        .expect("a usage event");
    let body = env.fake.requests()[0].body_str().to_string();
    assert!(
        body.contains(r#""cache_control":{"type":"ephemeral"}"#),
        "the conversation's last block is a cache breakpoint"
    );
    // The cache counts are left out when zero (docs/sessions.md).
    let read = usage["cache_read_tokens"].as_u64().unwrap_or(0);
    assert!(usage["prompt_tokens"].as_u64().unwrap() >= read);
    assert!(
        usage
            .get("cache_read_tokens")
            .is_none_or(|r| r.as_u64() > Some(0))
            && usage
                .get("cache_write_tokens")
                .is_none_or(|w| w.as_u64() > Some(0)),
        "{usage}"
    );
}

#[test]
fn bedrock_throttling_is_retried_then_succeeds() {
    let env = TestEnv::with_api(Api::Bedrock);
    env.fake.push(fake_bedrock::error_reply(
        429,
        "ThrottlingException",
        "Too many requests, please wait before trying again.",
    ));
    env.fake.push(Reply::text("After the wait."));
    let run = env.run(&["-c", "providers.fake.max_retries=1", "-q", "hi"]);
    run.ok();
    assert_eq!(run.stdout.trim(), "After the wait.");
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 2);
    assert_ne!(
        reqs[0].header("authorization"),
        None,
        "every attempt is signed"
    );
}

#[test]
fn a_bedrock_frame_with_a_bad_checksum_is_an_error_not_a_panic() {
    let env = TestEnv::with_api(Api::Bedrock);
    let mut frames = fake_bedrock::frames(&Turn::text("Hello"));
    frames[1] = fake_bedrock::corrupt(frames[1].clone());
    env.fake.push(Reply::frames(frames));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    let err = run.error_line();
    assert!(err.contains("broken event-stream frame"), "{err}");
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(assistant_records(&env).is_empty());
}

#[test]
fn a_bedrock_exception_in_the_stream_names_itself() {
    let env = TestEnv::with_api(Api::Bedrock);
    let mut frames = fake_bedrock::frames(&Turn::text("Hello"));
    frames.truncate(2);
    frames.push(fake_bedrock::exception_frame(
        "validationException",
        "The model returned an error.",
    ));
    env.fake.push(Reply::frames(frames));
    let run = env.run(&["-q", "hi"]);
    run.code(1);
    let err = run.error_line();
    assert!(
        err.contains("validationException") && err.contains("The model returned an error."),
        "{err}"
    );
}

#[test]
fn bedrock_with_a_wrong_secret_is_refused_with_the_provider_and_url() {
    let env = TestEnv::with_api(Api::Bedrock);
    env.fake.push(Reply::text("never"));
    let run = run_with(
        &env,
        &[("AWS_SECRET_ACCESS_KEY", Some("not-the-secret"))],
        &["-q", "hi"],
    );
    run.code(1);
    let err = run.error_line();
    assert!(
        err.contains("provider `fake` refused the AWS credentials (HTTP 403)")
            && err.contains("/converse-stream")
            && err.contains("signature"),
        "{err}"
    );
}

#[test]
fn bedrock_without_credentials_says_where_to_put_them() {
    let env = TestEnv::with_api(Api::Bedrock);
    let run = run_with(
        &env,
        &[("AWS_ACCESS_KEY_ID", None), ("AWS_SECRET_ACCESS_KEY", None)],
        &["-q", "hi"],
    );
    run.code(2);
    assert!(
        run.error_line().contains("has no credentials"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("AWS_PROFILE"), "{}", run.stderr);
    assert!(env.fake.requests().is_empty());
}

#[test]
fn bedrock_reads_keys_from_the_profile_files() {
    let env = TestEnv::with_api(Api::Bedrock);
    let aws = env.home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(
        aws.join("credentials"),
        format!(
            "[work]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
            fake_bedrock::ACCESS_KEY,
            fake_bedrock::SECRET_KEY
        ),
    )
    .unwrap();
    env.fake.push(Reply::text("from the profile"));
    let run = run_with(
        &env,
        &[
            ("AWS_ACCESS_KEY_ID", None),
            ("AWS_SECRET_ACCESS_KEY", None),
            ("AWS_PROFILE", Some("work")),
        ],
        &["-q", "hi"],
    );
    run.ok();
    assert_eq!(run.stdout.trim(), "from the profile");
}

#[test]
fn a_session_moved_to_another_provider_drops_native_blocks_and_says_so() {
    let env = env_with_server(Api::Anthropic, "thinking_budget = 2048");
    env.fake.push(Reply::turn(
        vec![
            Block::Thinking("Signed, for Anthropic only.".into()),
            Block::Tool {
                id: call_id("echo"),
                name: "tool_call".into(),
                args: batch(&[("mcp__t__echo", json!({"text": "hi"}))]),
            },
        ],
        Stop::ToolUse,
    ));
    env.fake.push(Reply::text("first answer"));
    env.run(&["-q", "go"]).ok();

    // The same session, continued on an OpenAI-compatible provider.
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    let moved = text
        .replace("kind = \"anthropic\"\n", "kind = \"openai\"\n")
        .replace(&env.fake.root_url(), &env.fake.base_url())
        .replace("thinking_budget = 2048\n", "");
    std::fs::write(env.config_path(), moved).unwrap();
    env.fake.push(Reply::text("second answer"));
    let run = env.run(&["--continue", "-q", "again"]);
    run.ok();
    assert!(
        run.stderr.contains("came from another provider"),
        "{}",
        run.stderr
    );
    let req = env.fake.requests().last().unwrap().json();
    assert_eq!(req["messages"][2]["role"], "assistant");
    assert_eq!(
        req["messages"][2]["tool_calls"][0]["id"],
        env.wire_id(&call_id("echo")),
        "the call keeps its id; only the thinking is left out"
    );
    assert!(!env
        .fake
        .requests()
        .last()
        .unwrap()
        .body_str()
        .contains("Signed, for Anthropic only."));
    let dropped: Vec<Value> = records(&env.only_session())
        .into_iter()
        .filter(|r| r["event"] == "native_blocks_dropped")
        .collect();
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0]["messages"], 1);
    assert_eq!(dropped[0]["provider"], "openai");
}

#[cfg(unix)]
fn an_interrupted_batch_resumes_into_a_valid_history(api: Api) {
    let env = env_with_server(api, "");
    let args = batch(&[
        ("mcp__t__echo", json!({"text": "done before the stop"})),
        ("mcp__t__slow", json!({"ms": 20000, "label": "cut"})),
    ]);
    env.fake
        .push(Reply::tool_calls(&[(&call_id("stop"), "tool_call", &args)]));
    let child = env.spawn(&["-q", "go"]);
    // Stopped once the echo's result is on disk and the slow call runs
    // (its result record: the words are in the call's arguments too, and
    // unescaped there where the turn is kept as native blocks).
    crate::support::wait_for("the echo's result and the slow call", || {
        env.server_log("t").contains("slow start cut")
            && env.sessions().first().is_some_and(|p| {
                std::fs::read_to_string(p).is_ok_and(|t| {
                    t.lines()
                        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                        .any(|r| {
                            r["type"] == "tool_result"
                                && r["content"].as_str() == Some("done before the stop")
                        })
                })
            })
    });
    crate::support::stopped(child);
    // The resumed request pairs every call (the stopped one as interrupted);
    // the strict fake would answer 400 otherwise.
    env.fake.push(Reply::text("picked up"));
    let run = env.run(&["--continue", "-q", "go on"]);
    run.ok();
    let n = env.fake.requests().len() - 1;
    let results = env.results_of(n);
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[0].1, "done before the stop");
    assert!(results[1].1.contains("interrupted"), "{results:?}");
}
#[cfg(unix)]
per_api!(
    an_interrupted_batch_resumes_into_a_valid_history_on,
    an_interrupted_batch_resumes_into_a_valid_history
);

fn an_answer_cut_at_the_output_limit_is_flagged(api: Api) {
    let env = TestEnv::with_api(api);
    env.fake.push(Reply::turn(
        vec![Block::Text("The first half of".into())],
        Stop::MaxTokens,
    ));
    let run = env.run(&["-q", "write a lot"]);
    run.ok();
    assert!(run.stderr.contains("output limit"), "{}", run.stderr);
}
per_api!(
    an_answer_cut_at_the_output_limit_is_flagged_on,
    an_answer_cut_at_the_output_limit_is_flagged
);

fn json_events_of_a_tool_round(api: Api) {
    let env = env_with_server(api, "");
    let id = call_id("json");
    env.fake.push(Reply::tool_calls(&[(
        &id,
        "tool_call",
        &batch(&[
            ("mcp__t__echo", json!({"text": "a"})),
            ("mcp__t__echo", json!({"text": "b"})),
        ]),
    )]));
    env.fake.push(Reply::text("both echoed"));
    let run = env.run(&["--json", "-q", "echo twice"]);
    run.ok();
    let events = run.events();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for k in [
        "session_started",
        "model_request",
        "tool_call_started",
        "tool_call_finished",
        "usage",
        "turn_done",
    ] {
        assert!(kinds.contains(&k), "no {k} in {kinds:?}");
    }
    let started: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_call_started")
        .collect();
    assert_eq!(started.len(), 2);
    assert_eq!(
        started[0]["id"],
        env.wire_id(&id),
        "child 0 keeps the parent id"
    );
    assert_eq!(started[0]["name"], "mcp__t__echo");
    let done = events.iter().rfind(|e| e["type"] == "turn_done").unwrap();
    assert_eq!(done["text"], "both echoed");
}
per_api!(
    json_events_of_a_split_tool_round_on,
    json_events_of_a_tool_round
);

#[test]
fn anthropic_with_a_wrong_key_names_the_provider_and_url() {
    let env = TestEnv::with_api(Api::Anthropic);
    let run = run_with(
        &env,
        &[(crate::support::KEY_ENV, Some("wrong-key"))],
        &["-q", "hi"],
    );
    run.code(1);
    let err = run.error_line();
    assert!(
        err.contains("provider `fake` refused the API key (HTTP 401)")
            && err.contains("/v1/messages")
            && err.contains("invalid x-api-key"),
        "{err}"
    );
}

#[test]
fn anthropic_pause_turn_is_sent_back_and_the_model_goes_on() {
    let env = TestEnv::with_api(Api::Anthropic);
    env.fake.push(Reply::turn(
        vec![Block::Text("Still searching. ".into())],
        Stop::PauseTurn,
    ));
    env.fake.push(Reply::text("Found it."));
    let run = env.run(&["-q", "find it"]);
    run.ok();
    assert_eq!(run.stdout.trim(), "Still searching. Found it.");
    let second = messages(&env, 1);
    let last = second.last().unwrap();
    assert_eq!(last["role"], "assistant", "the paused turn goes back last");
    assert_eq!(last["content"][0]["text"], "Still searching. ");
}

#[test]
fn a_refusal_is_reported() {
    let env = TestEnv::with_api(Api::Anthropic);
    env.fake.push(Reply::turn(
        vec![Block::Text("I can't help with that.".into())],
        Stop::Refusal,
    ));
    let run = env.run(&["-q", "something bad"]);
    run.ok();
    assert!(run.stderr.contains("declined"), "{}", run.stderr);
}

fn a_blank_tool_output_is_replayed_as_the_api_allows(api: Api) {
    let env = env_with_server(api, "");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("blank"),
        "tool_call",
        &batch(&[("mcp__t__echo", json!({"text": " \n "}))]),
    )]));
    env.fake.push(Reply::text("nothing came back"));
    // The strict fakes answer 400 to blank text, in a result too.
    env.run(&["-q", "echo nothing"]).ok();
    assert_eq!(env.fake.requests().len(), 2);
}
per_api!(
    a_blank_tool_output_is_replayed_as_the_api_allows_on,
    a_blank_tool_output_is_replayed_as_the_api_allows
);

fn a_session_resumed_without_its_tools_still_replays(api: Api) {
    // Tools listed directly, so a config without the server offers none.
    let env = TestEnv::with_api(api);
    env.write_config("[tools]\ndefer = \"never\"\n");
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("tools"),
        "mcp__t__echo",
        r#"{"text":"hi"}"#,
    )]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    assert!(env.fake.requests()[0].body_str().contains("mcp__t__echo"));
    // The server is gone from the config: no tools are offered any more,
    // which both APIs refuse beside tool blocks — they go as text.
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    let cut = text.find("\n[mcp_servers.t]").unwrap();
    std::fs::write(env.config_path(), &text[..cut]).unwrap();
    env.fake.push(Reply::text("still here"));
    let run = env.run(&["--continue", "-q", "again"]);
    run.ok();
    let body = env.fake.requests()[2].body_str().to_string();
    assert!(body.contains("[called mcp__t__echo ("), "{body}");
    assert!(body.contains("[result of mcp__t__echo ("), "{body}");
}
native_apis!(
    a_session_resumed_without_its_tools_still_replays_on,
    a_session_resumed_without_its_tools_still_replays
);

#[test]
fn tool_input_cut_at_the_output_limit_fails_the_call_instead_of_running_it() {
    let env = env_with_server(Api::Anthropic, "");
    let id = env.wire_id(&call_id("cut"));
    let ev = |data: Value| (data["type"].as_str().unwrap().to_string(), data.to_string());
    env.fake.push(Reply::named_sse(vec![
        ev(json!({"type": "message_start", "message": {"id": "msg_01", "type": "message",
            "role": "assistant", "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}})),
        ev(json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": id, "name": "tool_call", "input": {}}})),
        ev(json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "{\"calls\":[{\"name\":\"mcp__t__ec"}})),
        ev(json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"},
            "usage": {"output_tokens": 4096}})),
        ev(json!({"type": "message_stop"})),
    ]));
    env.fake.push(Reply::text("I will send it again."));
    let run = env.run(&["-q", "go"]);
    run.ok();
    assert!(run.stderr.contains("output limit"), "{}", run.stderr);
    let results = env.results_of(1);
    assert_eq!(results.len(), 1);
    assert!(results[0].2, "the cut call fails: {results:?}");
    assert!(
        !env.server_log("t").contains("tools/call"),
        "nothing was called"
    );
    // The replayed block carries an empty input, as the API requires.
    let blocks = last_assistant_blocks(&env, 1);
    assert_eq!(blocks[0]["input"], json!({}));
}

fn a_repl_conversation_with_a_failed_turn_in_the_middle(api: Api) {
    let env = TestEnv::with_api(api);
    if api != Api::OpenAi {
        let text = std::fs::read_to_string(env.config_path()).unwrap();
        std::fs::write(
            env.config_path(),
            format!("{text}thinking = \"adaptive\"\n"),
        )
        .unwrap();
    }
    env.fake.push(Reply::turn(
        vec![
            Block::Thinking("Greet back.".into()),
            Block::Text("first answer".into()),
        ],
        Stop::EndTurn,
    ));
    let failure = match api {
        Api::Bedrock => fake_bedrock::error_reply(400, "ValidationException", "scripted failure"),
        Api::Anthropic => Reply::status(
            400,
            &fake_anthropic::error_body("invalid_request_error", "scripted failure"),
        ),
        Api::OpenAi | Api::Responses => {
            Reply::status(400, r#"{"error":{"message":"scripted failure"}}"#)
        }
        Api::Gemini => Reply::status(
            400,
            &hermes_test_support::fake_gemini::error_body(
                400,
                "INVALID_ARGUMENT",
                "scripted failure",
            ),
        ),
    };
    env.fake.push(failure);
    env.fake.push(Reply::text("third answer"));
    let run = env.run_with_stdin(&["--interactive"], "one\ntwo\nthree\n/quit\n");
    run.ok();
    crate::assert_contains!(run.stdout, "first answer");
    crate::assert_contains!(run.stdout, "third answer");
    crate::assert_contains!(run.stderr, "scripted failure");
    assert_eq!(env.fake.requests().len(), 3);
    let third = env.fake.requests()[2].json();
    match api {
        Api::Anthropic | Api::Bedrock => {
            // The failed turn's user message and the next one are one user
            // turn (the APIs want turns to alternate); the thinking went
            // back whole.
            let msgs = messages(&env, 2);
            assert_eq!(msgs.len(), 3, "{msgs:#?}");
            assert_eq!(msgs[2]["content"].as_array().unwrap().len(), 2);
            assert!(env.fake.requests()[2].body_str().contains("Greet back."));
        }
        // The same for Gemini's contents; its signature went back in place.
        Api::Gemini => {
            let contents = third["contents"].as_array().unwrap();
            assert_eq!(contents.len(), 3, "{contents:#?}");
            assert_eq!(contents[2]["parts"].as_array().unwrap().len(), 2);
            assert!(contents[1]["parts"][0]["thoughtSignature"].is_string());
        }
        // Items need not alternate; the reasoning item went back.
        Api::Responses => {
            let input = third["input"].as_array().unwrap();
            assert_eq!(input[2]["type"], "reasoning", "{input:#?}");
            assert_eq!(input[4]["content"][0]["text"], "two");
        }
        Api::OpenAi => {}
    }
}
per_api!(
    a_repl_conversation_with_a_failed_turn_in_the_middle_on,
    a_repl_conversation_with_a_failed_turn_in_the_middle
);

/// Two calls of one reply under one id (some OpenAI-compatible servers send
/// that): hermes gives the second an id of its own before the reply is
/// saved, so each result pairs with its call — on the screen, in the next
/// request and after `--continue`, which the strict fake would refuse
/// otherwise (OpenAI: "tool_call_ids did not have response messages";
/// Anthropic: "`tool_use` ids must be unique").
fn duplicate_call_ids(api: Api) {
    let env = env_with_server(api, "");
    let id = call_id("twin");
    let s1 = batch(&[("mcp__t__echo", json!({"text": "s1"}))]);
    let s2 = batch(&[("mcp__t__echo", json!({"text": "s2"}))]);
    env.fake.push(Reply::tool_calls(&[
        (&id, "tool_call", &s1),
        (&id, "tool_call", &s2),
    ]));
    env.fake.push(Reply::text("both echoed"));
    env.fake.push(Reply::text("still here"));
    env.fake.push(Reply::text("and again"));
    let run = env.run(&["-q", "echo twice"]);
    run.ok();
    crate::assert_contains!(run.stderr, "✓ mcp__t__echo {\"text\":\"s1\"} — s1");
    crate::assert_contains!(run.stderr, "✓ mcp__t__echo {\"text\":\"s2\"} — s2");
    env.run(&["--continue", "-q", "more"]).ok();
    env.run(&["--continue", "-q", "more"]).ok();
    assert_eq!(env.fake.requests().len(), 4, "no request refused");
    assert_each_request_extends_the_previous(&env);
    let session = records(&env.only_session());
    let calls = crate::support::tool_call_ids(&session);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0], env.wire_id(&id), "the first keeps its id");
    assert_ne!(calls[1], calls[0]);
    assert!(
        calls[1].len() <= 40
            && calls[1].starts_with(calls[0].split('_').next().unwrap())
            && calls[1]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
        "{}",
        calls[1]
    );
    let results: Vec<(String, String)> = session
        .iter()
        .filter(|r| r["type"] == "tool_result")
        .map(|r| {
            (
                r["tool_call_id"].as_str().unwrap().to_string(),
                r["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut results = results;
    results.sort();
    let mut expected = vec![
        (calls[0].clone(), "s1".to_string()),
        (calls[1].clone(), "s2".to_string()),
    ];
    expected.sort();
    assert_eq!(results, expected);
}
per_api!(duplicate_call_ids_pair_and_continue_on, duplicate_call_ids);
