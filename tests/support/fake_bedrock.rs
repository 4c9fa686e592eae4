//! The Bedrock Runtime ConverseStream side of the fake provider: [`check`]
//! refuses what the real `POST /model/{modelId}/converse-stream` refuses, with
//! its status, `x-amzn-ErrorType` header and `{"message":…}` body, and
//! [`frames`] renders a [`Turn`] as the real AWS event stream does.
//!
//! Requests are authenticated as AWS does: a SigV4 `authorization` header
//! (recomputed with `aws-sigv4` over the headers it names, the body and the
//! `x-amz-date` time, with [`ACCESS_KEY`] / [`SECRET_KEY`]), or a Bedrock API
//! key as `authorization: Bearer` [`API_KEY`]. The rules, in this order (the
//! first violation wins; `400 ValidationException` unless said):
//!
//! 1. an `authorization` header (`403 MissingAuthenticationTokenException`),
//!    well formed (`403 IncompleteSignatureException`), for a known access key
//!    (`403 UnrecognizedClientException`).
//! 2. the SigV4 signature matches, scoped to service `bedrock`
//!    (`403 InvalidSignatureException`).
//! 3. the body is JSON with a non-empty `messages` array, starting with a user
//!    message and alternating roles; `inferenceConfig.maxTokens` ≥ 1.
//! 4. each content block sets exactly one member; text is not blank; tool-use
//!    ids are 1–64 of `[a-zA-Z0-9_-]`, names 1–64 of the same, `input` present.
//! 5. `toolConfig.tools[i].toolSpec` has such a name and an object
//!    `inputSchema.json` that Claude takes ([`schema_rules::anthropic`]); `toolConfig` is present when any message has
//!    `toolUse` or `toolResult` blocks.
//! 6. every `toolUse` is answered by a `toolResult` in the next message, and
//!    every `toolResult` answers a `toolUse` of the message before.
//! 7. `reasoningContent` is signed text ([`fake_anthropic::sign`]) or redacted
//!    content [`fake_anthropic::redacted_data`] made.
//! 8. `system` is an array of non-blank `text` and `cachePoint` blocks.
//!
//! Constraint messages in AWS's "N validation error(s) detected" form number
//! list members from 1 (`messages.1.member` is the first message), as AWS's
//! request validation does; Bedrock's own messages number them from 0.

#![allow(dead_code)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sigv4::http_request::{
    sign as sigv4_sign, SignableBody, SignableRequest, SigningParams, SigningSettings,
};
use aws_sigv4::sign::v4;
use aws_smithy_eventstream::frame::write_message_to;
use aws_smithy_runtime_api::client::identity::Identity;
use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
use aws_smithy_types::str_bytes::StrBytes;
use serde_json::Value;

use super::fake_anthropic;
use super::fake_provider::{base62, fnv1a, json_obj, json_str, wire_id};
use super::fake_provider::{Api, Block, Recorded, Rejection, Reply, Stop, Turn};

/// The test access key id (`AWS_ACCESS_KEY_ID` in the test environment).
pub const ACCESS_KEY: &str = "AKIDEXAMPLE";
/// The test secret (`AWS_SECRET_ACCESS_KEY`).
pub const SECRET_KEY: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
/// The region the test configuration names.
pub const REGION: &str = "us-east-1";
/// The signing name Bedrock Runtime requests are scoped to.
pub const SERVICE: &str = "bedrock";
/// The Bedrock API key the fake takes as `authorization: Bearer …`.
pub const API_KEY: &str = "test-bedrock-key";

/// Checks a ConverseStream request against the rules in this file's header,
/// in that order; `Err` is the real service's answer to the first rule
/// broken.
pub fn check(req: &Recorded) -> Result<(), Rejection> {
    authenticate(req)?;
    let body: Value = match serde_json::from_slice(&req.body) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Err(rejection(
                400,
                "SerializationException",
                "Unexpected content: the request body is not a JSON object",
            ))
        }
    };
    let messages = check_conversation(&body)?;
    check_blocks(messages)?;
    check_tool_config(&body, messages)?;
    check_pairing(messages)?;
    check_reasoning(messages)?;
    check_output_config(&body)?;
    check_system(&body)
}

