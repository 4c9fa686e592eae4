//! The fake provider's own strictness: each rule of the real Chat Completions
//! API it enforces fires with the real error body, a well-formed request
//! passes, and over HTTP a broken request gets its 400 without using up the
//! scripted reply.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{json, Value};

use crate::support::fake_provider::{is_realistic_id, validate};
use crate::support::{call_id, FakeProvider, Reply};

/// The `error` object `validate` answered for `body`, after checking it is the
/// real API's shape.
#[track_caller]
fn rejected(body: Value) -> Value {
    let text = validate(&body).expect_err("the request should have been rejected");
    let parsed: Value = serde_json::from_str(&text).expect("the error body is JSON");
    let error = parsed["error"].clone();
    assert_eq!(error["type"], "invalid_request_error", "{text}");
    let keys: Vec<&String> = error.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 4, "message, type, param, code: {text}");
    error
}

#[track_caller]
fn assert_error(body: Value, message: &str, param: &str, code: Value) {
    let e = rejected(body);
    assert_eq!(e["message"], message);
    assert_eq!(e["param"], param);
    assert_eq!(e["code"], code);
}

fn tool(name: &str) -> Value {
    json!({"type": "function", "function": {"name": name, "description": "d",
        "parameters": {"type": "object", "properties": {}}}})
}

fn call(id: &str, name: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}})
}

fn assistant(calls: &[Value]) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

fn result(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "ok"})
}

/// A request with `tools` and `messages` after a system and a user message
/// (so the first of `messages` is `messages[2]`).
fn request(tools: Vec<Value>, messages: Vec<Value>) -> Value {
    let mut all = vec![
        json!({"role": "system", "content": "s"}),
        json!({"role": "user", "content": "hi"}),
    ];
    all.extend(messages);
    json!({"model": "test-model", "stream": true, "tools": tools, "messages": all})
}

#[test]
fn more_than_128_tools_is_rejected() {
    let tools: Vec<Value> = (0..129).map(|i| tool(&format!("t{i}"))).collect();
    assert!(validate(&request(tools[..128].to_vec(), vec![])).is_ok());
    assert_error(
        request(tools, vec![]),
        "Invalid 'tools': array too long. Expected an array with maximum length 128, \
         but got an array with length 129 instead.",
        "tools",
        json!("array_above_max_length"),
    );
}

#[test]
fn a_tool_name_longer_than_64_is_rejected() {
    let long = "a".repeat(65);
    assert!(validate(&request(vec![tool(&"a".repeat(64))], vec![])).is_ok());
    assert_error(
        request(vec![tool("echo"), tool(&long)], vec![]),
        "Invalid 'tools[1].function.name': string too long. Expected a string with \
         maximum length 64, but got a string with length 65 instead.",
        "tools[1].function.name",
        json!("string_above_max_length"),
    );
}

#[test]
fn a_tool_name_outside_the_pattern_is_rejected() {
    for bad in ["mcp.t.echo", "with space", ""] {
        assert_error(
            request(vec![tool("ok_name-1"), tool(bad)], vec![]),
            "Invalid 'tools[1].function.name': string does not match pattern. Expected a \
             string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
            "tools[1].function.name",
            json!("invalid_value"),
        );
    }
}

#[test]
fn an_empty_tool_call_id_is_rejected() {
    assert_error(
        request(vec![], vec![assistant(&[call("", "echo")]), result("")]),
        "Invalid 'messages[2].tool_calls[0].id': string too short. Expected a string with \
         minimum length 1, but got an empty string instead.",
        "messages[2].tool_calls[0].id",
        json!("string_below_min_length"),
    );
}

#[test]
fn a_tool_call_id_longer_than_40_is_rejected() {
    let ok = format!("call_{}", "a".repeat(35));
    let long = format!("call_{}", "a".repeat(36));
    assert_eq!((ok.len(), long.len()), (40, 41));
    assert!(validate(&request(
        vec![],
        vec![assistant(&[call(&ok, "echo")]), result(&ok)]
    ))
    .is_ok());
    let a = call_id("a");
    assert_error(
        request(
            vec![],
            vec![
                assistant(&[call(&a, "echo"), call(&long, "echo")]),
                result(&a),
                result(&long),
            ],
        ),
        "Invalid 'messages[2].tool_calls[1].id': string too long. Expected a string with \
         maximum length 40, but got a string with length 41 instead.",
        "messages[2].tool_calls[1].id",
        json!("string_above_max_length"),
    );
}

#[test]
fn a_tool_call_id_outside_the_pattern_is_rejected() {
    // Anthropic's and Bedrock's rule: the fake applies the strictest one.
    for bad in ["call_P_1_ab.cd", "toolu:1", "call 1"] {
        assert_error(
            request(vec![], vec![assistant(&[call(bad, "echo")]), result(bad)]),
            "Invalid 'messages[2].tool_calls[0].id': string does not match pattern. Expected \
             a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
            "messages[2].tool_calls[0].id",
            json!("invalid_value"),
        );
    }
}

#[test]
fn a_tool_call_function_name_follows_the_tool_name_rules() {
    let (a, b) = (call_id("a"), call_id("b"));
    let with_name = |name: &str| {
        request(
            vec![],
            vec![
                assistant(&[call(&a, "echo"), call(&b, name)]),
                result(&a),
                result(&b),
            ],
        )
    };
    assert_error(
        with_name("n".repeat(65).as_str()),
        "Invalid 'messages[2].tool_calls[1].function.name': string too long. Expected a \
         string with maximum length 64, but got a string with length 65 instead.",
        "messages[2].tool_calls[1].function.name",
        json!("string_above_max_length"),
    );
    assert_error(
        with_name("mcp/t/echo"),
        "Invalid 'messages[2].tool_calls[1].function.name': string does not match pattern. \
         Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        "messages[2].tool_calls[1].function.name",
        json!("invalid_value"),
    );
}

