//! A real MCP server's image (server-everything's `get-tiny-image`, the MCP
//! logo as a PNG) reaches each API as the image block it takes: inside the
//! tool result for Anthropic and Bedrock, in a user message after the tool
//! messages for Chat Completions (a tool message takes text only). The
//! strict fakes check the block's type, media type and base64.

use base64::Engine;
use serde_json::Value;

use crate::support::{call_id, real_server, Api, Reply, TestEnv};

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

fn image_round(api: Api) -> (TestEnv, Value) {
    let env = TestEnv::with_api(api);
    env.write_config("[tools]\ndefer = \"never\"\n");
    env.add_server(
        "everything",
        &format!("command = {:?}", real_server("mcp-server-everything")),
    );
    env.prefill("everything");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("logo"),
        "mcp__everything__get_tiny_image",
        "{}",
    )]));
    env.fake.push(Reply::text("It is the MCP logo."));
    env.run(&["-q", "show me the tiny image"]).ok();
    let body = env.fake.requests()[1].json();
    (env, body)
}

fn assert_png(b64: &str) {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    assert!(bytes.starts_with(PNG_SIGNATURE), "not a PNG");
}

#[test]
fn a_server_image_reaches_anthropic_inside_the_tool_result() {
    let (env, body) = image_round(Api::Anthropic);
    let user = body["messages"].as_array().unwrap().last().unwrap().clone();
    let result = &user["content"][0];
    assert_eq!(result["type"], "tool_result");
    let parts = result["content"].as_array().expect("content as blocks");
    let image = parts
        .iter()
        .find(|p| p["type"] == "image")
        .expect("an image");
    assert_eq!(image["source"]["media_type"], "image/png");
    assert_png(image["source"]["data"].as_str().unwrap());
    assert!(parts[0]["text"]
        .as_str()
        .unwrap()
        .contains("[image image/png"));
    // The session keeps the image with the result, once.
    let session = std::fs::read_to_string(env.only_session()).unwrap();
    let data = image["source"]["data"].as_str().unwrap();
    assert_eq!(session.matches(data).count(), 1, "the bytes once");
}

#[test]
fn a_server_image_reaches_bedrock_inside_the_tool_result() {
    let (_env, body) = image_round(Api::Bedrock);
    let user = body["messages"].as_array().unwrap().last().unwrap().clone();
    let content = user["content"][0]["toolResult"]["content"]
        .as_array()
        .unwrap()
        .clone();
    let image = content.iter().find(|p| p.get("image").is_some()).unwrap();
    assert_eq!(image["image"]["format"], "png");
    assert_png(image["image"]["source"]["bytes"].as_str().unwrap());
}

#[test]
fn a_server_image_reaches_chat_completions_in_the_message_after_the_results() {
    let (env, body) = image_round(Api::OpenAi);
    let messages = body["messages"].as_array().unwrap();
    let tool = messages.iter().position(|m| m["role"] == "tool").unwrap();
    assert!(
        messages[tool]["content"].is_string(),
        "a tool message is text"
    );
    let next = &messages[tool + 1];
    assert_eq!(next["role"], "user");
    let url = next["content"][1]["image_url"]["url"].as_str().unwrap();
    let data = url.strip_prefix("data:image/png;base64,").expect(url);
    assert_png(data);
    // --continue sends the same history, the image included, byte for byte.
    env.fake.push(Reply::text("again"));
    env.run(&["--continue", "-q", "and now?"]).ok();
    let again = env.fake.requests()[2].body_str().to_string();
    let first = env.fake.requests()[1].body_str().to_string();
    let prefix = &first[..first.rfind(']').unwrap()];
    assert!(
        again.starts_with(prefix),
        "the next request starts with the last"
    );
}

/// The fakes refuse images as the real APIs do: an image part in a tool
/// message, a type the API does not take, data that is not base64.
#[test]
fn the_fakes_refuse_images_the_real_apis_refuse() {
    use crate::support::fake_provider::validate;
    use crate::support::schema_rules::anthropic_image;
    let body = |tool_content: Value, user_url: &str| {
        serde_json::json!({"model": "m", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": call_id("shot"),
                "type": "function", "function": {"name": "mcp__b__shot", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": call_id("shot"), "content": tool_content},
            {"role": "user", "content": [{"type": "text", "text": "images"},
                {"type": "image_url", "image_url": {"url": user_url}}]}
        ]})
    };
    let ok = "data:image/png;base64,iVBORw0KGgo=";
    assert_eq!(
        validate(&body("[image image/png, 8 B, attached]".into(), ok)),
        Ok(())
    );
    let in_tool = validate(&body(
        serde_json::json!([{"type": "image_url", "image_url": {"url": ok}}]),
        ok,
    ))
    .unwrap_err();
    assert!(
        in_tool.contains("Supported values are: 'text'"),
        "{in_tool}"
    );
    let tiff = validate(&body("x".into(), "data:image/tiff;base64,AAAA")).unwrap_err();
    assert!(
        tiff.contains("unsupported MIME type 'image/tiff'"),
        "{tiff}"
    );
    let junk = validate(&body("x".into(), "data:image/png;base64,%%%")).unwrap_err();
    assert!(junk.contains("invalid_image_format"), "{junk}");
    let block = |mt: &str, data: &str| serde_json::json!({"type": "image", "source": {"type": "base64", "media_type": mt, "data": data}});
    assert_eq!(
        anthropic_image("m", &block("image/png", "iVBORw0KGgo=")),
        None
    );
    assert!(anthropic_image("m", &block("image/tiff", "AAAA")).is_some());
    assert!(anthropic_image("m", &block("image/png", "%%%")).is_some());
}
