//! The OpenAI Responses side of the fake provider: [`check`] refuses what
//! the real `POST /v1/responses` refuses, with its status and error body,
//! and [`events`] renders a [`Turn`] as the real stream does.
//!
//! Error bodies are OpenAI's shape, `{"error":{"message":…,"type":
//! "invalid_request_error","param":…,"code":…}}`, `400` unless said. The
//! rules, in this order (the first violation wins):
//!
//! 1. `Authorization: Bearer test-key` (else `401`, `invalid_api_key`).
//! 2. the body is a JSON object of known parameters (`unknown_parameter`),
//!    with a string `model`, an `input` list and `stream: true` (the fake
//!    serves streams only) and `store: false` (hermes is stateless).
//! 3. `include: ["reasoning.encrypted_content"]` and `reasoning` only for a
//!    reasoning model (o-series, `gpt-5…`, `codex-…`): "Encrypted content is
//!    not supported with this model." / "Unsupported parameter:
//!    'reasoning.effort' is not supported with this model.".
//! 4. each tool is `{"type":"function"}` with a name matching
//!    `^[a-zA-Z0-9_-]+$` (`invalid_value`), at most 64 long
//!    (`string_above_max_length`), `parameters` the API takes (the Chat
//!    Completions rules, [`schema_rules::openai`],
//!    `invalid_function_parameters`), and a boolean `strict`.
//! 5. each input item has a known `type`; a message's parts fit its role
//!    (an assistant's are `output_text` or `refusal`: "Invalid value:
//!    'input_text'. Supported values are: 'output_text' and 'refusal'.");
//!    an item that gives an `id` gives one with its type's prefix ("Expected
//!    an ID that begins with 'fc'."), and a reasoning item with an id and no
//!    encrypted content is looked up and not found (`404`: "Items are not
//!    persisted when `store` is set to false.").
//! 6. a `function_call` has a `call_id` of 1–64 characters
//!    (`empty_string`, `string_above_max_length`), a name as in 4 and
//!    string `arguments` (`invalid_type`).
//! 7. a reasoning item carries `encrypted_content` the fake issued ([`seal`];
//!    else `invalid_encrypted_content`, "The encrypted content … could not
//!    be verified."), and is followed at once by the message or call it led
//!    to ("… was provided without its required following item.").
//! 8. every `function_call_output` answers a `function_call` before it
//!    ("No tool call found for function call output with call_id X."), and
//!    every `function_call` is answered ("No tool output found for function
//!    call X.").
//! 9. Stricter than the real API, which stores nothing and cannot see it
//!    without ids: a call the fake issued after a reasoning item is sent
//!    after that reasoning item, in the same run of model items — a
//!    reasoning item left out or moved is refused (the fake's wording).
//!
//! The stream ([`events`]): named SSE events with increasing
//! `sequence_number` — `response.created`, `response.in_progress`, per item
//! `response.output_item.added`, its deltas (text in pieces of 4, call
//! arguments in pieces of 5), `response.output_item.done` with the item
//! whole (a reasoning item's encrypted content differs between added and
//! done, as real streams show), then `response.completed` (or
//! `response.incomplete` at the output limit) with usage.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use serde_json::{json, Value};

use super::fake_anthropic::{keyed, pieces};
use super::fake_provider::{base62, fnv1a, Block, Recorded, Rejection, Stop, Turn};

/// The key the fake takes (the test environment's `HERMES_TEST_KEY`).
pub const API_KEY: &str = "test-key";

const TOP: &[&str] = &[
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "store",
    "stream",
    "include",
    "reasoning",
    "max_output_tokens",
    "prompt_cache_key",
    "text",
    "temperature",
    "top_p",
    "metadata",
    "service_tier",
    "truncation",
];

/// The calls the fake issued after a reasoning item, by call id: the
/// encrypted contents that may stand before them (rule 9).
static ISSUED: Mutex<Option<HashMap<String, HashSet<String>>>> = Mutex::new(None);

