//! A fake model provider on 127.0.0.1 speaking five wire protocols: OpenAI Chat
//! Completions (`POST /v1/chat/completions`, SSE `data:` events), the Anthropic
//! Messages API (`POST /v1/messages`, named SSE events; [`fake_anthropic`]),
//! Bedrock Runtime ConverseStream (`POST /model/{id}/converse-stream`, AWS
//! event-stream frames; [`fake_bedrock`]), Gemini (`POST
//! /v1beta/models/{id}:streamGenerateContent?alt=sse`; [`fake_gemini`]) and
//! OpenAI Responses (`POST /v1/responses`, named SSE events;
//! [`fake_responses`]). Real HTTP/1.1, streams in chunked
//! transfer encoding, scripted replies served in order, and every request
//! recorded with its raw body and arrival time. Blocking std networking on its
//! own threads, so tests and benches need no runtime of their own.
//!
//! A scripted [`Turn`] is provider-neutral: it is rendered when it is served,
//! in the protocol of the request it answers (by path), so one script drives
//! hermes against any of the five APIs.
//!
//! Every request is checked before a scripted reply is taken, as strictly as
//! the real API it is addressed to: Anthropic's by [`fake_anthropic::check`],
//! Bedrock's by [`fake_bedrock::check`], Gemini's by [`fake_gemini::check`],
//! Responses' by [`fake_responses::check`], and any other POST whose body is JSON
//! with a `messages` array by [`validate`] (Chat Completions). A request that
//! breaks a rule is recorded as usual, answered with the real API's status,
//! headers and error body, and the scripted reply stays queued for the next
//! request.
//!
//! The Chat Completions rules, answered `400` with the real API's error body
//! (`{"error":{"message":…,"type":"invalid_request_error","param":…,"code":…}}`),
//! checked in this order (the first violation wins):
//!
//! 1. `tools` has at most 128 entries (`array_above_max_length`).
//! 2. every `tools[i].function.name` is 1–64 characters of `[a-zA-Z0-9_-]`
//!    (`string_above_max_length`, else `invalid_value`), and its
//!    `parameters` a schema the API takes ([`schema_rules::openai`],
//!    `invalid_function_parameters`).
//! 3. in every assistant message with `tool_calls` (which must not be empty:
//!    `empty_array`), each `tool_calls[k].id` is 1–40 characters
//!    (`string_below_min_length` / `string_above_max_length`) of
//!    `[A-Za-z0-9_-]` (`invalid_value`), and each `tool_calls[k].function.name`
//!    follows rule 2. OpenAI itself takes any characters in an id; the
//!    character rule is Anthropic's (and Bedrock's): the fake applies the
//!    strictest rule of the providers hermes supports.
//! 4. an assistant message with `tool_calls` is followed immediately by one
//!    `tool` message per call, in any order — a repeated id is answered once
//!    for each call that has it (else `code: null`, param
//!    `messages.[m].role`), and every `tool` message answers an id of the
//!    nearest assistant `tool_calls` message before it with only `tool`
//!    messages between (else `code: null`, param `messages.[t].role`).
//!
//! 5. an output limit, when given, is a positive integer
//!    (`integer_below_min_value`), and an OpenAI reasoning model (`o1`,
//!    `o3`, `o4`, `gpt-5`…) refuses `max_tokens`
//!    (`unsupported_parameter`: "Use 'max_completion_tokens' instead.").
//!
//! A required string that is missing or not a string gets the real API's
//! `missing_required_parameter` / `invalid_type` answer.
//!
//! Scripted tool calls must use realistic ids: [`call_id`] makes one from a
//! readable label, and [`Reply::tool_calls`] and [`Reply::turn`] refuse
//! anything else. Anthropic and Bedrock issue ids of their own shape; the fake
//! sends [`wire_id`] of the scripted id to them.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::{fake_anthropic, fake_bedrock, fake_gemini, fake_responses};

/// The wire protocols the fake speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    OpenAi,
    Anthropic,
    Bedrock,
    Gemini,
    Responses,
}

/// A provider-neutral model turn, rendered per API when it is served.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub blocks: Vec<Block>,
    pub stop: Stop,
    pub usage: TurnUsage,
}

impl Turn {
    /// A mixed turn as given, usage 20 in and 10 out.
    pub fn new(blocks: Vec<Block>, stop: Stop) -> Turn {
        Turn {
            blocks,
            stop,
            usage: TurnUsage {
                input: 20,
                output: 10,
                ..TurnUsage::default()
            },
        }
    }

    /// A text answer: usage 11 in and one out per character (what
    /// [`Reply::text`] serves).
    pub fn text(text: &str) -> Turn {
        Turn {
            blocks: vec![Block::Text(text.into())],
            stop: Stop::EndTurn,
            usage: TurnUsage {
                input: 11,
                output: text.chars().count() as u64,
                ..TurnUsage::default()
            },
        }
    }
}

