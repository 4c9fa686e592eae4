//! A real MCP server's image (server-everything's `get-tiny-image`, the MCP
//! logo as a PNG) reaches each API as the image block it takes: inside the
//! tool result for Anthropic and Bedrock, in a user message after the tool
//! messages for Chat Completions (a tool message takes text only). The
//! strict fakes check the block's type, media type and base64. An image the
//! person attaches (`@shot.png`, a pasted path) goes with their message the
//! same way, on every API.

use base64::Engine;
use serde_json::Value;

use crate::support::tmux::Tmux;
use crate::support::{call_id, real_server, Api, Reply, TestEnv};

/// A 1×1 PNG as an image editor saves one (70 bytes).
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn pixel() -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(PIXEL)
        .unwrap()
}

/// The images of the last user message of a request, as base64, and its
/// text, read the way `api` sends them.
fn user_images(api: Api, body: &Value) -> (Vec<String>, String) {
    let turns = body["messages"]
        .as_array()
        .or(body["contents"].as_array())
        .or(body["input"].as_array())
        .unwrap();
    let user = turns.iter().rev().find(|m| m["role"] == "user").unwrap();
    let parts = user["content"]
        .as_array()
        .or(user["parts"].as_array())
        .cloned()
        .unwrap_or_default();
    let mut images = Vec::new();
    let mut text = String::new();
    for p in &parts {
        let (image, t) = match api {
            Api::OpenAi => (
                p["image_url"]["url"]
                    .as_str()
                    .map(|u| u.strip_prefix("data:image/png;base64,").expect(u)),
                p["text"].as_str(),
            ),
            Api::Anthropic => {
                if p["type"] == "image" {
                    assert_eq!(p["source"]["media_type"], "image/png");
                }
                (p["source"]["data"].as_str(), p["text"].as_str())
            }
            Api::Bedrock => {
                if p.get("image").is_some() {
                    assert_eq!(p["image"]["format"], "png");
                }
                (p["image"]["source"]["bytes"].as_str(), p["text"].as_str())
            }
            Api::Gemini => {
                if p.get("inlineData").is_some() {
                    assert_eq!(p["inlineData"]["mimeType"], "image/png");
                }
                (p["inlineData"]["data"].as_str(), p["text"].as_str())
            }
            Api::Responses => (
                p["image_url"]
                    .as_str()
                    .map(|u| u.strip_prefix("data:image/png;base64,").expect(u)),
                p["text"].as_str(),
            ),
        };
        images.extend(image.map(str::to_string));
        text.push_str(t.unwrap_or(""));
    }
    (images, text)
}

/// `@shot.png` attaches the image itself, on every API, after the text; the
/// session keeps its bytes once and `--continue` replays it.
#[test]
fn an_attached_png_goes_with_the_message_on_every_api() {
    for api in [Api::OpenAi, Api::Anthropic, Api::Bedrock] {
        let env = TestEnv::with_api(api);
        std::fs::write(env.cwd.path().join("shot.png"), pixel()).unwrap();
        env.fake.push(Reply::text("One transparent pixel."));
        let run = env.run_with_stdin(&["--interactive"], "what is in @shot.png?\n");
        run.ok();
        crate::assert_contains!(run.stderr, "attached @shot.png (70 bytes)");
        let first = env.fake.requests()[0].json();
        let (images, text) = user_images(api, &first);
        assert_eq!(images, [PIXEL], "{api:?}");
        assert_eq!(
            text,
            "what is in @shot.png?\n\n<attachment name=\"@shot.png\" image=\"image/png, 70 B\"/>",
            "{api:?}"
        );
        let session = std::fs::read_to_string(env.only_session()).unwrap();
        assert_eq!(session.matches(PIXEL).count(), 1, "the bytes once");
        env.fake.push(Reply::text("Still one pixel."));
        env.run(&["--continue", "-q", "and now?"]).ok();
        let before = first["messages"].as_array().unwrap().clone();
        let after = env.fake.requests()[1].json()["messages"].clone();
        assert_eq!(
            after.as_array().unwrap()[..before.len()],
            before[..],
            "{api:?}"
        );
    }
}