/// Whether OpenAI serves `model` as a reasoning model.
pub fn reasoning_model(model: &str) -> bool {
    ["o1", "o3", "o4", "gpt-5", "codex-"]
        .iter()
        .any(|p| model.starts_with(p))
}

pub fn check(req: &Recorded) -> Result<(), Rejection> {
    match req.header("authorization") {
        Some(v) if v == format!("Bearer {API_KEY}") => {}
        Some(_) => {
            return Err(error(
                401,
                "Incorrect API key provided: test-***. You can find your API key at https://platform.openai.com/account/api-keys.",
                None,
                Some("invalid_api_key"),
            ))
        }
        None => {
            return Err(error(
                401,
                "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                None,
                None,
            ))
        }
    }
    let body: Value = match serde_json::from_slice(&req.body) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Err(invalid(
                "We could not parse the JSON body of your request.",
                None,
                None,
            ))
        }
    };
    for key in body.as_object().into_iter().flat_map(|o| o.keys()) {
        if !TOP.contains(&key.as_str()) {
            return Err(invalid(
                &format!("Unknown parameter: '{key}'."),
                Some(key),
                Some("unknown_parameter"),
            ));
        }
    }
    if let Some(n) = body["max_output_tokens"].as_i64().filter(|n| *n < 16) {
        return Err(invalid(
            &format!(
                "Invalid 'max_output_tokens': integer below minimum value. Expected a value \
                 >= 16, but got {n} instead."
            ),
            Some("max_output_tokens"),
            Some("integer_below_min_value"),
        ));
    }
    let format = &body["text"]["format"];
    if format["type"] == "json_schema" {
        if !super::schema_rules::openai_schema_name(&format["name"]) {
            return Err(invalid(
                "Invalid 'text.format.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                Some("text.format.name"),
                Some("invalid_value"),
            ));
        }
        if format["strict"] == true {
            let name = format["name"].as_str().unwrap_or_default();
            if let Some(e) = super::schema_rules::openai_strict(name, &format["schema"]) {
                return Err(invalid(
                    &e.replace("response_format", "text.format"),
                    Some("text.format.schema"),
                    Some("invalid_json_schema"),
                ));
            }
        }
    }
    let model = match body["model"].as_str() {
        Some(m) => m,
        None => {
            return Err(invalid(
                "Missing required parameter: 'model'.",
                Some("model"),
                Some("missing_required_parameter"),
            ))
        }
    };
    let Some(input) = body["input"].as_array() else {
        return Err(invalid(
            "Missing required parameter: 'input'.",
            Some("input"),
            Some("missing_required_parameter"),
        ));
    };
    if body["stream"] != json!(true) {
        return Err(invalid("fake: stream must be true", Some("stream"), None));
    }
    if body["store"] != json!(false) {
        return Err(invalid(
            "fake: hermes is stateless and sends store: false",
            Some("store"),
            None,
        ));
    }
    let encrypted = body["include"]
        .as_array()
        .is_some_and(|i| i.iter().any(|v| v == "reasoning.encrypted_content"));
    if encrypted && !reasoning_model(model) {
        return Err(invalid(
            "Encrypted content is not supported with this model.",
            Some("include"),
            Some("unsupported_value"),
        ));
    }
    if body.get("reasoning").is_some_and(|r| !r.is_null()) && !reasoning_model(model) {
        return Err(invalid(
            "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
            Some("reasoning.effort"),
            Some("unsupported_parameter"),
        ));
    }
    check_tools(&body)?;
    check_items(input)?;
    check_reasoning(input)?;
    check_pairing(input)?;
    check_issued_reasoning(input)?;
    Ok(())
}

fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn check_name(name: &str, param: &str) -> Result<(), Rejection> {
    if !is_name(name) {
        return Err(invalid(
            &format!(
                "Invalid '{param}': string does not match pattern. Expected a string that \
                 matches the pattern '^[a-zA-Z0-9_-]+$'."
            ),
            Some(param),
            Some("invalid_value"),
        ));
    }
    if name.len() > 64 {
        return Err(invalid(
            &format!(
                "Invalid '{param}': string too long. Expected a string with maximum length 64, \
                 but got a string with length {} instead.",
                name.len()
            ),
            Some(param),
            Some("string_above_max_length"),
        ));
    }
    Ok(())
}

