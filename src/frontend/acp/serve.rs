//! The ACP loop on stdin and stdout: one JSON-RPC message a line, a
//! prompt its own task, end of input ending every session.

use super::host::Host;
use super::wire::RpcError;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;

use super::wire::{Incoming, Out};

/// The protocol version hermes speaks.
const PROTOCOL_VERSION: u64 = 1;

/// Serves the protocol on stdin and stdout until stdin ends.
pub(crate) async fn serve(host: Rc<dyn Host>) -> std::io::Result<()> {
    let local = tokio::task::LocalSet::new();
    local.run_until(serve_here(host)).await
}

async fn serve_here(host: Rc<dyn Host>) -> std::io::Result<()> {
    let (out, writer) = Out::stdout();
    let state = Rc::new(State {
        host,
        out: out.clone(),
        sessions: RefCell::default(),
        initialized: RefCell::new(false),
        files: RefCell::new((false, false)),
        notices: std::cell::Cell::new(false),
        forms: std::cell::Cell::new(false),
        in_flight: RefCell::default(),
    });
    let mut input = tokio::io::BufReader::new(tokio::io::stdin());
    let mut bytes = Vec::new();
    let read = loop {
        bytes.clear();
        match read_line(&mut input, &mut bytes).await {
            Ok(Line::End) => break Ok(()),
            Ok(Line::Read) => {}
            // Never held whole: the rest of it was passed over.
            Ok(Line::TooLong(n)) => {
                out.respond(
                    &Value::Null,
                    Err(RpcError::new(
                        super::wire::PARSE_ERROR,
                        format!(
                            "a message of {n} bytes or more; hermes takes at most {} MiB a line",
                            MAX_LINE >> 20
                        ),
                    )),
                );
                continue;
            }
            Err(e) => break Err(e),
        }
        // A byte that is not UTF-8 makes the line unparseable, answered
        // as such: never the end of the connection.
        let line = String::from_utf8_lossy(&bytes);
        if line.trim().is_empty() {
            continue;
        }
        match super::wire::parse(&line) {
            Err((id, e)) => out.respond(&id, Err(e)),
            Ok(Incoming::Response { id, result }) => out.answered(id, result),
            Ok(Incoming::Notification { method, params }) => state.notified(&method, &params),
            Ok(Incoming::Request { id, method, params }) => {
                let key = id.to_string();
                let prompt_of = (method == "session/prompt")
                    .then(|| params["sessionId"].as_str().map(str::to_string))
                    .flatten();
                let task_state = state.clone();
                let (task_id, task_key) = (id.clone(), key.clone());
                let task = tokio::task::spawn_local(async move {
                    let result = task_state.requested(&method, params).await;
                    if task_state
                        .in_flight
                        .borrow_mut()
                        .remove(&task_key)
                        .is_some()
                    {
                        task_state.out.respond(&task_id, result);
                    }
                });
                let running = InFlight {
                    id,
                    prompt_of,
                    task: task.abort_handle(),
                };
                state.in_flight.borrow_mut().insert(key, running);
            }
        }
    };
    // The editor has gone: what runs is stopped, every session's servers
    // with it, and the last lines are written.
    out.close();
    let sessions: Vec<Rc<super::session::Session>> = state
        .sessions
        .borrow_mut()
        .drain()
        .map(|(_, s)| s)
        .collect();
    for s in &sessions {
        s.end().await;
    }
    drop(sessions);
    drop(state);
    drop(out);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
    read
}

struct State {
    host: Rc<dyn Host>,
    out: Out,
    sessions: RefCell<HashMap<String, Rc<super::session::Session>>>,
    initialized: RefCell<bool>,
    /// The editor offers `fs/read_text_file`, `fs/write_text_file`.
    files: RefCell<(bool, bool)>,
    /// The editor shows `notice` updates (`session.notices`).
    notices: std::cell::Cell<bool>,
    /// The editor draws servers' forms (`elicitation.form`).
    forms: std::cell::Cell<bool>,
    /// The requests being answered, by their id's JSON text: what
    /// `$/cancel_request` gives up.
    in_flight: RefCell<HashMap<String, InFlight>>,
}

/// A request being answered.
struct InFlight {
    id: Value,
    /// A prompt's session: cancelling it stops the turn, which answers
    /// `cancelled` itself.
    prompt_of: Option<String>,
    task: tokio::task::AbortHandle,
}