/// One content block of a [`Turn`], in the order the model produces them.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    /// Visible reasoning; Anthropic and Bedrock send it with its signature
    /// ([`fake_anthropic::sign`]), OpenAI not at all.
    Thinking(String),
    /// Encrypted reasoning ([`fake_anthropic::redacted_data`] of its index);
    /// not sent to OpenAI.
    Redacted,
    /// A tool call. `id` is a scripted [`call_id`]; Anthropic and Bedrock get
    /// [`wire_id`] of it (an odd id, through [`Reply::from_turn`], as is).
    Tool {
        id: String,
        name: String,
        args: String,
    },
    /// A search the provider ran itself (Anthropic's `web_search` server
    /// tool): its query and the pages found, `(url, title)`. Only the
    /// Anthropic fake sends it; the others have no such tool.
    Search {
        query: String,
        results: Vec<(String, String)>,
    },
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    EndTurn,
    ToolUse,
    MaxTokens,
    PauseTurn,
    Refusal,
}

/// Token usage of a turn. `input` excludes cached tokens (Anthropic's and
/// Bedrock's meaning); OpenAI gets `prompt_tokens = input + cache_read +
/// cache_write`, with `cache_read` as `prompt_tokens_details.cached_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TurnUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

/// What a streamed `200` carries.
#[derive(Debug, Clone)]
pub enum Body {
    /// OpenAI `data:` payloads as given, then `data: [DONE]` when `done`.
    Data { events: Vec<String>, done: bool },
    /// Named SSE events `(event, data)` as given, written
    /// `event: X\ndata: Y\n\n`; no `[DONE]`.
    Named(Vec<(String, String)>),
    /// AWS event-stream frames as given, one HTTP chunk each.
    Frames(Vec<Vec<u8>>),
    /// SSE bytes as given, one HTTP chunk each (comments, odd framing).
    Raw(Vec<Vec<u8>>),
    /// Rendered when served, in the protocol of the request's path.
    Turn(Turn),
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A streamed `200`: SSE events or event-stream frames, one HTTP chunk
    /// each.
    Sse {
        body: Body,
        /// Close the connection after this many events (or frames), mid-body.
        cut_after: Option<usize>,
        /// Wait before the response head, e.g. to model a slow model.
        delay: Duration,
        /// Wait between events: a model that trickles.
        pace: Duration,
    },
    Status {
        code: u16,
        headers: Vec<(String, String)>,
        content_type: String,
        body: String,
    },
    /// Read the request, then close the connection without answering.
    Hangup,
}

/// A request the fake refused as the real API would: answered with this
/// status, these headers and this (JSON) body instead of a scripted reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Rejection {
    fn into_reply(self) -> Reply {
        Reply::Status {
            code: self.status,
            headers: self.headers,
            content_type: "application/json".into(),
            body: self.body,
        }
    }
}

impl Reply {
    /// A streamed text answer, split into deltas of 4 characters, with usage
    /// (11 in, one out per character) and, to OpenAI, `[DONE]`.
    pub fn text(text: &str) -> Reply {
        Reply::from_turn(Turn::text(text))
    }

    /// Tool calls, streamed as real servers do: id and name first, then the
    /// arguments in pieces of 5 characters. Ids must look like OpenAI's
    /// (`call_` and 24 alphanumerics; make them with [`call_id`]): anything
    /// else is a test bug.
    #[track_caller]
    pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Reply {
        let blocks = calls
            .iter()
            .map(|(id, name, args)| Block::Tool {
                id: id.to_string(),
                name: name.to_string(),
                args: args.to_string(),
            })
            .collect();
        Reply::turn(blocks, Stop::ToolUse).with_usage(TurnUsage {
            input: 20,
            output: 10,
            ..TurnUsage::default()
        })
    }

    /// A mixed turn (text, thinking, tool calls in any order), usage 20 in
    /// and 10 out ([`Reply::with_usage`] changes it). Tool ids must be
    /// realistic, as for [`Reply::tool_calls`].
    #[track_caller]
    pub fn turn(blocks: Vec<Block>, stop: Stop) -> Reply {
        for block in &blocks {
            if let Block::Tool { id, .. } = block {
                assert_realistic(id);
            }
        }
        Reply::from_turn(Turn::new(blocks, stop))
    }

    /// A turn as given (its tool ids unchecked).
    pub fn from_turn(turn: Turn) -> Reply {
        Reply::stream(Body::Turn(turn))
    }

    /// Raw OpenAI `data:` payloads, then `[DONE]`, whatever the request.
    pub fn sse(events: Vec<String>) -> Reply {
        Reply::stream(Body::Data { events, done: true })
    }

    /// Raw named SSE events `(event, data)`, whatever the request.
    pub fn named_sse(events: Vec<(String, String)>) -> Reply {
        Reply::stream(Body::Named(events))
    }

    /// Raw AWS event-stream frames (`application/vnd.amazon.eventstream`),
    /// whatever the request.
    pub fn frames(frames: Vec<Vec<u8>>) -> Reply {
        Reply::stream(Body::Frames(frames))
    }

    fn stream(body: Body) -> Reply {
        Reply::Sse {
            body,
            cut_after: None,
            delay: Duration::ZERO,
            pace: Duration::ZERO,
        }
    }

