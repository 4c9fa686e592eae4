//! The shell's way out under `[tools.shell] network = "allowed"`: an HTTP
//! proxy hermes runs outside the sandbox, on a socket of the session's own
//! loopback (the keeper made it there), which commands find in
//! `HTTP_PROXY`/`HTTPS_PROXY`. It speaks plain HTTP requests and CONNECT,
//! and lets through only what `[network]` allows — the same rules, the
//! same pinned address, as `web_fetch`. `host.hermes.internal` is this
//! machine, where `allow` names its port as hermes sees it
//! (`127.0.0.1:5432`). Anything else is answered 403 at once, with what to
//! write in config.toml, and told to hermes.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::config::NetworkSettings;

/// The name a command reaches this machine's own services by (as Docker's
/// `host.docker.internal`).
pub(crate) const HOST_NAME: &str = "host.hermes.internal";

/// The most of a request's head read.
const HEAD_BYTES: usize = 16 * 1024;
/// How long a client may take to send its head, and an upstream to accept.
const WITHIN: Duration = Duration::from_secs(10);

/// A connection the proxy refused: the host and port asked for, and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refused {
    pub host: String,
    pub port: u16,
    pub why: String,
    /// The `[network] allow` entry that would let it through (`127.0.0.1:5432`
    /// for `host.hermes.internal:5432`); `None` where a deny refused it,
    /// which no answer overrides.
    pub rule: Option<String>,
}

/// The rules the proxy applies: the config's, and what the person allowed
/// commands to reach since (read at each connection).
pub(crate) type LiveRules = Arc<std::sync::RwLock<NetworkSettings>>;

/// Where refusals are told.
pub(crate) type RefusedSink = Arc<dyn Fn(Refused) + Send + Sync>;

/// Serves `listener` until the task is aborted (the session's end).
pub(crate) async fn serve(listener: TcpListener, rules: LiveRules, told: RefusedSink) {
    loop {
        match listener.accept().await {
            Ok((conn, _)) => {
                let network = rules.read().map(|r| r.clone()).unwrap_or_default();
                let told = told.clone();
                tokio::spawn(async move {
                    let _ = handle(conn, &network, &told).await;
                });
            }
            // Out of descriptors, say: a moment, then on.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// What a request asks the proxy for.
#[derive(Debug, PartialEq)]
struct Asked {
    connect: bool,
    host: String,
    port: u16,
    /// The head to send upstream (a plain request's, in origin form).
    head: Vec<u8>,
}

async fn handle(
    mut conn: TcpStream,
    network: &NetworkSettings,
    told: &RefusedSink,
) -> std::io::Result<()> {
    let (head, rest) = match tokio::time::timeout(WITHIN, read_head(&mut conn)).await {
        Ok(Ok(h)) => h,
        _ => return answer(&mut conn, 400, "no request head in time").await,
    };
    let asked = match parse(&head) {
        Ok(a) => a,
        Err(why) => return answer(&mut conn, 400, &why).await,
    };
    let addr = match reach(network, &asked.host, asked.port).await {
        Ok(a) => a,
        Err(why) => {
            let denied = network.denied(&asked.host, asked.port).is_some();
            told(Refused {
                host: asked.host.clone(),
                port: asked.port,
                why: why.clone(),
                rule: (!denied).then(|| rule_for(&asked.host, asked.port)),
            });
            return answer(&mut conn, 403, &why).await;
        }
    };
    let mut up = match tokio::time::timeout(WITHIN, TcpStream::connect(addr)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            return answer(
                &mut conn,
                502,
                &format!("cannot reach {}:{}: {e}", asked.host, asked.port),
            )
            .await
        }
        Err(_) => {
            return answer(
                &mut conn,
                504,
                &format!("{}:{} did not answer in time", asked.host, asked.port),
            )
            .await
        }
    };
    if asked.connect {
        conn.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await?;
    } else {
        up.write_all(&asked.head).await?;
    }
    up.write_all(&rest).await?;
    tokio::io::copy_bidirectional(&mut conn, &mut up).await?;
    Ok(())
}

/// The address a request for `host:port` goes to, or why it is refused.
async fn reach(
    network: &NetworkSettings,
    host: &str,
    port: u16,
) -> Result<std::net::SocketAddr, String> {
    if let Some(rule) = network.denied(host, port) {
        return Err(format!(
            "{host}:{port} is denied by [network] deny (`{rule}`)"
        ));
    }
    if host.eq_ignore_ascii_case(HOST_NAME) {
        return ["127.0.0.1", "localhost"]
            .iter()
            .find(|h| network.allowed(h, port))
            .map(|_| std::net::SocketAddr::from(([127, 0, 0, 1], port)))
            .ok_or_else(|| {
                format!(
                    "{HOST_NAME}:{port} is this machine's port {port}, which [network] allow does \
                     not name (add \"127.0.0.1:{port}\" to it in config.toml)"
                )
            });
    }
    if !network.allowed(host, port) {
        let shown = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        return Err(format!(
            "{shown}:{port} is not in [network] allow (add \"{shown}\" to it in config.toml for \
             commands to reach it)"
        ));
    }
    super::resolve::pinned(network, host, port)
        .await
        .map_err(|e| e.to_string())
}

/// The `[network] allow` entry that lets commands reach `host:port`: this
/// machine's port for `host.hermes.internal`, else the host.
fn rule_for(host: &str, port: u16) -> String {
    if host.eq_ignore_ascii_case(HOST_NAME) {
        format!("127.0.0.1:{port}")
    } else {
        host.to_string()
    }
}

/// A request's head (through the blank line) and what came after it.
async fn read_head(conn: &mut TcpStream) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok((buf, rest));
        }
        if buf.len() > HEAD_BYTES {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
    }
}

