//! The two APIs whose reasoning is signed and must come back unchanged —
//! Gemini (`thoughtSignature` on a part) and OpenAI Responses (encrypted
//! reasoning items) — through the search-then-batch task with a forced
//! 3-entry batch, and `--continue` twice: every run exits 0, no request is
//! refused, each signature and reasoning item is echoed byte-identical, in
//! its place, in every later request, and each request extends the one
//! before it byte for byte.

use serde_json::{json, Value};

use crate::support::calls::batch;
use crate::support::fake_gemini;
use crate::support::fake_responses;
use crate::support::wire::assert_each_request_extends_the_previous;
use crate::support::{call_id, Api, Block, Reply, Stop, TestEnv, Turn};

/// A home for `api` with our test server `t` behind the bridge.
fn env_with_server(api: Api, provider_extra: &str) -> TestEnv {
    let env = TestEnv::with_api(api);
    env.write_config("[tools]\ndefer = \"always\"\n");
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    std::fs::write(env.config_path(), format!("{text}{provider_extra}\n")).unwrap();
    env.add_test_server("t", "concurrency = \"parallel\"");
    env.prefill("t");
    env
}

fn three(tag: &str) -> String {
    batch(&[
        (
            "mcp__t__slow",
            json!({"ms": 200, "label": format!("{tag} one")}),
        ),
        ("mcp__t__echo", json!({"text": format!("{tag} two")})),
        (
            "mcp__t__slow",
            json!({"ms": 1, "label": format!("{tag} three")}),
        ),
    ])
}