    /// An SSE body of these chunks, exactly.
    pub fn raw_sse(chunks: Vec<String>) -> Reply {
        Reply::stream(Body::Raw(
            chunks.into_iter().map(String::into_bytes).collect(),
        ))
    }

    pub fn status(code: u16, body: &str) -> Reply {
        Reply::Status {
            code,
            headers: Vec::new(),
            content_type: "application/json".into(),
            body: body.into(),
        }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Status { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }

    pub fn with_content_type(mut self, ct: &str) -> Reply {
        if let Reply::Status { content_type, .. } = &mut self {
            *content_type = ct.into();
        }
        self
    }

    /// The usage a [`Turn`] reply reports.
    pub fn with_usage(mut self, usage: TurnUsage) -> Reply {
        if let Reply::Sse {
            body: Body::Turn(turn),
            ..
        } = &mut self
        {
            turn.usage = usage;
        }
        self
    }

    pub fn cut_after(mut self, n: usize) -> Reply {
        if let Reply::Sse { cut_after, .. } = &mut self {
            *cut_after = Some(n);
        }
        self
    }

    pub fn paced(mut self, d: Duration) -> Reply {
        if let Reply::Sse { pace, .. } = &mut self {
            *pace = d;
        }
        self
    }

    pub fn delayed(mut self, d: Duration) -> Reply {
        if let Reply::Sse { delay, .. } = &mut self {
            *delay = d;
        }
        self
    }
}

#[track_caller]
fn assert_realistic(id: &str) {
    assert!(
        is_realistic_id(id),
        "test bug: tool-call id {id:?} is not realistic; real ids are `call_` and 24 \
         alphanumerics: use call_id({id:?})"
    );
}

/// The id the provider itself would issue for the scripted `call_id`: OpenAI's
/// is the scripted id; Anthropic's `toolu_01` and Bedrock's `tooluse_` are
/// followed by the first 22 characters after `call_` (30 characters, like
/// `toolu_01A09q90qw90lq917835lq9` and `tooluse_kZJMlvQmRJ6eAyJE5GIl7Q`).
///
/// An id that is not a [`call_id`] (`functions.read_file:0`, one past the
/// limits) is a test of what an odd server sends: every API gets it as is.
pub fn wire_id(api: Api, call_id: &str) -> String {
    if !is_realistic_id(call_id) {
        return call_id.to_string();
    }
    let rest: String = call_id
        .strip_prefix("call_")
        .unwrap_or(call_id)
        .chars()
        .take(22)
        .collect();
    match api {
        // Gemini 3's ids are opaque (`call_…` seen); Responses' are Chat's.
        Api::OpenAi | Api::Gemini | Api::Responses => call_id.to_string(),
        Api::Anthropic => format!("toolu_01{rest}"),
        Api::Bedrock => format!("tooluse_{rest}"),
    }
}

/// The API a request path belongs to, if it is one of the three.
pub fn api_of(path: &str) -> Option<Api> {
    let path = path.split('?').next().unwrap_or(path);
    if path == "/v1/messages" {
        Some(Api::Anthropic)
    } else if path.starts_with("/model/") && path.ends_with("/converse-stream") {
        Some(Api::Bedrock)
    } else if path.starts_with("/v1beta/models/") {
        Some(Api::Gemini)
    } else if path.ends_with("/responses") {
        Some(Api::Responses)
    } else if path.ends_with("/chat/completions") {
        Some(Api::OpenAi)
    } else {
        None
    }
}

/// A realistic, deterministic tool-call id for `label`: `call_` and 24 ASCII
/// alphanumerics, like OpenAI's. The label's alphanumerics come first (at most
/// 16, so the label stays readable in the id), then filler derived from an
/// FNV-1a hash of the whole label, so different labels give different ids.
pub fn call_id(label: &str) -> String {
    let mut id = String::from("call_");
    id.extend(label.chars().filter(char::is_ascii_alphanumeric).take(16));
    let filler = base62(fnv1a(label.as_bytes()), 5 + 24 - id.len());
    id.push_str(&filler);
    id
}

/// FNV-1a over `bytes`: any one-byte change of an input changes the hash.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// splitmix64: well-spread values from a counter-like state.
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `n` base-62 characters from a splitmix64 stream seeded with `seed`.
pub fn base62(seed: u64, n: usize) -> String {
    const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut h = seed;
    (0..n)
        .map(|_| BASE62[(splitmix(&mut h) % 62) as usize] as char)
        .collect()
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// A compact JSON object with its fields in the given order (the real APIs'
/// order; `serde_json` would sort them), each value already JSON.
pub fn json_obj(fields: &[(&str, String)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&json_str(k));
        out.push(':');
        out.push_str(v);
    }
    out.push('}');
    out
}

/// Whether `id` has the shape of a real OpenAI tool-call id: `call_` and 24
/// ASCII alphanumerics.
pub fn is_realistic_id(id: &str) -> bool {
    id.strip_prefix("call_")
        .is_some_and(|rest| rest.len() == 24 && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// A turn as Chat Completions chunks: a role delta first when it has text,
/// text in pieces of 4 characters, each tool call's id and name then its
/// arguments in pieces of 5, the finish reason and usage. Thinking is not
/// sent (OpenAI does not return it); `[DONE]` is added by the caller.
pub fn openai_events(turn: &Turn) -> Vec<String> {
    let mut events = Vec::new();
    if turn.blocks.iter().any(|b| matches!(b, Block::Text(_))) {
        events.push(delta(
            serde_json::json!({"role": "assistant", "content": ""}),
        ));
    }
    let mut index = 0;
    for block in &turn.blocks {
        match block {
            Block::Text(text) => {
                let chars: Vec<char> = text.chars().collect();
                for piece in chars.chunks(4) {
                    let s: String = piece.iter().collect();
                    events.push(delta(serde_json::json!({ "content": s })));
                }
            }
            Block::Tool { id, name, args } => {
                events.push(delta(serde_json::json!({"tool_calls": [{
                    "index": index, "id": id, "type": "function",
                    "function": {"name": name, "arguments": ""}}]})));
                let chars: Vec<char> = args.chars().collect();
                for piece in chars.chunks(5) {
                    let s: String = piece.iter().collect();
                    events.push(delta(serde_json::json!({"tool_calls": [{
                        "index": index, "function": {"arguments": s}}]})));
                }
                index += 1;
            }
            Block::Thinking(_) | Block::Redacted => {}
            Block::Search { .. } => panic!("Chat Completions has no server-side search"),
        }
    }
    events.push(finish(match turn.stop {
        Stop::EndTurn | Stop::PauseTurn => "stop",
        Stop::ToolUse => "tool_calls",
        Stop::MaxTokens => "length",
        Stop::Refusal => "content_filter",
    }));
    let u = turn.usage;
    if u.cache_read == 0 && u.cache_write == 0 {
        events.push(usage(u.input, u.output));
    } else {
        let prompt = u.input + u.cache_read + u.cache_write;
        events.push(
            serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
                "model": "test-model", "choices": [], "usage": {"prompt_tokens": prompt,
                "completion_tokens": u.output, "total_tokens": prompt + u.output,
                "prompt_tokens_details": {"cached_tokens": u.cache_read}}})
            .to_string(),
        );
    }
    events
}

pub fn delta(d: serde_json::Value) -> String {
    serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "test-model",
        "choices": [{"index": 0, "delta": d, "finish_reason": null}]})
    .to_string()
}

