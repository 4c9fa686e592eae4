//! A fake connector gateway on 127.0.0.1: `GET /tools` lists two tools,
//! `POST /dispatch` answers every call with `"<name> ok: <arguments>"`, and
//! every request is counted and kept.

#![allow(dead_code)]

use std::io::{BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use super::fake_provider::{read_request, Recorded};

pub struct FakeGateway {
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// How many `GET /tools` still answer 503 (a gateway that is down).
    failing_listings: Arc<Mutex<usize>>,
}

impl FakeGateway {
    pub fn start() -> FakeGateway {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let failing_listings: Arc<Mutex<usize>> = Arc::default();
        let reqs = requests.clone();
        let failing = failing_listings.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut stream) = conn else { continue };
                let reqs = reqs.clone();
                let failing = failing.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    while let Some(req) = read_request(&mut reader) {
                        let down = req.path == "/tools" && {
                            let mut n = failing.lock().unwrap();
                            let down = *n > 0;
                            *n = n.saturating_sub(1);
                            down
                        };
                        let (status, body) = if down {
                            ("503 Service Unavailable", r#"{"error":"down"}"#.to_string())
                        } else {
                            ("200 OK", answer(&req))
                        };
                        reqs.lock().unwrap().push(req);
                        let head = format!(
                            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                            body.len()
                        );
                        if stream
                            .write_all(head.as_bytes())
                            .and_then(|_| stream.write_all(body.as_bytes()))
                            .is_err()
                        {
                            return;
                        }
                    }
                });
            }
        });
        FakeGateway {
            port,
            requests,
            failing_listings,
        }
    }

    /// The next `n` listings answer 503.
    pub fn fail_listings(&self, n: usize) {
        *self.failing_listings.lock().unwrap() = n;
    }

    pub fn listings(&self) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.path == "/tools")
            .count()
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    pub fn dispatches(&self) -> Vec<serde_json::Value> {
        self.requests()
            .iter()
            .filter(|r| r.path == "/dispatch")
            .map(|r| r.json())
            .collect()
    }
}

fn answer(req: &Recorded) -> String {
    if req.path == "/tools" {
        return serde_json::json!({"tools": [
            {"name": "connectors__crm_find_customer", "description": "Find a customer in the CRM by name.",
             "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
            {"name": "connectors__tickets_open", "description": "Open a support ticket.",
             "input_schema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}}
        ]})
        .to_string();
    }
    let body = req.json();
    let results: Vec<serde_json::Value> = body["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| serde_json::json!({"id": c["id"], "content": format!("{} ok: {}", c["name"].as_str().unwrap(), c["arguments"]), "is_error": false}))
        .collect();
    serde_json::json!({ "results": results }).to_string()
}