/// `outputConfig.textFormat`: type `json_schema`, the schema a JSON
/// string, and — for Claude — every object closed.
fn check_output_config(body: &Value) -> Result<(), Rejection> {
    let Some(config) = body.get("outputConfig") else {
        return Ok(());
    };
    let format = &config["textFormat"];
    if format["type"] != "json_schema" {
        return Err(invalid(
            "1 validation error detected: Value at 'outputConfig.textFormat.type' failed to satisfy constraint: Member must satisfy enum value set: [json_schema]",
        ));
    }
    let Some(text) = format["structure"]["jsonSchema"]["schema"].as_str() else {
        return Err(rejection(
            400,
            "SerializationException",
            "Start of structure or map found where not expected.",
        ));
    };
    let schema: Value = serde_json::from_str(text)
        .map_err(|_| invalid("The provided JSON schema is not valid JSON."))?;
    let wrapped = serde_json::json!({"type": "json_schema", "schema": schema});
    match super::schema_rules::anthropic_output(&wrapped) {
        Some(e) => Err(invalid(&format!(
            "The model returned the following errors: {}",
            e.replace("output_config.format.", "")
        ))),
        None => Ok(()),
    }
}

/// Rules 1 and 2.
fn authenticate(req: &Recorded) -> Result<(), Rejection> {
    let Some(auth) = req.header("authorization") else {
        return Err(rejection(
            403,
            "MissingAuthenticationTokenException",
            "Missing Authentication Token",
        ));
    };
    if let Some(token) = auth.strip_prefix("Bearer ") {
        if token.trim() == API_KEY {
            return Ok(());
        }
        return Err(unrecognized());
    }
    let params = auth.strip_prefix("AWS4-HMAC-SHA256 ").unwrap_or("");
    let (mut credential, mut signed_headers, mut signature) = (None, None, None);
    for part in params.split(',') {
        if let Some((k, v)) = part.trim().split_once('=') {
            match k.trim() {
                "Credential" => credential = Some(v.trim()),
                "SignedHeaders" => signed_headers = Some(v.trim()),
                "Signature" => signature = Some(v.trim()),
                _ => {}
            }
        }
    }
    let date = req.header("x-amz-date");
    let (Some(credential), Some(signed_headers), Some(signature), Some(date)) =
        (credential, signed_headers, signature, date)
    else {
        let mut message = String::new();
        for (name, value) in [
            ("Credential", credential),
            ("Signature", signature),
            ("SignedHeaders", signed_headers),
        ] {
            if value.is_none() {
                message.push_str(&format!(
                    "Authorization header requires '{name}' parameter. "
                ));
            }
        }
        if date.is_none() {
            message.push_str(
                "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' \
                 header. ",
            );
        }
        message.push_str(&format!("Authorization={auth}"));
        return Err(rejection(403, "IncompleteSignatureException", &message));
    };
    let scope: Vec<&str> = credential.split('/').collect();
    if scope.len() != 5 {
        return Err(rejection(
            403,
            "IncompleteSignatureException",
            &format!(
                "Credential must have exactly 5 slash-delimited elements, e.g. \
                 keyid/date/region/service/term, got '{credential}'"
            ),
        ));
    }
    if scope[0] != ACCESS_KEY {
        return Err(unrecognized());
    }
    let Some(time) = parse_amz_date(date) else {
        return Err(rejection(
            403,
            "IncompleteSignatureException",
            &format!(
                "Date must be in ISO-8601 'basic format'. Got '{date}'. See \
                 http://en.wikipedia.org/wiki/ISO_8601"
            ),
        ));
    };
    if scope[3] != SERVICE {
        return Err(rejection(
            403,
            "InvalidSignatureException",
            &format!("Credential should be scoped to correct service: '{SERVICE}'. "),
        ));
    }
    let expected = expected_signature(req, signed_headers, scope[2], time);
    if expected.as_deref() != Some(signature) {
        return Err(rejection(
            403,
            "InvalidSignatureException",
            "The request signature we calculated does not match the signature you provided. \
             Check your AWS Secret Access Key and signing method. Consult the service \
             documentation for details.",
        ));
    }
    Ok(())
}

