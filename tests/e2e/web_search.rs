//! The provider's own web search (issue 68), where its API has one:
//! Anthropic's `web_search` server tool offered with `[tools.web_search]
//! native = true`, its blocks kept as they came and replayed byte for byte
//! across `--continue` — the strict fake refuses a result whose
//! `encrypted_content` changed — and never split as hermes' own calls.

use serde_json::{json, Value};

use crate::support::fake_anthropic::search_seal;
use crate::support::{Api, Block, Reply, Stop, TestEnv, Turn};

/// A run on `api` with `config`, whose answer searched and then said so;
/// then a `--continue` answered "Nothing since.": the two requests.
fn searched_then_continued(
    api: Api,
    config: &str,
    url: &str,
    title: &str,
) -> (TestEnv, Value, Value) {
    let env = TestEnv::with_api(api);
    env.write_config(config);
    env.fake.push(Reply::from_turn(Turn::new(
        vec![
            Block::Search {
                query: "hermes 2.1 release notes".into(),
                results: vec![(url.into(), title.into())],
            },
            Block::Text("hermes 2.1 came out on November 30.".into()),
        ],
        Stop::EndTurn,
    )));
    let run = env.run(&["-q", "what is new in hermes?"]);
    run.ok();
    crate::assert_contains!(run.stdout, "hermes 2.1 came out on November 30.");
    env.fake.push(Reply::text("Nothing since."));
    env.run(&["--continue", "-q", "anything since?"]).ok();
    let requests = env.fake.requests();
    assert_eq!(requests.len(), 2, "the replay was accepted");
    let (first, second) = (requests[0].json(), requests[1].json());
    // The second request starts with the first's tools.
    assert_eq!(second["tools"], first["tools"]);
    (env, first, second)
}

#[test]
fn anthropics_search_is_offered_kept_and_replayed_across_continue() {
    let url = "https://example.com/hermes/notes";
    let config = "[tools]\nbuiltin = []\n[tools.web_search]\nnative = true\nmax_uses = 3\n";
    let (_env, first, second) =
        searched_then_continued(Api::Anthropic, config, url, "hermes 2.1 notes");
    let tool = &first["tools"][0];
    assert_eq!(
        (&tool["type"], &tool["name"], &tool["max_uses"]),
        (
            &json!("web_search_20250305"),
            &json!("web_search"),
            &json!(3)
        )
    );
    let answer = &second["messages"][1];
    assert_eq!(answer["role"], "assistant");
    let blocks: Vec<&Value> = answer["content"].as_array().unwrap().iter().collect();
    assert_eq!(blocks[0]["type"], "server_tool_use");
    assert_eq!(
        blocks[0]["input"],
        json!({"query": "hermes 2.1 release notes"})
    );
    assert_eq!(blocks[1]["type"], "web_search_tool_result");
    assert_eq!(blocks[1]["tool_use_id"], blocks[0]["id"]);
    assert_eq!(
        blocks[1]["content"][0]["encrypted_content"],
        search_seal(url, "hermes 2.1 notes")
    );
    assert_eq!(blocks[2]["type"], "text");
    // Not a call of hermes': no tool result answers it.
    let results = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .count();
    assert_eq!(results, 0);
    // The second request starts with the first's conversation and tools.
    assert_eq!(second["tools"], first["tools"]);
    assert_eq!(
        second["messages"][0]["content"][0]["text"],
        "what is new in hermes?"
    );
}

/// The strict fake refuses what the real API refuses: a result whose
/// sealed content changed, a server tool under another name.
#[test]
fn the_fake_refuses_a_changed_search_result_and_a_misnamed_tool() {
    use crate::support::fake_anthropic;
    let check = |body: &Value| {
        fake_anthropic::check(&crate::support::fake_provider::Recorded {
            method: "POST".into(),
            path: "/v1/messages".into(),
            headers: vec![
                ("x-api-key".into(), fake_anthropic::API_KEY.into()),
                ("anthropic-version".into(), "2023-06-01".into()),
            ],
            body: body.to_string().into_bytes(),
            first_byte: std::time::Instant::now(),
        })
    };
    let changed = json!({
        "model": "claude-sonnet-4-5", "max_tokens": 100, "stream": true,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "srvtoolu_01abc", "name": "web_search", "input": {"query": "q"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01abc", "content": [
                    {"type": "web_search_result", "url": "https://example.com/", "title": "t", "encrypted_content": "Eq0forged"}
                ]},
                {"type": "text", "text": "found"}
            ]},
            {"role": "user", "content": "more"}
        ]
    });
    let e = check(&changed).unwrap_err();
    crate::assert_contains!(
        e.body,
        "Invalid `encrypted_content` in web_search_result block"
    );
    let misnamed = json!({
        "model": "claude-sonnet-4-5", "max_tokens": 100, "stream": true,
        "tools": [{"type": "web_search_20250305", "name": "search"}],
        "messages": [{"role": "user", "content": "hi"}]
    });
    let e = check(&misnamed).unwrap_err();
    crate::assert_contains!(
        e.body,
        "tools.0.web_search_20250305.name: Input should be 'web_search'"
    );
}