/// The keys the `web_search` tool takes, and its context sizes.
const WEB_SEARCH_KEYS: [&str; 4] = ["type", "search_context_size", "user_location", "filters"];

fn check_web_search_tool(i: usize, t: &Value) -> Result<(), Rejection> {
    if let Some(k) = t
        .as_object()
        .into_iter()
        .flat_map(|o| o.keys())
        .find(|k| !WEB_SEARCH_KEYS.contains(&k.as_str()))
    {
        return Err(invalid(
            &format!("Unknown parameter: 'tools[{i}].{k}'."),
            Some(&format!("tools[{i}].{k}")),
            Some("unknown_parameter"),
        ));
    }
    match t.get("search_context_size").and_then(Value::as_str) {
        None | Some("low" | "medium" | "high") => Ok(()),
        Some(other) => Err(invalid(
            &format!(
                "Invalid value: '{other}'. Supported values are: 'low', 'medium', and 'high'."
            ),
            Some(&format!("tools[{i}].search_context_size")),
            Some("invalid_value"),
        )),
    }
}

fn check_tools(body: &Value) -> Result<(), Rejection> {
    for (i, t) in body["tools"].as_array().into_iter().flatten().enumerate() {
        if t["type"] == "web_search" || t["type"] == "web_search_preview" {
            check_web_search_tool(i, t)?;
            continue;
        }
        if t["type"] != "function" {
            continue;
        }
        let name = t["name"].as_str().unwrap_or("");
        check_name(name, &format!("tools[{i}].name"))?;
        if let Some(e) = super::schema_rules::openai(name, &t["parameters"]) {
            return Err(invalid(
                &e,
                Some(&format!("tools[{i}].parameters")),
                Some("invalid_function_parameters"),
            ));
        }
        if t.get("strict")
            .is_some_and(|s| !s.is_boolean() && !s.is_null())
        {
            return Err(invalid(
                &format!("Invalid type for 'tools[{i}].strict': expected a boolean."),
                Some(&format!("tools[{i}].strict")),
                Some("invalid_type"),
            ));
        }
    }
    Ok(())
}

