//! A fake OpenAI-compatible provider on 127.0.0.1: real HTTP/1.1, real SSE in
//! chunked transfer encoding, scripted replies served in order, and every request
//! recorded with its raw body and arrival time. Blocking std networking on its own
//! threads, so tests and benches need no runtime of their own.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `data:` payloads sent as SSE events, one HTTP chunk each.
    Sse {
        events: Vec<String>,
        /// Send `data: [DONE]` at the end.
        done: bool,
        /// Close the connection after this many events, mid-body.
        cut_after: Option<usize>,
        /// Wait before the response head, e.g. to model a slow model.
        delay: Duration,
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

impl Reply {
    /// A streamed text answer, split into a few deltas, with usage and `[DONE]`.
    pub fn text(text: &str) -> Reply {
        let mut events = vec![delta(
            serde_json::json!({"role": "assistant", "content": ""}),
        )];
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(4) {
            let s: String = piece.iter().collect();
            events.push(delta(serde_json::json!({ "content": s })));
        }
        events.push(finish("stop"));
        events.push(usage(11, chars.len() as u64));
        Reply::sse(events)
    }

    /// Tool calls, streamed as real servers do: id and name first, then the
    /// arguments in pieces.
    pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Reply {
        let mut events = Vec::new();
        for (i, (id, name, args)) in calls.iter().enumerate() {
            events.push(delta(serde_json::json!({"tool_calls": [{
                "index": i, "id": id, "type": "function",
                "function": {"name": name, "arguments": ""}}]})));
            let chars: Vec<char> = args.chars().collect();
            for piece in chars.chunks(5) {
                let s: String = piece.iter().collect();
                events.push(delta(serde_json::json!({"tool_calls": [{
                    "index": i, "function": {"arguments": s}}]})));
            }
        }
        events.push(finish("tool_calls"));
        events.push(usage(20, 10));
        Reply::sse(events)
    }

    pub fn sse(events: Vec<String>) -> Reply {
        Reply::Sse {
            events,
            done: true,
            cut_after: None,
            delay: Duration::ZERO,
        }
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

    pub fn cut_after(mut self, n: usize) -> Reply {
        if let Reply::Sse { cut_after, .. } = &mut self {
            *cut_after = Some(n);
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
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    requests: Vec<Recorded>,
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
                let st = st.clone();
                std::thread::spawn(move || serve(stream, st));
            }
        });
        FakeProvider { port, state }
    }

    /// The base URL to configure: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
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
}

fn serve(stream: TcpStream, state: Arc<Mutex<State>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    // Keep-alive: serve requests on this connection until the client closes it.
    while let Some(req) = read_request(&mut reader) {
        let reply = {
            let mut st = state.lock().unwrap();
            st.requests.push(req);
            st.script.pop_front()
        };
        let reply = reply.unwrap_or_else(|| {
            Reply::status(
                500,
                r#"{"error":{"message":"fake provider: no scripted reply left"}}"#,
            )
        });
        if !respond(&stream, reply) {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
    }
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

/// Writes the reply; false when the connection must be closed afterwards.
fn respond(mut s: &TcpStream, reply: Reply) -> bool {
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
            events,
            done,
            cut_after,
            delay,
        } => {
            std::thread::sleep(delay);
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                        Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
            if s.write_all(head.as_bytes()).is_err() {
                return false;
            }
            let mut all: Vec<String> = events;
            if done {
                all.push("[DONE]".into());
            }
            for (i, data) in all.iter().enumerate() {
                if cut_after == Some(i) {
                    let _ = s.flush();
                    return false;
                }
                let event = format!("data: {data}\n\n");
                let chunk = format!("{:x}\r\n{event}\r\n", event.len());
                if s.write_all(chunk.as_bytes()).is_err() {
                    return false;
                }
                let _ = s.flush();
            }
            s.write_all(b"0\r\n\r\n").is_ok()
        }
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
        _ => "Unknown",
    }
}