/// OpenAI Responses: its `web_search` tool offered, the `web_search_call`
/// item replayed as the stateless API takes it back — without the id it
/// never stored (the strict fake looks an id up and does not find it),
/// with its status and action.
#[test]
fn responses_search_is_offered_and_its_call_replayed_across_continue() {
    let config = "[tools]\nbuiltin = []\n[tools.web_search]\nnative = true\n";
    let (_env, first, second) = searched_then_continued(
        Api::Responses,
        config,
        "https://example.com/hermes/notes",
        "notes",
    );
    assert_eq!(first["tools"], json!([{"type": "web_search"}]));
    let input = second["input"].as_array().unwrap();
    let call = input
        .iter()
        .find(|i| i["type"] == "web_search_call")
        .expect("the search replayed");
    assert_eq!(
        call,
        &json!({"type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "hermes 2.1 release notes",
                "sources": [{"type": "url", "url": "https://example.com/hermes/notes"}]}})
    );
    // The search, then the answer it led to, in order.
    let at = input
        .iter()
        .position(|i| i["type"] == "web_search_call")
        .unwrap();
    assert_eq!(input[at + 1]["role"], "assistant");
}

/// The Responses fake refuses a search sent back with its id (never
/// stored under `store: false`) or without its action.
#[test]
fn the_responses_fake_refuses_a_search_with_its_id_or_without_its_action() {
    use crate::support::fake_responses;
    let check = |item: Value| {
        let body = json!({
            "model": "gpt-5", "stream": true, "store": false,
            "tools": [{"type": "web_search"}],
            "input": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                item,
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "found"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "more"}]}
            ]
        });
        fake_responses::check(&crate::support::fake_provider::Recorded {
            method: "POST".into(),
            path: "/v1/responses".into(),
            headers: vec![("authorization".into(), "Bearer test-key".into())],
            body: body.to_string().into_bytes(),
            first_byte: std::time::Instant::now(),
        })
    };
    let search = json!({"type": "web_search_call", "status": "completed",
        "action": {"type": "search", "query": "q"}});
    assert!(check(search.clone()).is_ok());
    let mut with_id = search.clone();
    with_id["id"] = json!("ws_68d7a1");
    let e = check(with_id).unwrap_err();
    assert_eq!(e.status, 404);
    crate::assert_contains!(
        e.body,
        "Items are not persisted when `store` is set to false"
    );
    let e = check(json!({"type": "web_search_call", "status": "completed"})).unwrap_err();
    crate::assert_contains!(e.body, "Missing required parameter: 'input[1].action'.");
}

/// Gemini: Google Search grounding offered beside hermes' own functions;
/// the sources come as the candidate's metadata, and the grounded answer's
/// parts are replayed as they came.
#[test]
fn geminis_grounding_is_offered_and_its_answer_replayed_across_continue() {
    let config = "[tools]\nbuiltin = [\"read_file\"]\n[tools.web_search]\nnative = true\n";
    let (_env, first, second) = searched_then_continued(
        Api::Gemini,
        config,
        "https://example.com/hermes/notes",
        "notes",
    );
    let tools = first["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "{tools:?}");
    assert!(tools[0]["functionDeclarations"].is_array());
    assert_eq!(tools[1], json!({"google_search": {}}));
    let model_turn = &second["contents"][1];
    assert_eq!(model_turn["role"], "model");
    let text: String = model_turn["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert_eq!(text, "hermes 2.1 came out on November 30.");
}
