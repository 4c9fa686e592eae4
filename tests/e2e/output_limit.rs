//! The output limit a person configures reaches every API (issue 53): Chat
//! Completions sends `max_tokens` — `max_completion_tokens` to OpenAI's
//! reasoning models, which refuse the other with a 400 — and Responses
//! `max_output_tokens`; unconfigured, Chat and Responses send none and the
//! server's default holds. The strict fakes refuse what the real APIs do.

use serde_json::{json, Value};

use crate::support::fake_provider::validate;
use crate::support::{Api, Reply, TestEnv};

fn with_limit(api: Api, lines: &str) -> TestEnv {
    let env = TestEnv::with_api(api);
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str(lines);
    std::fs::write(env.config_path(), text).unwrap();
    env
}

fn sent(env: &TestEnv, args: &[&str]) -> Value {
    env.fake.push(Reply::text("ok"));
    let mut all = args.to_vec();
    all.extend(["-q", "hi"]);
    env.run(&all).ok();
    env.fake.requests().last().unwrap().json()
}

#[test]
fn chat_completions_sends_the_configured_limit_in_the_field_the_model_takes() {
    let env = with_limit(Api::OpenAi, "max_tokens = 2000\n");
    let body = sent(&env, &[]);
    assert_eq!(body["max_tokens"], 2000);
    assert!(body.get("max_completion_tokens").is_none(), "{body}");
    let body = sent(&env, &["--model", "gpt-5-mini"]);
    assert_eq!(body["max_completion_tokens"], 2000);
    assert!(body.get("max_tokens").is_none(), "{body}");
    // Nothing configured: nothing sent, the server's own default holds.
    let env = TestEnv::new();
    let body = sent(&env, &[]);
    assert!(
        body.get("max_tokens").is_none() && body.get("max_completion_tokens").is_none(),
        "{body}"
    );
}

#[test]
fn responses_sends_the_configured_limit_as_max_output_tokens() {
    let env = with_limit(Api::Responses, "max_tokens = 3000\n");
    assert_eq!(sent(&env, &[])["max_output_tokens"], 3000);
    let env = TestEnv::with_api(Api::Responses);
    assert!(sent(&env, &[]).get("max_output_tokens").is_none());
}

#[test]
fn the_strict_chat_fake_refuses_max_tokens_on_a_reasoning_model_and_a_limit_below_one() {
    let request = |model: &str, key: &str, n: i64| {
        json!({"model": model, "stream": true, key: n,
            "messages": [{"role": "user", "content": "hi"}]})
    };
    let e: Value =
        serde_json::from_str(&validate(&request("o4-mini", "max_tokens", 100)).unwrap_err())
            .unwrap();
    assert_eq!(
        e["error"]["message"],
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
    );
    assert_eq!(e["error"]["code"], "unsupported_parameter");
    assert!(validate(&request("o4-mini", "max_completion_tokens", 100)).is_ok());
    assert!(validate(&request("gpt-4.1", "max_tokens", 100)).is_ok());
    let e: Value =
        serde_json::from_str(&validate(&request("gpt-4.1", "max_tokens", 0)).unwrap_err()).unwrap();
    assert_eq!(e["error"]["code"], "integer_below_min_value");
    assert_eq!(e["error"]["param"], "max_tokens");
}