pub fn finish(reason: &str) -> String {
    serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "test-model",
        "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    .to_string()
}

pub fn usage(prompt: u64, completion: u64) -> String {
    serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "test-model",
        "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
        "total_tokens": prompt + completion}})
    .to_string()
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// When the first byte of this request arrived.
    pub first_byte: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }

    pub fn body_str(&self) -> &str {
        std::str::from_utf8(&self.body).expect("request body is UTF-8")
    }

    /// The tool results of a Chat Completions request, as their text, in
    /// order.
    pub fn tool_results(&self) -> Vec<String> {
        self.json()["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

/// Answers a request when no scripted reply is left.
pub type Responder = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    requests: Vec<Recorded>,
    /// The model's context window in tokens: a longer request is refused
    /// with the API's own error, and a served turn reports the request's
    /// tokens as its input.
    window: Option<u64>,
    overflows: usize,
    responder: Option<Responder>,
    /// The window `GET …/models` lists for `test-model` (vLLM's
    /// `max_model_len`), and how often the listing was asked for.
    listed_window: Option<u64>,
    listings: usize,
}

/// The tokens of a request as the fake counts them: its body's bytes over
/// four, rounded up — tools, system prompt and every message included, as a
/// real tokenizer counts them all.
pub fn tokens(req: &Recorded) -> u64 {
    (req.body.len() as u64).div_ceil(4)
}

/// An OpenAI-style model listing of `test-model` (with vLLM's
/// `max_model_len` when `window` is given) and `test-model-large`.
fn model_listing(window: Option<u64>) -> String {
    let entry = |id: &str| {
        serde_json::json!({
            "id": id, "object": "model", "created": 1_764_547_200, "owned_by": "vllm",
            "root": id, "parent": null
        })
    };
    let mut model = entry("test-model");
    if let Some(w) = window {
        model["max_model_len"] = w.into();
    }
    serde_json::json!({"object": "list", "data": [model, entry("test-model-large")]}).to_string()
}

/// The refusal of a request of `tokens` to a model with a `window`, in the
/// words of the API `path` addresses.
fn past_window(path: &str, tokens: u64, window: u64) -> Rejection {
    match api_of(path) {
        Some(Api::Anthropic) => fake_anthropic::too_long(tokens, window),
        Some(Api::Bedrock) => fake_bedrock::too_long(),
        Some(Api::Gemini) => fake_gemini::too_long(tokens, window),
        Some(Api::Responses) => fake_responses::too_long(),
        _ => Rejection {
            status: 400,
            headers: Vec::new(),
            body: invalid(
                format!(
                    "This model's maximum context length is {window} tokens. However, your \
                     messages resulted in {tokens} tokens. Please reduce the length of the messages."
                ),
                "messages",
                Some("context_length_exceeded"),
            ),
        },
    }
}

pub struct FakeProvider {
    port: u16,
    state: Arc<Mutex<State>>,
}

impl FakeProvider {
    pub fn start() -> FakeProvider {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local addr").port();
        let state = Arc::new(Mutex::new(State::default()));
        let st = state.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(stream) = conn else { continue };
                // As the real services do: each event goes out when written,
                // not held back by Nagle's algorithm for the last one's ACK.
                let _ = stream.set_nodelay(true);
                let st = st.clone();
                std::thread::spawn(move || serve(stream, st));
            }
        });
        FakeProvider { port, state }
    }

    /// The OpenAI base URL to configure: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The Anthropic and Bedrock base URL to configure:
    /// `http://127.0.0.1:PORT` (they add `/v1/messages` and `/model/…`).
    pub fn root_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn push(&self, reply: Reply) -> &Self {
        self.state.lock().unwrap().script.push_back(reply);
        self
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    pub fn clear_requests(&self) {
        self.state.lock().unwrap().requests.clear();
    }

    pub fn pending(&self) -> usize {
        self.state.lock().unwrap().script.len()
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Refuses requests longer than `tokens` (see [`tokens`]) as the real
    /// API does, and reports each served request's true size as its input.
    pub fn with_window(&self, tokens: u64) -> &Self {
        self.state.lock().unwrap().window = Some(tokens);
        self
    }

    /// Lists `test-model` with this window in `GET …/models`, as vLLM does.
    pub fn list_window(&self, tokens: u64) -> &Self {
        self.state.lock().unwrap().listed_window = Some(tokens);
        self
    }

    /// How many times the model listing was asked for.
    pub fn listings(&self) -> usize {
        self.state.lock().unwrap().listings
    }

    /// How many requests were refused as too long for the window.
    pub fn overflows(&self) -> usize {
        self.state.lock().unwrap().overflows
    }

    /// Answers with `f` once the script is used up.
    pub fn respond_with(&self, f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> &Self {
        self.state.lock().unwrap().responder = Some(Arc::new(f));
        self
    }
}

fn serve(stream: TcpStream, state: Arc<Mutex<State>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    // Keep-alive: serve requests on this connection until the client closes it.
    while let Some(req) = read_request(&mut reader) {
        // The model listing is answered apart from the script, and not
        // recorded among the model requests.
        let bare = req.path.split('?').next().unwrap_or("");
        if req.method == "GET" && bare.ends_with("/models") {
            let body = {
                let mut st = state.lock().unwrap();
                st.listings += 1;
                if req.path.starts_with("/v1beta/") {
                    fake_gemini::listing(st.listed_window)
                } else {
                    model_listing(st.listed_window)
                }
            };
            let reply = Reply::status(200, &body);
            if !respond(&stream, reply, &req) {
                return;
            }
            continue;
        }
        // A request that breaks a rule the real API enforces gets that API's
        // error; the scripted reply waits for the next request.
        let mut rejected = check(&req);
        let path = req.path.clone();
        let served = req.clone();
        let size = tokens(&req);
        let reply = {
            let mut st = state.lock().unwrap();
            let window = st.window.filter(|_| req.method == "POST");
            if rejected.is_none() {
                if let Some(w) = window.filter(|w| size > *w) {
                    st.overflows += 1;
                    rejected = Some(past_window(&path, size, w));
                }
            }
            let reply = match rejected {
                Some(rejection) => Some(rejection.into_reply()),
                None => st
                    .script
                    .pop_front()
                    .or_else(|| st.responder.as_ref().map(|f| f(&req))),
            };
            st.requests.push(req);
            match (reply, window) {
                (
                    Some(Reply::Sse {
                        body: Body::Turn(mut turn),
                        cut_after,
                        delay,
                        pace,
                    }),
                    Some(_),
                ) => {
                    turn.usage.input = size;
                    turn.usage.cache_read = 0;
                    turn.usage.cache_write = 0;
                    Some(Reply::Sse {
                        body: Body::Turn(turn),
                        cut_after,
                        delay,
                        pace,
                    })
                }
                (reply, _) => reply,
            }
        };
        let reply = reply.unwrap_or_else(|| {
            Reply::status(
                500,
                r#"{"error":{"message":"fake provider: no scripted reply left"}}"#,
            )
        });
        if !respond(&stream, reply, &served) {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
    }
}

/// The rules of the API `req` is addressed to (by path): Anthropic's and
/// Bedrock's for theirs, Chat Completions' for any other POST with a
/// `messages` array.
fn check(req: &Recorded) -> Option<Rejection> {
    match api_of(&req.path) {
        Some(Api::Anthropic) => fake_anthropic::check(req).err(),
        Some(Api::Bedrock) => fake_bedrock::check(req).err(),
        Some(Api::Gemini) => fake_gemini::check(req).err(),
        Some(Api::Responses) => fake_responses::check(req).err(),
        _ => chat_request(req)
            .and_then(|body| validate(&body).err())
            .map(|body| Rejection {
                status: 400,
                headers: Vec::new(),
                body,
            }),
    }
}

/// The body of a Chat Completions request: a POST whose body is JSON with a
/// `messages` array.
fn chat_request(req: &Recorded) -> Option<serde_json::Value> {
    if req.method != "POST" {
        return None;
    }
    let body: serde_json::Value = serde_json::from_slice(&req.body).ok()?;
    body["messages"].is_array().then_some(body)
}

/// Checks a Chat Completions request body against the rules in this file's
/// header, in that order. `Err` holds the real API's JSON error body for the
/// first rule broken.
pub fn validate(body: &serde_json::Value) -> Result<(), String> {
    let empty = Vec::new();
    let tools = body["tools"].as_array().unwrap_or(&empty);
    if tools.len() > 128 {
        return Err(invalid(
            format!(
                "Invalid 'tools': array too long. Expected an array with maximum length 128, \
                 but got an array with length {} instead.",
                tools.len()
            ),
            "tools",
            Some("array_above_max_length"),
        ));
    }
    for (i, tool) in tools.iter().enumerate() {
        check_name(
            &tool["function"]["name"],
            &format!("tools[{i}].function.name"),
        )?;
        let f = &tool["function"];
        if f.get("parameters").is_some() {
            let name = f["name"].as_str().unwrap_or_default();
            if let Some(e) = super::schema_rules::openai(name, &f["parameters"]) {
                return Err(invalid(
                    e,
                    &format!("tools[{i}].function.parameters"),
                    Some("invalid_function_parameters"),
                ));
            }
        }
    }

    check_response_format(&body["response_format"])?;
    let messages = body["messages"].as_array().unwrap_or(&empty);
    check_content_parts(messages)?;
    for (m, msg) in messages.iter().enumerate() {
        if msg["role"] != "assistant" || msg["tool_calls"].is_null() {
            continue;
        }
        let path = format!("messages[{m}].tool_calls");
        let Some(calls) = msg["tool_calls"].as_array() else {
            return Err(invalid_type(&path, &msg["tool_calls"], "an array"));
        };
        if calls.is_empty() {
            return Err(invalid(
                format!(
                    "Invalid '{path}': empty array. Expected an array with minimum length 1, \
                     but got an empty array instead."
                ),
                &path,
                Some("empty_array"),
            ));
        }
        for (k, call) in calls.iter().enumerate() {
            check_id(&call["id"], &format!("{path}[{k}].id"))?;
            check_name(
                &call["function"]["name"],
                &format!("{path}[{k}].function.name"),
            )?;
        }
    }

    check_pairing(messages)?;
    check_output_limit(body)
}

/// `max_tokens` / `max_completion_tokens`, when given (rule 5).
fn check_output_limit(body: &serde_json::Value) -> Result<(), String> {
    for key in ["max_tokens", "max_completion_tokens"] {
        let v = &body[key];
        if v.is_null() {
            continue;
        }
        let Some(n) = v.as_i64() else {
            return Err(invalid_type(key, v, "an integer"));
        };
        if n < 1 {
            return Err(invalid(
                format!(
                    "Invalid '{key}': integer below minimum value. Expected a value >= 1, \
                     but got {n} instead."
                ),
                key,
                Some("integer_below_min_value"),
            ));
        }
    }
    let model = body["model"].as_str().unwrap_or_default();
    let bare = model.rsplit('/').next().unwrap_or(model);
    let reasoning = ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|p| bare.starts_with(p));
    if reasoning && !body["max_tokens"].is_null() {
        return Err(invalid(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use \
             'max_completion_tokens' instead."
                .into(),
            "max_tokens",
            Some("unsupported_parameter"),
        ));
    }
    Ok(())
}

/// `response_format`, when given: its type, and a `json_schema` one's name
/// and (strict) schema.
fn check_response_format(f: &serde_json::Value) -> Result<(), String> {
    if f.is_null() {
        return Ok(());
    }
    match f["type"].as_str() {
        Some("text" | "json_object") => return Ok(()),
        Some("json_schema") => {}
        _ => {
            return Err(invalid(
                format!(
                    "Invalid value: {}. Supported values are: 'json_object', 'json_schema', and 'text'.",
                    f["type"]
                ),
                "response_format.type",
                Some("invalid_value"),
            ))
        }
    }
    let s = &f["json_schema"];
    if !super::schema_rules::openai_schema_name(&s["name"]) {
        return Err(invalid(
            "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.".into(),
            "response_format.json_schema.name",
            Some("invalid_value"),
        ));
    }
    if s["strict"] == true {
        let name = s["name"].as_str().unwrap_or_default();
        if let Some(e) = super::schema_rules::openai_strict(name, &s["schema"]) {
            return Err(invalid(e, "response_format", None));
        }
    }
    Ok(())
}

/// Content given as parts: a `tool` (or system, assistant) message takes
/// text parts only; a user message's `image_url` is a base64 data URL of an
/// image type the API takes, whose data decodes.
fn check_content_parts(messages: &[serde_json::Value]) -> Result<(), String> {
    for (m, msg) in messages.iter().enumerate() {
        let Some(parts) = msg["content"].as_array() else {
            continue;
        };
        for (k, part) in parts.iter().enumerate() {
            let at = format!("messages[{m}].content[{k}]");
            let kind = part["type"].as_str().unwrap_or("");
            if msg["role"] != "user" && kind != "text" {
                return Err(invalid(
                    format!("Invalid value: '{kind}'. Supported values are: 'text'."),
                    &format!("{at}.type"),
                    Some("invalid_value"),
                ));
            }
            if kind != "image_url" {
                continue;
            }
            let url = part["image_url"]["url"].as_str().unwrap_or("");
            let Some(rest) = url.strip_prefix("data:") else {
                continue; // an http URL: fetched by the API
            };
            let (mime, data) = rest.split_once(";base64,").unwrap_or(("", ""));
            if !super::schema_rules::IMAGE_TYPES.contains(&mime) {
                return Err(invalid(
                    format!(
                        "Invalid '{at}.image_url.url'. Expected a base64-encoded data URL with an \
                         image MIME type (e.g. 'data:image/png;base64,aW1nIGJhc2U2NCBkYXRh'), but \
                         got unsupported MIME type '{mime}'."
                    ),
                    &format!("{at}.image_url.url"),
                    Some("invalid_value"),
                ));
            }
            if !super::schema_rules::is_base64(data) {
                return Err(invalid(
                    "You uploaded an unsupported image. Please make sure your image is valid."
                        .into(),
                    &format!("{at}.image_url.url"),
                    Some("invalid_image_format"),
                ));
            }
        }
    }
    Ok(())
}

/// The nearest assistant `tool_calls` message still taking `tool` answers.
struct Open<'a> {
    index: usize,
    ids: Vec<&'a str>,
    answered: Vec<bool>,
}

/// The pairing error for `open`'s ids that got no `tool` message, if any.
fn unanswered(open: &Open<'_>) -> Result<(), String> {
    let missing: Vec<&str> = open
        .ids
        .iter()
        .zip(&open.answered)
        .filter(|(_, done)| !**done)
        .map(|(id, _)| *id)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(invalid(
        format!(
            "An assistant message with 'tool_calls' must be followed by tool messages \
             responding to each 'tool_call_id'. The following tool_call_ids did not have \
             response messages: {}",
            missing.join(", ")
        ),
        &format!("messages.[{}].role", open.index),
        None,
    ))
}

fn check_pairing(messages: &[serde_json::Value]) -> Result<(), String> {
    let mut open: Option<Open<'_>> = None;
    for (t, msg) in messages.iter().enumerate() {
        if msg["role"] == "tool" {
            let answered = open.as_mut().and_then(|o| {
                let id = msg["tool_call_id"].as_str()?;
                // Call ids may repeat in a message: each tool message
                // answers the first call of that id not yet answered.
                let k = (0..o.ids.len()).find(|&k| o.ids[k] == id && !o.answered[k])?;
                o.answered[k] = true;
                Some(())
            });
            if answered.is_none() {
                return Err(invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a \
                     preceeding message with 'tool_calls'."
                        .into(),
                    &format!("messages.[{t}].role"),
                    None,
                ));
            }
            continue;
        }
        if let Some(o) = open.take() {
            unanswered(&o)?;
        }
        if msg["role"] == "assistant" {
            if let Some(calls) = msg["tool_calls"].as_array() {
                let ids: Vec<&str> = calls.iter().filter_map(|c| c["id"].as_str()).collect();
                open = Some(Open {
                    index: t,
                    answered: vec![false; ids.len()],
                    ids,
                });
            }
        }
    }
    match open {
        Some(o) => unanswered(&o),
        None => Ok(()),
    }
}