fn unrecognized() -> Rejection {
    rejection(
        403,
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
    )
}

/// The SigV4 signature of `req` over exactly the headers `signed_headers`
/// names, as `aws-sigv4` computes it with the test secret; `None` when the
/// request cannot be signed (a named header is missing, say), which no
/// signature matches. A signed `x-amz-security-token` goes in as the
/// credentials' session token (aws-sigv4 adds and signs that header itself),
/// and `x-amz-date` comes from `time` (aws-sigv4 sets it too). Any session
/// token is taken.
fn expected_signature(
    req: &Recorded,
    signed_headers: &str,
    region: &str,
    time: SystemTime,
) -> Option<String> {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut token = None;
    for name in signed_headers.split(';') {
        let name = name.trim().to_ascii_lowercase();
        let value = req.header(&name)?.to_string();
        match name.as_str() {
            "x-amz-security-token" => token = Some(value),
            "x-amz-date" => {}
            _ => headers.push((name, value)),
        }
    }
    let host = req.header("host").unwrap_or("localhost");
    let url = format!("http://{host}{}", req.path);
    let identity: Identity =
        aws_credential_types::Credentials::new(ACCESS_KEY, SECRET_KEY, token, None, "fake").into();
    let params: SigningParams<'_> = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(SERVICE)
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .ok()?
        .into();
    let signable = SignableRequest::new(
        &req.method,
        url,
        headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        SignableBody::Bytes(&req.body),
    )
    .ok()?;
    let output = sigv4_sign(signable, &params).ok()?;
    Some(output.signature().to_string())
}

/// `YYYYMMDDTHHMMSSZ` as a time.
pub fn parse_amz_date(s: &str) -> Option<SystemTime> {
    let b = s.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        let digits = s.get(from..to)?;
        if !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    };
    let (y, mo, d) = (num(0, 4)?, num(4, 6)?, num(6, 8)?);
    let (h, mi, se) = (num(9, 11)?, num(11, 13)?, num(13, 15)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se;
    u64::try_from(secs)
        .ok()
        .map(|secs| UNIX_EPOCH + Duration::from_secs(secs))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = (if y >= 0 { y } else { y - 399 }) / 400;
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `^[a-zA-Z0-9_-]+$`, 1–64 characters: tool-use ids and tool names.
fn check_identifier(v: &Value, at: &str) -> Result<(), Rejection> {
    let Some(s) = v.as_str() else {
        return Err(constraint(&format!(
            "Value null at '{at}' failed to satisfy constraint: Member must not be null"
        )));
    };
    if s.is_empty() {
        return Err(constraint(&format!(
            "Value '{s}' at '{at}' failed to satisfy constraint: Member must have length \
             greater than or equal to 1"
        )));
    }
    if s.chars().count() > 64 {
        return Err(constraint(&format!(
            "Value '{s}' at '{at}' failed to satisfy constraint: Member must have length less \
             than or equal to 64"
        )));
    }
    if !super::fake_provider::matches_id_pattern(s) {
        return Err(constraint(&format!(
            "Value '{s}' at '{at}' failed to satisfy constraint: Member must satisfy regular \
             expression pattern: [a-zA-Z0-9_-]+"
        )));
    }
    Ok(())
}

/// A value as AWS quotes it in a constraint message: `'text'`, or `null`.
fn shown(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => format!("'{s}'"),
        other => format!("'{other}'"),
    }
}