/// A large image is kept once beside the session, not in its line: the
/// line names its bytes by hash, `--continue` sends the same base64 again,
/// a fork shares the blob, and `sessions rm` removes it once no session
/// names it.
#[test]
fn a_large_image_is_kept_beside_the_session_and_replayed_the_same() {
    let env = TestEnv::new();
    let mut png = pixel();
    png.extend((0..300_000u32).map(|i| (i * 31 % 251) as u8));
    std::fs::write(env.cwd.path().join("big.png"), &png).unwrap();
    env.fake.push(Reply::text("A big picture."));
    env.run_with_stdin(&["--interactive"], "describe @big.png\n")
        .ok();
    let first = env.fake.requests()[0].json();
    let sent = base64::engine::general_purpose::STANDARD.encode(&png);
    assert_eq!(user_images(Api::OpenAi, &first).0, [sent]);

    let original = env.only_session();
    let line = std::fs::read_to_string(&original).unwrap();
    assert!(line.len() < 8 * 1024, "{} bytes in the session", line.len());
    let blobs = env.home.path().join("sessions/blobs");
    let files: Vec<_> = std::fs::read_dir(&blobs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(std::fs::read(&files[0]).unwrap(), png);
    let hash = files[0].file_stem().unwrap().to_string_lossy().into_owned();
    crate::assert_contains!(line, format!("\"data\":\"sha256:{hash}\""));

    env.fake.push(Reply::text("Still big."));
    env.run(&["--continue", "-q", "and now?"]).ok();
    let before = first["messages"].as_array().unwrap().clone();
    let after = env.fake.requests()[1].json()["messages"].clone();
    assert_eq!(after.as_array().unwrap()[..before.len()], before[..]);

    env.fake.push(Reply::text("A copy."));
    env.run(&["--continue", "--fork", "-q", "in a copy?"]).ok();
    let sessions = env.sessions();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    let fork = sessions.iter().find(|p| **p != original).unwrap();
    let id = |p: &std::path::Path| p.file_stem().unwrap().to_string_lossy().into_owned();
    // Old enough to be swept: a blob younger than ten minutes may belong to
    // a line being written.
    let aged = std::process::Command::new("touch")
        .args(["-d", "1 hour ago"])
        .arg(&files[0])
        .status()
        .unwrap();
    assert!(aged.success());
    env.run(&["sessions", "rm", &id(&original)]).ok();
    assert!(files[0].exists(), "the fork still names the blob");
    env.run(&["sessions", "rm", &id(fork)]).ok();
    assert!(!files[0].exists(), "no session names it any more");
}

/// An image too large for the APIs, or one too many, is refused with what
/// to do, and nothing is sent; a file named `.png` that is not one is text.
#[test]
fn an_image_the_apis_would_refuse_is_not_sent() {
    let env = TestEnv::new();
    let mut big = pixel();
    big.resize(6 * 1024 * 1024, 0);
    std::fs::write(env.cwd.path().join("huge.png"), big).unwrap();
    for i in 0..9 {
        std::fs::write(env.cwd.path().join(format!("p{i}.png")), pixel()).unwrap();
    }
    std::fs::write(env.cwd.path().join("fake.png"), "plain words").unwrap();
    env.fake.push(Reply::text("ok"));
    let nine: Vec<String> = (0..9).map(|i| format!("@p{i}.png")).collect();
    let run = env.run_with_stdin(
        &["--interactive"],
        format!("see @huge.png\nsee {}\nread @fake.png\n", nine.join(" ")),
    );
    run.ok();
    crate::assert_contains!(run.stderr, "error: cannot attach @huge.png: ");
    crate::assert_contains!(
        run.stderr,
        "huge.png is 6.0 MiB; the APIs take images up to 5.0 MiB (make it smaller, or crop it); the message was not sent"
    );
    crate::assert_contains!(
        run.stderr,
        "cannot attach @p8.png: a message takes at most 8 images; the message was not sent"
    );
    assert_eq!(env.fake.requests().len(), 1, "only the last line was sent");
    crate::assert_contains!(env.last_user_text(0), "plain words");
}

/// A file dropped on the terminal pastes its path (quoted, as terminals
/// quote a path with a space): the image attaches, from outside the
/// working folder too, and its placeholder stays where it was pasted.
#[test]
fn a_pasted_image_path_attaches_the_image() {
    let env = TestEnv::new();
    let dir = env.home.path().join("Pictures");
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("my shot.png");
    std::fs::write(&shot, pixel()).unwrap();
    env.fake.push(Reply::text("A single pixel."));
    let term = Tmux::start(&env, &[]);
    term.wait_for("the prompt", |s| s.contains('›'));
    term.type_keys("what is ");
    term.paste(&format!("'{}'", shot.display()));
    term.wait_for("the placeholder", |s| s.contains("[image my shot.png]"));
    term.type_keys("?");
    term.press("Enter");
    term.wait_for("the answer", |s| s.contains("A single pixel."));
    crate::assert_contains!(term.screen(), "attached [image my shot.png] (70 bytes)");
    term.type_line("/quit");
    let (images, text) = user_images(Api::OpenAi, &env.fake.requests()[0].json());
    assert_eq!(images, [PIXEL]);
    assert_eq!(
        text,
        "what is [image my shot.png]?\n\n<attachment name=\"[image my shot.png]\" image=\"image/png, 70 B\"/>"
    );
}

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