#[test]
fn tool_calls_without_a_response_each_are_rejected() {
    let (a, b, c) = (call_id("a"), call_id("b"), call_id("c"));
    let calls = [call(&a, "echo"), call(&b, "echo"), call(&c, "echo")];
    // Answered out of order is fine; a missing answer is not, before the next
    // message or at the end.
    let answered = request(
        vec![],
        vec![assistant(&calls), result(&c), result(&a), result(&b)],
    );
    assert!(validate(&answered).is_ok());
    let message = format!(
        "An assistant message with 'tool_calls' must be followed by tool messages responding \
         to each 'tool_call_id'. The following tool_call_ids did not have response messages: \
         {a}, {c}"
    );
    assert_error(
        request(
            vec![],
            vec![
                assistant(&calls),
                result(&b),
                json!({"role": "user", "content": "next"}),
            ],
        ),
        &message,
        "messages.[2].role",
        Value::Null,
    );
    assert_error(
        request(vec![], vec![assistant(&calls), result(&b)]),
        &message,
        "messages.[2].role",
        Value::Null,
    );
}

#[test]
fn a_tool_message_that_answers_no_preceding_call_is_rejected() {
    let (a, b) = (call_id("a"), call_id("b"));
    let message = "Invalid parameter: messages with role 'tool' must be a response to a \
                   preceeding message with 'tool_calls'.";
    // No assistant message with tool_calls before it at all.
    assert_error(
        request(vec![], vec![result(&a)]),
        message,
        "messages.[2].role",
        Value::Null,
    );
    // An id the nearest tool_calls message does not have.
    assert_error(
        request(
            vec![],
            vec![assistant(&[call(&a, "echo")]), result(&a), result(&b)],
        ),
        message,
        "messages.[4].role",
        Value::Null,
    );
    // A message other than a tool message in between.
    assert_error(
        request(
            vec![],
            vec![
                assistant(&[call(&a, "echo")]),
                result(&a),
                json!({"role": "assistant", "content": "done"}),
                result(&a),
            ],
        ),
        message,
        "messages.[5].role",
        Value::Null,
    );
}

#[test]
fn a_well_formed_request_with_realistic_ids_passes() {
    let ids: Vec<String> = ["P", "c1", "c2", "x"].iter().map(|l| call_id(l)).collect();
    let body = request(
        vec![tool("echo"), tool("tool_call"), tool("mcp__t__echo")],
        vec![
            assistant(&[call(&ids[0], "tool_call"), call(&ids[1], "echo")]),
            result(&ids[1]),
            result(&ids[0]),
            json!({"role": "assistant", "content": null, "tool_calls": [call(&ids[2], "mcp__t__echo")]}),
            result(&ids[2]),
            json!({"role": "assistant", "content": "done"}),
            json!({"role": "user", "content": "again"}),
            assistant(&[call(&ids[3], "echo")]),
            result(&ids[3]),
        ],
    );
    assert_eq!(validate(&body), Ok(()));
    // A request without tools or tool calls is a request too.
    assert_eq!(validate(&request(vec![], vec![])), Ok(()));
}

#[test]
fn call_id_is_realistic_deterministic_readable_and_distinct() {
    let labels = ["P", "X", "c1", "c2", "c-1", "a", "retry_0", "retry_1", ""];
    let ids: Vec<String> = labels.iter().map(|l| call_id(l)).collect();
    for (label, id) in labels.iter().zip(&ids) {
        assert_eq!(id.len(), 29, "{id}");
        assert!(is_realistic_id(id), "{id}");
        assert_eq!(*id, call_id(label), "not deterministic");
        let readable: String = label.chars().filter(char::is_ascii_alphanumeric).collect();
        assert!(
            id.starts_with(&format!("call_{readable}")),
            "{label} → {id}"
        );
        assert!(validate(&request(
            vec![],
            vec![assistant(&[call(id, "echo")]), result(id)]
        ))
        .is_ok());
    }
    for (i, a) in ids.iter().enumerate() {
        assert!(!ids[i + 1..].contains(a), "{a} repeats");
    }
    let long = call_id("a_label_much_longer_than_twenty_four_characters");
    assert!(is_realistic_id(&long), "{long}");
}

#[test]
#[should_panic(expected = "not realistic")]
fn scripted_tool_calls_refuse_short_ids() {
    let _ = Reply::tool_calls(&[("call_P", "echo", "{}")]);
}

#[test]
fn over_http_a_broken_request_gets_a_400_and_leaves_the_scripted_reply() {
    let fake = FakeProvider::start();
    fake.push(Reply::text("kept for the next request"));
    let long = format!("call_{}", "x".repeat(36));
    let body = request(
        vec![tool("echo")],
        vec![assistant(&[call(&long, "echo")]), result(&long)],
    )
    .to_string();

    let mut conn = TcpStream::connect(("127.0.0.1", fake.port())).unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\
         Authorization: Bearer test-key\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        fake.port(),
        body.len()
    );
    conn.write_all(head.as_bytes()).unwrap();
    conn.write_all(body.as_bytes()).unwrap();
    // No more requests: the fake answers, sees the end, and closes.
    conn.shutdown(std::net::Shutdown::Write).unwrap();
    let mut response = String::new();
    conn.read_to_string(&mut response).unwrap();

    let (head, payload) = response.split_once("\r\n\r\n").expect("a full response");
    assert!(head.starts_with("HTTP/1.1 400 "), "{response}");
    assert!(
        head.lines()
            .any(|l| l.eq_ignore_ascii_case("content-type: application/json")),
        "{response}"
    );
    let error: Value = serde_json::from_str(payload).unwrap();
    assert_eq!(
        error,
        json!({"error": {
            "message": "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a \
                        string with maximum length 40, but got a string with length 41 instead.",
            "type": "invalid_request_error",
            "param": "messages[2].tool_calls[0].id",
            "code": "string_above_max_length",
        }})
    );

    let reqs = fake.requests();
    assert_eq!(reqs.len(), 1, "the rejected request was not recorded");
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(reqs[0].body_str(), body);
    assert_eq!(
        fake.pending(),
        1,
        "the rejected request used up the scripted reply"
    );
}

