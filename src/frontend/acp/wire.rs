//! JSON-RPC 2.0 as ACP carries it: one message per line on stdin and
//! stdout. Stdout is written by one task only, a line at a time, so a
//! `session/update` never interleaves with a response; what hermes sends
//! goes through [`crate::util::secrets::mask_known`] first, as `--json`
//! does, so a value the editor gave as an MCP server's env or header never
//! reaches the editor's log either.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, oneshot};

/// JSON-RPC's own error codes, and ACP's.
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;
pub(crate) const AUTH_REQUIRED: i64 = -32000;
pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;
/// `$/cancel_request` answered: the request was given up.
pub(crate) const REQUEST_CANCELLED: i64 = -32800;

/// A JSON-RPC error as the client gets it: hermes' one-line message, and
/// its hint (the fix) in `data`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
    pub hint: Option<String>,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            hint: None,
        }
    }

    pub(crate) fn params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    pub(crate) fn hint(mut self, hint: Option<String>) -> RpcError {
        self.hint = hint;
        self
    }

    fn to_json(&self) -> Value {
        let mut e = json!({"code": self.code, "message": self.message});
        if let Some(h) = &self.hint {
            e["data"] = json!({"hint": h});
        }
        e
    }
}

/// One line read from the client.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The answer to a request hermes sent.
    Response {
        id: u64,
        result: Result<Value, Value>,
    },
}

/// A line as the client sent it, or the error to answer it with (and the
/// id to answer, when the line had one).
pub(crate) fn parse(line: &str) -> Result<Incoming, (Value, RpcError)> {
    let v: Value = serde_json::from_str(line).map_err(|e| {
        (
            Value::Null,
            RpcError::new(PARSE_ERROR, format!("not JSON: {e}")),
        )
    })?;
    let Some(obj) = v.as_object() else {
        return Err((
            Value::Null,
            RpcError::new(INVALID_REQUEST, "a message must be one JSON object"),
        ));
    };
    let id = obj.get("id").cloned();
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((
            id.unwrap_or(Value::Null),
            RpcError::new(INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\""),
        ));
    }
    let params = obj.get("params").cloned().unwrap_or(Value::Null);
    match (obj.get("method").and_then(Value::as_str), id) {
        (Some(m), Some(id)) => Ok(Incoming::Request {
            id,
            method: m.to_string(),
            params,
        }),
        (Some(m), None) => Ok(Incoming::Notification {
            method: m.to_string(),
            params,
        }),
        (None, Some(id)) => {
            let Some(n) = id.as_u64() else {
                return Err((
                    Value::Null,
                    RpcError::new(INVALID_REQUEST, "a response to an id hermes never sent"),
                ));
            };
            let result = match (obj.get("result"), obj.get("error")) {
                (_, Some(e)) => Err(e.clone()),
                (Some(r), None) => Ok(r.clone()),
                (None, None) => Ok(Value::Null),
            };
            Ok(Incoming::Response { id: n, result })
        }
        (None, None) => Err((
            Value::Null,
            RpcError::new(INVALID_REQUEST, "a message needs a \"method\" or an \"id\""),
        )),
    }
}

/// What hermes sends the client, cloned wherever a task sends: requests
/// get ids from one counter and their answers come back by it.
#[derive(Clone)]
pub(crate) struct Out {
    lines: mpsc::UnboundedSender<String>,
    next: Rc<RefCell<u64>>,
    waiting: Rc<RefCell<HashMap<u64, Answer>>>,
}

/// Where the client's answer to one request goes: its result, or the
/// error it sent.
type Answer = oneshot::Sender<Result<Value, Value>>;

impl Out {
    /// The sender, and the task that writes what it is given to stdout
    /// (it ends when every sender is gone, the last line flushed).
    pub(crate) fn stdout() -> (Out, tokio::task::JoinHandle<()>) {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let writer = tokio::task::spawn_local(async move {
            let mut stdout = tokio::io::stdout();
            while let Some(line) = rx.recv().await {
                let written = async {
                    stdout.write_all(line.as_bytes()).await?;
                    stdout.write_all(b"\n").await?;
                    stdout.flush().await
                };
                if written.await.is_err() {
                    // The editor has gone: nothing more to say to it.
                    break;
                }
            }
        });
        (Out::with(tx), writer)
    }

    pub(crate) fn with(lines: mpsc::UnboundedSender<String>) -> Out {
        Out {
            lines,
            next: Rc::default(),
            waiting: Rc::default(),
        }
    }

    fn send(&self, v: &Value) {
        let line = v.to_string();
        let _ = self
            .lines
            .send(crate::util::secrets::mask_known(&line).into_owned());
    }

    pub(crate) fn respond(&self, id: &Value, result: Result<Value, RpcError>) {
        self.send(&match result {
            Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e.to_json()}),
        });
    }

    pub(crate) fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request; its answer (or the error the client gave) comes on
    /// the receiver, which closes if the client goes away first.
    pub(crate) fn request(
        &self,
        method: &str,
        params: Value,
    ) -> oneshot::Receiver<Result<Value, Value>> {
        let id = {
            let mut n = self.next.borrow_mut();
            *n += 1;
            *n
        };
        let (tx, rx) = oneshot::channel();
        self.waiting.borrow_mut().insert(id, tx);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx
    }

    /// An answer from the client to request `id`, handed to its waiter.
    pub(crate) fn answered(&self, id: u64, result: Result<Value, Value>) {
        if let Some(tx) = self.waiting.borrow_mut().remove(&id) {
            let _ = tx.send(result);
        }
    }

    /// The client has gone: every request still waiting fails.
    pub(crate) fn close(&self) {
        self.waiting.borrow_mut().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_into_requests_notifications_and_answers_or_say_what_is_wrong() {
        assert_eq!(
            parse(
                r#"{"jsonrpc":"2.0","id":"a-1","method":"initialize","params":{"protocolVersion":1}}"#
            ),
            Ok(Incoming::Request {
                id: json!("a-1"),
                method: "initialize".into(),
                params: json!({"protocolVersion": 1})
            })
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#),
            Ok(Incoming::Notification {
                method: "session/cancel".into(),
                params: json!({"sessionId": "s"})
            })
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}"#),
            Ok(Incoming::Response {
                id: 3,
                result: Err(json!({"code": -32601, "message": "no"}))
            })
        );
        for (line, code) in [
            ("hello", PARSE_ERROR),
            ("[1]", INVALID_REQUEST),
            (r#"{"id":1,"method":"x"}"#, INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0"}"#, INVALID_REQUEST),
        ] {
            assert_eq!(parse(line).unwrap_err().1.code, code, "{line}");
        }
    }
}