/// Rule 3; the messages.
fn check_conversation(body: &Value) -> Result<&[Value], Rejection> {
    let messages =
        match body.get("messages") {
            Some(Value::Array(m)) => m.as_slice(),
            None | Some(Value::Null) => return Err(constraint(
                "Value null at 'messages' failed to satisfy constraint: Member must not be null",
            )),
            // The fake's wording.
            Some(_) => {
                return Err(invalid(
                    "Malformed input request: messages must be an array",
                ))
            }
        };
    if messages.first().is_none_or(|m| m["role"] != "user") {
        return Err(invalid(
            "A conversation must start with a user message. Try again with a conversation that \
             starts with a user message.",
        ));
    }
    for (m, msg) in messages.iter().enumerate() {
        let role = msg["role"].as_str().unwrap_or("null");
        if role != "user" && role != "assistant" {
            return Err(constraint(&format!(
                "Value '{role}' at 'messages.{}.member.role' failed to satisfy constraint: \
                 Member must satisfy enum value set: [user, assistant]",
                m + 1
            )));
        }
        if m > 0 && messages[m - 1]["role"] == role {
            return Err(invalid(
                "A conversation must alternate between user and assistant roles. Make sure the \
                 conversation alternates between user and assistant roles and try again.",
            ));
        }
    }
    if let Some(max) = body
        .get("inferenceConfig")
        .and_then(|c| c.get("maxTokens"))
        .filter(|v| !v.is_null())
    {
        if max.as_i64().is_none_or(|n| n < 1) {
            return Err(constraint(&format!(
                "Value '{max}' at 'inferenceConfig.maxTokens' failed to satisfy constraint: \
                 Member must have value greater than or equal to 1"
            )));
        }
    }
    Ok(messages)
}

/// The members a content block sets exactly one of.
const BLOCK_KINDS: &[&str] = &[
    "text",
    "toolUse",
    "toolResult",
    "reasoningContent",
    "image",
    "document",
    "cachePoint",
];