fn check_items(input: &[Value]) -> Result<(), Rejection> {
    for (i, item) in input.iter().enumerate() {
        let at = format!("input[{i}]");
        let kind = item["type"].as_str().unwrap_or("message");
        let prefix = match kind {
            "message" => "msg",
            "reasoning" => "rs",
            "function_call" => "fc",
            "function_call_output" => "fc",
            "web_search_call" => "ws",
            other => {
                return Err(invalid(
                    &format!("Invalid value: '{other}'. Supported values are: 'message', 'reasoning', 'function_call', 'function_call_output', and 'web_search_call'."),
                    Some(&format!("{at}.type")),
                    Some("invalid_value"),
                ))
            }
        };
        if let Some(id) = item.get("id").and_then(Value::as_str) {
            if !id.starts_with(prefix) {
                return Err(invalid(
                    &format!(
                        "Invalid '{at}.id': '{id}'. Expected an ID that begins with '{prefix}'."
                    ),
                    Some(&format!("{at}.id")),
                    Some("invalid_value"),
                ));
            }
            // Neither a reasoning item without its encrypted content nor a
            // search was stored: an id is looked up, and not found.
            if (kind == "reasoning" && item.get("encrypted_content").is_none_or(Value::is_null))
                || kind == "web_search_call"
            {
                return Err(error(
                    404,
                    &format!("Item with id '{id}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."),
                    Some("input"),
                    None,
                ));
            }
        }
        match kind {
            "message" => check_message(item, &at)?,
            "web_search_call" => check_search_call(item, &at)?,
            "function_call" => {
                check_call_id(item, &at)?;
                check_name(item["name"].as_str().unwrap_or(""), &format!("{at}.name"))?;
                if !item["arguments"].is_string() {
                    return Err(invalid(
                        &format!("Invalid type for '{at}.arguments': expected a string, but got {} instead.", type_name(&item["arguments"])),
                        Some(&format!("{at}.arguments")),
                        Some("invalid_type"),
                    ));
                }
            }
            "function_call_output" => {
                check_call_id(item, &at)?;
                if !(item["output"].is_string() || item["output"].is_array()) {
                    return Err(invalid(
                        &format!("Invalid type for '{at}.output': expected one of a string or array of input content, but got {} instead.", type_name(&item["output"])),
                        Some(&format!("{at}.output")),
                        Some("invalid_type"),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A search replayed: its status and its action, a search with a query.
fn check_search_call(item: &Value, at: &str) -> Result<(), Rejection> {
    let status = item["status"].as_str();
    if !matches!(
        status,
        Some("in_progress" | "searching" | "completed" | "failed")
    ) {
        return Err(invalid(
            &format!("Missing required parameter: '{at}.status'."),
            Some(&format!("{at}.status")),
            Some("missing_required_parameter"),
        ));
    }
    let action = &item["action"];
    if action["type"] != "search" || !action["query"].is_string() {
        return Err(invalid(
            &format!("Missing required parameter: '{at}.action'."),
            Some(&format!("{at}.action")),
            Some("missing_required_parameter"),
        ));
    }
    Ok(())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn check_call_id(item: &Value, at: &str) -> Result<(), Rejection> {
    let param = format!("{at}.call_id");
    match item["call_id"].as_str() {
        None => Err(invalid(
            &format!("Missing required parameter: '{param}'."),
            Some(&param),
            Some("missing_required_parameter"),
        )),
        Some("") => Err(invalid(
            &format!("Invalid '{param}': empty string. Expected a string with minimum length 1, but got an empty string instead."),
            Some(&param),
            Some("empty_string"),
        )),
        Some(id) if id.len() > 64 => Err(invalid(
            &format!("Invalid '{param}': string too long. Expected a string with maximum length 64, but got a string with length {} instead.", id.len()),
            Some(&param),
            Some("string_above_max_length"),
        )),
        Some(_) => Ok(()),
    }
}

fn check_message(item: &Value, at: &str) -> Result<(), Rejection> {
    let role = item["role"].as_str().unwrap_or("");
    let allowed: &[&str] = match role {
        "assistant" => &["output_text", "refusal"],
        "user" | "system" | "developer" => &["input_text", "input_image", "input_file"],
        other => {
            return Err(invalid(
                &format!("Invalid value: '{other}'. Supported values are: 'assistant', 'system', 'developer', and 'user'."),
                Some(&format!("{at}.role")),
                Some("invalid_value"),
            ))
        }
    };
    let parts = match &item["content"] {
        Value::String(_) => return Ok(()),
        Value::Array(p) => p,
        _ => {
            return Err(invalid(
                &format!("Missing required parameter: '{at}.content'."),
                Some(&format!("{at}.content")),
                Some("missing_required_parameter"),
            ))
        }
    };
    for (j, p) in parts.iter().enumerate() {
        let t = p["type"].as_str().unwrap_or("");
        if !allowed.contains(&t) {
            let supported = match allowed.len() {
                2 => format!("'{}' and '{}'", allowed[0], allowed[1]),
                _ => format!("'{}', '{}', and '{}'", allowed[0], allowed[1], allowed[2]),
            };
            return Err(invalid(
                &format!("Invalid value: '{t}'. Supported values are: {supported}."),
                Some(&format!("{at}.content[{j}].type")),
                Some("invalid_value"),
            ));
        }
        if t == "input_image" {
            let url = p["image_url"].as_str().unwrap_or("");
            let data = url.split_once(";base64,").map(|(_, d)| d);
            if !url.starts_with("data:image/")
                || data.is_none_or(|d| !super::schema_rules::is_base64(d))
            {
                return Err(invalid(
                    &format!("Invalid '{at}.content[{j}].image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix."),
                    Some(&format!("{at}.content[{j}].image_url")),
                    Some("invalid_value"),
                ));
            }
        }
    }
    Ok(())
}

fn check_reasoning(input: &[Value]) -> Result<(), Rejection> {
    for (i, item) in input.iter().enumerate() {
        if item["type"] != "reasoning" {
            continue;
        }
        let Some(sealed) = item["encrypted_content"].as_str() else {
            return Err(invalid(
                &format!("Missing required parameter: 'input[{i}].encrypted_content'."),
                Some(&format!("input[{i}].encrypted_content")),
                Some("missing_required_parameter"),
            ));
        };
        if !is_sealed(sealed) {
            let shown = if sealed.len() > 12 {
                format!("{}...{}", &sealed[..4], &sealed[sealed.len() - 4..])
            } else {
                sealed.to_string()
            };
            return Err(invalid(
                &format!("The encrypted content {shown} could not be verified."),
                None,
                Some("invalid_encrypted_content"),
            ));
        }
        let next = input.get(i + 1);
        let follows = next.is_some_and(|n| {
            n["type"] == "function_call"
                || n["type"] == "web_search_call"
                || (n["type"] == "message" && n["role"] == "assistant")
        });
        if !follows {
            return Err(invalid(
                &format!("Item of type 'reasoning' at 'input[{i}]' was provided without its required following item."),
                Some("input"),
                None,
            ));
        }
    }
    Ok(())
}

fn check_pairing(input: &[Value]) -> Result<(), Rejection> {
    let mut called: Vec<&str> = Vec::new();
    for item in input {
        match item["type"].as_str() {
            Some("function_call") => called.push(item["call_id"].as_str().unwrap_or("")),
            Some("function_call_output") => {
                let id = item["call_id"].as_str().unwrap_or("");
                if !called.contains(&id) {
                    return Err(invalid(
                        &format!("No tool call found for function call output with call_id {id}."),
                        Some("input"),
                        None,
                    ));
                }
            }
            _ => {}
        }
    }
    for id in called {
        let answered = input
            .iter()
            .any(|i| i["type"] == "function_call_output" && i["call_id"].as_str() == Some(id));
        if !answered {
            return Err(invalid(
                &format!("No tool output found for function call {id}."),
                Some("input"),
                None,
            ));
        }
    }
    Ok(())
}

/// Rule 9: a call issued after a reasoning item comes after it again.
fn check_issued_reasoning(input: &[Value]) -> Result<(), Rejection> {
    let issued = ISSUED.lock().unwrap();
    let Some(issued) = issued.as_ref() else {
        return Ok(());
    };
    for (i, item) in input.iter().enumerate() {
        if item["type"] != "function_call" {
            continue;
        }
        let id = item["call_id"].as_str().unwrap_or("");
        let Some(sealed) = issued.get(id) else {
            continue;
        };
        // The run of model items this call is in.
        let run_start = input[..i]
            .iter()
            .rposition(|p| {
                !(p["type"] == "reasoning"
                    || p["type"] == "function_call"
                    || p["type"] == "web_search_call"
                    || (p["type"] == "message" && p["role"] == "assistant"))
            })
            .map_or(0, |p| p + 1);
        let found = input[run_start..i].iter().any(|p| {
            p["type"] == "reasoning"
                && p["encrypted_content"]
                    .as_str()
                    .is_some_and(|c| sealed.contains(c))
        });
        if !found {
            return Err(invalid(
                &format!("fake: function call {id} at 'input[{i}]' was issued after a reasoning item of its response, which is missing before it or moved"),
                Some("input"),
                None,
            ));
        }
    }
    Ok(())
}

/// OpenAI's error body.
pub fn error_body(message: &str, kind: &str, param: Option<&str>, code: Option<&str>) -> String {
    json!({"error": {"message": message, "type": kind, "param": param, "code": code}}).to_string()
}

fn error(status: u16, message: &str, param: Option<&str>, code: Option<&str>) -> Rejection {
    Rejection {
        status,
        headers: Vec::new(),
        body: error_body(message, "invalid_request_error", param, code),
    }
}

fn invalid(message: &str, param: Option<&str>, code: Option<&str>) -> Rejection {
    error(400, message, param, code)
}

/// A prompt past the model's window, as the real API says it.
pub fn too_long() -> Rejection {
    invalid(
        "Your input exceeds the context window of this model. Please adjust your input and try again.",
        Some("input"),
        Some("context_length_exceeded"),
    )
}

const SEAL_BODY: usize = 48;
const SEAL_MAC: usize = 16;

/// Encrypted reasoning for `seed`: `gAAAAAB` (the Fernet-token head real
/// ones start with) and standard base64 of bytes derived from `seed` and a
/// keyed check of them, so [`check`] can tell content it issued from any
/// other.
pub fn seal(seed: &str) -> String {
    let body = keyed(b"responses reasoning body", seed.as_bytes(), SEAL_BODY);
    let mut raw = body.clone();
    raw.extend(keyed(b"responses reasoning check", &body, SEAL_MAC));
    format!("gAAAAAB{}", aws_smithy_types::base64::encode(raw))
}

/// Whether `s` is one [`seal`] could have produced.
pub fn is_sealed(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("gAAAAAB") else {
        return false;
    };
    let Ok(raw) = aws_smithy_types::base64::decode(rest) else {
        return false;
    };
    raw.len() == SEAL_BODY + SEAL_MAC
        && raw[SEAL_BODY..] == keyed(b"responses reasoning check", &raw[..SEAL_BODY], SEAL_MAC)[..]
        && aws_smithy_types::base64::encode(&raw) == rest
}

/// A turn as the real stream's named events, for a request that asked for
/// encrypted reasoning (`encrypted`) or not.
pub fn events(turn: &Turn, encrypted: bool) -> Vec<(String, String)> {
    let seed = format!("{turn:?}");
    let response_id = format!("resp_{}", base62(fnv1a(seed.as_bytes()), 48));
    let mut seq = 0u64;
    let mut out = Vec::new();
    let mut push = |out: &mut Vec<(String, String)>, kind: &str, mut data: Value| {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(seq);
        seq += 1;
        out.push((kind.to_string(), data.to_string()));
    };
    let response = |status: &str, output: Value, usage: Value| {
        json!({"id": response_id, "object": "response", "created_at": 1_764_547_200,
            "status": status, "model": "gpt-5", "output": output, "usage": usage,
            "store": false, "error": null, "incomplete_details": null})
    };
    push(
        &mut out,
        "response.created",
        json!({"response": response("in_progress", json!([]), Value::Null)}),
    );
    push(
        &mut out,
        "response.in_progress",
        json!({"response": response("in_progress", json!([]), Value::Null)}),
    );
    let mut output = Vec::new();
    let mut last_seal: Option<String> = None;
    let mut issued: Vec<(String, String)> = Vec::new();
    for (i, block) in turn.blocks.iter().enumerate() {
        let item_id = |prefix: &str| {
            format!(
                "{prefix}_{}",
                base62(fnv1a(format!("{seed}{i}").as_bytes()), 48)
            )
        };
        let item = match block {
            Block::Thinking(_) | Block::Redacted => {
                let id = item_id("rs");
                let sealed = seal(&format!("{seed}/{i}/{text}", text = text_of(block)));
                let mut added = json!({"id": id, "type": "reasoning", "summary": []});
                let mut done = added.clone();
                if encrypted {
                    // Whole only at `done`, as real streams show.
                    added["encrypted_content"] = json!(&sealed[..sealed.len() / 2]);
                    done["encrypted_content"] = json!(sealed);
                    last_seal = Some(sealed);
                }
                push(
                    &mut out,
                    "response.output_item.added",
                    json!({"output_index": i, "item": added}),
                );
                done
            }
            Block::Search { query, results } => {
                let id = item_id("ws");
                push(
                    &mut out,
                    "response.output_item.added",
                    json!({"output_index": i,
                    "item": {"id": id, "type": "web_search_call", "status": "in_progress"}}),
                );
                for stage in ["in_progress", "searching", "completed"] {
                    push(
                        &mut out,
                        &format!("response.web_search_call.{stage}"),
                        json!({"output_index": i, "item_id": id}),
                    );
                }
                let sources: Vec<Value> = results
                    .iter()
                    .map(|(url, _)| json!({"type": "url", "url": url}))
                    .collect();
                json!({"id": id, "type": "web_search_call", "status": "completed",
                    "action": {"type": "search", "query": query, "sources": sources}})
            }
            Block::Text(text) => {
                let id = item_id("msg");
                push(
                    &mut out,
                    "response.output_item.added",
                    json!({"output_index": i,
                    "item": {"id": id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}}),
                );
                let refusal = turn.stop == Stop::Refusal;
                let part_kind = if refusal { "refusal" } else { "output_text" };
                push(
                    &mut out,
                    "response.content_part.added",
                    json!({"item_id": id, "output_index": i,
                    "content_index": 0, "part": {"type": part_kind, "annotations": [], "text": ""}}),
                );
                if !refusal {
                    for piece in pieces(text, 4) {
                        push(
                            &mut out,
                            "response.output_text.delta",
                            json!({"item_id": id,
                            "output_index": i, "content_index": 0, "delta": piece, "logprobs": []}),
                        );
                    }
                    push(
                        &mut out,
                        "response.output_text.done",
                        json!({"item_id": id,
                        "output_index": i, "content_index": 0, "text": text, "logprobs": []}),
                    );
                }
                let part = if refusal {
                    json!({"type": "refusal", "refusal": text})
                } else {
                    json!({"type": "output_text", "annotations": [], "logprobs": [], "text": text})
                };
                json!({"id": id, "type": "message", "status": "completed", "role": "assistant", "content": [part]})
            }
            Block::Tool {
                id: call_id,
                name,
                args,
            } => {
                let id = item_id("fc");
                push(
                    &mut out,
                    "response.output_item.added",
                    json!({"output_index": i,
                    "item": {"id": id, "type": "function_call", "status": "in_progress",
                        "arguments": "", "call_id": call_id, "name": name}}),
                );
                for piece in pieces(args, 5) {
                    push(
                        &mut out,
                        "response.function_call_arguments.delta",
                        json!({"item_id": id,
                        "output_index": i, "delta": piece}),
                    );
                }
                push(
                    &mut out,
                    "response.function_call_arguments.done",
                    json!({"item_id": id,
                    "output_index": i, "arguments": args, "name": name}),
                );
                if let Some(s) = &last_seal {
                    issued.push((call_id.clone(), s.clone()));
                }
                json!({"id": id, "type": "function_call", "status": "completed", "arguments": args,
                    "call_id": call_id, "name": name})
            }
        };
        push(
            &mut out,
            "response.output_item.done",
            json!({"output_index": i, "item": item}),
        );
        output.push(item);
    }
    {
        let mut guard = ISSUED.lock().unwrap();
        let map = guard.get_or_insert_with(HashMap::new);
        for (id, sealed) in issued {
            map.entry(id).or_default().insert(sealed);
        }
    }
    let u = turn.usage;
    let usage = json!({"input_tokens": u.input + u.cache_read + u.cache_write,
        "input_tokens_details": {"cached_tokens": u.cache_read},
        "output_tokens": u.output, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": u.input + u.cache_read + u.cache_write + u.output});
    if turn.stop == Stop::MaxTokens {
        let mut r = response("incomplete", Value::Array(output), usage);
        r["incomplete_details"] = json!({"reason": "max_output_tokens"});
        push(&mut out, "response.incomplete", json!({ "response": r }));
    } else {
        push(
            &mut out,
            "response.completed",
            json!({"response": response("completed", Value::Array(output), usage)}),
        );
    }
    out
}

fn text_of(block: &Block) -> &str {
    match block {
        Block::Thinking(t) => t,
        _ => "",
    }
}
