//! The Gemini API side of the fake provider: [`check`] refuses what the real
//! `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` refuses, with
//! its status and error body, and [`events`] renders a [`Turn`] as the real
//! stream does.
//!
//! Error bodies are Google's shape, `{"error":{"code":400,"message":…,
//! "status":"INVALID_ARGUMENT"}}`, `400` unless said. The rules, in this
//! order (the first violation wins), each with where it is documented or
//! seen answered:
//!
//! 1. `x-goog-api-key` is present (else `403 PERMISSION_DENIED`, "Method
//!    doesn't allow unregistered callers") and is `test-key` (else `400
//!    API_KEY_INVALID`, "API key not valid. Please pass a valid API key.",
//!    with its `ErrorInfo` detail).
//! 2. the path is `…/models/{model}:streamGenerateContent` with `alt=sse`
//!    (the fake serves streams only).
//! 3. the body is a JSON object of known fields ("Invalid JSON payload
//!    received. Unknown name \"x\": Cannot find field.").
//! 4. each function declaration's name matches
//!    `^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$` ("Invalid function name. Must start
//!    with a letter or an underscore…"); it has `parameters` (the OpenAPI
//!    subset: any other keyword is "Unknown name … Cannot find field") or
//!    `parametersJsonSchema` (an object schema, "the schema must describe an
//!    object"), not both ("mutually exclusive", types.ts).
//! 5. `generationConfig.thinkingConfig` has not both `thinkingLevel` and
//!    `thinkingBudget` ("You cannot use both … in the same request"), and no
//!    `thinkingLevel` for a Gemini 2 model ("Thinking level is not supported
//!    for this model.").
//! 6. `contents` is a non-empty list of `user` / `model` contents, each with
//!    parts; the roles alternate ("Please ensure that multiturn requests
//!    alternate between user and model."). Each part holds one of `text`,
//!    `inlineData`, `functionCall`, `functionResponse` (with `thought` and
//!    `thoughtSignature` beside it, the signature base64: "Base64 decoding
//!    failed"); a call's `args` and a response's `response` are objects, and
//!    both have a `name`.
//! 7. a model content with function calls comes after a user content or a
//!    function response, and is followed by a user content with as many
//!    `functionResponse` parts ("Please ensure that the number of function
//!    response parts is equal to the number of function call parts of the
//!    function call turn."); function responses come only right after a
//!    function call turn ("Please ensure that function response turn comes
//!    immediately after a function call turn."), each with the id of one of
//!    its calls when it gives one.
//! 8. Gemini 3 (any model not named `gemini-2…`): in the current turn — the
//!    contents after the newest user content that is not only function
//!    responses — the first function call of each model content carries a
//!    `thoughtSignature` ("Function call is missing a thought_signature in
//!    functionCall parts. … function call `default_api:NAME` , position N.",
//!    the thought-signatures guide: "Strict validation is enforced for all
//!    function calls within the current turn"); and every signature anywhere
//!    is one the fake issued ([`sign`]) or the documented dummy, else
//!    "Corrupted thought signature.".
//!
//! The stream ([`events`]): one `data:` per chunk, each a whole
//! `GenerateContentResponse`, separated by `\r\n\r\n`, no end marker — the
//! last chunk has the finish reason. Text streams in pieces of 4
//! characters; each function call comes whole in its own chunk, with its
//! id, the first of the turn signed; a text-only answer ends with an empty
//! text part that carries the signature (Gemini 3). A Gemini 2 model sends
//! calls without ids, its signature on the first part whatever it is.

use serde_json::{json, Value};

use super::fake_anthropic::{keyed, pieces};
use super::fake_provider::{base62, fnv1a, Block, Recorded, Rejection, Stop, Turn};

/// The key the fake takes (the test environment's `HERMES_TEST_KEY`).
pub const API_KEY: &str = "test-key";
/// The signature Google documents for calls it did not generate.
pub const DUMMY: &str = "skip_thought_signature_validator";
const OTHER_DUMMY: &str = "context_engineering_is_the_way_to_go";