/// A function name: 1–64 characters of `[a-zA-Z0-9_-]`.
fn check_name(v: &serde_json::Value, path: &str) -> Result<(), String> {
    let name = required_str(v, path)?;
    let n = name.chars().count();
    if n > 64 {
        return Err(too_long(path, 64, n));
    }
    if !matches_id_pattern(name) {
        return Err(pattern_error(path));
    }
    Ok(())
}

/// A tool-call id: 1–40 characters (OpenAI) of `[A-Za-z0-9_-]` (Anthropic,
/// Bedrock): the strictest rule of the providers hermes supports.
fn check_id(v: &serde_json::Value, path: &str) -> Result<(), String> {
    let id = required_str(v, path)?;
    let n = id.chars().count();
    if n == 0 {
        return Err(invalid(
            format!(
                "Invalid '{path}': string too short. Expected a string with minimum length 1, \
                 but got an empty string instead."
            ),
            path,
            Some("string_below_min_length"),
        ));
    }
    if n > 40 {
        return Err(too_long(path, 40, n));
    }
    if !matches_id_pattern(id) {
        return Err(pattern_error(path));
    }
    Ok(())
}

/// The real API's answer to a string over its `max` length.
fn too_long(path: &str, max: usize, n: usize) -> String {
    invalid(
        format!(
            "Invalid '{path}': string too long. Expected a string with maximum length {max}, \
             but got a string with length {n} instead."
        ),
        path,
        Some("string_above_max_length"),
    )
}