// ---------------------------------------------------------------------------
// Anthropic and Bedrock: the same strictness, each with its real errors, and
// scripted turns rendered in each protocol.
// ---------------------------------------------------------------------------

/// Posts `body` to the fake at `path` with `headers` (and `Host`,
/// `Content-Length`), then closes the write side; the status, the response
/// head and the body (de-chunked).
fn post(
    fake: &FakeProvider,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut conn = TcpStream::connect(("127.0.0.1", fake.port())).unwrap();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n",
        fake.port(),
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    conn.write_all(head.as_bytes()).unwrap();
    conn.write_all(body).unwrap();
    conn.shutdown(std::net::Shutdown::Write).unwrap();
    let mut response = Vec::new();
    conn.read_to_end(&mut response).unwrap();
    let end = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a full response head");
    let head = String::from_utf8(response[..end].to_vec()).unwrap();
    let rest = &response[end + 4..];
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let chunked = head
        .lines()
        .any(|l| l.eq_ignore_ascii_case("transfer-encoding: chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    (status, head, body)
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("a chunk size line");
        let size = std::str::from_utf8(&data[..eol]).unwrap().trim();
        let size = usize::from_str_radix(size, 16).unwrap();
        data = &data[eol + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// Whether the response head has this header line (name case-insensitive).
fn has_header(head: &str, name: &str, value: &str) -> bool {
    head.lines().any(|l| {
        l.split_once(':')
            .is_some_and(|(k, v)| k.trim().eq_ignore_ascii_case(name) && v.trim() == value)
    })
}

fn owned(headers: &[(&str, &str)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn recorded(path: &str, headers: Vec<(String, String)>, body: &[u8]) -> Recorded {
    Recorded {
        method: "POST".into(),
        path: path.into(),
        headers,
        body: body.to_vec(),
        first_byte: std::time::Instant::now(),
    }
}

use crate::support::fake_provider::{Recorded, Rejection};
use crate::support::{fake_anthropic, fake_bedrock, wire_id, Api, Block, Stop};

#[test]
fn wire_ids_have_each_providers_shape() {
    let id = call_id("P");
    assert_eq!(wire_id(Api::OpenAi, &id), id);
    let anthropic = wire_id(Api::Anthropic, &id);
    let bedrock = wire_id(Api::Bedrock, &id);
    assert_eq!(anthropic, format!("toolu_01{}", &id[5..27]));
    assert_eq!(bedrock, format!("tooluse_{}", &id[5..27]));
    assert_eq!((anthropic.len(), bedrock.len()), (30, 30));
    assert_ne!(wire_id(Api::Anthropic, &call_id("Q")), anthropic);
}

mod anthropic {
    use super::*;

    const HEADERS: &[(&str, &str)] = &[
        ("x-api-key", "test-key"),
        ("anthropic-version", "2023-06-01"),
        ("content-type", "application/json"),
    ];

    fn request(headers: &[(&str, &str)], body: &Value) -> Recorded {
        recorded("/v1/messages", owned(headers), body.to_string().as_bytes())
    }

    /// A streamed request with one tool, `echo`, and these messages.
    fn body(messages: Value) -> Value {
        json!({"model": "claude-sonnet-4-5", "max_tokens": 4096, "stream": true,
            "tools": [{"name": "echo", "description": "d",
                "input_schema": {"type": "object", "properties": {}}}],
            "messages": messages})
    }

    /// As [`body`], with extended thinking on.
    fn thinking(messages: Value) -> Value {
        let mut b = body(messages);
        b["thinking"] = json!({"type": "enabled", "budget_tokens": 2048});
        b
    }

    fn tool_use(id: &str) -> Value {
        json!({"type": "tool_use", "id": id, "name": "echo", "input": {}})
    }

    fn tool_result(id: &str) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "content": "ok"})
    }

    fn signed_thinking(text: &str) -> Value {
        json!({"type": "thinking", "thinking": text, "signature": fake_anthropic::sign(text)})
    }

    /// A tool loop in progress: the user asks, the assistant answers with
    /// `assistant`, the user sends `results`.
    fn tool_loop(assistant: Vec<Value>, results: Vec<Value>) -> Value {
        json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": assistant},
            {"role": "user", "content": results},
        ])
    }

    #[track_caller]
    fn check(headers: &[(&str, &str)], body: &Value) -> Result<(), Rejection> {
        fake_anthropic::check(&request(headers, body))
    }

    /// The status and `error` object of a rejection, after checking the body
    /// is the real API's shape.
    #[track_caller]
    fn rejected(headers: &[(&str, &str)], body: &Value) -> (u16, Value) {
        let r = check(headers, body).expect_err("the request should have been rejected");
        let parsed: Value = serde_json::from_str(&r.body).expect("the error body is JSON");
        assert_eq!(parsed["type"], "error", "{}", r.body);
        assert!(
            parsed["request_id"]
                .as_str()
                .is_some_and(|id| id.starts_with("req_011CV")),
            "{}",
            r.body
        );
        (r.status, parsed["error"].clone())
    }

    #[track_caller]
    fn assert_invalid(body: &Value, message: &str) {
        let (status, error) = rejected(HEADERS, body);
        assert_eq!(status, 400);
        assert_eq!(error["type"], "invalid_request_error");
        assert_eq!(error["message"], message);
    }

    #[test]
    fn the_api_key_is_required_and_checked() {
        let (status, error) = rejected(
            &HEADERS[1..],
            &body(json!([{"role": "user", "content": "hi"}])),
        );
        assert_eq!(status, 401);
        assert_eq!(
            error,
            json!({"type": "authentication_error", "message": "x-api-key header is required"})
        );
        let wrong = [("x-api-key", "sk-wrong"), HEADERS[1], HEADERS[2]];
        let (status, error) = rejected(&wrong, &body(json!([{"role": "user", "content": "hi"}])));
        assert_eq!(status, 401);
        assert_eq!(error["message"], "invalid x-api-key");
        assert_eq!(
            check(HEADERS, &body(json!([{"role": "user", "content": "hi"}]))),
            Ok(())
        );
    }

    #[test]
    fn thinking_must_carry_its_signature_and_a_faithful_replay_passes() {
        let a = wire_id(Api::Anthropic, &call_id("a"));
        let text = "The user wants an echo; call the tool.";
        let good = thinking(tool_loop(
            vec![signed_thinking(text), tool_use(&a)],
            vec![tool_result(&a)],
        ));
        assert_eq!(check(HEADERS, &good), Ok(()));
        // Redacted thinking the fake made is taken back too.
        let redacted = thinking(tool_loop(
            vec![
                json!({"type": "redacted_thinking", "data": fake_anthropic::redacted_data(0)}),
                tool_use(&a),
            ],
            vec![tool_result(&a)],
        ));
        assert_eq!(check(HEADERS, &redacted), Ok(()));

        let invalid_signature = "messages.1.content.0: Invalid `signature` in `thinking` block";
        let unsigned = json!({"type": "thinking", "thinking": text, "signature": ""});
        assert_invalid(
            &thinking(tool_loop(
                vec![unsigned, tool_use(&a)],
                vec![tool_result(&a)],
            )),
            invalid_signature,
        );
        let mut altered = signed_thinking(text);
        altered["thinking"] = json!("The user wants an echo; call the tool!");
        assert_invalid(
            &thinking(tool_loop(
                vec![altered, tool_use(&a)],
                vec![tool_result(&a)],
            )),
            invalid_signature,
        );
        let missing = json!({"type": "thinking", "thinking": text});
        assert_invalid(
            &thinking(tool_loop(
                vec![missing, tool_use(&a)],
                vec![tool_result(&a)],
            )),
            "messages.1.content.0.thinking.signature: Field required",
        );
        let mut cached = signed_thinking(text);
        cached["cache_control"] = json!({"type": "ephemeral"});
        assert_invalid(
            &thinking(tool_loop(vec![cached, tool_use(&a)], vec![tool_result(&a)])),
            "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted",
        );
        let mut data = fake_anthropic::redacted_data(0);
        let flipped = if data.as_bytes()[10] == b'A' {
            "B"
        } else {
            "A"
        };
        data.replace_range(10..11, flipped);
        assert_invalid(
            &thinking(tool_loop(
                vec![
                    json!({"type": "redacted_thinking", "data": data}),
                    tool_use(&a),
                ],
                vec![tool_result(&a)],
            )),
            "messages.1.content.0: Invalid `data` in `redacted_thinking` block",
        );
    }

    #[test]
    fn sign_is_deterministic_shaped_like_a_real_signature_and_changes_with_any_byte() {
        let s = fake_anthropic::sign("abc");
        assert_eq!(s, fake_anthropic::sign("abc"));
        assert!(s.starts_with("Eq"), "{s}");
        assert_eq!(s.len(), 120, "{s}");
        assert!(
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='),
            "{s}"
        );
        for other in ["abd", "Abc", "abc ", "ab", ""] {
            assert_ne!(fake_anthropic::sign(other), s, "{other:?}");
        }
        assert_ne!(
            fake_anthropic::redacted_data(0),
            fake_anthropic::redacted_data(1)
        );
        assert!(fake_anthropic::is_redacted_data(
            &fake_anthropic::redacted_data(7)
        ));
        assert!(!fake_anthropic::is_redacted_data(&s));
    }

    #[test]
    fn a_tool_use_without_its_result_is_rejected() {
        let (a, b) = (
            wire_id(Api::Anthropic, &call_id("a")),
            wire_id(Api::Anthropic, &call_id("b")),
        );
        assert_eq!(
            check(
                HEADERS,
                &body(tool_loop(
                    vec![tool_use(&a), tool_use(&b)],
                    vec![tool_result(&b), tool_result(&a)]
                ))
            ),
            Ok(())
        );
        assert_invalid(
            &body(tool_loop(
                vec![tool_use(&a), tool_use(&b)],
                vec![tool_result(&a)],
            )),
            &format!(
                "messages.2: `tool_use` ids were found without `tool_result` blocks immediately \
                 after: {b}. Each `tool_use` block must have a corresponding `tool_result` block \
                 in the next message."
            ),
        );
        // The results in a later message do not count.
        assert_invalid(
            &body(json!([
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [tool_use(&a)]},
                {"role": "user", "content": "wait"},
                {"role": "user", "content": [tool_result(&a)]},
            ])),
            &format!(
                "messages.2: `tool_use` ids were found without `tool_result` blocks immediately \
                 after: {a}. Each `tool_use` block must have a corresponding `tool_result` block \
                 in the next message."
            ),
        );
        assert_invalid(
            &body(tool_loop(
                vec![tool_use(&a)],
                vec![tool_result(&a), tool_result(&b)],
            )),
            &format!(
                "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: \
                 {b}. Each `tool_result` block must have a corresponding `tool_use` block in the \
                 previous message."
            ),
        );
        assert_invalid(
            &body(tool_loop(
                vec![tool_use(&a)],
                vec![json!({"type": "text", "text": "first"}), tool_result(&a)],
            )),
            "messages.2: tool_result blocks must come first in the content array",
        );
    }

    #[test]
    fn a_tool_use_id_outside_the_pattern_is_rejected() {
        for bad in ["toolu_01.abc", "call:1", "call 1"] {
            assert_invalid(
                &body(tool_loop(vec![tool_use(bad)], vec![tool_result(bad)])),
                "messages.1.content.0.tool_use.id: String should match pattern \
                 '^[a-zA-Z0-9_-]+$'",
            );
        }
        let mut b = body(json!([{"role": "user", "content": "hi"}]));
        b["tools"][0]["name"] = json!("mcp.t.echo");
        assert_invalid(
            &b,
            "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
        );
    }

    #[test]
    fn with_thinking_on_a_tool_loop_must_start_with_its_thinking() {
        let a = wire_id(Api::Anthropic, &call_id("a"));
        let message = |found: &str| {
            format!(
                "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found \
                 `{found}`. When `thinking` is enabled, a final `assistant` message must start \
                 with a thinking block (preceeding the lastmost set of `tool_use` and \
                 `tool_result` blocks). We recommend you include thinking blocks from previous \
                 turns. To avoid this requirement, disable `thinking`. Please consult our \
                 documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
            )
        };
        let bare = tool_loop(vec![tool_use(&a)], vec![tool_result(&a)]);
        assert_invalid(&thinking(bare.clone()), &message("tool_use"));
        let text_first = tool_loop(
            vec![
                json!({"type": "text", "text": "Let me echo."}),
                tool_use(&a),
            ],
            vec![tool_result(&a)],
        );
        assert_invalid(&thinking(text_first), &message("text"));
        // Without thinking, or once the loop is over, no thinking is needed.
        assert_eq!(check(HEADERS, &body(bare.clone())), Ok(()));
        let mut done = bare.as_array().unwrap().clone();
        done.push(json!({"role": "assistant", "content": "Echoed."}));
        done.push(json!({"role": "user", "content": "thanks"}));
        assert_eq!(check(HEADERS, &thinking(Value::Array(done))), Ok(()));
    }

    #[test]
    fn the_thinking_budget_and_cache_control_follow_the_real_limits() {
        let hi = json!([{"role": "user", "content": "hi"}]);
        let mut b = thinking(hi.clone());
        b["thinking"]["budget_tokens"] = json!(1000);
        assert_invalid(
            &b,
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        );
        b["thinking"]["budget_tokens"] = json!(4096);
        assert_invalid(
            &b,
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our \
             documentation at https://docs.claude.com/en/docs/build-with-claude/\
             extended-thinking#max-tokens-and-context-window-size",
        );
        let beta = [
            HEADERS[0],
            HEADERS[1],
            ("anthropic-beta", "interleaved-thinking-2025-05-14"),
        ];
        assert_eq!(check(&beta, &b), Ok(()));

        let cached = |n: usize| {
            let blocks: Vec<Value> = (0..n)
                .map(|i| {
                    json!({"type": "text", "text": format!("part {i}"),
                    "cache_control": {"type": "ephemeral"}})
                })
                .collect();
            body(json!([{"role": "user", "content": blocks}]))
        };
        assert_eq!(check(HEADERS, &cached(4)), Ok(()));
        assert_invalid(
            &cached(5),
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        );
    }

    #[test]
    fn over_http_a_turn_is_streamed_as_anthropic_events_after_a_rejection() {
        let fake = FakeProvider::start();
        let a = call_id("a");
        fake.push(Reply::turn(
            vec![
                Block::Thinking("Echo it.".into()),
                Block::Text("Calling echo".into()),
                Block::Tool {
                    id: a.clone(),
                    name: "echo".into(),
                    args: r#"{"text":"hello"}"#.into(),
                },
            ],
            Stop::ToolUse,
        ));
        let hi = body(json!([{"role": "user", "content": "hi"}])).to_string();

        let (status, head, payload) =
            post(&fake, "/v1/messages", &owned(&HEADERS[1..]), hi.as_bytes());
        assert_eq!(status, 401, "{head}");
        assert!(
            has_header(&head, "content-type", "application/json"),
            "{head}"
        );
        let error: Value = serde_json::from_slice(&payload).unwrap();
        assert_eq!(error["error"]["type"], "authentication_error");
        assert_eq!(
            fake.pending(),
            1,
            "the rejected request used up the scripted reply"
        );

        let (status, head, payload) = post(&fake, "/v1/messages", &owned(HEADERS), hi.as_bytes());
        assert_eq!(status, 200, "{head}");
        assert!(
            has_header(&head, "content-type", "text/event-stream"),
            "{head}"
        );
        let text = String::from_utf8(payload).unwrap();
        let events: Vec<(String, Value)> = text
            .split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| {
                let (name, data) = e.split_once('\n').expect("event and data lines");
                let name = name.strip_prefix("event: ").expect("an event line");
                let data = data.strip_prefix("data: ").expect("a data line");
                (name.to_string(), serde_json::from_str(data).unwrap())
            })
            .collect();
        let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[..2], ["message_start", "ping"]);
        assert_eq!(names[names.len() - 2..], ["message_delta", "message_stop"]);
        for (name, data) in &events {
            assert_eq!(data["type"], name.as_str(), "{data}");
        }
        let start = &events[0].1["message"];
        assert!(
            start["id"].as_str().unwrap().starts_with("msg_01"),
            "{start}"
        );
        assert_eq!(start["usage"]["input_tokens"], 20);

        let deltas = |index: u64, field: &str| -> String {
            events
                .iter()
                .filter(|(n, d)| n == "content_block_delta" && d["index"] == index)
                .filter_map(|(_, d)| d["delta"][field].as_str().map(str::to_string))
                .collect()
        };
        assert_eq!(deltas(0, "thinking"), "Echo it.");
        assert_eq!(deltas(0, "signature"), fake_anthropic::sign("Echo it."));
        assert_eq!(deltas(1, "text"), "Calling echo");
        assert_eq!(deltas(2, "partial_json"), r#"{"text":"hello"}"#);
        let tool_start = events
            .iter()
            .find(|(n, d)| n == "content_block_start" && d["index"] == 2)
            .unwrap();
        assert_eq!(
            tool_start.1["content_block"]["id"],
            wire_id(Api::Anthropic, &a)
        );
        let stop = &events[events.len() - 2].1;
        assert_eq!(stop["delta"]["stop_reason"], "tool_use");
        assert_eq!(stop["usage"]["output_tokens"], 10);
        assert_eq!(fake.requests().len(), 2);
    }
}