/// What the provider signed in `turn`, as it sent it: Gemini's parts that
/// carry a signature; Responses' reasoning items (as a stateless replay
/// carries them, less `id` and `status`).
fn signed_units(api: Api, turn: &Turn) -> Vec<Value> {
    match api {
        Api::Gemini => fake_gemini::events(turn, "test-model")
            .iter()
            .flat_map(|e| {
                let v: Value = serde_json::from_str(e).unwrap();
                v["candidates"][0]["content"]["parts"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|p| p.get("thoughtSignature").is_some())
            .collect(),
        Api::Responses => fake_responses::events(turn, true)
            .iter()
            .filter(|(e, _)| e == "response.output_item.done")
            .map(|(_, d)| serde_json::from_str::<Value>(d).unwrap()["item"].clone())
            .filter(|i| i["type"] == "reasoning")
            .map(|mut i| {
                let o = i.as_object_mut().unwrap();
                o.remove("id");
                o.remove("status");
                i
            })
            .collect(),
        _ => unreachable!(),
    }
}

/// The model's turns of request `n`, in order: Gemini's `model` contents'
/// parts; Responses' runs of model items (reasoning, assistant messages,
/// calls) between the others.
fn model_turns(api: Api, body: &Value) -> Vec<Vec<Value>> {
    match api {
        Api::Gemini => body["contents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["role"] == "model")
            .map(|c| c["parts"].as_array().unwrap().clone())
            .collect(),
        _ => {
            let mut runs: Vec<Vec<Value>> = Vec::new();
            let mut open = false;
            for item in body["input"].as_array().unwrap() {
                let model = item["type"] == "reasoning"
                    || item["type"] == "function_call"
                    || (item["type"] == "message" && item["role"] == "assistant");
                if model && open {
                    runs.last_mut().unwrap().push(item.clone());
                } else if model {
                    runs.push(vec![item.clone()]);
                }
                open = model;
            }
            runs
        }
    }
}

/// The call ids of one model turn, in order.
fn call_ids(api: Api, parts: &[Value]) -> Vec<String> {
    parts
        .iter()
        .filter_map(|p| match api {
            Api::Gemini => p["functionCall"]["id"].as_str(),
            _ => (p["type"] == "function_call").then(|| p["call_id"].as_str().unwrap()),
        })
        .map(str::to_string)
        .collect()
}

fn search_then_batch_then_continue_twice(api: Api) {
    let effort = match api {
        Api::Gemini => "reasoning_effort = \"high\"",
        _ => "reasoning_effort = \"low\"",
    };
    let env = env_with_server(api, effort);
    let search = call_id("search");
    let parent = call_id("batch");
    let second = call_id("again");
    let turns = [
        Turn::new(
            vec![
                Block::Thinking("Find the tools first.".into()),
                Block::Tool {
                    id: search.clone(),
                    name: "tool_search".into(),
                    args: json!({"queries": ["echo text", "slow sleep"]}).to_string(),
                },
            ],
            Stop::ToolUse,
        ),
        Turn::new(
            vec![
                Block::Thinking("Three calls, one batch.".into()),
                Block::Text("Running all three.".into()),
                Block::Tool {
                    id: parent.clone(),
                    name: "tool_call".into(),
                    args: three("first"),
                },
            ],
            Stop::ToolUse,
        ),
        Turn::new(
            vec![
                Block::Thinking("All back.".into()),
                Block::Text("Done: first one, two, three.".into()),
            ],
            Stop::EndTurn,
        ),
        // --continue, once: another batch, then its answer.
        Turn::new(
            vec![
                Block::Thinking("Again, batched.".into()),
                Block::Tool {
                    id: second.clone(),
                    name: "tool_call".into(),
                    args: three("second"),
                },
            ],
            Stop::ToolUse,
        ),
        Turn::new(vec![Block::Text("Done again.".into())], Stop::EndTurn),
        // --continue, twice.
        Turn::new(
            vec![
                Block::Thinking("Nothing left.".into()),
                Block::Text("Bye.".into()),
            ],
            Stop::EndTurn,
        ),
    ];
    for t in &turns {
        env.fake.push(Reply::from_turn(t.clone()));
    }
    env.run(&["-q", "search the tools, then run three at once"])
        .ok();
    env.run(&["--continue", "-q", "again"]).ok();
    env.run(&["--continue", "-q", "thanks"]).ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 6, "one request per turn, none refused");
    assert_eq!(env.fake.pending(), 0);
    assert_each_request_extends_the_previous(&env);

    // Every signed unit of turn k comes back unchanged in every later
    // request, in the k-th model turn of its history.
    for (k, t) in turns.iter().enumerate() {
        let units = signed_units(api, t);
        if t.blocks.iter().any(|b| matches!(b, Block::Thinking(_))) || api == Api::Gemini {
            assert!(!units.is_empty(), "turn {k} signed nothing: {t:?}");
        }
        for (n, req) in reqs.iter().enumerate().skip(k + 1) {
            let history = model_turns(api, &req.json());
            let replayed = &history[k];
            for unit in &units {
                match api {
                    // Child 0 keeps its parent's signature, in place.
                    Api::Gemini => {
                        let sig = &unit["thoughtSignature"];
                        let at = replayed
                            .iter()
                            .position(|p| &p["thoughtSignature"] == sig)
                            .unwrap_or_else(|| panic!("request {n} lost turn {k}'s signature"));
                        let first_call = replayed
                            .iter()
                            .position(|p| p.get("functionCall").is_some());
                        if unit.get("functionCall").is_some() {
                            assert_eq!(Some(at), first_call, "request {n}: the signature moved");
                            assert_eq!(
                                replayed[at]["functionCall"]["id"], unit["functionCall"]["id"],
                                "on the parent's own call"
                            );
                        } else {
                            // A text answer's closing signature, on its (joined) text.
                            assert!(!replayed[at]["text"].as_str().unwrap().is_empty());
                        }
                    }
                    _ => {
                        assert_eq!(
                            replayed[0], *unit,
                            "request {n}: turn {k}'s reasoning item, first"
                        );
                        assert!(
                            req.body_str().contains(&unit.to_string()),
                            "request {n}: turn {k}'s reasoning item, byte for byte"
                        );
                    }
                }
            }
        }
    }

    // The batch, split in place: three calls where the parent stood, child 0
    // under the parent's id; one result per child, in entry order.
    for (request, turn_at, parent_id) in [(2, 1, &parent), (4, 3, &second)] {
        let history = model_turns(api, &reqs[request].json());
        let ids = call_ids(api, &history[turn_at]);
        assert_eq!(ids.len(), 3, "{:#?}", history[turn_at]);
        assert_eq!(&ids[0], parent_id, "child 0 keeps the parent's id");
        for id in &ids {
            crate::support::assert_legal_id(id);
        }
        let results = env.results_of(request);
        let answered: Vec<&String> = results.iter().rev().take(3).rev().map(|r| &r.0).collect();
        assert_eq!(
            answered,
            ids.iter().collect::<Vec<_>>(),
            "results in entry order"
        );
    }
    let results = env.results_of(2);
    assert!(results.iter().any(|r| r.1 == "first two"), "{results:?}");

    // The thinking settings each API takes.
    let first = reqs[0].json();
    match api {
        Api::Gemini => assert_eq!(
            first["generationConfig"]["thinkingConfig"],
            json!({"thinkingLevel": "high"})
        ),
        _ => {
            assert_eq!(first["reasoning"], json!({"effort": "low"}));
            assert_eq!(first["include"], json!(["reasoning.encrypted_content"]));
        }
    }
}

#[test]
fn gemini_search_then_batch_then_continue_twice() {
    search_then_batch_then_continue_twice(Api::Gemini);
}

#[test]
fn responses_search_then_batch_then_continue_twice() {
    search_then_batch_then_continue_twice(Api::Responses);
}

/// Gemini 2.5 sends calls without ids: hermes gives each one, in its part,
/// before the turn is saved; the responses answer them by those ids, and
/// a split batch's children get theirs — across `--continue`.
#[test]
fn gemini_2_calls_without_ids_get_ids_that_pair_their_results() {
    let env = env_with_server(Api::Gemini, "");
    env.fake.push(Reply::from_turn(Turn::new(
        vec![Block::Tool {
            id: call_id("unused"),
            name: "tool_call".into(),
            args: three("old"),
        }],
        Stop::ToolUse,
    )));
    env.fake.push(Reply::text("Done."));
    env.run(&["-m", "gemini-2.5-flash", "-q", "go"]).ok();
    env.fake.push(Reply::text("Again."));
    env.run(&["-m", "gemini-2.5-flash", "--continue", "-q", "more"])
        .ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[0].path.contains("/models/gemini-2.5-flash:"));
    let history = model_turns(Api::Gemini, &reqs[1].json());
    let ids = call_ids(Api::Gemini, &history[0]);
    assert_eq!(ids.len(), 3, "{history:#?}");
    for id in &ids {
        crate::support::assert_legal_id(id);
    }
    let results: Vec<String> = env.results_of(1).into_iter().map(|r| r.0).collect();
    assert_eq!(results, ids);
    assert_each_request_extends_the_previous(&env);
}

/// A Gemini session continued on OpenAI Responses, then on Gemini again:
/// each API gets what it can verify — the other's signed units are left
/// out, said once — and a turn Gemini did not generate carries the
/// documented dummy on its first call, so the current turn is accepted.
#[test]
fn a_session_moved_between_the_signed_apis_drops_what_the_other_cannot_verify() {
    let env = env_with_server(Api::Gemini, "");
    env.fake.push(Reply::from_turn(Turn::new(
        vec![Block::Tool {
            id: call_id("gemini"),
            name: "tool_call".into(),
            args: batch(&[("mcp__t__echo", json!({"text": "from gemini"}))]),
        }],
        Stop::ToolUse,
    )));
    env.fake.push(Reply::text("gemini done"));
    env.run(&["-q", "go"]).ok();

    let gemini_config = std::fs::read_to_string(env.config_path()).unwrap();
    let responses = gemini_config
        .replace("kind = \"gemini\"", "kind = \"openai-responses\"")
        .replace(
            &format!("{}/v1beta", env.fake.root_url()),
            &env.fake.base_url(),
        )
        .replace("model = \"test-model\"", "model = \"gpt-5-test\"");
    std::fs::write(env.config_path(), responses).unwrap();
    env.fake.push(Reply::from_turn(Turn::new(
        vec![
            Block::Thinking("Echo once more.".into()),
            Block::Tool {
                id: call_id("responses"),
                name: "tool_call".into(),
                args: batch(&[("mcp__t__echo", json!({"text": "from gpt"}))]),
            },
        ],
        Stop::ToolUse,
    )));
    env.fake.push(Reply::text("gpt done"));
    let run = env.run(&["--continue", "-q", "again"]);
    run.ok();
    crate::assert_contains!(run.stderr, "came from another provider");
    let input = env.fake.requests()[2].json()["input"].clone();
    assert!(
        !input.to_string().contains("thoughtSignature"),
        "no Gemini signature reaches OpenAI: {input}"
    );

    std::fs::write(env.config_path(), &gemini_config).unwrap();
    env.fake.push(Reply::text("back on gemini"));
    let run = env.run(&["--continue", "-q", "and back"]);
    run.ok();
    let body = env.fake.requests().last().unwrap().json();
    let history = model_turns(Api::Gemini, &body);
    // Gemini's own turn as it came; OpenAI's rebuilt, with the dummy.
    assert!(fake_gemini::is_signature(
        history[0][0]["thoughtSignature"].as_str().unwrap()
    ));
    let foreign = history
        .iter()
        .find(|parts| {
            parts
                .iter()
                .any(|p| p["functionCall"]["id"] == json!(call_id("responses")))
        })
        .expect("the OpenAI turn, rebuilt");
    assert_eq!(foreign[0]["thoughtSignature"], fake_gemini::DUMMY);
    assert!(!body.to_string().contains("encrypted_content"));
    let dropped: Vec<Value> = crate::support::records(&env.only_session())
        .into_iter()
        .filter(|r| r["event"] == "native_blocks_dropped")
        .collect();
    assert_eq!(dropped.len(), 2, "{dropped:?}");
    assert_eq!(dropped[0]["provider"], "openai-responses");
    assert_eq!(dropped[1]["provider"], "gemini");
}

/// Gemini's 429 says when to come back in its body (`RetryInfo`); its 503
/// is retried; a key it does not know is a refused key, named so.
#[test]
fn gemini_rate_limits_and_refused_keys() {
    let env = TestEnv::with_api(Api::Gemini);
    env.fake.push(Reply::status(
        429,
        &json!({"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details.",
            "status": "RESOURCE_EXHAUSTED", "details": [
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.2s"}]}})
        .to_string(),
    ));
    env.fake.push(Reply::status(
        503,
        &fake_gemini::error_body(
            503,
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.",
        ),
    ));
    env.fake.push(Reply::text("Made it."));
    let run = env.run(&["-c", "providers.fake.max_retries=2", "--json", "-q", "hi"]);
    run.ok();
    let retries: Vec<Value> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "retrying")
        .collect();
    assert_eq!(retries.len(), 2, "{}", run.stdout);
    assert_eq!(retries[0]["delay_ms"], 200, "the body's retryDelay");
    crate::assert_contains!(retries[1]["reason"].as_str().unwrap(), "overloaded");

    let mut cmd = env.cmd();
    cmd.env(crate::support::KEY_ENV, "not-the-key");
    let run = crate::support::Run::from(cmd.args(["-q", "hi"]).output().unwrap());
    run.code(1);
    let err = run.error_line();
    assert!(
        err.contains("provider `fake` refused the API key (HTTP 400)")
            && err.contains(":streamGenerateContent")
            && err.contains("API key not valid"),
        "{err}"
    );
}

/// A rate limit inside the Responses stream (`response.failed`) is retried
/// as the same error would be as a response.
#[test]
fn a_responses_rate_limit_in_the_stream_is_retried() {
    let env = TestEnv::with_api(Api::Responses);
    env.fake.push(Reply::named_sse(vec![(
        "response.failed".into(),
        json!({"type": "response.failed", "sequence_number": 0, "response": {"id": "resp_1",
            "status": "failed", "error": {"code": "rate_limit_exceeded",
            "message": "Rate limit reached for gpt-5 on tokens per min (TPM). Please try again in 0.1s."}}})
        .to_string(),
    )]));
    env.fake.push(Reply::text("Made it."));
    let run = env.run(&["-c", "providers.fake.max_retries=1", "-q", "hi"]);
    run.ok();
    assert_eq!(run.stdout.trim(), "Made it.");
    crate::assert_contains!(run.stderr, "rate_limit_exceeded");
}
