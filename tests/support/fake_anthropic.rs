//! The Anthropic Messages API side of the fake provider: [`check`] refuses
//! what the real `POST /v1/messages` refuses, with its status and error body,
//! and [`events`] renders a [`Turn`] as the real stream does.
//!
//! Error bodies are the real shape,
//! `{"type":"error","error":{"type":"invalid_request_error","message":…},"request_id":"req_011CV…"}`,
//! `400` unless said. The rules, in this order (the first violation wins):
//!
//! 1. `x-api-key` is present (`401 authentication_error`) and is `test-key`.
//! 2. `anthropic-version` is present.
//! 3. the body is a JSON object with a string `model`, an integer
//!    `max_tokens` ≥ 1, a non-empty `messages` array and `stream: true` (the
//!    fake only serves streams).
//! 4. `thinking`, if present, is `enabled` with `budget_tokens` ≥ 1024 and
//!    below `max_tokens` (unless the `interleaved-thinking-2025-05-14` beta is
//!    on), `adaptive` or `disabled`.
//! 5. `system` is a string or an array of non-empty `text` blocks.
//! 6. each custom tool has a name of 1–64 `[a-zA-Z0-9_-]` and an
//!    `input_schema` the API takes ([`schema_rules::anthropic`]).
//! 7. at most 4 blocks carry `cache_control`, each `{"type":"ephemeral"}`
//!    (with an optional `ttl` of `5m` or `1h`).
//! 8. messages have role `user` or `assistant`, the first `user`; content is a
//!    string or a non-empty array (except a final assistant message); text
//!    blocks are non-empty; each role takes only its block types.
//! 9. `tool_use` blocks have an id of `[a-zA-Z0-9_-]`, unique in the whole
//!    request (`` `tool_use` ids must be unique ``), a tool name as in 6 and
//!    an object `input`.
//! 10. `thinking` blocks are exactly `type`/`thinking`/`signature`, signed by
//!     [`sign`]; `redacted_thinking` blocks carry data [`redacted_data`] made.
//! 11. every `tool_use` is answered by a `tool_result` in the next message (a
//!     user message), every `tool_result` answers a `tool_use` of the message
//!     before, and `tool_result` blocks come first in their message.
//! 12. with thinking on, an assistant message in a tool loop in progress (the
//!     last assistant message, with `tool_use`, followed by its results)
//!     starts with a thinking block.

#![allow(dead_code)]

use serde_json::Value;

use super::fake_provider::{base62, fnv1a, json_obj, json_str, splitmix, wire_id};
use super::fake_provider::{Api, Block, Recorded, Rejection, Stop, Turn};

/// The key the fake takes (the test environment's `HERMES_TEST_KEY`).
pub const API_KEY: &str = "test-key";
/// The beta that lets `budget_tokens` reach `max_tokens`.
pub const INTERLEAVED_THINKING: &str = "interleaved-thinking-2025-05-14";
/// The model the stream reports.
pub const MODEL: &str = "claude-sonnet-4-5";

const NAME_PATTERN: &str = "^[a-zA-Z0-9_-]{1,64}$";
const ID_PATTERN: &str = "^[a-zA-Z0-9_-]+$";

/// Checks a Messages request against the rules in this file's header, in that
/// order; `Err` is the real API's answer to the first rule broken.
pub fn check(req: &Recorded) -> Result<(), Rejection> {
    match req.header("x-api-key") {
        None => {
            return Err(error(
                401,
                "authentication_error",
                "x-api-key header is required",
            ))
        }
        Some(key) if key != API_KEY => {
            return Err(error(401, "authentication_error", "invalid x-api-key"))
        }
        Some(_) => {}
    }
    if req.header("anthropic-version").is_none() {
        return Err(invalid("anthropic-version: header is required"));
    }
    let body: Value = match serde_json::from_slice(&req.body) {
        Ok(v @ Value::Object(_)) => v,
        // The fake's wording.
        _ => return Err(invalid("fake: the request body must be a JSON object")),
    };
    let max_tokens = check_top_level(&body)?;
    let interleaved = req
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("anthropic-beta"))
        .any(|(_, v)| v.split(',').any(|b| b.trim() == INTERLEAVED_THINKING));
    let thinking_on = check_thinking(&body, max_tokens, interleaved)?;
    check_system(&body)?;
    check_tools(&body)?;
    check_cache_control(&body)?;
    let messages = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    check_messages(messages)?;
    check_tool_use(messages)?;
    check_thinking_blocks(messages)?;
    check_pairing(messages)?;
    check_tools_defined(&body, messages)?;
    check_searches(messages)?;
    if thinking_on {
        check_thinking_first(messages)?;
    }
    Ok(())
}