impl State {
    fn notified(&self, method: &str, params: &Value) {
        if method == "session/cancel" {
            if let Ok(s) = self.session_of(params) {
                s.cancel();
            }
        }
        if method == "$/cancel_request" {
            let Some(key) = params.get("requestId").map(Value::to_string) else {
                return;
            };
            let prompt_of = match self.in_flight.borrow().get(&key) {
                Some(running) => running.prompt_of.clone(),
                None => return,
            };
            let session = prompt_of.and_then(|s| self.sessions.borrow().get(&s).cloned());
            match session {
                // The turn stops as at `session/cancel`; the prompt's own
                // answer (`cancelled`) is the one sent.
                Some(s) => s.cancel(),
                None => {
                    let running = self.in_flight.borrow_mut().remove(&key);
                    if let Some(running) = running {
                        running.task.abort();
                        self.out.respond(
                            &running.id,
                            Err(RpcError::new(
                                super::wire::REQUEST_CANCELLED,
                                "the request was cancelled",
                            )),
                        );
                    }
                }
            }
        }
        // Other notifications (extensions) ask nothing hermes does.
    }

    fn session_of(&self, params: &Value) -> Result<Rc<super::session::Session>, RpcError> {
        let id = params
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::params("\"sessionId\" is missing"))?;
        self.sessions.borrow().get(id).cloned().ok_or_else(|| {
            RpcError::new(
                super::wire::RESOURCE_NOT_FOUND,
                format!("no session {id} is open here; open it with session/load"),
            )
        })
    }

    async fn requested(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        if method != "initialize" && !*self.initialized.borrow() {
            return Err(RpcError::new(
                super::wire::INVALID_REQUEST,
                format!("{method} before initialize: initialize first"),
            ));
        }
        match method {
            "initialize" => self.initialize(&params),
            "authenticate" => {
                let m = params.get("methodId").and_then(Value::as_str).unwrap_or("");
                self.host.authenticate(m).map(|()| json!({}))
            }
            "session/new" | "session/load" | "session/resume" => self.open(method, &params).await,
            "session/list" => self.list(&params),
            "session/close" => {
                let s = self.session_of(&params)?;
                self.sessions.borrow_mut().remove(&s.id);
                s.end().await;
                Ok(json!({}))
            }
            "session/prompt" => {
                let s = self.session_of(&params)?;
                let (text, images) = super::prompt::message(&params["prompt"])?;
                s.prompt(text, images, &self.out).await
            }
            "session/set_config_option" => {
                let s = self.session_of(&params)?;
                let id = params.get("configId").and_then(Value::as_str).unwrap_or("");
                let options = s.set_option(id, params.get("value").unwrap_or(&Value::Null))?;
                Ok(json!({"configOptions": options}))
            }
            "session/set_mode" => {
                let s = self.session_of(&params)?;
                let mode = params.get("modeId").and_then(Value::as_str).unwrap_or("");
                s.set_mode(mode, &self.out)?;
                Ok(json!({}))
            }
            _ => Err(RpcError::new(
                super::wire::METHOD_NOT_FOUND,
                format!("hermes does not answer {method}"),
            )),
        }
    }

    fn initialize(&self, params: &Value) -> Result<Value, RpcError> {
        let asked = params
            .get("protocolVersion")
            .and_then(Value::as_u64)
            .ok_or_else(|| RpcError::params("\"protocolVersion\" must be a whole number"))?;
        *self.initialized.borrow_mut() = true;
        let offers = |k: &str| {
            params.pointer(&format!("/clientCapabilities/fs/{k}")) == Some(&Value::Bool(true))
        };
        *self.files.borrow_mut() = (offers("readTextFile"), offers("writeTextFile"));
        let offered = |p: &str| params.pointer(p).is_some_and(Value::is_object);
        self.notices
            .set(offered("/clientCapabilities/session/notices"));
        self.forms
            .set(offered("/clientCapabilities/elicitation/form"));
        Ok(json!({
            "protocolVersion": asked.min(PROTOCOL_VERSION),
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": true},
                "sessionCapabilities": {
                    "additionalDirectories": {},
                    "list": {},
                    "resume": {},
                    "close": {},
                },
            },
            "authMethods": self.host.auth_methods(),
            "agentInfo": {"name": "hermes", "title": "hermes", "version": self.host.version()},
        }))
    }

    async fn open(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        let resume = method == "session/resume";
        let mut open = super::session::open_params(params, method != "session/new")?;
        let (reads, writes) = *self.files.borrow();
        let asks = (reads || writes).then(|| {
            let (editor, asks) = crate::util::editor_files::EditorFiles::new(reads, writes);
            open.editor = Some(editor);
            asks
        });
        let cwd = open.cwd.clone();
        // `session/resume` opens it without telling it again.
        let load = open.load.is_some() && !resume;
        let opened = self.host.open(open).await?;
        let worktree = opened.worktree.clone();
        let s = Rc::new(super::session::Session::new(opened, cwd));
        s.notices.set(self.notices.get());
        if self.forms.get() {
            s.draw_forms();
        }
        if let Some(asks) = asks {
            s.serve_files(asks, &self.out);
        }
        if load {
            for u in s.replay() {
                self.out
                    .notify("session/update", json!({"sessionId": s.id, "update": u}));
            }
        }
        self.sessions.borrow_mut().insert(s.id.clone(), s.clone());
        s.list_models(&self.out);
        s.list_commands(&self.out);
        let mut answer =
            json!({"modes": super::session::modes(s.mode()), "configOptions": s.config_options()});
        if open_new(method) {
            answer["sessionId"] = json!(s.id);
        }
        // The folder is one of hermes' worktrees: the editor may say so.
        if let Some(w) = worktree {
            answer["_meta"] = json!({"hermes": {"worktree": {
                "name": w.name, "branch": w.branch, "path": w.path,
            }}});
        }
        Ok(answer)
    }

    /// `session/list`: the sessions kept — those of `cwd` when it is
    /// given — newest first, a page at a time.
    fn list(&self, params: &Value) -> Result<Value, RpcError> {
        let cwd = match params.get("cwd") {
            Some(Value::String(c)) if std::path::Path::new(c).is_absolute() => {
                Some(std::path::PathBuf::from(c))
            }
            None | Some(Value::Null) => None,
            Some(_) => return Err(RpcError::params("\"cwd\" must be an absolute path")),
        };
        let from = match params.get("cursor") {
            Some(Value::String(c)) => c
                .parse::<usize>()
                .map_err(|_| RpcError::params("\"cursor\" is not one hermes gave"))?,
            _ => 0,
        };
        let all = self.host.sessions(cwd.as_deref());
        let sessions: Vec<Value> = all
            .iter()
            .skip(from)
            .take(LIST_PAGE)
            .map(|s| {
                let mut v = json!({"sessionId": s.id, "cwd": s.cwd});
                if !s.title.is_empty() {
                    v["title"] = json!(s.title);
                }
                if let Some(u) = &s.updated {
                    v["updatedAt"] = json!(u);
                }
                v
            })
            .collect();
        let mut answer = json!({"sessions": sessions});
        if from + LIST_PAGE < all.len() {
            answer["nextCursor"] = json!((from + LIST_PAGE).to_string());
        }
        Ok(answer)
    }
}