/// `^[a-zA-Z0-9_-]+$`
pub fn matches_id_pattern(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn pattern_error(path: &str) -> String {
    invalid(
        format!(
            "Invalid '{path}': string does not match pattern. Expected a string that matches \
             the pattern '^[a-zA-Z0-9_-]+$'."
        ),
        path,
        Some("invalid_value"),
    )
}

fn required_str<'a>(v: &'a serde_json::Value, path: &str) -> Result<&'a str, String> {
    match v {
        serde_json::Value::String(s) => Ok(s.as_str()),
        serde_json::Value::Null => Err(invalid(
            format!("Missing required parameter: '{path}'."),
            path,
            Some("missing_required_parameter"),
        )),
        other => Err(invalid_type(path, other, "a string")),
    }
}

fn invalid_type(path: &str, got: &serde_json::Value, expected: &str) -> String {
    let got = match got {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(n) if n.is_f64() => "a decimal",
        serde_json::Value::Number(_) => "an integer",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    };
    invalid(
        format!("Invalid type for '{path}': expected {expected}, but got {got} instead."),
        path,
        Some("invalid_type"),
    )
}

/// The real API's error body, fields in its order.
fn invalid(message: String, param: &str, code: Option<&str>) -> String {
    let s = |v: &str| serde_json::Value::from(v).to_string();
    format!(
        r#"{{"error":{{"message":{},"type":"invalid_request_error","param":{},"code":{}}}}}"#,
        s(message.as_str()),
        s(param),
        code.map_or_else(|| "null".to_string(), s)
    )
}