mod bedrock {
    use super::*;
    use aws_sigv4::http_request::{
        sign, SignableBody, SignableRequest, SigningParams, SigningSettings,
    };
    use aws_sigv4::sign::v4;
    use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
    use aws_smithy_runtime_api::client::identity::Identity;
    use aws_smithy_types::event_stream::Message;

    const PATH: &str = "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream";
    const HOST: &str = "127.0.0.1:8080";

    /// `content-type`, `host` and the SigV4 headers (`x-amz-date`,
    /// `authorization`, and `x-amz-security-token` with `token`) for `body`
    /// posted to `host`, signed now with the test credentials.
    fn signed(host: &str, body: &[u8], token: Option<&str>) -> Vec<(String, String)> {
        let identity: Identity = aws_credential_types::Credentials::new(
            fake_bedrock::ACCESS_KEY,
            fake_bedrock::SECRET_KEY,
            token.map(str::to_string),
            None,
            "test",
        )
        .into();
        let params: SigningParams<'_> = v4::SigningParams::builder()
            .identity(&identity)
            .region(fake_bedrock::REGION)
            .name("bedrock")
            .time(std::time::SystemTime::now())
            .settings(SigningSettings::default())
            .build()
            .unwrap()
            .into();
        let signable = SignableRequest::new(
            "POST",
            format!("http://{host}{PATH}"),
            [("content-type", "application/json")].into_iter(),
            SignableBody::Bytes(body),
        )
        .unwrap();
        let (instructions, _signature) = sign(signable, &params).unwrap().into_parts();
        let mut headers = owned(&[("host", host), ("content-type", "application/json")]);
        headers.extend(
            instructions
                .headers()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        headers
    }

    fn bearer() -> Vec<(String, String)> {
        owned(&[
            ("content-type", "application/json"),
            ("authorization", "Bearer test-bedrock-key"),
        ])
    }

    fn check(headers: Vec<(String, String)>, body: &[u8]) -> Result<(), Rejection> {
        fake_bedrock::check(&recorded(PATH, headers, body))
    }

    /// The status, error name (from `x-amzn-ErrorType`) and message of a
    /// rejection.
    #[track_caller]
    fn rejected(headers: Vec<(String, String)>, body: &[u8]) -> (u16, String, String) {
        let r = check(headers, body).expect_err("the request should have been rejected");
        let kind = r
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("x-amzn-ErrorType"))
            .map(|(_, v)| v.clone())
            .expect("an x-amzn-ErrorType header");
        let name = kind
            .strip_suffix(":http://internal.amazon.com/coral/com.amazon.bedrock/")
            .expect("the coral suffix")
            .to_string();
        let parsed: Value = serde_json::from_str(&r.body).expect("the error body is JSON");
        assert_eq!(parsed.as_object().unwrap().len(), 1, "{}", r.body);
        (
            r.status,
            name,
            parsed["message"].as_str().unwrap().to_string(),
        )
    }

