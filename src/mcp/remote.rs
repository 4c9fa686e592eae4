//! Remote servers over streamable HTTP (MCP 2025-11-25, down to 2025-03-26):
//! rmcp's transport — JSON and SSE answers, `Mcp-Session-Id`, the GET
//! stream for server messages, resumption with `Last-Event-ID` after the
//! server's `retry:` delay, a new session after a 404, DELETE when closed —
//! with hermes' static headers, a bearer token from the environment, or
//! OAuth ([`super::oauth`]). A remote server is one more server in the
//! registry: everything else (lazy start, catalogs, gates, timeouts,
//! cancellation, results) is the same as for a local one.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use tokio_util::sync::CancellationToken;

use super::client::{ConnectError, Handler, Service};
use super::legacy_sse as legacy;
use super::oauth::{self, OAuthError};
use super::stale_session::StaleSessionAware;
use crate::config::RemoteSettings;

/// Why a remote server could not be reached.
#[derive(Debug)]
pub(super) enum RemoteError {
    Connect(ConnectError),
    OAuth(OAuthError),
    /// A header or the bearer token variable is unusable.
    Config(String),
}

/// The HTTP client for one server: its connect timeout, hermes' user agent.
/// With `headers` configured, a redirect to another origin is not followed:
/// the HTTP stack would carry them along (it drops only the standard
/// credentials), and a server's `X-Api-Key` is for that server alone. A
/// redirect within the origin is followed, at most ten times.
/// Why a redirect was not followed is kept in `refused`, for the error line
/// (the SDK's error would bury it).
fn http_client(
    timeout: Duration,
    headers: bool,
    refused: Arc<Mutex<Option<String>>>,
) -> Result<reqwest::Client, RemoteError> {
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= 10 {
            return attempt.error("too many redirects");
        }
        let from = attempt.previous().first().map(|u| u.origin());
        if headers && from.as_ref() != Some(&attempt.url().origin()) {
            let to = crate::util::secrets::mask(attempt.url().as_str()).into_owned();
            let why = format!(
                "the server redirected to another origin ({to}); its configured headers are \
                 not sent there — set the server's url to where it points"
            );
            if let Ok(mut r) = refused.lock() {
                *r = Some(why.clone());
            }
            return attempt.error(why);
        }
        attempt.follow()
    });
    reqwest::Client::builder()
        .use_preconfigured_tls(crate::util::tls::config())
        .connect_timeout(timeout)
        .redirect(policy)
        .user_agent(concat!("hermes/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| RemoteError::Config(format!("cannot build an HTTP client: {e}")))
}

/// The transport's settings: the URL, the configured headers, and a bearer
/// token from `bearer_token_env`.
fn transport_config(
    server: &str,
    remote: &RemoteSettings,
) -> Result<StreamableHttpClientTransportConfig, RemoteError> {
    let mut headers = HashMap::new();
    for (k, v) in &remote.headers {
        let name = http::HeaderName::from_bytes(k.as_bytes()).map_err(|_| {
            RemoteError::Config(format!(
                "mcp_servers.{server}.headers: `{k}` is not a header name"
            ))
        })?;
        let value = http::HeaderValue::from_str(v).map_err(|_| {
            RemoteError::Config(format!(
                "mcp_servers.{server}.headers.{k}: the value is not a header value"
            ))
        })?;
        if crate::util::secrets::looks_secret(k) {
            crate::util::secrets::remember(v);
        }
        headers.insert(name, value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(remote.url.as_str())
        .custom_headers(headers)
        .reinit_on_expired_session(true);
    if let Some(var) = &remote.bearer_token_env {
        let token = std::env::var(var)
            .ok()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                RemoteError::Config(format!(
                    "mcp_servers.{server}.bearer_token_env: ${var} is not set"
                ))
            })?;
        crate::util::secrets::remember(&token);
        config = config.auth_header(token);
    }
    Ok(config)
}

/// Connects to a remote server and completes the MCP handshake within
/// `timeout`. Without a bearer token the connection is OAuth-ready: tokens
/// stored from an earlier login are used and refreshed; a server that asks
/// for authorization (401) gets the login flow when a person can be asked
/// (`$BROWSER`, a terminal), else the error says to run `hermes mcp login`.
pub(super) async fn connect(
    server: &str,
    remote: &RemoteSettings,
    store: &Path,
    handler: impl Fn() -> Handler,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Service, RemoteError> {
    let refused = Arc::new(Mutex::new(None));
    let client = http_client(timeout, !remote.headers.is_empty(), refused.clone())?;
    let got = connect_with(client, server, remote, store, handler, timeout, cancel).await;
    match (got, refused.lock().ok().and_then(|mut r| r.take())) {
        (Err(_), Some(why)) => Err(RemoteError::Config(why)),
        (got, _) => got,
    }
}

async fn connect_with(
    client: reqwest::Client,
    server: &str,
    remote: &RemoteSettings,
    store: &Path,
    handler: impl Fn() -> Handler,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Service, RemoteError> {
    let config = transport_config(server, remote)?;
    if let Some(var) = &remote.bearer_token_env {
        let transport = StreamableHttpClientTransport::with_client(
            StaleSessionAware(client.clone()),
            config.clone(),
        );
        return match super::client::serve(handler(), transport, timeout).await {
            Err(ConnectError::Failed(e)) if e.is_authorization_required() => Err(
                RemoteError::Config(token_refused(server, var, e.auth_challenge().unwrap_or(""))),
            ),
            tried => or_legacy(tried, &client, &config, &handler, timeout).await,
        };
    }
    // Twice at most: once as things are, once after a login.
    for attempt in 0..2 {
        let manager = oauth::manager(&remote.url, store)
            .await
            .map_err(|e| RemoteError::Config(format!("server `{server}`: {e}")))?;
        let transport = StreamableHttpClientTransport::with_client(
            StaleSessionAware(AuthClient::new(client.clone(), manager)),
            config.clone(),
        );
        let served = super::client::serve(handler(), transport, timeout).await;
        let refused = match &served {
            Err(ConnectError::Failed(e)) => oauth::refused_for_good(&e.to_string()),
            _ => None,
        };
        match (served, refused) {
            (Err(ConnectError::Failed(e)), _)
                if e.is_authorization_required() || e.auth_challenge().is_some() =>
            {
                if attempt > 0 || !oauth::can_ask() {
                    return Err(RemoteError::OAuth(OAuthError::NeedsLogin {
                        server: server.to_string(),
                    }));
                }
                let challenge = e.auth_challenge().map(str::to_string);
                oauth::login(
                    server,
                    &remote.url,
                    &remote.oauth,
                    store,
                    challenge.as_deref(),
                    cancel,
                )
                .await
                .map_err(RemoteError::OAuth)?;
            }
            // The authorization server no longer knows the client or the
            // grant (it lost its registrations): a refresh cannot help, a
            // new login (a new registration) can.
            (Err(ConnectError::Failed(_)), Some(why)) => {
                oauth::on_refused(server, store, why, attempt == 0).map_err(RemoteError::OAuth)?;
                oauth::login(server, &remote.url, &remote.oauth, store, None, cancel)
                    .await
                    .map_err(RemoteError::OAuth)?;
            }
            (other, _) => return or_legacy(other, &client, &config, &handler, timeout).await,
        }
    }
    Err(RemoteError::OAuth(OAuthError::NeedsLogin {
        server: server.to_string(),
    }))
}

/// A streamable-HTTP handshake's outcome, or — where it failed for a
/// reason other than authorization or time — the server's legacy HTTP+SSE
/// transport, when a GET of the same URL offers one (MCP's
/// backwards-compatibility rule). Otherwise the first failure stands.
async fn or_legacy(
    tried: Result<Service, ConnectError>,
    client: &reqwest::Client,
    config: &StreamableHttpClientTransportConfig,
    handler: &impl Fn() -> Handler,
    timeout: Duration,
) -> Result<Service, RemoteError> {
    let Err(ConnectError::Failed(e)) = &tried else {
        return tried.map_err(RemoteError::Connect);
    };
    if e.is_authorization_required() || e.auth_challenge().is_some() {
        return tried.map_err(RemoteError::Connect);
    }
    let mut headers = http::HeaderMap::new();
    for (k, v) in &config.custom_headers {
        headers.insert(k.clone(), v.clone());
    }
    if let Some(token) = &config.auth_header {
        if let Ok(v) = http::HeaderValue::from_str(&format!("Bearer {token}")) {
            headers.insert(http::header::AUTHORIZATION, v);
        }
    }
    match super::legacy_sse::open(client.clone(), &config.uri, headers, timeout).await {
        Ok(transport) => super::client::serve(handler(), transport, timeout)
            .await
            .map_err(RemoteError::Connect),
        Err(legacy::LegacyError::ForeignEndpoint(to)) => Err(RemoteError::Config(format!(
            "the server's HTTP+SSE endpoint `{to}` is on another origin; refused"
        ))),
        Err(_) => tried.map_err(RemoteError::Connect),
    }
}

/// A server refused the token configured by `bearer_token_env`: no login
/// can help, the variable must change.
pub(super) fn token_refused(server: &str, var: &str, challenge: &str) -> String {
    let why = match challenge {
        "" => String::new(),
        c => format!(" ({})", crate::util::text::excerpt(c, 200)),
    };
    format!("server `{server}` refused the token in ${var}{why}; set a valid token and try again")
}

/// What a failed connection means for the user, in one line.
pub(super) fn error(
    server: &str,
    url: &str,
    e: RemoteError,
    timeout: Duration,
) -> super::ServerError {
    let url = crate::util::secrets::mask(url).into_owned();
    let detail = match e {
        RemoteError::OAuth(o) => return super::ServerError::Auth(o.to_string()),
        RemoteError::Config(c) => c,
        RemoteError::Connect(ConnectError::Timeout) => format!(
            "no answer to the MCP handshake after {} ms",
            timeout.as_millis()
        ),
        RemoteError::Connect(ConnectError::Failed(e)) => crate::util::text::root_cause(&*e),
    };
    super::ServerError::Remote {
        server: server.to_string(),
        url,
        detail: crate::util::secrets::mask(&detail).into_owned(),
    }
}