pub fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut line = String::new();
    // Blocks until the next request starts; its first byte's time is taken after.
    let n = reader.read_line(&mut line).ok()?;
    let first_byte = Instant::now();
    if n == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Recorded {
        method,
        path,
        headers,
        body,
        first_byte,
    })
}

/// Writes the reply, a [`Body::Turn`] rendered for the API of the request
/// it answers; false when the connection must be closed afterwards.
fn respond(mut s: &TcpStream, reply: Reply, req: &Recorded) -> bool {
    match reply {
        Reply::Hangup => false,
        Reply::Status {
            code,
            headers,
            content_type,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {code} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n",
                reason(code),
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            s.write_all(head.as_bytes()).is_ok() && s.write_all(body.as_bytes()).is_ok()
        }
        Reply::Sse {
            body,
            cut_after,
            delay,
            pace,
        } => {
            std::thread::sleep(delay);
            let (content_type, units) = render(body, req);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\
                 Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
            );
            if s.write_all(head.as_bytes()).is_err() {
                return false;
            }
            for (i, unit) in units.iter().enumerate() {
                if cut_after == Some(i) {
                    let _ = s.flush();
                    return false;
                }
                let size = format!("{:x}\r\n", unit.len());
                if s.write_all(size.as_bytes()).is_err()
                    || s.write_all(unit).is_err()
                    || s.write_all(b"\r\n").is_err()
                {
                    return false;
                }
                let _ = s.flush();
                std::thread::sleep(pace);
            }
            s.write_all(b"0\r\n\r\n").is_ok()
        }
    }
}

