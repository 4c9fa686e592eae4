//! The Gemini and Responses fakes refuse what the real APIs refuse, with
//! their error bodies: a missing, moved or altered signature or reasoning
//! item, results that don't match their calls, names outside the API's
//! pattern, schema keywords the API refuses — and take a faithful replay.

use serde_json::{json, Value};

use crate::support::fake_provider::{Recorded, Rejection};
use crate::support::{fake_gemini, fake_responses, Block, Stop, Turn, TurnUsage};

fn recorded(path: &str, headers: &[(&str, &str)], body: &Value) -> Recorded {
    Recorded {
        method: "POST".into(),
        path: path.into(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.to_string().into_bytes(),
        first_byte: std::time::Instant::now(),
    }
}

fn turn(blocks: Vec<Block>) -> Turn {
    Turn {
        blocks,
        stop: Stop::ToolUse,
        usage: TurnUsage::default(),
    }
}

mod gemini {
    use super::*;

    const PATH: &str = "/v1beta/models/gemini-3-flash:streamGenerateContent?alt=sse";
    const KEY: &[(&str, &str)] = &[("x-goog-api-key", "test-key")];

    fn body(contents: Value) -> Value {
        json!({"tools": [{"functionDeclarations": [{"name": "tool_call", "description": "d",
            "parametersJsonSchema": {"type": "object"}}]}],
            "generationConfig": {"maxOutputTokens": 8192}, "contents": contents})
    }

    fn check(b: &Value) -> Result<(), Rejection> {
        fake_gemini::check(&recorded(PATH, KEY, b))
    }

    /// The status, the Google `status` and the message of a refusal.
    #[track_caller]
    fn refused(b: &Value) -> (u16, String, String) {
        let r = check(b).expect_err("the request should have been refused");
        let e: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(e["error"]["code"], r.status, "{}", r.body);
        (
            r.status,
            e["error"]["status"].as_str().unwrap().to_string(),
            e["error"]["message"].as_str().unwrap().to_string(),
        )
    }

    fn call(id: &str, sig: Option<&str>) -> Value {
        let mut p = json!({"functionCall": {"id": id, "name": "tool_call", "args": {"calls": []}}});
        if let Some(s) = sig {
            p["thoughtSignature"] = json!(s);
        }
        p
    }

    fn response(id: &str) -> Value {
        json!({"functionResponse": {"id": id, "name": "tool_call", "response": {"output": "ok"}}})
    }

    /// A user asks; the model answers with `calls`; the user sends `results`.
    fn step(calls: Vec<Value>, results: Vec<Value>) -> Value {
        json!([
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": calls},
            {"role": "user", "parts": results},
        ])
    }

    #[test]
    fn a_faithful_replay_passes_and_the_key_is_checked() {
        let sig = fake_gemini::sign("turn");
        let ok = body(step(
            vec![call("a", Some(&sig)), call("b", None)],
            vec![response("a"), response("b")],
        ));
        check(&ok).unwrap();
        let r =
            fake_gemini::check(&recorded(PATH, &[("x-goog-api-key", "nope")], &ok)).unwrap_err();
        assert_eq!(r.status, 400);
        assert!(r.body.contains("API_KEY_INVALID"), "{}", r.body);
        let r = fake_gemini::check(&recorded(PATH, &[], &ok)).unwrap_err();
        assert_eq!(r.status, 403);
        // The documented dummy stands for a call Gemini did not generate.
        let dummy = body(step(
            vec![call("a", Some(fake_gemini::DUMMY))],
            vec![response("a")],
        ));
        check(&dummy).unwrap();
    }

    #[test]
    fn a_missing_moved_or_altered_signature_is_refused() {
        let sig = fake_gemini::sign("turn");
        let missing = body(step(vec![call("a", None)], vec![response("a")]));
        let (status, google, message) = refused(&missing);
        assert_eq!((status, google.as_str()), (400, "INVALID_ARGUMENT"));
        assert!(
            message
                .starts_with("Function call is missing a thought_signature in functionCall parts.")
                && message.contains("function call `default_api:tool_call` , position 2."),
            "{message}"
        );
        // Moved onto the second call: the first has none.
        let moved = body(step(
            vec![call("a", None), call("b", Some(&sig))],
            vec![response("a"), response("b")],
        ));
        assert!(refused(&moved)
            .2
            .starts_with("Function call is missing a thought_signature"));
        let mut altered = sig.clone();
        altered.replace_range(10..11, if &sig[10..11] == "A" { "B" } else { "A" });
        let altered = body(step(vec![call("a", Some(&altered))], vec![response("a")]));
        assert_eq!(refused(&altered).2, "Corrupted thought signature.");
        let not_base64 = body(step(
            vec![call("a", Some("not base64!"))],
            vec![response("a")],
        ));
        assert!(refused(&not_base64)
            .2
            .contains("(TYPE_BYTES), Base64 decoding failed"));
        // Outside the current turn nothing is validated (Gemini 2 neither).
        let old = json!([
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [call("a", None)]},
            {"role": "user", "parts": [response("a")]},
            {"role": "model", "parts": [{"text": "done"}]},
            {"role": "user", "parts": [{"text": "next"}]},
        ]);
        check(&body(old)).unwrap();
        let flash2 = recorded(
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            KEY,
            &missing,
        );
        fake_gemini::check(&flash2).unwrap();
    }

    #[test]
    fn results_must_answer_their_calls() {
        let sig = fake_gemini::sign("t");
        let short = body(step(
            vec![call("a", Some(&sig)), call("b", None)],
            vec![response("a")],
        ));
        assert_eq!(
            refused(&short).2,
            "Please ensure that the number of function response parts is equal to the number of \
             function call parts of the function call turn."
        );
        let stray = body(json!([
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"text": "hi"}]},
            {"role": "user", "parts": [response("a")]},
        ]));
        assert_eq!(
            refused(&stray).2,
            "Please ensure that function response turn comes immediately after a function call turn."
        );
        let same_role = body(json!([
            {"role": "user", "parts": [{"text": "a"}]},
            {"role": "user", "parts": [{"text": "b"}]},
        ]));
        assert_eq!(
            refused(&same_role).2,
            "Please ensure that multiturn requests alternate between user and model."
        );
        let wrong_id = body(step(vec![call("a", Some(&sig))], vec![response("z")]));
        assert!(refused(&wrong_id)
            .2
            .contains("does not match functionCall.id"));
    }

    #[test]
    fn names_outside_the_pattern_and_refused_schema_keywords_are_refused() {
        let mut b = body(json!([{"role": "user", "parts": [{"text": "go"}]}]));
        b["tools"][0]["functionDeclarations"][0]["name"] = json!("9-starts-with-a-digit");
        assert!(refused(&b).2.contains(
            "[FIELD_INVALID] Invalid function name. Must start with a letter or an underscore."
        ));
        let mut b = body(json!([{"role": "user", "parts": [{"text": "go"}]}]));
        b["tools"][0]["functionDeclarations"][0] = json!({"name": "x", "description": "d",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer",
                "exclusiveMinimum": 0}}, "additionalProperties": false}});
        assert_eq!(
            refused(&b).2,
            "Invalid JSON payload received. Unknown name \"additionalProperties\" at \
             'tools[0].function_declarations[0].parameters': Cannot find field."
        );
        b["tools"][0]["functionDeclarations"][0]["parameters"]
            .as_object_mut()
            .unwrap()
            .remove("additionalProperties");
        assert!(refused(&b)
            .2
            .contains("Unknown name \"exclusiveMinimum\" at 'tools[0].function_declarations[0].parameters.properties[0].value'"));
        let mut both = body(json!([{"role": "user", "parts": [{"text": "go"}]}]));
        both["generationConfig"]["thinkingConfig"] =
            json!({"thinkingLevel": "high", "thinkingBudget": 1024});
        assert!(refused(&both)
            .2
            .starts_with("You cannot use both thinking_level"));
    }

    #[test]
    fn the_stream_signs_the_first_call_of_a_step_and_the_end_of_a_text_answer() {
        let t = turn(vec![
            Block::Thinking("plan".into()),
            Block::Tool {
                id: "call_a".into(),
                name: "x".into(),
                args: "{}".into(),
            },
            Block::Tool {
                id: "call_b".into(),
                name: "x".into(),
                args: "{}".into(),
            },
        ]);
        let parts: Vec<Value> = fake_gemini::events(&t, "gemini-3-flash")
            .iter()
            .map(|e| {
                serde_json::from_str::<Value>(e).unwrap()["candidates"][0]["content"]["parts"][0]
                    .clone()
            })
            .collect();
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert!(fake_gemini::is_signature(
            parts[0]["thoughtSignature"].as_str().unwrap()
        ));
        assert!(parts[1].get("thoughtSignature").is_none());
        assert_eq!(parts[1]["functionCall"]["id"], "call_b");
        let text = turn(vec![Block::Text("hi".into())]);
        let last = fake_gemini::events(&text, "gemini-3-flash").pop().unwrap();
        let last: Value = serde_json::from_str(&last).unwrap();
        assert_eq!(last["candidates"][0]["content"]["parts"][0]["text"], "");
        assert!(last["candidates"][0]["content"]["parts"][0]["thoughtSignature"].is_string());
        assert_eq!(last["candidates"][0]["finishReason"], "STOP");
        let old: Value =
            serde_json::from_str(&fake_gemini::events(&t, "gemini-2.5-flash")[0]).unwrap();
        assert!(old["candidates"][0]["content"]["parts"][0]["functionCall"]
            .get("id")
            .is_none());
    }
}

