//! hermes against real model servers installed from the registries: a tool
//! round and a `--continue` on llama-cpp-python's OpenAI server (function
//! calling on, a 135M model), and through LiteLLM's proxy on its OpenAI and
//! Anthropic routes (one llama server for the whole run, shared by the
//! tests that need it). What these servers do that the fakes might not —
//! llama-cpp-python repeating `function.name` in every chunk of a call,
//! refusing `"content": null`; LiteLLM's own translation of an Anthropic
//! request and its reply — is what hermes must take.

use serde_json::Value;

use crate::support::model_servers::{ModelServer, LITELLM_KEY, LLAMA_TOOL};
use crate::support::{call_id, real_server, records, Reply, TestEnv};

/// The config: `provider` as the only provider, the real time server behind
/// the deferred tools (so `tool_search` is offered), at most four requests.
fn configure(env: &TestEnv, provider: &str) {
    std::fs::write(
        env.config_path(),
        format!(
            "provider = \"local\"\nmax_turns = 4\n\n[providers.local]\n{provider}max_retries = 0\n\n\
             [tools]\nbuiltin = []\ndefer = \"always\"\n\n[approvals]\nmode = \"auto\"\n\n\
             [mcp_servers.time]\ncommand = {:?}\n",
            real_server("mcp-server-time")
        ),
    )
    .unwrap();
}

/// The session's messages, in order.
fn messages(env: &TestEnv) -> Vec<Value> {
    records(&env.only_session())
        .into_iter()
        .filter(|r| r["type"] == "message" || r["type"] == "tool_result")
        .map(|r| {
            if r["type"] == "message" {
                r["message"].clone()
            } else {
                r
            }
        })
        .collect()
}

/// One tool round in the session: a call of `tool_search` by that exact
/// name, its result, then an answer; and a second turn after `--continue`.
fn assert_round_and_continue(env: &TestEnv, server: &ModelServer) {
    let first = env.run(&["-q", "What time is it in Tokyo?"]);
    assert_eq!(first.code, 0, "{}\n{}", first.stderr, server.log_tail());
    let msgs = messages(env);
    let calls: Vec<&Value> = msgs
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .collect();
    assert!(!calls.is_empty(), "no tool call: {msgs:#?}");
    assert_eq!(calls[0]["name"], LLAMA_TOOL, "the name once, as sent");
    let id = calls[0]["id"].as_str().unwrap();
    assert!(
        msgs.iter().any(|m| m["tool_call_id"] == id),
        "the call has its result"
    );
    let n = msgs.len();
    let again = env.run(&["--continue", "-q", "Thanks. And in Paris?"]);
    assert_eq!(again.code, 0, "{}\n{}", again.stderr, server.log_tail());
    let msgs = messages(env);
    assert!(msgs.len() > n + 1, "the second turn is recorded");
    assert_eq!(msgs[n]["content"], "Thanks. And in Paris?");
    assert_eq!(msgs.last().unwrap()["role"], "assistant");
}

#[test]
fn llama_cpp_python_runs_a_tool_round_and_a_continue() {
    let llama = ModelServer::llama();
    let env = TestEnv::new();
    configure(
        &env,
        &format!(
            "base_url = \"{}/v1\"\napi_key_env = \"\"\nmodel = \"smollm2\"\n",
            llama.root_url()
        ),
    );
    assert_round_and_continue(&env, llama);
}

#[test]
fn litellm_on_its_openai_route_runs_a_tool_round_and_a_continue() {
    let llama = ModelServer::llama();
    let lite = ModelServer::litellm("smollm2", &format!("{}/v1", llama.root_url()), "none");
    let env = TestEnv::new();
    configure(
        &env,
        &format!(
            "base_url = \"{}/v1\"\napi_key = \"{LITELLM_KEY}\"\nmodel = \"smollm2\"\n",
            lite.root_url()
        ),
    );
    assert_round_and_continue(&env, &lite);
}

/// LiteLLM's Anthropic route turns the request into Chat Completions for
/// the server behind it: here the strict fake (llama-cpp-python takes no
/// system message in parts, which LiteLLM sends), so the fake checks what
/// LiteLLM made of hermes' request, and hermes reads what LiteLLM answers.
#[test]
fn litellm_on_its_anthropic_route_runs_a_tool_round_and_a_continue() {
    let env = TestEnv::new();
    let lite = ModelServer::litellm("test-model", &env.fake.base_url(), "test-key");
    configure(
        &env,
        &format!(
            "kind = \"anthropic\"\nbase_url = \"{}\"\napi_key = \"{LITELLM_KEY}\"\n\
             model = \"test-model\"\n",
            lite.root_url()
        ),
    );
    env.fake.push(Reply::tool_calls(&[(
        &call_id("search"),
        "tool_search",
        r#"{"queries":["current time in a timezone"]}"#,
    )]));
    env.fake.push(Reply::text("It is noon in Tokyo."));
    env.fake.push(Reply::text("And ten past five in Paris."));
    let first = env.run(&["-q", "What time is it in Tokyo?"]);
    assert_eq!(first.code, 0, "{}\n{}", first.stderr, lite.log_tail());
    crate::assert_contains!(first.stdout, "It is noon in Tokyo.");
    let again = env.run(&["--continue", "-q", "And in Paris?"]);
    assert_eq!(again.code, 0, "{}\n{}", again.stderr, lite.log_tail());
    crate::assert_contains!(again.stdout, "ten past five in Paris");
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 3);
    // The tool's result reached the server behind LiteLLM, paired with its
    // call, and the continued session carries it still.
    let has_result =
        |body: &Value| {
            body["messages"].as_array().unwrap().iter().any(|m| {
                m["role"] == "tool" && m["content"].to_string().contains("get_current_time")
            })
        };
    assert!(has_result(&reqs[1].json()), "{}", reqs[1].body_str());
    assert!(has_result(&reqs[2].json()), "{}", reqs[2].body_str());
}