/// The content type and the units (SSE events or event-stream frames, one
/// HTTP chunk each) of a streamed body answering `req`.
fn render(body: Body, req: &Recorded) -> (&'static str, Vec<Vec<u8>>) {
    let path = req.path.as_str();
    const SSE: &str = "text/event-stream";
    const EVENTSTREAM: &str = "application/vnd.amazon.eventstream";
    let data = |events: Vec<String>, done: bool| -> Vec<Vec<u8>> {
        let mut all = events;
        if done {
            all.push("[DONE]".into());
        }
        all.into_iter()
            .map(|d| format!("data: {d}\n\n").into_bytes())
            .collect()
    };
    let named = |events: Vec<(String, String)>| -> Vec<Vec<u8>> {
        events
            .into_iter()
            .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n").into_bytes())
            .collect()
    };
    match body {
        Body::Data { events, done } => (SSE, data(events, done)),
        Body::Named(events) => (SSE, named(events)),
        Body::Frames(frames) => (EVENTSTREAM, frames),
        Body::Raw(chunks) => (SSE, chunks),
        Body::Turn(turn) => match api_of(path) {
            Some(Api::Anthropic) => (SSE, named(fake_anthropic::events(&turn))),
            Some(Api::Bedrock) => (EVENTSTREAM, fake_bedrock::frames(&turn)),
            // Each a whole response, `\r\n\r\n` between them, no end marker.
            Some(Api::Gemini) => (
                SSE,
                fake_gemini::events(&turn, fake_gemini::model_of(path).unwrap_or(""))
                    .into_iter()
                    .map(|d| format!("data: {d}\r\n\r\n").into_bytes())
                    .collect(),
            ),
            Some(Api::Responses) => {
                let encrypted = req.body_str().contains("\"reasoning.encrypted_content\"");
                (SSE, named(fake_responses::events(&turn, encrypted)))
            }
            // Chat Completions, and any other path (today's behaviour).
            _ => (SSE, data(openai_events(&turn), true)),
        },
    }
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        // Anthropic's "overloaded".
        529 => "Overloaded",
        _ => "Unknown",
    }
}