/// Keywords of `parameters`: the proto `Schema` fields (types.ts `Schema`).
const SCHEMA_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];
const TOP_FIELDS: &[&str] = &[
    "contents",
    "systemInstruction",
    "tools",
    "toolConfig",
    "generationConfig",
    "safetySettings",
    "cachedContent",
    "labels",
];

/// The model a request's path names (`…/models/{model}:streamGenerateContent`).
pub fn model_of(path: &str) -> Option<&str> {
    let path = path.split('?').next()?;
    let rest = &path[path.find("/models/")? + "/models/".len()..];
    Some(rest.split(':').next().unwrap_or(rest))
}

/// Whether the model behaves as Gemini 2 does (no ids, no validation).
pub fn is_gemini_2(model: &str) -> bool {
    model.starts_with("gemini-2")
}

/// Checks a request against the rules in this file's header, in that
/// order; `Err` is the real API's answer to the first rule broken.
pub fn check(req: &Recorded) -> Result<(), Rejection> {
    match req.header("x-goog-api-key") {
        None => return Err(error(403, "PERMISSION_DENIED",
            "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.")),
        Some(k) if k != API_KEY => return Err(bad_key()),
        Some(_) => {}
    }
    let path = req.path.as_str();
    let model = model_of(path).unwrap_or("");
    if !path
        .split('?')
        .next()
        .unwrap_or("")
        .ends_with(":streamGenerateContent")
        || !path.contains("alt=sse")
    {
        return Err(error(
            404,
            "NOT_FOUND",
            &format!("fake: only models/{model}:streamGenerateContent?alt=sse is served"),
        ));
    }
    let body: Value = match serde_json::from_slice(&req.body) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Err(invalid(
                "Invalid JSON payload received. Expected an object.",
            ))
        }
    };
    for key in body.as_object().into_iter().flat_map(|o| o.keys()) {
        if !TOP_FIELDS.contains(&key.as_str()) {
            return Err(invalid(&format!(
                "Invalid JSON payload received. Unknown name \"{key}\": Cannot find field."
            )));
        }
    }
    check_tools(&body)?;
    check_response_schema(&body["generationConfig"])?;
    check_thinking(&body, model)?;
    let contents = check_contents(&body)?;
    check_calls(contents)?;
    if !is_gemini_2(model) {
        check_signatures(contents)?;
    }
    Ok(())
}

/// A response schema is taken with a JSON response only.
fn check_response_schema(config: &Value) -> Result<(), Rejection> {
    let schema = !config["responseJsonSchema"].is_null() || !config["responseSchema"].is_null();
    if schema && config["responseMimeType"] != "application/json" {
        return Err(invalid(
            "Invalid JSON payload received. response_mime_type must be application/json when response_schema or response_json_schema is set.",
        ));
    }
    Ok(())
}

fn check_tools(body: &Value) -> Result<(), Rejection> {
    let empty = Vec::new();
    for (t, tool) in body["tools"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        if let Some(g) = tool.get("google_search") {
            if !g.is_object() {
                return Err(invalid(&format!(
                    "Invalid JSON payload received. Unknown name \"google_search\" at 'tools[{t}]': \
                     Proto field is not repeating, cannot start list."
                )));
            }
            if let Some(k) = g
                .as_object()
                .into_iter()
                .flat_map(|o| o.keys())
                .find(|k| k.as_str() != "timeRangeFilter")
            {
                return Err(invalid(&format!(
                    "Invalid JSON payload received. Unknown name \"{k}\" at 'tools[{t}].google_search': \
                     Cannot find field."
                )));
            }
            continue;
        }
        let decls = tool["functionDeclarations"].as_array().unwrap_or(&empty);
        for (k, d) in decls.iter().enumerate() {
            let at = format!("tools[{t}].function_declarations[{k}]");
            let name = d["name"].as_str().unwrap_or("");
            if !is_function_name(name) {
                return Err(invalid(&format!(
                    "The GenerateContentRequest proto is invalid:\n  * {at}.name: [FIELD_INVALID] \
                     Invalid function name. Must start with a letter or an underscore. Must be \
                     a-z, A-Z, 0-9, or contain underscores (_), dots (.), colons (:), or dashes \
                     (-), with a maximum length of 64."
                )));
            }
            match (d.get("parameters"), d.get("parametersJsonSchema")) {
                (Some(_), Some(_)) => {
                    return Err(invalid(&format!(
                        "{at}: parameters and parameters_json_schema are mutually exclusive"
                    )))
                }
                (Some(p), None) => openapi_subset(p, &format!("'{at}.parameters'"))?,
                (None, Some(s)) => {
                    if let Some(e) = super::schema_rules::gemini(&at, s) {
                        return Err(invalid(&e));
                    }
                }
                (None, None) => {}
            }
        }
    }
    Ok(())
}