/// The content blocks of a message.
fn blocks_of(msg: &Value) -> &[Value] {
    msg["content"].as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// The one member a content block sets ("" when it does not set exactly one).
fn kind_of(block: &Value) -> &str {
    match block.as_object() {
        Some(fields) if fields.len() == 1 => fields.keys().next().map_or("", String::as_str),
        _ => "",
    }
}

/// Rule 4.
fn check_blocks(messages: &[Value]) -> Result<(), Rejection> {
    for (m, msg) in messages.iter().enumerate() {
        match &msg["content"] {
            Value::Array(blocks) if blocks.is_empty() => {
                return Err(invalid(&format!(
                    "The content field in the Message object at messages.{m} is empty. Add a \
                     ContentBlock object to the content field and try again."
                )))
            }
            Value::Array(_) => {}
            _ => {
                return Err(constraint(&format!(
                    "Value null at 'messages.{}.member.content' failed to satisfy constraint: \
                     Member must not be null",
                    m + 1
                )))
            }
        }
        for (k, b) in blocks_of(msg).iter().enumerate() {
            let kind = kind_of(b);
            if !BLOCK_KINDS.contains(&kind) {
                // The fake's wording.
                return Err(invalid(&format!(
                    "Malformed input request: the ContentBlock at messages.{m}.content.{k} must \
                     set exactly one of {}",
                    BLOCK_KINDS.join(", ")
                )));
            }
            let member = format!("messages.{}.member.content.{}.member", m + 1, k + 1);
            match kind {
                "text" if b["text"].as_str().is_none_or(|t| t.trim().is_empty()) => {
                    return Err(invalid(&format!(
                        "The text field in the ContentBlock object at \
                             messages.{m}.content.{k} is blank. Add text to the text field, \
                             and try again."
                    )));
                }
                "toolUse" => {
                    let tool_use = &b["toolUse"];
                    check_identifier(
                        &tool_use["toolUseId"],
                        &format!("{member}.toolUse.toolUseId"),
                    )?;
                    check_identifier(&tool_use["name"], &format!("{member}.toolUse.name"))?;
                    if tool_use.get("input").is_none_or(Value::is_null) {
                        return Err(constraint(&format!(
                            "Value null at '{member}.toolUse.input' failed to satisfy \
                             constraint: Member must not be null"
                        )));
                    }
                }
                "toolResult" => {
                    let result = &b["toolResult"];
                    check_identifier(
                        &result["toolUseId"],
                        &format!("{member}.toolResult.toolUseId"),
                    )?;
                    let Some(content) = result["content"].as_array() else {
                        return Err(constraint(&format!(
                            "Value null at '{member}.toolResult.content' failed to satisfy \
                             constraint: Member must not be null"
                        )));
                    };
                    for (j, part) in content.iter().enumerate() {
                        if !["text", "json", "image", "document"].contains(&kind_of(part)) {
                            // The fake's wording.
                            return Err(invalid(&format!(
                                "Malformed input request: the ToolResultContentBlock at \
                                 messages.{m}.content.{k}.toolResult.content.{j} must set \
                                 exactly one of text, json, image, document"
                            )));
                        }
                        if kind_of(part) == "image" {
                            check_image(
                                &part["image"],
                                &format!("{member}.toolResult.content.{}.member", j + 1),
                                &format!("messages.{m}.content.{k}.toolResult.content.{j}"),
                            )?;
                        }
                        if kind_of(part) == "text"
                            && part["text"].as_str().is_none_or(|t| t.trim().is_empty())
                        {
                            return Err(invalid(&format!(
                                "The text field in the ToolResultContentBlock object at \
                                 messages.{m}.content.{k}.toolResult.content.{j} is blank. Add \
                                 text to the text field, and try again."
                            )));
                        }
                    }
                    if let Some(status) = result.get("status").filter(|s| !s.is_null()) {
                        if status != "success" && status != "error" {
                            return Err(constraint(&format!(
                                "Value {} at '{member}.toolResult.status' failed to satisfy \
                                 constraint: Member must satisfy enum value set: [success, \
                                 error]",
                                shown(status)
                            )));
                        }
                    }
                }
                "image" => check_image(&b["image"], &member, &format!("messages.{m}.content.{k}"))?,
                "cachePoint" if b["cachePoint"]["type"] != "default" => {
                    return Err(constraint(&format!(
                        "Value {} at '{member}.cachePoint.type' failed to satisfy \
                             constraint: Member must satisfy enum value set: [default]",
                        shown(&b["cachePoint"]["type"])
                    )));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// An image block: a format Converse takes and base64 bytes (in JSON the
/// blob is base64). `member`: its path in the validation wording, `at` in
/// the other.
fn check_image(img: &Value, member: &str, at: &str) -> Result<(), Rejection> {
    let format = img["format"].as_str().unwrap_or("");
    if !["png", "jpeg", "gif", "webp"].contains(&format) {
        return Err(constraint(&format!(
            "Value '{format}' at '{member}.image.format' failed to satisfy constraint: Member \
             must satisfy enum value set: [png, jpeg, gif, webp]"
        )));
    }
    if !img["source"]["bytes"]
        .as_str()
        .is_some_and(super::schema_rules::is_base64)
    {
        return Err(invalid(&format!(
            "Invalid image bytes in {at}: the bytes must be base64"
        )));
    }
    Ok(())
}

/// Rule 5.
fn check_tool_config(body: &Value, messages: &[Value]) -> Result<(), Rejection> {
    let config = body.get("toolConfig").filter(|c| !c.is_null());
    if let Some(config) = config {
        let Some(tools) = config["tools"].as_array() else {
            return Err(constraint(
                "Value null at 'toolConfig.tools' failed to satisfy constraint: Member must not \
                 be null",
            ));
        };
        if tools.is_empty() {
            return Err(constraint(
                "Value at 'toolConfig.tools' failed to satisfy constraint: Member must have \
                 length greater than or equal to 1",
            ));
        }
        for (i, tool) in tools.iter().enumerate() {
            if kind_of(tool) == "cachePoint" {
                continue;
            }
            let member = format!("toolConfig.tools.{}.member.toolSpec", i + 1);
            let spec = &tool["toolSpec"];
            if !spec.is_object() {
                return Err(constraint(&format!(
                    "Value null at '{member}' failed to satisfy constraint: Member must not be \
                     null"
                )));
            }
            check_identifier(&spec["name"], &format!("{member}.name"))?;
            let schema = &spec["inputSchema"]["json"];
            if !schema.is_object() || schema["type"] != "object" {
                return Err(invalid(&format!(
                    "The value at toolConfig.tools.{i}.toolSpec.inputSchema.json.type must be \
                     one of the following: object."
                )));
            }
            // Claude behind Converse refuses what the Messages API refuses.
            if let Some(e) = super::schema_rules::anthropic(i, schema) {
                return Err(invalid(&format!(
                    "The model returned the following errors: {e}"
                )));
            }
        }
        return Ok(());
    }
    let uses_tools = messages.iter().any(|msg| {
        blocks_of(msg)
            .iter()
            .any(|b| matches!(kind_of(b), "toolUse" | "toolResult"))
    });
    if uses_tools {
        return Err(invalid(
            "The toolConfig field must be defined when using toolUse and toolResult content \
             blocks.",
        ));
    }
    Ok(())
}

/// The ids of a message's blocks of `kind` (`toolUse` or `toolResult`).
fn ids_of<'a>(msg: &'a Value, kind: &str) -> Vec<&'a str> {
    blocks_of(msg)
        .iter()
        .filter(|b| kind_of(b) == kind)
        .filter_map(|b| b[kind]["toolUseId"].as_str())
        .collect()
}

/// Rule 6.
fn check_pairing(messages: &[Value]) -> Result<(), Rejection> {
    for (m, msg) in messages.iter().enumerate() {
        if msg["role"] == "assistant" {
            let asked = ids_of(msg, "toolUse");
            let answered = messages
                .get(m + 1)
                .map(|next| ids_of(next, "toolResult"))
                .unwrap_or_default();
            let missing: Vec<&str> = asked
                .into_iter()
                .filter(|id| !answered.contains(id))
                .collect();
            if !missing.is_empty() {
                return Err(invalid(&format!(
                    "Expected toolResult blocks at messages.{}.content for the following Ids: {}",
                    m + 1,
                    missing.join(", ")
                )));
            }
        } else {
            let asked = match m.checked_sub(1) {
                Some(p) => ids_of(&messages[p], "toolUse"),
                None => Vec::new(),
            };
            if ids_of(msg, "toolResult")
                .iter()
                .any(|id| !asked.contains(id))
            {
                return Err(invalid(&format!(
                    "The number of toolResult blocks at messages.{m}.content exceeds the number \
                     of toolUse blocks of previous turn."
                )));
            }
        }
    }
    Ok(())
}

/// Rule 7: Claude's own errors, passed through.
fn check_reasoning(messages: &[Value]) -> Result<(), Rejection> {
    let claude = |message: String| {
        invalid(&format!(
            "The model returned the following errors: {message}"
        ))
    };
    for (m, msg) in messages.iter().enumerate() {
        for (k, b) in blocks_of(msg).iter().enumerate() {
            if kind_of(b) != "reasoningContent" {
                continue;
            }
            let reasoning = &b["reasoningContent"];
            if let Some(text) = reasoning.get("reasoningText") {
                let Some(signature) = text["signature"].as_str() else {
                    return Err(claude(format!(
                        "messages.{m}.content.{k}.thinking.signature: Field required"
                    )));
                };
                let thinking = text["text"].as_str().unwrap_or("");
                if signature != fake_anthropic::sign(thinking) {
                    return Err(claude(format!(
                        "messages.{m}.content.{k}: Invalid `signature` in `thinking` block"
                    )));
                }
            } else if let Some(data) = reasoning.get("redactedContent") {
                if !data.as_str().is_some_and(fake_anthropic::is_redacted_data) {
                    return Err(claude(format!(
                        "messages.{m}.content.{k}: Invalid `data` in `redacted_thinking` block"
                    )));
                }
            } else {
                // The fake's wording.
                return Err(invalid(&format!(
                    "Malformed input request: the ReasoningContentBlock at \
                     messages.{m}.content.{k} must set reasoningText or redactedContent"
                )));
            }
        }
    }
    Ok(())
}

/// Rule 8.
fn check_system(body: &Value) -> Result<(), Rejection> {
    let blocks = match body.get("system") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(b)) => b,
        // The fake's wording.
        Some(_) => return Err(invalid("Malformed input request: system must be an array")),
    };
    for (i, b) in blocks.iter().enumerate() {
        match kind_of(b) {
            "text" => {
                if b["text"].as_str().is_none_or(|t| t.trim().is_empty()) {
                    return Err(invalid(&format!(
                        "The text field in the SystemContentBlock object at system.{i} is \
                         blank. Add text to the text field, and try again."
                    )));
                }
            }
            "cachePoint" => {
                if b["cachePoint"]["type"] != "default" {
                    return Err(constraint(&format!(
                        "Value {} at 'system.{}.member.cachePoint.type' failed to satisfy \
                         constraint: Member must satisfy enum value set: [default]",
                        shown(&b["cachePoint"]["type"]),
                        i + 1
                    )));
                }
            }
            _ => {
                // The fake's wording.
                return Err(invalid(&format!(
                    "Malformed input request: the SystemContentBlock at system.{i} must set \
                     exactly one of text, cachePoint"
                )));
            }
        }
    }
    Ok(())
}

/// The real error body: `{"message":…}`.
pub fn error_body(message: &str) -> String {
    json_obj(&[("message", json_str(message))])
}

/// A scripted HTTP error as Bedrock sends it, e.g.
/// `error_reply(429, "ThrottlingException", "Too many requests, please wait before trying again.")`.
pub fn error_reply(status: u16, name: &str, message: &str) -> Reply {
    let r = rejection(status, name, message);
    let mut reply = Reply::status(r.status, &r.body);
    for (k, v) in &r.headers {
        reply = reply.with_header(k, v);
    }
    reply
}

fn rejection(status: u16, name: &str, message: &str) -> Rejection {
    Rejection {
        status,
        headers: vec![
            (
                "x-amzn-ErrorType".into(),
                format!("{name}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
            ),
            ("x-amzn-RequestId".into(), request_id(message)),
        ],
        body: error_body(message),
    }
}

fn invalid(message: &str) -> Rejection {
    rejection(400, "ValidationException", message)
}

/// A prompt past the model's window, as the real API says it (no counts).
pub fn too_long() -> Rejection {
    invalid("Input is too long for requested model.")
}

/// A request-validation failure: "1 validation error detected: …".
fn constraint(detail: &str) -> Rejection {
    invalid(&format!("1 validation error detected: {detail}"))
}

/// A UUID-shaped request id derived from `seed`.
fn request_id(seed: &str) -> String {
    let hex: String = base62(fnv1a(seed.as_bytes()), 32)
        .bytes()
        .map(|b| char::from(b"0123456789abcdef"[usize::from(b) % 16]))
        .collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// An event frame: `:event-type` NAME, `:content-type` application/json,
/// `:message-type` event.
fn event(name: &str, payload: String) -> Vec<u8> {
    encode(
        vec![
            Header::new(":event-type", string(name)),
            Header::new(":content-type", string("application/json")),
            Header::new(":message-type", string("event")),
        ],
        payload,
    )
}

fn string(s: &str) -> HeaderValue {
    HeaderValue::String(StrBytes::from(s.to_string()))
}

fn encode(headers: Vec<Header>, payload: String) -> Vec<u8> {
    let message = Message::new_from_parts(headers, payload.into_bytes());
    let mut out: Vec<u8> = Vec::new();
    write_message_to(&message, &mut out).expect("an event-stream frame encodes");
    out
}

/// Real Bedrock pads each payload with a `"p"` field of letters, of varying
/// length, so sizes do not reveal the content.
fn padding(n: usize) -> String {
    const LETTERS: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    json_str(&LETTERS[..1 + (n * 7 + 3) % 40])
}

fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

/// A turn as the real ConverseStream frames: `messageStart`; per block (none
/// starts for text, as Bedrock sends none) `contentBlockStart` for tool use,
/// `contentBlockDelta`s (text and reasoning in pieces of 4 characters, the
/// signature last; redacted content in one; tool input in pieces of 5) and
/// `contentBlockStop`; then `messageStop` and `metadata` with usage. Each
/// payload is compact JSON with a `"p"` padding field last.
pub fn frames(turn: &Turn) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut push = |name: &str, fields: &[(&str, String)]| {
        let mut all: Vec<(&str, String)> = fields.to_vec();
        all.push(("p", padding(out.len())));
        out.push(event(name, json_obj(&all)));
    };
    push("messageStart", &[("role", json_str("assistant"))]);
    for (i, block) in turn.blocks.iter().enumerate() {
        let index = ("contentBlockIndex", i.to_string());
        let delta =
            |member: &str, inner: String| [index.clone(), ("delta", json_obj(&[(member, inner)]))];
        match block {
            Block::Text(text) => {
                for piece in pieces(text, 4) {
                    push("contentBlockDelta", &delta("text", json_str(&piece)));
                }
            }
            Block::Thinking(text) => {
                for piece in pieces(text, 4) {
                    let inner = json_obj(&[("text", json_str(&piece))]);
                    push("contentBlockDelta", &delta("reasoningContent", inner));
                }
                let inner = json_obj(&[("signature", json_str(&fake_anthropic::sign(text)))]);
                push("contentBlockDelta", &delta("reasoningContent", inner));
            }
            Block::Search { .. } => panic!("Bedrock's Converse has no server-side search"),
            Block::Redacted => {
                // `redactedContent` is a blob, base64 in JSON: the redacted data
                // is base64 already, so it is sent as it is.
                let data = fake_anthropic::redacted_data(i);
                let inner = json_obj(&[("redactedContent", json_str(&data))]);
                push("contentBlockDelta", &delta("reasoningContent", inner));
            }
            Block::Tool { id, name, args } => {
                let tool_use = json_obj(&[
                    ("toolUseId", json_str(&wire_id(Api::Bedrock, id))),
                    ("name", json_str(name)),
                ]);
                push(
                    "contentBlockStart",
                    &[index.clone(), ("start", json_obj(&[("toolUse", tool_use)]))],
                );
                for piece in pieces(args, 5) {
                    let inner = json_obj(&[("input", json_str(&piece))]);
                    push("contentBlockDelta", &delta("toolUse", inner));
                }
            }
        }
        push("contentBlockStop", std::slice::from_ref(&index));
    }
    let stop = match turn.stop {
        Stop::EndTurn | Stop::PauseTurn => "end_turn",
        Stop::ToolUse => "tool_use",
        Stop::MaxTokens => "max_tokens",
        Stop::Refusal => "content_filtered",
    };
    push("messageStop", &[("stopReason", json_str(stop))]);
    let u = turn.usage;
    let usage = json_obj(&[
        ("inputTokens", u.input.to_string()),
        ("outputTokens", u.output.to_string()),
        ("totalTokens", (u.input + u.output).to_string()),
        ("cacheReadInputTokens", u.cache_read.to_string()),
        ("cacheWriteInputTokens", u.cache_write.to_string()),
    ]);
    push(
        "metadata",
        &[
            ("usage", usage),
            ("metrics", json_obj(&[("latencyMs", "120".into())])),
        ],
    );
    out
}

/// An exception frame in the middle of a stream: `:message-type` exception,
/// `:exception-type` KIND (e.g. `throttlingException`), payload
/// `{"message":…}`.
pub fn exception_frame(kind: &str, message: &str) -> Vec<u8> {
    encode(
        vec![
            Header::new(":exception-type", string(kind)),
            Header::new(":content-type", string("application/json")),
            Header::new(":message-type", string("exception")),
        ],
        error_body(message),
    )
}

/// `frame` with its first payload byte flipped (the last byte of its CRC when
/// it has no payload), so its message CRC no longer matches.
pub fn corrupt(mut frame: Vec<u8>) -> Vec<u8> {
    // Prelude: total length, headers length, prelude CRC (4 bytes each).
    let headers_len = u32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]) as usize;
    let payload_at = 12 + headers_len;
    let at = if payload_at < frame.len() - 4 {
        payload_at
    } else {
        frame.len() - 1
    };
    frame[at] ^= 0x01;
    frame
}
