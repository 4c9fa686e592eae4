//! Replies and ids in the shapes real model servers send them, and a session
//! that moves between APIs: vLLM's 46-character `chatcmpl-tool-…` ids,
//! llama-cpp-python's name repeated in every chunk of a call, a whole JSON
//! Message answering a streaming Anthropic request (LiteLLM's proxy).

use serde_json::json;

use crate::support::fake_provider::{delta, finish};
use crate::support::{records, Api, Reply, TestEnv, KEY_ENV};

/// An id as vLLM issues them: `chatcmpl-tool-` and 32 hex digits.
const VLLM_ID: &str = "chatcmpl-tool-3f9c2b7e81d04a6c9e5f1a2b3c4d5e6f";

/// A home whose provider `fake` is this env's OpenAI-compatible fake and
/// `claude` the same fake as the Anthropic API, with the test server `t`
/// offered directly.
fn two_apis() -> TestEnv {
    let env = TestEnv::with_api(Api::OpenAi);
    env.write_config(&format!(
        "[tools]\ndefer = \"never\"\n\n[providers.claude]\nkind = \"anthropic\"\n\
         base_url = \"{}\"\napi_key_env = \"{KEY_ENV}\"\nmodel = \"claude-sonnet-4-5\"\n\
         max_retries = 0\n",
        env.fake.root_url()
    ));
    env.add_test_server("t", "");
    env
}

/// A vLLM-shaped streamed call (its name repeated in every chunk, as
/// llama-cpp-python sends it) to `mcp__t__echo`.
fn served_call(id: &str) -> Reply {
    let piece = |args: &str| {
        delta(
            json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
            "function": {"name": "mcp__t__echo", "arguments": args}}]}),
        )
    };
    Reply::sse(vec![
        piece("{\"text\""),
        piece(": \"hi\"}"),
        finish("tool_calls"),
    ])
}

#[test]
fn a_session_with_46_character_ids_continues_openai_anthropic_openai() {
    assert_eq!(VLLM_ID.len(), 46);
    let env = two_apis();
    env.fake.push(served_call(VLLM_ID));
    env.fake.push(Reply::text("first"));
    env.run(&["-q", "echo hi"]).ok();
    // The call ran under its one name, and the result went back under an id
    // the strict fake takes (at most 40 characters).
    let results = env.results_of(1);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].1, "hi", "{results:?}");
    assert!(results[0].0.len() <= 40, "{results:?}");

    env.fake.push(Reply::text("second"));
    env.run(&["--provider", "claude", "--continue", "-q", "again"])
        .ok();
    env.fake.push(Reply::text("third"));
    env.run(&["--continue", "-q", "and back"]).ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 4, "every request was taken");
    assert_eq!(reqs[2].path, "/v1/messages");
    assert_eq!(reqs[2].json()["model"], "claude-sonnet-4-5");
    assert!(reqs[3].path.ends_with("/chat/completions"));
    // The same mapped id on every API; the session keeps the model's own.
    let mapped = &results[0].0;
    for r in &reqs[1..] {
        assert!(r.body_str().contains(mapped.as_str()), "{}", r.body_str());
        assert!(!r.body_str().contains(VLLM_ID));
    }
    let session = std::fs::read_to_string(env.only_session()).unwrap();
    assert!(
        session.contains(VLLM_ID),
        "the session keeps the model's id"
    );
    assert!(!records(&env.only_session()).is_empty());
}

/// A tool round's assistant turn without text goes with `"content": ""`:
/// llama-cpp-python answers 500 to `null`.
#[test]
fn an_assistant_turn_with_only_tool_calls_sends_empty_text_not_null() {
    let env = two_apis();
    env.fake.push(served_call(VLLM_ID));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "echo hi"]).ok();
    let body = env.fake.requests()[1].json();
    let assistant = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap()
        .clone();
    assert_eq!(assistant["content"], "", "{assistant}");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["name"],
        "mcp__t__echo"
    );
}

/// LiteLLM's `/v1/messages` may answer a streaming request with one JSON
/// Message: it is read as the answer, text and tool calls alike.
#[test]
fn a_whole_json_message_answering_a_streaming_anthropic_request_is_read() {
    let env = TestEnv::with_api(Api::Anthropic);
    env.write_config("[tools]\ndefer = \"never\"\n");
    env.add_test_server("t", "");
    let message = |content: serde_json::Value, stop: &str| {
        Reply::status(
            200,
            &json!({"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message",
                "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
                "stop_reason": stop, "stop_sequence": null,
                "usage": {"input_tokens": 812, "output_tokens": 31}})
            .to_string(),
        )
        .with_content_type("application/json")
    };
    env.fake.push(message(
        json!([{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9b",
            "name": "mcp__t__echo", "input": {"text": "from a whole body"}}]),
        "tool_use",
    ));
    env.fake.push(message(
        json!([{"type": "text", "text": "All done."}]),
        "end_turn",
    ));
    let run = env.run(&["-q", "echo"]);
    run.ok();
    assert!(run.stdout.contains("All done."), "{}", run.stdout);
    let results = env.results_of(1);
    assert_eq!(results[0].1, "from a whole body", "{results:?}");
}

/// An answer with no text and no tool call is said, not passed over in
/// silence; `--json` is taken after a subcommand as before it.
#[test]
fn an_empty_answer_is_said_and_json_goes_after_a_subcommand_too() {
    let env = two_apis();
    env.fake.push(Reply::text(""));
    let run = env.run(&["-q", "hi"]);
    run.ok();
    assert!(
        run.stderr.contains("the model's answer was empty"),
        "{}",
        run.stderr
    );
    let before = env.run(&["--json", "mcp", "call", "t", "echo", r#"{"text":"x"}"#]);
    let after = env.run(&["mcp", "call", "t", "echo", r#"{"text":"x"}"#, "--json"]);
    before.ok();
    after.ok();
    assert_eq!(before.stdout, after.stdout);
    assert!(
        serde_json::from_str::<serde_json::Value>(after.stdout.lines().next().unwrap()).is_ok(),
        "{}",
        after.stdout
    );
}