/// `^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$`
pub fn is_function_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 64
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c))
}

/// The OpenAPI subset `parameters` takes: proto field names only, checked
/// through `properties`, `items` and `anyOf`.
fn openapi_subset(schema: &Value, at: &str) -> Result<(), Rejection> {
    let Some(o) = schema.as_object() else {
        return Ok(());
    };
    for (key, v) in o {
        if !SCHEMA_FIELDS.contains(&key.as_str()) {
            return Err(invalid(&format!(
                "Invalid JSON payload received. Unknown name \"{key}\" at {at}: Cannot find field."
            )));
        }
        if key == "type" && v.is_array() {
            return Err(invalid(&format!(
                "Invalid JSON payload received. Unknown name \"type\" at {at}: Proto field is \
                 not repeating, cannot start list."
            )));
        }
    }
    let inner = at.trim_end_matches('\'');
    for (i, (_, p)) in o
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .enumerate()
    {
        openapi_subset(p, &format!("{inner}.properties[{i}].value'"))?;
    }
    if let Some(items) = o.get("items") {
        openapi_subset(items, &format!("{inner}.items'"))?;
    }
    for (i, s) in o
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        openapi_subset(s, &format!("{inner}.any_of[{i}]'"))?;
    }
    Ok(())
}

fn check_thinking(body: &Value, model: &str) -> Result<(), Rejection> {
    let t = &body["generationConfig"]["thinkingConfig"];
    if t.get("thinkingLevel").is_some() && t.get("thinkingBudget").is_some() {
        return Err(invalid(
            "You cannot use both thinking_level and the legacy thinking_budget parameter in \
             the same request.",
        ));
    }
    if t.get("thinkingLevel").is_some() && is_gemini_2(model) {
        return Err(invalid("Thinking level is not supported for this model."));
    }
    Ok(())
}

fn check_contents(body: &Value) -> Result<&[Value], Rejection> {
    let contents = match body.get("contents") {
        Some(Value::Array(c)) if !c.is_empty() => c.as_slice(),
        _ => {
            return Err(invalid(
                "* GenerateContentRequest.contents: contents is not specified",
            ))
        }
    };
    let mut previous: Option<&str> = None;
    for (i, c) in contents.iter().enumerate() {
        let role = c["role"].as_str().unwrap_or("user");
        if role != "user" && role != "model" {
            return Err(invalid(&format!(
                "Please use a valid role: user, model. Got `{role}` at contents[{i}]."
            )));
        }
        if previous == Some(role) {
            return Err(invalid(
                "Please ensure that multiturn requests alternate between user and model.",
            ));
        }
        previous = Some(role);
        let parts = match c.get("parts") {
            Some(Value::Array(p)) if !p.is_empty() => p,
            _ => {
                return Err(invalid(&format!(
                "* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty."
            )))
            }
        };
        for (j, p) in parts.iter().enumerate() {
            check_part(p, &format!("contents[{i}].parts[{j}]"))?;
        }
    }
    Ok(contents)
}