/// What a head asks for: CONNECT `host:port`, or a request in absolute form
/// (`GET http://host:port/path HTTP/1.1`) rewritten to origin form, its
/// proxy headers dropped and the connection closed after it (the next
/// request on it may be for another host).
fn parse(head: &[u8]) -> Result<Asked, String> {
    let text =
        std::str::from_utf8(head).map_err(|_| "a request head that is not text".to_string())?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or("");
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "not an HTTP request: `{}`",
            crate::util::text::excerpt(first, 80)
        ));
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = authority(target, 443)?;
        return Ok(Asked {
            connect: true,
            host,
            port,
            head: Vec::new(),
        });
    }
    let Some(after) = target.strip_prefix("http://") else {
        return Err(format!(
            "`{target}`: this proxy takes http:// URLs and CONNECT (https goes through CONNECT)"
        ));
    };
    let (auth, path) = match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, "/"),
    };
    let (host, port) = authority(auth, 80)?;
    let mut out = format!("{method} {path} {version}\r\n");
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if name.starts_with("proxy-") || name == "connection" || name == "keep-alive" {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    Ok(Asked {
        connect: false,
        host,
        port,
        head: out.into_bytes(),
    })
}

/// `host:port`, `host` (with `default`), `[v6]:port`: the host as rules
/// name it (lower case, no brackets) and the port.
fn authority(s: &str, default: u16) -> Result<(String, u16), String> {
    let bad = || format!("`{s}` is not a host and port");
    let s = s.rsplit_once('@').map_or(s, |(_, h)| h);
    let (host, port) = if let Some(inner) = s.strip_prefix('[') {
        let (h, after) = inner.split_once(']').ok_or_else(bad)?;
        (h, after.strip_prefix(':'))
    } else {
        match s.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (s, None),
        }
    };
    let port = match port {
        None | Some("") => default,
        Some(p) => p.parse().ok().filter(|p| *p > 0).ok_or_else(bad)?,
    };
    if host.is_empty() {
        return Err(bad());
    }
    Ok((host.trim_end_matches('.').to_ascii_lowercase(), port))
}

/// A short answer from the proxy itself, the connection then closed.
async fn answer(conn: &mut TcpStream, code: u16, why: &str) -> std::io::Result<()> {
    let reason = match code {
        400 => "Bad Request",
        403 => "Forbidden",
        502 => "Bad Gateway",
        _ => "Gateway Timeout",
    };
    let body = format!("hermes: {why}\n");
    let head = format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    conn.write_all(head.as_bytes()).await?;
    conn.write_all(body.as_bytes()).await?;
    conn.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_request_is_rewritten_to_origin_form_and_closed() {
        let a = parse(
            b"GET http://Example.com:8080/a?b=1 HTTP/1.1\r\nHost: example.com:8080\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\nAccept: */*\r\n\r\n",
        )
        .unwrap();
        assert_eq!(
            (a.connect, a.host.as_str(), a.port),
            (false, "example.com", 8080)
        );
        assert_eq!(
            String::from_utf8(a.head).unwrap(),
            "GET /a?b=1 HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
        let c = parse(b"CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n").unwrap();
        assert_eq!((c.connect, c.host.as_str(), c.port), (true, "::1", 443));
        assert_eq!(
            parse(b"GET http://host.hermes.internal HTTP/1.1\r\n\r\n")
                .unwrap()
                .port,
            80
        );
    }

    #[test]
    fn what_is_not_a_proxy_request_says_so() {
        assert!(parse(b"GET /local HTTP/1.1\r\n\r\n")
            .unwrap_err()
            .contains("http:// URLs and CONNECT"));
        assert!(parse(b"CONNECT example.com:0 HTTP/1.1\r\n\r\n")
            .unwrap_err()
            .contains("not a host and port"));
        assert!(parse(b"garbage\r\n\r\n")
            .unwrap_err()
            .contains("not an HTTP request"));
    }

    #[tokio::test]
    async fn only_what_allow_names_is_reached_and_this_machine_by_its_name() {
        let network = NetworkSettings {
            allow: vec![
                "127.0.0.1:5432".to_string().try_into().unwrap(),
                "*.example.com".to_string().try_into().unwrap(),
            ],
            deny: vec!["bad.example.com".to_string().try_into().unwrap()],
        };
        assert_eq!(
            reach(&network, HOST_NAME, 5432).await.unwrap(),
            std::net::SocketAddr::from(([127, 0, 0, 1], 5432))
        );
        assert!(reach(&network, HOST_NAME, 5433)
            .await
            .unwrap_err()
            .contains("\"127.0.0.1:5433\""));
        assert!(reach(&network, "bad.example.com", 443)
            .await
            .unwrap_err()
            .contains("denied"));
        assert!(reach(&network, "other.org", 443)
            .await
            .unwrap_err()
            .contains("not in [network] allow"));
        // 127.0.0.1 is the command's own loopback: its name is not this machine.
        assert!(reach(&network, "localhost", 5432).await.is_err());
    }
}