    #[track_caller]
    fn assert_invalid(body: &Value, message: &str) {
        let (status, name, got) = rejected(bearer(), body.to_string().as_bytes());
        assert_eq!((status, name.as_str()), (400, "ValidationException"));
        assert_eq!(got, message);
    }

    fn converse(messages: Value) -> Value {
        json!({"messages": messages, "inferenceConfig": {"maxTokens": 1024},
            "toolConfig": {"tools": [{"toolSpec": {"name": "echo", "description": "d",
                "inputSchema": {"json": {"type": "object", "properties": {}}}}}]}})
    }

    fn tool_use(id: &str) -> Value {
        json!({"toolUse": {"toolUseId": id, "name": "echo", "input": {}}})
    }

    fn tool_result(id: &str) -> Value {
        json!({"toolResult": {"toolUseId": id, "content": [{"text": "ok"}], "status": "success"}})
    }

    fn tool_loop(assistant: Vec<Value>, results: Vec<Value>) -> Value {
        json!([
            {"role": "user", "content": [{"text": "hi"}]},
            {"role": "assistant", "content": assistant},
            {"role": "user", "content": results},
        ])
    }

    #[test]
    fn a_request_signed_with_the_test_credentials_passes_and_any_change_breaks_it() {
        let body = converse(json!([{"role": "user", "content": [{"text": "hi"}]}])).to_string();
        let headers = signed(HOST, body.as_bytes(), None);
        assert_eq!(check(headers.clone(), body.as_bytes()), Ok(()));
        // With a session token, signed as aws-sigv4 signs it.
        assert_eq!(
            check(
                signed(HOST, body.as_bytes(), Some("session-token")),
                body.as_bytes()
            ),
            Ok(())
        );

        let altered = body.replacen("hi", "hj", 1);
        assert_eq!(altered.len(), body.len());
        let (status, name, message) = rejected(headers.clone(), altered.as_bytes());
        assert_eq!((status, name.as_str()), (403, "InvalidSignatureException"));
        assert_eq!(
            message,
            "The request signature we calculated does not match the signature you provided. \
             Check your AWS Secret Access Key and signing method. Consult the service \
             documentation for details."
        );
        // Another host than the one signed.
        let mut moved = headers.clone();
        moved[0].1 = "127.0.0.1:9090".into();
        assert_eq!(
            rejected(moved, body.as_bytes()).1,
            "InvalidSignatureException"
        );

        let (status, name, message) = rejected(bearer()[..1].to_vec(), body.as_bytes());
        assert_eq!(
            (status, name.as_str()),
            (403, "MissingAuthenticationTokenException")
        );
        assert_eq!(message, "Missing Authentication Token");
        let unknown: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.clone(), v.replace("AKIDEXAMPLE", "AKIDOTHER00")))
            .collect();
        let (status, name, _) = rejected(unknown, body.as_bytes());
        assert_eq!(
            (status, name.as_str()),
            (403, "UnrecognizedClientException")
        );
        let mut malformed = headers.clone();
        for (k, v) in malformed.iter_mut() {
            if k.as_str() == "authorization" {
                *v = "AWS4-HMAC-SHA256 Signature=00".into();
            }
        }
        assert_eq!(
            rejected(malformed, body.as_bytes()).1,
            "IncompleteSignatureException"
        );
        // A Bedrock API key instead.
        assert_eq!(check(bearer(), body.as_bytes()), Ok(()));
        let (status, _, _) = rejected(owned(&[("authorization", "Bearer wrong")]), body.as_bytes());
        assert_eq!(status, 403);
    }

    #[test]
    fn a_tool_use_id_outside_the_pattern_is_rejected() {
        let good = wire_id(Api::Bedrock, &call_id("a"));
        assert_eq!(
            check(
                bearer(),
                converse(tool_loop(vec![tool_use(&good)], vec![tool_result(&good)]))
                    .to_string()
                    .as_bytes()
            ),
            Ok(())
        );
        for bad in ["tooluse_a.b", "call:1", "call 1"] {
            assert_invalid(
                &converse(tool_loop(vec![tool_use(bad)], vec![tool_result(bad)])),
                &format!(
                    "1 validation error detected: Value '{bad}' at \
                     'messages.2.member.content.1.member.toolUse.toolUseId' failed to satisfy \
                     constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+"
                ),
            );
        }
        let long = "a".repeat(65);
        assert_invalid(
            &converse(tool_loop(vec![tool_use(&long)], vec![tool_result(&long)])),
            &format!(
                "1 validation error detected: Value '{long}' at \
                 'messages.2.member.content.1.member.toolUse.toolUseId' failed to satisfy \
                 constraint: Member must have length less than or equal to 64"
            ),
        );
    }

    #[test]
    fn tool_uses_and_results_must_pair_up() {
        let (a, b) = (
            wire_id(Api::Bedrock, &call_id("a")),
            wire_id(Api::Bedrock, &call_id("b")),
        );
        assert_invalid(
            &converse(tool_loop(
                vec![tool_use(&a), tool_use(&b)],
                vec![tool_result(&a)],
            )),
            &format!("Expected toolResult blocks at messages.2.content for the following Ids: {b}"),
        );
        assert_invalid(
            &converse(tool_loop(
                vec![tool_use(&a)],
                vec![tool_result(&a), tool_result(&b)],
            )),
            "The number of toolResult blocks at messages.2.content exceeds the number of toolUse \
             blocks of previous turn.",
        );
        let mut no_config = converse(tool_loop(vec![tool_use(&a)], vec![tool_result(&a)]));
        no_config.as_object_mut().unwrap().remove("toolConfig");
        assert_invalid(
            &no_config,
            "The toolConfig field must be defined when using toolUse and toolResult content \
             blocks.",
        );
        assert_invalid(
            &converse(json!([
                {"role": "user", "content": [{"text": "hi"}]},
                {"role": "user", "content": [{"text": "again"}]},
            ])),
            "A conversation must alternate between user and assistant roles. Make sure the \
             conversation alternates between user and assistant roles and try again.",
        );
        assert_invalid(
            &converse(json!([{"role": "user", "content": [{"text": " "}]}])),
            "The text field in the ContentBlock object at messages.0.content.0 is blank. Add \
             text to the text field, and try again.",
        );
    }

    #[test]
    fn reasoning_must_carry_its_signature() {
        let a = wire_id(Api::Bedrock, &call_id("a"));
        let reasoning = |text: &str, signature: &str| json!({"reasoningContent": {"reasoningText": {"text": text, "signature": signature}}});
        let text = "Echo it.";
        let good = converse(tool_loop(
            vec![reasoning(text, &fake_anthropic::sign(text)), tool_use(&a)],
            vec![tool_result(&a)],
        ));
        assert_eq!(check(bearer(), good.to_string().as_bytes()), Ok(()));
        assert_invalid(
            &converse(tool_loop(
                vec![
                    reasoning("Echo it!", &fake_anthropic::sign(text)),
                    tool_use(&a),
                ],
                vec![tool_result(&a)],
            )),
            "The model returned the following errors: messages.1.content.0: Invalid `signature` \
             in `thinking` block",
        );
        let redacted = json!({"reasoningContent": {
            "redactedContent": fake_anthropic::redacted_data(3)}});
        assert_eq!(
            check(
                bearer(),
                converse(tool_loop(
                    vec![redacted, tool_use(&a)],
                    vec![tool_result(&a)]
                ))
                .to_string()
                .as_bytes()
            ),
            Ok(())
        );
    }

    /// Every frame in `bytes`, decoded as an SDK decodes them.
    fn decode_all(bytes: &[u8]) -> Vec<Message> {
        let mut decoder = MessageFrameDecoder::new();
        let mut buf: &[u8] = bytes;
        let mut out = Vec::new();
        while !buf.is_empty() {
            match decoder.decode_frame(&mut buf).expect("a valid frame") {
                DecodedFrame::Complete(m) => out.push(m),
                DecodedFrame::Incomplete => panic!("a truncated frame"),
            }
        }
        out
    }

    fn header(m: &Message, name: &str) -> String {
        m.headers()
            .iter()
            .find(|h| h.name().as_str() == name)
            .map(|h| h.value().as_string().unwrap().as_str().to_string())
            .unwrap_or_default()
    }

    fn payload(m: &Message) -> Value {
        serde_json::from_slice(m.payload()).expect("a JSON payload")
    }

    /// The event names and payloads of a ConverseStream body.
    fn events(bytes: &[u8]) -> Vec<(String, Value)> {
        decode_all(bytes)
            .iter()
            .map(|m| {
                assert_eq!(header(m, ":message-type"), "event");
                assert_eq!(header(m, ":content-type"), "application/json");
                (header(m, ":event-type"), payload(m))
            })
            .collect()
    }

    fn turn() -> Reply {
        Reply::turn(
            vec![
                Block::Thinking("Echo it.".into()),
                Block::Text("Calling echo".into()),
                Block::Tool {
                    id: call_id("a"),
                    name: "echo".into(),
                    args: r#"{"text":"hello"}"#.into(),
                },
                Block::Redacted,
            ],
            Stop::ToolUse,
        )
    }

    /// The strings at `path` in `deltas`, concatenated.
    fn concat(deltas: &[Value], path: &[&str]) -> String {
        deltas
            .iter()
            .filter_map(|d| path.iter().fold(d, |v, k| &v[*k]).as_str())
            .collect()
    }

    #[track_caller]
    fn assert_turn(events: &[(String, Value)]) {
        let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[0], "messageStart");
        assert_eq!(names[names.len() - 2..], ["messageStop", "metadata"]);
        for (_, p) in events {
            assert!(p["p"].is_string(), "no padding in {p}");
        }
        let deltas = |index: u64| -> Vec<Value> {
            events
                .iter()
                .filter(|(n, p)| n == "contentBlockDelta" && p["contentBlockIndex"] == index)
                .map(|(_, p)| p["delta"].clone())
                .collect()
        };
        assert_eq!(
            concat(&deltas(0), &["reasoningContent", "text"]),
            "Echo it."
        );
        assert_eq!(
            concat(&deltas(0), &["reasoningContent", "signature"]),
            fake_anthropic::sign("Echo it.")
        );
        assert_eq!(concat(&deltas(1), &["text"]), "Calling echo");
        assert_eq!(
            concat(&deltas(2), &["toolUse", "input"]),
            r#"{"text":"hello"}"#
        );
        assert_eq!(
            deltas(3),
            vec![json!({"reasoningContent": {
                "redactedContent": fake_anthropic::redacted_data(3)}})]
        );
        // Bedrock starts only tool-use blocks.
        let starts: Vec<&Value> = events
            .iter()
            .filter(|(n, _)| n == "contentBlockStart")
            .map(|(_, p)| p)
            .collect();
        assert_eq!(starts.len(), 1);
        assert_eq!(starts[0]["contentBlockIndex"], 2);
        assert_eq!(
            starts[0]["start"]["toolUse"],
            json!({"toolUseId": wire_id(Api::Bedrock, &call_id("a")), "name": "echo"})
        );
        let stops = events
            .iter()
            .filter(|(n, _)| n == "contentBlockStop")
            .count();
        assert_eq!(stops, 4);
        assert_eq!(events[events.len() - 2].1["stopReason"], "tool_use");
        let usage = &events[events.len() - 1].1["usage"];
        assert_eq!(
            (
                &usage["inputTokens"],
                &usage["outputTokens"],
                &usage["totalTokens"]
            ),
            (&json!(20), &json!(10), &json!(30))
        );
    }

    #[test]
    fn frames_decode_as_an_sdk_decodes_them_and_a_corrupt_one_does_not() {
        let Reply::Sse {
            body: crate::support::fake_provider::Body::Turn(t),
            ..
        } = turn()
        else {
            panic!("a turn reply");
        };
        let frames = fake_bedrock::frames(&t);
        assert_turn(&events(&frames.concat()));

        let exception = decode_all(&fake_bedrock::exception_frame(
            "throttlingException",
            "Too many requests, please wait before trying again.",
        ));
        assert_eq!(header(&exception[0], ":message-type"), "exception");
        assert_eq!(
            header(&exception[0], ":exception-type"),
            "throttlingException"
        );
        assert_eq!(
            payload(&exception[0]),
            json!({"message": "Too many requests, please wait before trying again."})
        );

        for frame in [frames[1].clone(), fake_bedrock::exception_frame("x", "y")] {
            assert!(MessageFrameDecoder::new()
                .decode_frame(&mut &frame[..])
                .is_ok());
            let broken = fake_bedrock::corrupt(frame);
            assert!(
                MessageFrameDecoder::new()
                    .decode_frame(&mut &broken[..])
                    .is_err(),
                "a corrupt frame decoded"
            );
        }
    }

    #[test]
    fn over_http_a_turn_is_streamed_as_frames_after_a_rejection() {
        let fake = FakeProvider::start();
        fake.push(turn());
        let body = converse(json!([{"role": "user", "content": [{"text": "hi"}]}])).to_string();

        // Signed for another body: refused, the reply kept.
        let host = format!("127.0.0.1:{}", fake.port());
        let wrong: Vec<(String, String)> = signed(&host, b"{}", None)
            .into_iter()
            .filter(|(k, _)| k != "host")
            .collect();
        let (status, head, payload) = post(&fake, PATH, &wrong, body.as_bytes());
        assert_eq!(status, 403, "{head}");
        assert!(
            has_header(
                &head,
                "x-amzn-ErrorType",
                "InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.bedrock/"
            ),
            "{head}"
        );
        let error: Value = serde_json::from_slice(&payload).unwrap();
        assert!(error["message"]
            .as_str()
            .unwrap()
            .starts_with("The request signature"));
        assert_eq!(
            fake.pending(),
            1,
            "the rejected request used up the scripted reply"
        );

        let headers: Vec<(String, String)> = signed(&host, body.as_bytes(), None)
            .into_iter()
            .filter(|(k, _)| k != "host")
            .collect();
        let (status, head, payload) = post(&fake, PATH, &headers, body.as_bytes());
        assert_eq!(status, 200, "{head}");
        assert!(
            has_header(&head, "content-type", "application/vnd.amazon.eventstream"),
            "{head}"
        );
        assert_turn(&events(&payload));
        assert_eq!(fake.pending(), 0);
        assert_eq!(fake.requests()[1].path, PATH);
    }

    #[test]
    fn error_replies_have_the_real_shape() {
        let reply = fake_bedrock::error_reply(
            429,
            "ThrottlingException",
            "Too many requests, please wait before trying again.",
        );
        let Reply::Status {
            code,
            headers,
            content_type,
            body,
        } = reply
        else {
            panic!("a status reply");
        };
        assert_eq!((code, content_type.as_str()), (429, "application/json"));
        assert!(headers.contains(&(
            "x-amzn-ErrorType".to_string(),
            "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/".to_string()
        )));
        assert_eq!(
            body,
            r#"{"message":"Too many requests, please wait before trying again."}"#
        );
        assert_eq!(
            fake_anthropic::error_event("overloaded_error", "Overloaded"),
            (
                "error".to_string(),
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
                    .to_string()
            )
        );
    }
}