/// Sessions a `session/list` answer holds at most.
const LIST_PAGE: usize = 100;

/// Whether `method` makes a new session (its answer names it).
fn open_new(method: &str) -> bool {
    method == "session/new"
}

/// The longest line hermes reads: eight images of 5 MiB as base64 and
/// their text fit well within it.
const MAX_LINE: usize = 96 << 20;

/// What reading a line gave.
enum Line {
    End,
    Read,
    /// Longer than [`MAX_LINE`]: at least this many bytes, passed over.
    TooLong(usize),
}

/// The next line into `bytes`, never more than [`MAX_LINE`] of it held.
async fn read_line(
    input: &mut (impl tokio::io::AsyncBufRead + Unpin),
    bytes: &mut Vec<u8>,
) -> std::io::Result<Line> {
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if bytes.is_empty() {
                Line::End
            } else {
                Line::Read
            });
        }
        let (take, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (buf.len(), false),
        };
        if bytes.len() + take > MAX_LINE {
            let seen = bytes.len() + take;
            input.consume(take);
            bytes.clear();
            if !done {
                skip_line(input).await?;
            }
            return Ok(Line::TooLong(seen));
        }
        bytes.extend_from_slice(&buf[..take]);
        input.consume(take);
        if done {
            return Ok(Line::Read);
        }
    }
}

/// Passes over the rest of a line.
async fn skip_line(input: &mut (impl tokio::io::AsyncBufRead + Unpin)) -> std::io::Result<()> {
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|b| *b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}