fn check_part(p: &Value, at: &str) -> Result<(), Rejection> {
    const DATA: &[&str] = &["text", "inlineData", "functionCall", "functionResponse"];
    let Some(o) = p.as_object() else {
        return Err(invalid(&format!(
            "Invalid value at '{at}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Part)"
        )));
    };
    for key in o.keys() {
        if !DATA.contains(&key.as_str()) && key != "thought" && key != "thoughtSignature" {
            return Err(invalid(&format!(
                "Invalid JSON payload received. Unknown name \"{key}\" at '{at}': Cannot find field."
            )));
        }
    }
    if o.keys().filter(|k| DATA.contains(&k.as_str())).count() != 1 {
        return Err(invalid(&format!(
            "* GenerateContentRequest.{at}.data: required oneof field 'data' must have one initialized field"
        )));
    }
    if let Some(sig) = o.get("thoughtSignature") {
        let s = sig.as_str().unwrap_or("");
        if !s.is_empty() && !is_base64(s) {
            let snake = at.replace("thoughtSignature", "thought_signature");
            return Err(invalid(&format!(
                "Invalid value at '{snake}.thought_signature' (TYPE_BYTES), Base64 decoding failed for \"{s}\""
            )));
        }
    }
    if let Some(fc) = o.get("functionCall") {
        if fc["name"].as_str().is_none_or(str::is_empty) {
            return Err(invalid(&format!(
                "* GenerateContentRequest.{at}.function_call.name: Name is not specified."
            )));
        }
        if fc.get("args").is_some_and(|a| !a.is_object()) {
            return Err(invalid(&format!(
                "Invalid value at '{at}.function_call.args' (type.googleapis.com/google.protobuf.Struct)"
            )));
        }
    }
    if let Some(fr) = o.get("functionResponse") {
        if fr["name"].as_str().is_none_or(str::is_empty) {
            return Err(invalid(&format!(
                "* GenerateContentRequest.{at}.function_response.name: Name is not specified."
            )));
        }
        if !fr["response"].is_object() {
            return Err(invalid(&format!(
                "Invalid value at '{at}.function_response.response' (type.googleapis.com/google.protobuf.Struct)"
            )));
        }
    }
    Ok(())
}

/// Standard or URL-safe base64, as the proto parser takes bytes (the
/// dummies, letters and `_`, decode too).
fn is_base64(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+/=-_".contains(&b))
}

