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
