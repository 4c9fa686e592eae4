//! An editor as the tests play one: `hermes acp` started with a pipe on
//! each side, JSON-RPC written a line at a time, and every line hermes
//! writes on stdout read back and checked to be JSON-RPC 2.0 — anything
//! else on stdout fails the test. Permission questions are answered from
//! a script of option ids, in the order they come.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::TestEnv;

pub struct Editor {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next: u64,
    /// Every `session/update` seen, in order: `params.update`.
    pub updates: Vec<Value>,
    /// Every `session/request_permission` seen: its params.
    pub asked: Vec<Value>,
    /// The option ids to pick, in order; `"cancelled"` answers with the
    /// cancelled outcome. Empty: the first `allow_once`.
    pub answers: VecDeque<String>,
    /// Every line hermes wrote on stdout.
    pub stdout: Vec<String>,
    /// The editor's open buffers by absolute path, for `fs/read_text_file`
    /// (a path not here is answered with an error, as an editor that
    /// cannot read it would).
    pub buffers: std::collections::HashMap<String, String>,
    /// The paths `fs/read_text_file` asked for, in order.
    pub read_asked: Vec<String>,
    /// What `fs/write_text_file` wrote, in order: saved to the disk, as an
    /// editor saves a buffer.
    pub written: Vec<(String, String)>,
    /// Every `elicitation/create` seen: its params. Each is accepted with
    /// its required fields filled ([`filled`]).
    pub elicited: Vec<Value>,
}

/// What a person would fill in a form: each required field of `schema`
/// with a value of its kind (a choice's first option).
pub fn filled(schema: &Value) -> Value {
    let mut content = serde_json::Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let p = &schema["properties"][name];
        let first = |v: &Value| -> Value {
            v["enum"][0]
                .as_str()
                .or_else(|| v["oneOf"][0]["const"].as_str())
                .or_else(|| v["items"]["enum"][0].as_str())
                .or_else(|| v["items"]["anyOf"][0]["const"].as_str())
                .map_or(Value::Null, |s| json!(s))
        };
        let value = match p["type"].as_str().unwrap_or("string") {
            "boolean" => json!(true),
            "integer" => json!(7),
            "number" => json!(2.5),
            "array" => json!([first(p)]),
            _ if !first(p).is_null() => first(p),
            _ => match p["format"].as_str() {
                Some("date") => json!("1815-12-10"),
                Some("email") => json!("ada@example.org"),
                Some("uri") => json!("https://example.org/ada"),
                _ => json!("Ada Lovelace"),
            },
        };
        content.insert(name.to_string(), value);
    }
    Value::Object(content)
}

impl Editor {
    /// `hermes [flags] acp` in `env`, with `extra` environment.
    pub fn start(env: &TestEnv, extra: &[(&str, &str)]) -> Editor {
        let mut cmd = env.cmd();
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let mut child = cmd
            .arg("acp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Editor {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            next: 0,
            updates: Vec::new(),
            asked: Vec::new(),
            answers: VecDeque::new(),
            stdout: Vec::new(),
            buffers: std::collections::HashMap::new(),
            read_asked: Vec::new(),
            written: Vec::new(),
            elicited: Vec::new(),
        }
    }

    /// These bytes as they are, then a newline.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, v: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> u64 {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// A request and its answer: `Ok(result)` or `Err(error)`.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send_request(method, params);
        self.answer_to(id)
    }

    /// Reads until the answer to request `id` comes (60 s at most).
    pub fn answer_to(&mut self, id: u64) -> Result<Value, Value> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let v = self.read(deadline);
            if v.get("method").is_none() && v["id"] == json!(id) {
                return match v.get("error") {
                    Some(e) => Err(e.clone()),
                    None => Ok(v["result"].clone()),
                };
            }
        }
    }

    /// Reads until `cond` holds of the updates seen (20 s at most).
    pub fn until(&mut self, what: &str, cond: impl Fn(&[Value]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !cond(&self.updates) {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            self.read(deadline);
        }
    }

    /// One message from hermes: notifications recorded, its requests
    /// answered, and returned.
    fn read(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match self.lines.recv_timeout(left) {
            Ok(l) => l,
            Err(_) => panic!(
                "no message from hermes acp in time; stdout so far:\n{}",
                self.stdout.join("\n")
            ),
        };
        self.stdout.push(line.clone());
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout held a line that is not JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "not JSON-RPC 2.0: {line}");
        match v["method"].as_str() {
            Some("session/update") => self.updates.push(v["params"]["update"].clone()),
            Some("session/request_permission") => {
                self.asked.push(v["params"].clone());
                let pick = self
                    .answers
                    .pop_front()
                    .unwrap_or_else(|| "allow_once".into());
                let outcome = if pick == "cancelled" {
                    json!({"outcome": "cancelled"})
                } else {
                    json!({"outcome": "selected", "optionId": pick})
                };
                let id = v["id"].clone();
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": {"outcome": outcome}}));
            }
            Some("elicitation/create") => {
                self.elicited.push(v["params"].clone());
                let content = filled(&v["params"]["requestedSchema"]);
                let id = v["id"].clone();
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept", "content": content}}));
            }
            Some("fs/read_text_file") => {
                let id = v["id"].clone();
                let path = v["params"]["path"].as_str().unwrap_or("").to_string();
                self.read_asked.push(path.clone());
                let reply = match self.buffers.get(&path) {
                    Some(text) => json!({"jsonrpc": "2.0", "id": id, "result": {"content": text}}),
                    None => {
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32002, "message": format!("Resource not found: {path}")}})
                    }
                };
                self.send(&reply);
            }
            Some("fs/write_text_file") => {
                let id = v["id"].clone();
                let path = v["params"]["path"].as_str().unwrap_or("").to_string();
                let text = v["params"]["content"].as_str().unwrap_or("").to_string();
                std::fs::write(&path, &text).unwrap();
                self.buffers.insert(path.clone(), text.clone());
                self.written.push((path, text));
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": {}}));
            }
            Some(other) => {
                let id = v["id"].clone();
                self.send(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("{other}: not offered")}}));
            }
            None => {}
        }
        v
    }

    /// Closes stdin and waits for hermes to exit (10 s at most); its
    /// stderr.
    pub fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // What was still on its way.
                while let Ok(line) = self.lines.try_recv() {
                    let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                        panic!("stdout held a line that is not JSON ({e}): {line}")
                    });
                    assert_eq!(v["jsonrpc"], "2.0", "{line}");
                }
                let mut err = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut err);
                }
                return (status, err);
            }
            assert!(
                Instant::now() < deadline,
                "hermes acp did not exit after its stdin closed"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The updates of one kind.
    pub fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.updates
            .iter()
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }
}

/// `initialize` as an editor sends it.
pub fn initialize() -> Value {
    json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
        "clientInfo": {"name": "hermes-tests", "version": "1.0.0"},
    })
}