/// The search a server tool ran: its id's pattern, each result block after
/// the use it answers in the same message, and every result's
/// `encrypted_content` as this server issued it (a changed byte is
/// refused, as signed thinking is).
fn check_searches(messages: &[Value]) -> Result<(), Rejection> {
    for (m, msg) in messages.iter().enumerate() {
        let mut uses: Vec<&str> = Vec::new();
        for (k, b) in blocks_of(msg).iter().enumerate() {
            let at = format!("messages.{m}.content.{k}");
            match block_type(b) {
                "server_tool_use" => {
                    let id = b["id"].as_str().unwrap_or("");
                    let ok = id.strip_prefix("srvtoolu_").is_some_and(|r| {
                        !r.is_empty() && r.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
                    });
                    if !ok {
                        return Err(invalid(format!(
                            "{at}.server_tool_use.id: String should match pattern '^srvtoolu_[a-zA-Z0-9_]+$'"
                        )));
                    }
                    if b["name"] != "web_search" || !b["input"]["query"].is_string() {
                        return Err(invalid(format!(
                            "{at}.server_tool_use: a web_search use needs its name and input.query"
                        )));
                    }
                    uses.push(id);
                }
                "web_search_tool_result" => {
                    let id = b["tool_use_id"].as_str().unwrap_or("");
                    if !uses.contains(&id) {
                        return Err(invalid(format!(
                            "{at}: web_search_tool_result block(s) provided when previous message does not have a matching server_tool_use block with id `{id}`"
                        )));
                    }
                    for (j, r) in b["content"].as_array().into_iter().flatten().enumerate() {
                        let url = r["url"].as_str().unwrap_or("");
                        let title = r["title"].as_str().unwrap_or("");
                        if r["encrypted_content"].as_str() != Some(&search_seal(url, title)) {
                            return Err(invalid(format!(
                                "{at}.content.{j}.encrypted_content: Invalid `encrypted_content` in web_search_result block"
                            )));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// What a search result's `encrypted_content` is: sealed over its page.
pub fn search_seal(url: &str, title: &str) -> String {
    let mut raw = vec![0x12, 0xB4];
    raw.extend(keyed(
        b"web search",
        format!("{url}\n{title}").as_bytes(),
        120,
    ));
    aws_smithy_types::base64::encode(raw)
}

/// A history with tool blocks needs a request that defines tools.
fn check_tools_defined(body: &Value, messages: &[Value]) -> Result<(), Rejection> {
    let has_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    let tool_blocks = messages.iter().any(|m| {
        m["content"].as_array().is_some_and(|c| {
            c.iter()
                .any(|b| b["type"] == "tool_use" || b["type"] == "tool_result")
        })
    });
    if tool_blocks && !has_tools {
        return Err(invalid(
            "Requests which include `tool_use` or `tool_result` blocks must define tools.",
        ));
    }
    Ok(())
}

/// Rule 3; the `max_tokens` it read.
fn check_top_level(body: &Value) -> Result<i64, Rejection> {
    match body.get("model") {
        None | Some(Value::Null) => return Err(invalid("model: Field required")),
        Some(Value::String(_)) => {}
        Some(_) => return Err(invalid("model: Input should be a valid string")),
    }
    let max_tokens = match body.get("max_tokens") {
        None | Some(Value::Null) => return Err(invalid("max_tokens: Field required")),
        Some(v) => v
            .as_i64()
            .ok_or_else(|| invalid("max_tokens: Input should be a valid integer"))?,
    };
    if max_tokens < 1 {
        return Err(invalid(
            "max_tokens: Input should be greater than or equal to 1",
        ));
    }
    match body.get("messages") {
        None | Some(Value::Null) => return Err(invalid("messages: Field required")),
        Some(Value::Array(m)) if m.is_empty() => {
            return Err(invalid("messages: at least one message is required"))
        }
        Some(Value::Array(_)) => {}
        Some(_) => return Err(invalid("messages: Input should be a valid list")),
    }
    if body.get("stream") != Some(&Value::Bool(true)) {
        return Err(invalid("fake: stream must be true"));
    }
    if let Some(config) = body.get("output_config") {
        if let Some(e) = super::schema_rules::anthropic_output(&config["format"]) {
            return Err(invalid(e));
        }
    }
    Ok(max_tokens)
}

/// Rule 4; whether thinking is on (`enabled` or `adaptive`).
fn check_thinking(body: &Value, max_tokens: i64, interleaved: bool) -> Result<bool, Rejection> {
    let thinking = match body.get("thinking") {
        None | Some(Value::Null) => return Ok(false),
        Some(t) => t,
    };
    match thinking["type"].as_str() {
        Some("enabled") => {
            let budget = match thinking.get("budget_tokens") {
                None | Some(Value::Null) => {
                    return Err(invalid("thinking.enabled.budget_tokens: Field required"))
                }
                Some(b) => b.as_i64().ok_or_else(|| {
                    invalid("thinking.enabled.budget_tokens: Input should be a valid integer")
                })?,
            };
            if budget < 1024 {
                return Err(invalid(
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
                ));
            }
            if budget >= max_tokens && !interleaved {
                return Err(invalid(
                    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult \
                     our documentation at https://docs.claude.com/en/docs/build-with-claude/\
                     extended-thinking#max-tokens-and-context-window-size",
                ));
            }
            Ok(true)
        }
        Some("adaptive") => Ok(true),
        Some("disabled") => Ok(false),
        Some(other) => Err(invalid(format!(
            "thinking: Input tag '{other}' found using 'type' does not match any of the \
             expected tags: 'adaptive', 'disabled', 'enabled'"
        ))),
        None => Err(invalid(
            "thinking: Unable to extract tag using discriminator 'type'",
        )),
    }
}

/// Rule 5.
fn check_system(body: &Value) -> Result<(), Rejection> {
    match body.get("system") {
        None | Some(Value::Null) | Some(Value::String(_)) => Ok(()),
        Some(Value::Array(blocks)) => {
            for (i, b) in blocks.iter().enumerate() {
                if b["type"] != "text" {
                    return Err(invalid(format!("system.{i}.type: Input should be 'text'")));
                }
                match b["text"].as_str() {
                    None => return Err(invalid(format!("system.{i}.text: Field required"))),
                    Some("") => {
                        return Err(invalid("system: text content blocks must be non-empty"))
                    }
                    Some(_) => {}
                }
            }
            Ok(())
        }
        Some(_) => Err(invalid("system: Input should be a valid list")),
    }
}

/// `^[a-zA-Z0-9_-]{1,64}$`
fn is_tool_name(name: &str) -> bool {
    name.len() <= 64 && super::fake_provider::matches_id_pattern(name)
}

/// The web search server tool's versions, and the keys its definition takes.
const WEB_SEARCH_TYPES: [&str; 2] = ["web_search_20250305", "web_search_20260209"];
const WEB_SEARCH_KEYS: [&str; 8] = [
    "type",
    "name",
    "max_uses",
    "allowed_domains",
    "blocked_domains",
    "user_location",
    "cache_control",
    "allowed_callers",
];

/// The web search server tool's definition, as the API checks it.
fn check_web_search_tool(i: usize, kind: &str, tool: &Value) -> Result<(), Rejection> {
    let at = format!("tools.{i}.{kind}");
    if tool["name"] != "web_search" {
        return Err(invalid(format!("{at}.name: Input should be 'web_search'")));
    }
    if let Some(k) = tool
        .as_object()
        .into_iter()
        .flat_map(|o| o.keys())
        .find(|k| !WEB_SEARCH_KEYS.contains(&k.as_str()))
    {
        return Err(invalid(format!("{at}.{k}: Extra inputs are not permitted")));
    }
    match tool.get("max_uses") {
        None | Some(Value::Null) => Ok(()),
        Some(v) if v.as_i64().is_some_and(|n| n >= 1) => Ok(()),
        Some(v) if v.is_i64() => Err(invalid(format!(
            "{at}.max_uses: Input should be greater than or equal to 1"
        ))),
        Some(_) => Err(invalid(format!(
            "{at}.max_uses: Input should be a valid integer"
        ))),
    }
}

/// Rule 6. Server tools (a `type` other than `custom`): the web search's
/// definition is checked; the others are not.
fn check_tools(body: &Value) -> Result<(), Rejection> {
    let tools = match body.get("tools") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(t)) => t,
        Some(_) => return Err(invalid("tools: Input should be a valid list")),
    };
    for (i, tool) in tools.iter().enumerate() {
        if let Some(kind) = tool
            .get("type")
            .and_then(Value::as_str)
            .filter(|t| *t != "custom")
        {
            if WEB_SEARCH_TYPES.contains(&kind) {
                check_web_search_tool(i, kind, tool)?;
            }
            continue;
        }
        match tool["name"].as_str() {
            None => return Err(invalid(format!("tools.{i}.custom.name: Field required"))),
            Some(name) if !is_tool_name(name) => {
                return Err(invalid(format!(
                    "tools.{i}.custom.name: String should match pattern '{NAME_PATTERN}'"
                )))
            }
            Some(_) => {}
        }
        if let Some(e) = super::schema_rules::anthropic(i, &tool["input_schema"]) {
            return Err(invalid(e));
        }
        if tool.get("description").is_some_and(|d| !d.is_string()) {
            return Err(invalid(format!(
                "tools.{i}.custom.description: Input should be a valid string"
            )));
        }
    }
    Ok(())
}

/// Rule 7: counts `cache_control` on system blocks, tools, message content
/// blocks and the blocks inside `tool_result` content, then checks each.
fn check_cache_control(body: &Value) -> Result<(), Rejection> {
    let empty = Vec::new();
    let mut marked: Vec<(String, &Value)> = Vec::new();
    for (i, b) in body["system"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        if let Some(cc) = b.get("cache_control").filter(|v| !v.is_null()) {
            marked.push((format!("system.{i}"), cc));
        }
    }
    for (i, t) in body["tools"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        if let Some(cc) = t.get("cache_control").filter(|v| !v.is_null()) {
            marked.push((format!("tools.{i}"), cc));
        }
    }
    for (m, msg) in body["messages"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        for (k, b) in blocks_of(msg).iter().enumerate() {
            if let Some(cc) = b.get("cache_control").filter(|v| !v.is_null()) {
                marked.push((format!("messages.{m}.content.{k}"), cc));
            }
            for (j, inner) in b["content"].as_array().unwrap_or(&empty).iter().enumerate() {
                if let Some(cc) = inner.get("cache_control").filter(|v| !v.is_null()) {
                    marked.push((format!("messages.{m}.content.{k}.content.{j}"), cc));
                }
            }
        }
    }
    if marked.len() > 4 {
        return Err(invalid(format!(
            "A maximum of 4 blocks with cache_control may be provided. Found {}.",
            marked.len()
        )));
    }
    for (path, cc) in marked {
        let Some(fields) = cc.as_object() else {
            return Err(invalid(format!(
                "{path}.cache_control: Input should be a valid dictionary"
            )));
        };
        match cc["type"].as_str() {
            Some("ephemeral") => {}
            Some(other) => {
                return Err(invalid(format!(
                    "{path}.cache_control: Input tag '{other}' found using 'type' does not \
                     match any of the expected tags: 'ephemeral'"
                )))
            }
            None => {
                return Err(invalid(format!(
                    "{path}.cache_control: Unable to extract tag using discriminator 'type'"
                )))
            }
        }
        for (key, value) in fields {
            match key.as_str() {
                "type" => {}
                "ttl" if value == "5m" || value == "1h" => {}
                "ttl" => {
                    return Err(invalid(format!(
                        "{path}.cache_control.ephemeral.ttl: Input should be '5m' or '1h'"
                    )))
                }
                _ => {
                    return Err(invalid(format!(
                        "{path}.cache_control.ephemeral.{key}: Extra inputs are not permitted"
                    )))
                }
            }
        }
    }
    Ok(())
}

/// The content blocks of a message (none when its content is a string).
fn blocks_of(msg: &Value) -> &[Value] {
    msg["content"].as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn block_type(block: &Value) -> &str {
    block["type"].as_str().unwrap_or("")
}

/// Rule 8.
fn check_messages(messages: &[Value]) -> Result<(), Rejection> {
    const USER: &[&str] = &["text", "image", "document", "tool_result"];
    const ASSISTANT: &[&str] = &[
        "text",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "server_tool_use",
        "web_search_tool_result",
    ];
    let last = messages.len().saturating_sub(1);
    for (m, msg) in messages.iter().enumerate() {
        let role = msg["role"].as_str().unwrap_or("");
        if role != "user" && role != "assistant" {
            return Err(invalid(format!(
                "messages.{m}.role: Input should be 'user' or 'assistant'"
            )));
        }
        if m == 0 && role != "user" {
            return Err(invalid(
                "messages: first message must use the \"user\" role",
            ));
        }
        let may_be_empty = m == last && role == "assistant";
        let empty = || {
            invalid(format!(
                "messages.{m}: all messages must have non-empty content except for the \
                 optional final assistant message"
            ))
        };
        let blocks = match &msg["content"] {
            Value::String(s) if s.is_empty() && !may_be_empty => return Err(empty()),
            Value::String(_) => continue,
            Value::Array(b) if b.is_empty() && !may_be_empty => return Err(empty()),
            Value::Array(b) => b,
            Value::Null => return Err(invalid(format!("messages.{m}.content: Field required"))),
            _ => {
                return Err(invalid(format!(
                    "messages.{m}.content: Input should be a valid list"
                )))
            }
        };
        let allowed = if role == "user" { USER } else { ASSISTANT };
        for (k, b) in blocks.iter().enumerate() {
            let t = match b.get("type").and_then(Value::as_str) {
                Some(t) => t,
                None => {
                    return Err(invalid(format!(
                        "messages.{m}.content.{k}: Unable to extract tag using discriminator \
                         'type'"
                    )))
                }
            };
            if !allowed.contains(&t) {
                let expected: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
                return Err(invalid(format!(
                    "messages.{m}.content.{k}.type: Input tag '{t}' found using 'type' does not \
                     match any of the expected tags: {}",
                    expected.join(", ")
                )));
            }
            let blank = |v: &serde_json::Value| v.as_str().is_none_or(|t| t.trim().is_empty());
            if t == "text" && b["text"].as_str().is_none_or(str::is_empty) {
                return Err(invalid("messages: text content blocks must be non-empty"));
            }
            if t == "text" && blank(&b["text"]) {
                return Err(invalid(
                    "messages: text content blocks must contain non-whitespace text",
                ));
            }
            if t == "image" {
                if let Some(e) =
                    super::schema_rules::anthropic_image(&format!("messages.{m}.content.{k}"), b)
                {
                    return Err(invalid(e));
                }
            }
            if t == "tool_result" {
                let inside = b["content"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                for (j, inner) in inside.iter().enumerate() {
                    if block_type(inner) == "text" && blank(&inner["text"]) {
                        return Err(invalid(
                            "messages: text content blocks must contain non-whitespace text",
                        ));
                    }
                    let at = format!("messages.{m}.content.{k}.tool_result.content.{j}");
                    if !["text", "image", "document", "search_result"].contains(&block_type(inner))
                    {
                        return Err(invalid(format!(
                            "{at}.type: Input tag '{}' found using 'type' does not match any \
                             of the expected tags: 'text', 'image', 'search_result', 'document'",
                            block_type(inner)
                        )));
                    }
                    if block_type(inner) == "image" {
                        if let Some(e) = super::schema_rules::anthropic_image(&at, inner) {
                            return Err(invalid(e));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Rule 9 (and a `tool_result`'s `tool_use_id`, which follows the same
/// pattern).
fn check_tool_use(messages: &[Value]) -> Result<(), Rejection> {
    // Every `tool_use` id of the request, across all its messages.
    let mut seen = std::collections::HashSet::new();
    for (m, msg) in messages.iter().enumerate() {
        for (k, b) in blocks_of(msg).iter().enumerate() {
            match block_type(b) {
                "tool_use" => {
                    let at = format!("messages.{m}.content.{k}.tool_use");
                    match b["id"].as_str() {
                        None => return Err(invalid(format!("{at}.id: Field required"))),
                        Some(id) if !super::fake_provider::matches_id_pattern(id) => {
                            return Err(invalid(format!(
                                "{at}.id: String should match pattern '{ID_PATTERN}'"
                            )))
                        }
                        Some(id) if !seen.insert(id) => {
                            return Err(invalid(format!(
                                "messages.{m}.content.{k}: `tool_use` ids must be unique"
                            )))
                        }
                        Some(_) => {}
                    }
                    match b["name"].as_str() {
                        None => return Err(invalid(format!("{at}.name: Field required"))),
                        Some(name) if !is_tool_name(name) => {
                            return Err(invalid(format!(
                                "{at}.name: String should match pattern '{NAME_PATTERN}'"
                            )))
                        }
                        Some(_) => {}
                    }
                    if !b["input"].is_object() {
                        return Err(invalid(format!(
                            "{at}.input: Input should be a valid dictionary"
                        )));
                    }
                }
                "tool_result" => {
                    let at = format!("messages.{m}.content.{k}.tool_result");
                    match b["tool_use_id"].as_str() {
                        None => return Err(invalid(format!("{at}.tool_use_id: Field required"))),
                        Some(id) if !super::fake_provider::matches_id_pattern(id) => {
                            return Err(invalid(format!(
                                "{at}.tool_use_id: String should match pattern '{ID_PATTERN}'"
                            )))
                        }
                        Some(_) => {}
                    }
                    if b.get("is_error")
                        .is_some_and(|e| !e.is_boolean() && !e.is_null())
                    {
                        return Err(invalid(format!(
                            "{at}.is_error: Input should be a valid boolean"
                        )));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Rule 10.
fn check_thinking_blocks(messages: &[Value]) -> Result<(), Rejection> {
    for (m, msg) in messages.iter().enumerate() {
        for (k, b) in blocks_of(msg).iter().enumerate() {
            let t = block_type(b);
            if t != "thinking" && t != "redacted_thinking" {
                continue;
            }
            let fields = b.as_object().expect("a block with a type is an object");
            let keys: &[&str] = if t == "thinking" {
                &["type", "thinking", "signature"]
            } else {
                &["type", "data"]
            };
            for key in fields.keys() {
                if !keys.contains(&key.as_str()) {
                    return Err(invalid(format!(
                        "messages.{m}.content.{k}.{t}.{key}: Extra inputs are not permitted"
                    )));
                }
            }
            for key in &keys[1..] {
                if !b[*key].is_string() {
                    return Err(invalid(format!(
                        "messages.{m}.content.{k}.{t}.{key}: Field required"
                    )));
                }
            }
            if t == "thinking" {
                let text = b["thinking"].as_str().unwrap_or("");
                if b["signature"].as_str() != Some(sign(text).as_str()) {
                    return Err(invalid(format!(
                        "messages.{m}.content.{k}: Invalid `signature` in `thinking` block"
                    )));
                }
            } else if !is_redacted_data(b["data"].as_str().unwrap_or("")) {
                return Err(invalid(format!(
                    "messages.{m}.content.{k}: Invalid `data` in `redacted_thinking` block"
                )));
            }
        }
    }
    Ok(())
}

fn tool_use_ids(msg: &Value) -> Vec<&str> {
    blocks_of(msg)
        .iter()
        .filter(|b| block_type(b) == "tool_use")
        .filter_map(|b| b["id"].as_str())
        .collect()
}

/// Rule 11.
fn check_pairing(messages: &[Value]) -> Result<(), Rejection> {
    for (m, msg) in messages.iter().enumerate() {
        if msg["role"] == "assistant" {
            let ids = tool_use_ids(msg);
            if ids.is_empty() {
                continue;
            }
            let answered: Vec<&str> = messages
                .get(m + 1)
                .filter(|next| next["role"] == "user")
                .map(|next| {
                    blocks_of(next)
                        .iter()
                        .filter(|b| block_type(b) == "tool_result")
                        .filter_map(|b| b["tool_use_id"].as_str())
                        .collect()
                })
                .unwrap_or_default();
            let missing: Vec<&str> = ids
                .into_iter()
                .filter(|id| !answered.contains(id))
                .collect();
            if !missing.is_empty() {
                return Err(invalid(format!(
                    "messages.{}: `tool_use` ids were found without `tool_result` blocks \
                     immediately after: {}. Each `tool_use` block must have a corresponding \
                     `tool_result` block in the next message.",
                    m + 1,
                    missing.join(", ")
                )));
            }
        } else {
            let asked = match m.checked_sub(1).map(|p| &messages[p]) {
                Some(prev) if prev["role"] == "assistant" => tool_use_ids(prev),
                _ => Vec::new(),
            };
            let mut other_before = false;
            for (k, b) in blocks_of(msg).iter().enumerate() {
                if block_type(b) != "tool_result" {
                    other_before = true;
                    continue;
                }
                let id = b["tool_use_id"].as_str().unwrap_or("");
                if !asked.contains(&id) {
                    return Err(invalid(format!(
                        "messages.{m}.content.{k}: unexpected `tool_use_id` found in \
                         `tool_result` blocks: {id}. Each `tool_result` block must have a \
                         corresponding `tool_use` block in the previous message."
                    )));
                }
                if other_before {
                    // The fake's wording: the real API refuses this too.
                    return Err(invalid(format!(
                        "messages.{m}: tool_result blocks must come first in the content array"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Rule 12.
fn check_thinking_first(messages: &[Value]) -> Result<(), Rejection> {
    let Some(l) = messages.iter().rposition(|m| m["role"] == "assistant") else {
        return Ok(());
    };
    let last = &messages[l];
    let in_loop = !tool_use_ids(last).is_empty()
        && messages.get(l + 1).is_some_and(|next| {
            next["role"] == "user"
                && blocks_of(next)
                    .iter()
                    .any(|b| block_type(b) == "tool_result")
        });
    if !in_loop {
        return Ok(());
    }
    let first = match &last["content"] {
        Value::String(_) => "text",
        _ => blocks_of(last).first().map_or("", block_type),
    };
    if first == "thinking" || first == "redacted_thinking" {
        return Ok(());
    }
    Err(invalid(format!(
        "messages.{l}.content.0.type: Expected `thinking` or `redacted_thinking`, but found \
         `{first}`. When `thinking` is enabled, a final `assistant` message must start with a \
         thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). \
         We recommend you include thinking blocks from previous turns. To avoid this \
         requirement, disable `thinking`. Please consult our documentation at \
         https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
    )))
}

/// The real API's error body: `{"type":"error","error":{"type":KIND,
/// "message":MESSAGE},"request_id":"req_011CV…"}`, e.g. for a scripted
/// `Reply::status(529, &error_body("overloaded_error", "Overloaded"))`.
pub fn error_body(kind: &str, message: &str) -> String {
    json_obj(&[
        ("type", json_str("error")),
        ("error", error_object(kind, message)),
        ("request_id", json_str(&request_id(message))),
    ])
}

/// An `error` event in the middle of a stream, e.g.
/// `error_event("overloaded_error", "Overloaded")`.
pub fn error_event(kind: &str, message: &str) -> (String, String) {
    (
        "error".into(),
        json_obj(&[
            ("type", json_str("error")),
            ("error", error_object(kind, message)),
        ]),
    )
}

fn error_object(kind: &str, message: &str) -> String {
    json_obj(&[("type", json_str(kind)), ("message", json_str(message))])
}

/// `req_011CV` and 19 base-62 characters, like the real ones.
fn request_id(seed: &str) -> String {
    format!("req_011CV{}", base62(fnv1a(seed.as_bytes()), 19))
}

fn error(status: u16, kind: &str, message: &str) -> Rejection {
    Rejection {
        status,
        headers: vec![("request-id".into(), request_id(message))],
        body: error_body(kind, message),
    }
}

fn invalid(message: impl Into<String>) -> Rejection {
    error(400, "invalid_request_error", &message.into())
}

/// A prompt past the model's window, as the real API says it.
pub fn too_long(tokens: u64, window: u64) -> Rejection {
    invalid(format!(
        "prompt is too long: {tokens} tokens > {window} maximum"
    ))
}

/// The key the fake signs thinking with (the real one is Anthropic's secret).
const SECRET: &[u8] = b"hermes fake anthropic: not a real signing key";

/// `n` bytes keyed by [`SECRET`] over `domain` and `data`: two FNV-1a lanes
/// (any one-byte change of `data` changes the first) seeding a splitmix64
/// stream.
pub fn keyed(domain: &[u8], data: &[u8], n: usize) -> Vec<u8> {
    let mut input = Vec::with_capacity(SECRET.len() + domain.len() + data.len() + 9);
    input.extend_from_slice(SECRET);
    input.extend_from_slice(domain);
    input.push(0);
    input.extend_from_slice(data);
    input.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let a = fnv1a(&input);
    input.reverse();
    let b = fnv1a(&input);
    let (mut s1, mut s2) = (a, b ^ 0x5851_f42d_4c95_7f2d);
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        let word = splitmix(&mut s1) ^ splitmix(&mut s2).rotate_left(17);
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.truncate(n);
    out
}

/// The signature of a thinking text: deterministic, shaped like a real one
/// (standard base64 of 90 bytes, 120 characters starting `Eq`), and changed
/// by any change of the text. [`check`] refuses a thinking block whose
/// signature is not `sign(thinking)`.
pub fn sign(thinking: &str) -> String {
    // 0x12 0xAA encode as "Eq", like the protobuf prefix of real signatures.
    let mut raw = vec![0x12, 0xAA];
    raw.extend(keyed(b"thinking", thinking.as_bytes(), 88));
    aws_smithy_types::base64::encode(raw)
}

const REDACTED_PREFIX: [u8; 2] = [0x12, 0x6C];
const REDACTED_BODY: usize = 48;
const REDACTED_MAC: usize = 16;

/// Opaque redacted-thinking data for block `n`: standard base64 (88
/// characters starting `Em`, like real data) of a body derived from `n`
/// followed by a keyed check of the body, so [`check`] can tell data it made
/// from anything else. Bedrock sends the same string as `redactedContent`.
pub fn redacted_data(n: usize) -> String {
    let body = keyed(b"redacted body", &(n as u64).to_le_bytes(), REDACTED_BODY);
    let mut raw = REDACTED_PREFIX.to_vec();
    raw.extend_from_slice(&body);
    raw.extend(keyed(b"redacted check", &body, REDACTED_MAC));
    aws_smithy_types::base64::encode(raw)
}

/// Whether `data` is one [`redacted_data`] could have produced.
pub fn is_redacted_data(data: &str) -> bool {
    let Ok(raw) = aws_smithy_types::base64::decode(data) else {
        return false;
    };
    if raw.len() != 2 + REDACTED_BODY + REDACTED_MAC || raw[..2] != REDACTED_PREFIX {
        return false;
    }
    let body = &raw[2..2 + REDACTED_BODY];
    // Canonical encoding only, so one set of bytes has one accepted string.
    raw[2 + REDACTED_BODY..] == keyed(b"redacted check", body, REDACTED_MAC)[..]
        && aws_smithy_types::base64::encode(&raw) == data
}

/// `msg_01` and 22 base-62 characters derived from the turn.
fn message_id(turn: &Turn) -> String {
    format!(
        "msg_01{}",
        base62(fnv1a(format!("{turn:?}").as_bytes()), 22)
    )
}

pub fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

/// A turn as the real Messages stream: `message_start`, `ping`, per block
/// `content_block_start`, its deltas (text and thinking in pieces of 4
/// characters, thinking's signature last, tool input in pieces of 5 after an
/// empty one) and `content_block_stop`, then `message_delta` with the stop
/// reason and output tokens, and `message_stop`. Each data is compact JSON
/// with its `type` first.
pub fn events(turn: &Turn) -> Vec<(String, String)> {
    let n = |v: u64| v.to_string();
    let u = turn.usage;
    let mut out = vec![event(
        "message_start",
        &[(
            "message",
            json_obj(&[
                ("id", json_str(&message_id(turn))),
                ("type", json_str("message")),
                ("role", json_str("assistant")),
                ("model", json_str(MODEL)),
                ("content", "[]".into()),
                ("stop_reason", "null".into()),
                ("stop_sequence", "null".into()),
                (
                    "usage",
                    json_obj(&[
                        ("input_tokens", n(u.input)),
                        ("cache_creation_input_tokens", n(u.cache_write)),
                        ("cache_read_input_tokens", n(u.cache_read)),
                        ("output_tokens", n(1)),
                    ]),
                ),
            ]),
        )],
    )];
    out.push(event("ping", &[]));
    // A search is two blocks (its use and its result): the indexes after
    // it are one further on.
    let mut offset = 0;
    for (i, block) in turn.blocks.iter().enumerate() {
        let at = i + offset;
        let start = |content_block: String| {
            event(
                "content_block_start",
                &[("index", at.to_string()), ("content_block", content_block)],
            )
        };
        let delta = |kind: &str, field: &str, value: &str| {
            event(
                "content_block_delta",
                &[
                    ("index", at.to_string()),
                    (
                        "delta",
                        json_obj(&[("type", json_str(kind)), (field, json_str(value))]),
                    ),
                ],
            )
        };
        match block {
            Block::Text(text) => {
                out.push(start(json_obj(&[
                    ("type", json_str("text")),
                    ("text", json_str("")),
                ])));
                for piece in pieces(text, 4) {
                    out.push(delta("text_delta", "text", &piece));
                }
            }
            Block::Thinking(text) => {
                out.push(start(json_obj(&[
                    ("type", json_str("thinking")),
                    ("thinking", json_str("")),
                    ("signature", json_str("")),
                ])));
                for piece in pieces(text, 4) {
                    out.push(delta("thinking_delta", "thinking", &piece));
                }
                out.push(delta("signature_delta", "signature", &sign(text)));
            }
            Block::Redacted => {
                out.push(start(json_obj(&[
                    ("type", json_str("redacted_thinking")),
                    ("data", json_str(&redacted_data(i))),
                ])));
            }
            Block::Search { query, results } => {
                let id: String = keyed(b"search id", format!("{i}/{query}").as_bytes(), 11)
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                let id = format!("srvtoolu_01{id}");
                out.push(start(json_obj(&[
                    ("type", json_str("server_tool_use")),
                    ("id", json_str(&id)),
                    ("name", json_str("web_search")),
                    ("input", "{}".into()),
                ])));
                out.push(delta("input_json_delta", "partial_json", ""));
                let input = serde_json::json!({ "query": query }).to_string();
                for piece in pieces(&input, 5) {
                    out.push(delta("input_json_delta", "partial_json", &piece));
                }
                out.push(event("content_block_stop", &[("index", at.to_string())]));
                let found: Vec<Value> = results
                    .iter()
                    .map(|(url, title)| {
                        serde_json::json!({
                            "type": "web_search_result",
                            "title": title,
                            "url": url,
                            "encrypted_content": search_seal(url, title),
                            "page_age": "November 30, 2026",
                        })
                    })
                    .collect();
                let result = serde_json::json!({
                    "type": "web_search_tool_result",
                    "tool_use_id": id,
                    "content": found,
                });
                // The result is the next block, whole at its start.
                offset += 1;
                let at = (i + offset).to_string();
                out.push(event(
                    "content_block_start",
                    &[("index", at.clone()), ("content_block", result.to_string())],
                ));
                out.push(event("content_block_stop", &[("index", at)]));
                continue;
            }
            Block::Tool { id, name, args } => {
                out.push(start(json_obj(&[
                    ("type", json_str("tool_use")),
                    ("id", json_str(&wire_id(Api::Anthropic, id))),
                    ("name", json_str(name)),
                    ("input", "{}".into()),
                ])));
                out.push(delta("input_json_delta", "partial_json", ""));
                for piece in pieces(args, 5) {
                    out.push(delta("input_json_delta", "partial_json", &piece));
                }
            }
        }
        out.push(event("content_block_stop", &[("index", at.to_string())]));
    }
    out.push(event(
        "message_delta",
        &[
            (
                "delta",
                json_obj(&[
                    ("stop_reason", json_str(stop_reason(turn.stop))),
                    ("stop_sequence", "null".into()),
                ]),
            ),
            ("usage", json_obj(&[("output_tokens", n(u.output))])),
        ],
    ));
    out.push(event("message_stop", &[]));
    out
}

/// A named event whose data is `{"type":NAME, …fields}`.
fn event(name: &str, fields: &[(&str, String)]) -> (String, String) {
    let mut all = vec![("type", json_str(name))];
    all.extend(fields.iter().cloned());
    (name.to_string(), json_obj(&all))
}

fn stop_reason(stop: Stop) -> &'static str {
    match stop {
        Stop::EndTurn => "end_turn",
        Stop::ToolUse => "tool_use",
        Stop::MaxTokens => "max_tokens",
        Stop::PauseTurn => "pause_turn",
        Stop::Refusal => "refusal",
    }
}