fn calls(c: &Value) -> Vec<&Value> {
    c["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p.get("functionCall").is_some())
        .collect()
}

fn responses(c: &Value) -> Vec<&Value> {
    c["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p.get("functionResponse").is_some())
        .collect()
}

fn check_calls(contents: &[Value]) -> Result<(), Rejection> {
    for (i, c) in contents.iter().enumerate() {
        let fc = calls(c);
        let fr = responses(c);
        if !fc.is_empty() {
            if i == 0 || contents[i - 1]["role"] != "user" {
                return Err(invalid(
                    "Please ensure that function call turn comes immediately after a user turn \
                     or after a function response turn.",
                ));
            }
            let answered = contents.get(i + 1).map(responses).unwrap_or_default();
            if answered.len() != fc.len() {
                return Err(invalid(
                    "Please ensure that the number of function response parts is equal to the \
                     number of function call parts of the function call turn.",
                ));
            }
        }
        if !fr.is_empty() {
            let asked = match i.checked_sub(1).map(|p| &contents[p]) {
                Some(prev) => calls(prev),
                None => Vec::new(),
            };
            if asked.is_empty() {
                return Err(invalid(
                    "Please ensure that function response turn comes immediately after a \
                     function call turn.",
                ));
            }
            for r in fr {
                if let Some(id) = r["functionResponse"]["id"].as_str() {
                    if !asked
                        .iter()
                        .any(|c| c["functionCall"]["id"].as_str() == Some(id))
                    {
                        return Err(invalid(&format!(
                            "functionResponse.id `{id}` does not match functionCall.id of the \
                             function call turn."
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

fn parts_of(c: &Value) -> usize {
    c["parts"].as_array().map_or(0, Vec::len)
}

fn check_signatures(contents: &[Value]) -> Result<(), Rejection> {
    // Every signature, anywhere, is one the fake issued or a dummy.
    for c in contents {
        for p in c["parts"].as_array().into_iter().flatten() {
            if let Some(s) = p["thoughtSignature"].as_str() {
                if s != DUMMY && s != OTHER_DUMMY && !is_signature(s) {
                    return Err(invalid("Corrupted thought signature."));
                }
            }
        }
    }
    // The current turn starts at the newest user content with a part that
    // is not a function response.
    let start = contents
        .iter()
        .rposition(|c| c["role"] == "user" && responses(c).len() < parts_of(c))
        .unwrap_or(0);
    for (i, c) in contents.iter().enumerate().skip(start) {
        let Some(first) = calls(c).first().copied() else {
            continue;
        };
        if first["thoughtSignature"].as_str().is_none_or(str::is_empty) {
            let name = first["functionCall"]["name"].as_str().unwrap_or("");
            return Err(invalid(&format!(
                "Function call is missing a thought_signature in functionCall parts. This is \
                 required for tools to work correctly, and missing thought_signature may lead \
                 to degraded model performance. Additional data, function call \
                 `default_api:{name}` , position {}. Please refer to \
                 https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
                i + 1
            )));
        }
    }
    Ok(())
}

/// Google's error body.
pub fn error_body(code: u16, status: &str, message: &str) -> String {
    json!({"error": {"code": code, "message": message, "status": status}}).to_string()
}

fn error(code: u16, status: &str, message: &str) -> Rejection {
    Rejection {
        status: code,
        headers: Vec::new(),
        body: error_body(code, status, message),
    }
}

fn invalid(message: &str) -> Rejection {
    error(400, "INVALID_ARGUMENT", message)
}

fn bad_key() -> Rejection {
    let message = "API key not valid. Please pass a valid API key.";
    Rejection {
        status: 400,
        headers: Vec::new(),
        body: json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                 "domain": "googleapis.com",
                 "metadata": {"service": "generativelanguage.googleapis.com"}},
                {"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US",
                 "message": message}]}})
        .to_string(),
    }
}

/// A prompt past the model's window, as the real API says it.
pub fn too_long(tokens: u64, window: u64) -> Rejection {
    invalid(&format!(
        "The input token count ({tokens}) exceeds the maximum number of tokens allowed ({window})."
    ))
}

const SIG_PREFIX: [u8; 2] = [0x0A, 0x29];
const SIG_BODY: usize = 40;
const SIG_MAC: usize = 16;

/// A thought signature, standard base64 of bytes derived from `seed` and a
/// keyed check of them, so [`check`] can tell one it issued from any other
/// (the real ones are opaque and encrypted; any byte changed is refused).
pub fn sign(seed: &str) -> String {
    let body = keyed(b"gemini signature body", seed.as_bytes(), SIG_BODY);
    let mut raw = SIG_PREFIX.to_vec();
    raw.extend_from_slice(&body);
    raw.extend(keyed(b"gemini signature check", &body, SIG_MAC));
    aws_smithy_types::base64::encode(raw)
}

/// Whether `s` is one [`sign`] could have produced.
pub fn is_signature(s: &str) -> bool {
    let Ok(raw) = aws_smithy_types::base64::decode(s) else {
        return false;
    };
    raw.len() == 2 + SIG_BODY + SIG_MAC
        && raw[..2] == SIG_PREFIX
        && raw[2 + SIG_BODY..]
            == keyed(b"gemini signature check", &raw[2..2 + SIG_BODY], SIG_MAC)[..]
        && aws_smithy_types::base64::encode(&raw) == s
}

/// A turn as the real stream's `data:` payloads for `model`.
pub fn events(turn: &Turn, model: &str) -> Vec<String> {
    let gemini_2 = is_gemini_2(model);
    let response_id = base62(fnv1a(format!("{turn:?}").as_bytes()), 22);
    let signature = sign(&format!("{turn:?}"));
    let u = turn.usage;
    let usage = |output: u64| {
        json!({"promptTokenCount": u.input + u.cache_read + u.cache_write,
            "candidatesTokenCount": output,
            "totalTokenCount": u.input + u.cache_read + u.cache_write + output + 17,
            "thoughtsTokenCount": 17,
            "cachedContentTokenCount": u.cache_read})
    };
    let chunk = |parts: Vec<Value>, finish: Option<&str>, output: u64| {
        let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
        if let Some(f) = finish {
            candidate["finishReason"] = json!(f);
        }
        json!({"candidates": [candidate], "usageMetadata": usage(output),
            "modelVersion": model, "responseId": response_id})
        .to_string()
    };
    // One part a chunk, as the real stream sends them.
    let mut parts: Vec<Value> = Vec::new();
    let mut signed = false;
    let has_calls = turn.blocks.iter().any(|b| matches!(b, Block::Tool { .. }));
    for block in &turn.blocks {
        match block {
            // Thoughts are not sent unless asked for (`includeThoughts`).
            Block::Thinking(_) | Block::Redacted => {}
            // Grounding: the search's sources come with the last chunk.
            Block::Search { .. } => {}
            Block::Text(text) => {
                for piece in pieces(text, 4) {
                    let mut part = json!({ "text": piece });
                    if gemini_2 && !signed {
                        part["thoughtSignature"] = json!(signature);
                        signed = true;
                    }
                    parts.push(part);
                }
            }
            Block::Tool { id, name, args } => {
                let args: Value = serde_json::from_str(args).unwrap_or(json!({}));
                let mut call = json!({"name": name, "args": args});
                if !gemini_2 {
                    call["id"] = json!(id);
                }
                let mut part = json!({ "functionCall": call });
                if !signed {
                    part["thoughtSignature"] = json!(signature);
                    signed = true;
                }
                parts.push(part);
            }
        }
    }
    // Gemini 3 signs a text answer on a last, empty part.
    if !gemini_2 && !has_calls {
        parts.push(json!({"text": "", "thoughtSignature": signature}));
    }
    if parts.is_empty() {
        parts.push(json!({"text": ""}));
    }
    let finish = match turn.stop {
        Stop::MaxTokens => "MAX_TOKENS",
        Stop::Refusal => "SAFETY",
        _ => "STOP",
    };
    let n = parts.len();
    parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let last = i + 1 == n;
            let output = if last { u.output } else { i as u64 + 1 };
            let mut c: Value =
                serde_json::from_str(&chunk(vec![part], last.then_some(finish), output)).unwrap();
            if last && has_calls {
                c["candidates"][0]["finishMessage"] = json!("Model generated function call(s).");
            }
            if let (true, Some(g)) = (last, grounding(turn)) {
                c["candidates"][0]["groundingMetadata"] = g;
            }
            c.to_string()
        })
        .collect()
}

/// A grounded answer's `groundingMetadata`: the queries searched and the
/// pages found, as the real API adds them to the candidate.
fn grounding(turn: &Turn) -> Option<Value> {
    let (mut queries, mut chunks) = (Vec::new(), Vec::new());
    for b in &turn.blocks {
        if let Block::Search { query, results } = b {
            queries.push(json!(query));
            for (url, title) in results {
                chunks.push(json!({"web": {"uri": url, "title": title}}));
            }
        }
    }
    (!queries.is_empty()).then(|| {
        json!({"webSearchQueries": queries, "groundingChunks": chunks,
            "searchEntryPoint": {"renderedContent": "<style>.container{}</style><div class=\"container\"></div>"}})
    })
}

/// The model listing `GET /v1beta/models` answers (with `window` as the
/// input limit of `test-model` when given).
pub fn listing(window: Option<u64>) -> String {
    let model = |name: &str, limit: u64| {
        json!({"name": format!("models/{name}"), "version": "001", "displayName": name,
            "inputTokenLimit": limit, "outputTokenLimit": 65536,
            "supportedGenerationMethods": ["generateContent", "countTokens"],
            "temperature": 1, "topP": 0.95, "topK": 64, "maxTemperature": 2, "thinking": true})
    };
    json!({"models": [
        model("test-model", window.unwrap_or(1_048_576)),
        model("test-model-large", 1_048_576),
        {"name": "models/text-embedding-004", "inputTokenLimit": 2048,
         "supportedGenerationMethods": ["embedContent"]}
    ]})
    .to_string()
}