mod responses {
    use super::*;

    const PATH: &str = "/v1/responses";
    const KEY: &[(&str, &str)] = &[("authorization", "Bearer test-key")];

    fn body(input: Value) -> Value {
        json!({"model": "gpt-5", "stream": true, "store": false,
            "include": ["reasoning.encrypted_content"],
            "tools": [{"type": "function", "name": "tool_call", "description": "d",
                "parameters": {"type": "object"}, "strict": false}],
            "input": input})
    }

    fn check(b: &Value) -> Result<(), Rejection> {
        fake_responses::check(&recorded(PATH, KEY, b))
    }

    /// The status and the `error` object of a refusal.
    #[track_caller]
    fn refused(b: &Value) -> (u16, Value) {
        let r = check(b).expect_err("the request should have been refused");
        let e: Value = serde_json::from_str(&r.body).unwrap();
        assert!(e["error"]["type"].is_string(), "{}", r.body);
        (r.status, e["error"].clone())
    }

    fn call(id: &str) -> Value {
        json!({"type": "function_call", "call_id": id, "name": "tool_call", "arguments": "{}"})
    }

    fn output(id: &str) -> Value {
        json!({"type": "function_call_output", "call_id": id, "output": "ok"})
    }

    fn user() -> Value {
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]})
    }

    /// The reasoning item the fake issues for a turn that thinks, then
    /// calls `id`.
    fn issued(id: &str) -> Value {
        let t = turn(vec![
            Block::Thinking(format!("plan for {id}")),
            Block::Tool {
                id: id.into(),
                name: "tool_call".into(),
                args: "{}".into(),
            },
        ]);
        let events = fake_responses::events(&t, true);
        let (_, done) = events
            .iter()
            .find(|(e, d)| e == "response.output_item.done" && d.contains("\"reasoning\""))
            .unwrap();
        let mut item = serde_json::from_str::<Value>(done).unwrap()["item"].clone();
        item.as_object_mut().unwrap().remove("id");
        item
    }

    #[test]
    fn a_faithful_stateless_replay_passes_and_the_key_is_checked() {
        let id = "call_FaithfulReplay00000000001";
        let ok = body(json!([user(), issued(id), call(id), output(id)]));
        check(&ok).unwrap();
        let r = fake_responses::check(&recorded(
            PATH,
            &[("authorization", "Bearer sk-wrong")],
            &ok,
        ))
        .unwrap_err();
        assert_eq!(r.status, 401);
        assert!(r.body.contains("invalid_api_key"), "{}", r.body);
    }

    #[test]
    fn a_missing_moved_or_altered_reasoning_item_is_refused() {
        let id = "call_MissingReasoning00000001";
        let reasoning = issued(id);
        let (status, e) = refused(&body(json!([user(), call(id), output(id)])));
        assert_eq!(status, 400);
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("missing before it or moved"),
            "{e}"
        );
        // Moved after its call: it no longer leads to anything.
        let (_, e) = refused(&body(json!([
            user(),
            call(id),
            reasoning.clone(),
            output(id)
        ])));
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("without its required following item"),
            "{e}"
        );
        let mut altered = reasoning.clone();
        let sealed = altered["encrypted_content"].as_str().unwrap().to_string();
        altered["encrypted_content"] = json!(format!("{}x", &sealed[..sealed.len() - 1]));
        let (_, e) = refused(&body(json!([user(), altered, call(id), output(id)])));
        assert_eq!(e["code"], "invalid_encrypted_content", "{e}");
        // With its server id and no encrypted content it is looked up: 404.
        let (status, e) = refused(&body(json!([user(),
            {"type": "reasoning", "id": "rs_68d7eff985648196", "summary": []}, call(id), output(id)])));
        assert_eq!(status, 404);
        assert!(e["message"]
            .as_str()
            .unwrap()
            .contains("Items are not persisted when `store` is set to false."));
    }

    #[test]
    fn results_must_answer_their_calls() {
        let (_, e) = refused(&body(json!([user(), output("call_nobody")])));
        assert_eq!(
            e["message"],
            "No tool call found for function call output with call_id call_nobody."
        );
        let (_, e) = refused(&body(json!([user(), call("call_unanswered")])));
        assert_eq!(
            e["message"],
            "No tool output found for function call call_unanswered."
        );
        let long = "c".repeat(65);
        let (_, e) = refused(&body(json!([user(), call(&long), output(&long)])));
        assert_eq!(e["code"], "string_above_max_length");
        let (_, e) = refused(&body(
            json!([user(), {"type": "function_call", "id": "msg_1",
            "call_id": "c", "name": "tool_call", "arguments": "{}"}, output("c")]),
        ));
        assert_eq!(
            e["message"],
            "Invalid 'input[1].id': 'msg_1'. Expected an ID that begins with 'fc'."
        );
    }

    #[test]
    fn names_schemas_and_parameters_the_api_refuses_are_refused() {
        let mut b = body(json!([user()]));
        b["tools"][0]["name"] = json!("mcp.server.tool");
        let (_, e) = refused(&b);
        assert_eq!(e["param"], "tools[0].name");
        assert_eq!(e["code"], "invalid_value");
        let mut b = body(json!([user()]));
        b["tools"][0]["parameters"] =
            json!({"type": "object", "properties": {"ids": {"type": "array"}}});
        let (_, e) = refused(&b);
        assert_eq!(e["code"], "invalid_function_parameters");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("array schema missing items"),
            "{e}"
        );
        let mut b = body(json!([user()]));
        b["model"] = json!("gpt-4.1");
        let (_, e) = refused(&b);
        assert_eq!(
            e["message"],
            "Encrypted content is not supported with this model."
        );
        let mut b = body(json!([{"type": "message", "role": "assistant",
            "content": [{"type": "input_text", "text": "x"}]}]));
        let (_, e) = refused(&b);
        assert_eq!(
            e["message"],
            "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'."
        );
        b["surprise"] = json!(1);
        assert_eq!(refused(&b).1["code"], "unknown_parameter");
    }
}
