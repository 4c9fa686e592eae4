//! An HTTP proxy in front of a real MCP server that brings the faults of a
//! network on cue: a stream cut in the middle of a result, a session the
//! server has forgotten (404), a token refused mid-session (401), a server
//! too slow to answer. Everything else passes through unchanged, one
//! request per connection, and every request is logged.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What to do to the next request whose body contains a marker.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Forward it; relay the answer up to the middle of its first JSON-RPC
    /// result, then close the connection.
    CutMidResult,
    /// Answer with this status, these extra header lines, and no body.
    Answer(u16, &'static str),
    /// Wait this long, then forward it.
    Delay(Duration),
}

/// One request the proxy saw.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub session: Option<String>,
    pub last_event_id: Option<String>,
    pub body: String,
}

pub struct FaultProxy {
    pub port: u16,
    faults: Arc<Mutex<Vec<(String, Fault)>>>,
    log: Arc<Mutex<Vec<Seen>>>,
}

impl FaultProxy {
    /// A proxy on a port of its own, forwarding to `upstream` (a port on
    /// 127.0.0.1).
    pub fn start(upstream: u16) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let faults: Arc<Mutex<Vec<(String, Fault)>>> = Arc::default();
        let log: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let (f, l) = (faults.clone(), log.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (f, l) = (f.clone(), l.clone());
                std::thread::spawn(move || serve(client, upstream, &f, &l));
            }
        });
        FaultProxy { port, faults, log }
    }

    /// `fault` for the next request whose body contains `marker` (once).
    pub fn on_next(&self, marker: &str, fault: Fault) {
        self.faults
            .lock()
            .unwrap()
            .push((marker.to_string(), fault));
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.log.lock().unwrap().clone()
    }

    /// How many requests carried a body containing `marker`.
    pub fn count(&self, marker: &str) -> usize {
        self.seen()
            .iter()
            .filter(|s| s.body.contains(marker))
            .count()
    }
}

fn serve(
    client: TcpStream,
    upstream: u16,
    faults: &Mutex<Vec<(String, Fault)>>,
    log: &Mutex<Vec<Seen>>,
) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut head = Vec::new();
    let mut length = 0usize;
    let mut session = None;
    let mut last_event_id = None;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("mcp-session-id:") {
            session = Some(line[15..].trim().to_string());
        }
        if lower.starts_with("last-event-id:") {
            last_event_id = Some(line[14..].trim().to_string());
        }
        if !lower.starts_with("connection:") {
            head.extend_from_slice(line.as_bytes());
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    let method = String::from_utf8_lossy(&head)
        .split(' ')
        .next()
        .unwrap_or("")
        .to_string();
    log.lock().unwrap().push(Seen {
        method,
        session,
        last_event_id,
        body: text.clone(),
    });
    let fault = {
        let mut f = faults.lock().unwrap();
        let at = f.iter().position(|(m, _)| text.contains(m.as_str()));
        at.map(|i| f.remove(i).1)
    };
    let mut client = client;
    if let Some(Fault::Answer(status, headers)) = &fault {
        let _ = write!(
            client,
            "HTTP/1.1 {status} Fault\r\n{headers}content-length: 0\r\nconnection: close\r\n\r\n"
        );
        return;
    }
    if let Some(Fault::Delay(d)) = &fault {
        std::thread::sleep(*d);
    }
    let Ok(mut up) = TcpStream::connect(("127.0.0.1", upstream)) else {
        return;
    };
    head.extend_from_slice(b"connection: close\r\n\r\n");
    if up.write_all(&head).is_err() || up.write_all(&body).is_err() {
        return;
    }
    // The answer's head with `connection: close`: the client must not send
    // its next request down a connection this thread no longer reads.
    let mut up = BufReader::new(up);
    let mut length = None;
    let mut chunked = false;
    let mut answer_head = Vec::new();
    loop {
        line.clear();
        if up.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
        chunked |= lower.starts_with("transfer-encoding:") && lower.contains("chunked");
        if !lower.starts_with("connection:") {
            answer_head.extend_from_slice(line.as_bytes());
        }
    }
    answer_head.extend_from_slice(b"connection: close\r\n\r\n");
    if client.write_all(&answer_head).is_err() {
        return;
    }
    let cut = matches!(fault, Some(Fault::CutMidResult));
    let mut relayed = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        if length.is_some_and(|l| relayed.len() >= l)
            || (chunked && relayed.ends_with(b"0\r\n\r\n"))
        {
            return;
        }
        let n = match up.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        relayed.extend_from_slice(&buf[..n]);
        if cut {
            if let Some(at) = find(&relayed, b"\"result\"") {
                let already = relayed.len() - n;
                let upto = (at + 12).saturating_sub(already).min(n);
                let _ = client.write_all(&buf[..upto]);
                let _ = client.flush();
                return;
            }
        }
        if client.write_all(&buf[..n]).is_err() {
            return;
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
