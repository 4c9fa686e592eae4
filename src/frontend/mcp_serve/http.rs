//! `hermes mcp serve --http ADDR`: the same server over streamable HTTP at
//! `/mcp` (rmcp's service on hyper's HTTP/1 server). Against DNS
//! rebinding, a request must name this machine's loopback (or the address
//! served) in `Host`, and a browser's `Origin` must be a loopback one; with
//! `--token-env NAME`, every request must carry `Authorization: Bearer`
//! and that token (401 otherwise).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tower_service::Service;

use super::handler::Served;

/// Serves clients at `http://ADDR/mcp` until `stop`; then the servers
/// hermes started, and its background processes, end.
pub(crate) async fn serve_http(
    served: Served,
    addr: SocketAddr,
    token: Option<String>,
    stop: CancellationToken,
) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    errln!("hermes mcp serve: http://{local}/mcp");
    let port = local.port();
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .flat_map(|h| [h.to_string(), format!("{h}:{port}")])
        .collect();
    hosts.push("::1".into());
    if !local.ip().is_loopback() && !local.ip().is_unspecified() {
        hosts.push(local.ip().to_string());
        hosts.push(local.to_string());
    }
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"])
        .with_cancellation_token(stop.child_token());
    let mcp = served.mcp.clone();
    let background = served.tools.background().clone();
    let service = StreamableHttpService::new(
        move || Ok(served.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token: Option<Arc<str>> = token.map(Into::into);
    loop {
        let (stream, _) = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(_) => continue,
            },
        };
        let service = service.clone();
        let token = token.clone();
        let handle = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let mut service = service.clone();
            let token = token.clone();
            async move {
                if let Some(t) = &token {
                    if !bearer_matches(&req, t) {
                        return Ok::<_, Infallible>(unauthorized());
                    }
                }
                service.call(req).await
            }
        });
        let stop = stop.clone();
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), handle);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stop.cancelled() => conn.as_mut().graceful_shutdown(),
            }
        });
    }
    background.end_session();
    mcp.shutdown().await;
    Ok(())
}

/// Whether the request carries `Authorization: Bearer TOKEN`, compared in
/// time that does not depend on where it differs.
fn bearer_matches(req: &hyper::Request<Incoming>, token: &str) -> bool {
    let Some(given) = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (a, b) = (given.as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

fn unauthorized() -> http::Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let body = Full::new(Bytes::from_static(
        br#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"hermes mcp serve: a bearer token is required (Authorization: Bearer ...)"},"id":null}"#,
    ))
    .boxed();
    let mut r = http::Response::new(body);
    *r.status_mut() = http::StatusCode::UNAUTHORIZED;
    r.headers_mut().insert(
        http::header::WWW_AUTHENTICATE,
        http::HeaderValue::from_static("Bearer"),
    );
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}
