//! OAuth 2.1 for remote servers, as the MCP authorization spec describes
//! it — discovery (RFC 9728 protected-resource metadata, RFC 8414 and
//! OpenID authorization-server metadata, every well-known variant, the
//! 2025-03-26 default endpoints), client identity in the spec's order
//! (pre-registered, client ID metadata document, dynamic registration),
//! authorization code with PKCE S256, `state` and `resource`, refresh — is
//! rmcp's. What is hermes' own: where tokens live, and the person's side.
//!
//! - Tokens and registered clients are kept per server, owner-only
//!   (`<data>/oauth/<server>.json`, 0600 in 0700), never in config.toml,
//!   the session file or a log; the issuer they came from is kept with
//!   them, so tokens are never sent to another authorization server.
//! - The authorization URL opens in `$BROWSER` (a command, the URL its last
//!   argument), else the platform opener, else it is printed; the redirect
//!   comes back to a listener on 127.0.0.1 at a random port, its `state`
//!   checked; the wait is bounded and a stop ends it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession, CredentialStore,
    StoredCredentials,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::config::{OAuthEntry, Paths};

/// How long hermes waits for the browser to come back.
const LOGIN_WAIT: Duration = Duration::from_secs(300);

#[derive(Debug, thiserror::Error)]
pub(crate) enum OAuthError {
    #[error("server `{server}` needs you to log in; run `hermes mcp login {server}`")]
    NeedsLogin { server: String },
    #[error("cannot log in to server `{server}`: {detail}")]
    Failed { server: String, detail: String },
    #[error("no answer from the browser within {} s; run `hermes mcp login {server}` to try again", LOGIN_WAIT.as_secs())]
    TimedOut { server: String },
    #[error("the login to server `{server}` was stopped")]
    Stopped { server: String },
    #[error("server `{server}` no longer accepts hermes' stored login ({why}); run `hermes mcp login {server}`")]
    Refused { server: String, why: &'static str },
}

/// The OAuth errors that say the authorization server is done with the
/// stored login for good (RFC 6749 §5.2): it no longer knows the client, or
/// the grant. Retrying the refresh cannot help; only a new login can.
const FOR_GOOD: [&str; 3] = ["invalid_client", "unauthorized_client", "invalid_grant"];

/// Which of [`FOR_GOOD`] a failed connection's error names, if any.
pub(crate) fn refused_for_good(error: &str) -> Option<&'static str> {
    let refresh = error.contains("refresh");
    FOR_GOOD
        .into_iter()
        .find(|code| refresh && error.contains(code))
}

/// Beside a server's store: why its stored login was last refused, until
/// a new login or a logout.
fn refused_marker(store: &Path) -> PathBuf {
    store.with_extension("refused")
}

/// Records that the server refused the stored login, for `mcp list`.
pub(crate) fn mark_refused(store: &Path, why: &str) {
    let _ = crate::util::private::write(&refused_marker(store), why.as_bytes());
}

/// The server refused the stored login for good (`why`, one of
/// [`FOR_GOOD`]): noted for `mcp list`, and, when a new login can be asked
/// for and `may_retry`, the stale one forgotten so the login registers
/// anew. `Err`: the refusal to show.
pub(crate) fn on_refused(
    server: &str,
    store: &Path,
    why: &'static str,
    may_retry: bool,
) -> Result<(), OAuthError> {
    mark_refused(store, why);
    if !may_retry || !can_ask() {
        return Err(OAuthError::Refused {
            server: server.to_string(),
            why,
        });
    }
    let _ = logout(store);
    Ok(())
}

/// Where a server's tokens and client registration are kept.
pub(crate) fn store_path(paths: &Paths, server: &str) -> PathBuf {
    paths
        .data_dir
        .join("oauth")
        .join(format!("{}.json", super::naming::sanitize(server)))
}

/// Every token a stored credential holds — access, refresh, id, a client
/// secret — is masked wherever hermes writes or sends text, as its keys
/// are: a command or a server that prints one shows `[masked]`.
fn remember_tokens(bytes: &[u8]) {
    fn walk(v: &serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let secret = matches!(
                        k.as_str(),
                        "access_token" | "refresh_token" | "id_token" | "client_secret"
                    );
                    match v.as_str() {
                        Some(s) if secret => crate::util::secrets::remember(s),
                        _ => walk(v),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(walk),
            _ => {}
        }
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) {
        walk(&v);
    }
}

/// A server's credentials in one owner-only file.
pub(crate) struct FileStore(pub(crate) PathBuf);

#[async_trait::async_trait]
impl CredentialStore for FileStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match std::fs::read(&self.0) {
            Ok(bytes) => {
                remember_tokens(&bytes);
                Ok(serde_json::from_slice(&bytes).ok())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(AuthError::InternalError(format!(
                "cannot read {}: {e}",
                self.0.display()
            ))),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let bytes = serde_json::to_vec(&credentials)
            .map_err(|e| AuthError::InternalError(e.to_string()))?;
        remember_tokens(&bytes);
        // Whole or not at all: written beside, then renamed over.
        let tmp = self.0.with_extension("json.new");
        crate::util::private::write(&tmp, &bytes)
            .and_then(|()| std::fs::rename(&tmp, &self.0))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                AuthError::InternalError(format!("cannot write {}: {e}", self.0.display()))
            })
    }

    async fn clear(&self) -> Result<(), AuthError> {
        match std::fs::remove_file(&self.0) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(AuthError::InternalError(e.to_string())),
        }
    }
}

/// Whether a login can be carried out here: a person can be reached
/// through `$BROWSER` or a terminal.
pub(crate) fn can_ask() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("BROWSER").is_some_and(|b| !b.is_empty())
        || (std::io::stdin().is_terminal() && std::io::stderr().is_terminal())
}

/// The authorization manager for `url` with the server's stored
/// credentials, if any.
pub(crate) async fn manager(url: &str, store: &Path) -> Result<AuthorizationManager, AuthError> {
    crate::util::tls::install();
    let mut m = AuthorizationManager::new_allowing_private_addresses(url).await?;
    m.set_credential_store(FileStore(store.to_path_buf()));
    // A store from another issuer, or none: no tokens, the server decides.
    if let Err(AuthError::AuthorizationServerMismatch { .. }) = m.initialize_from_store().await {
        if let Some(legacy) = legacy_metadata(url).await {
            m.set_metadata(legacy);
            let _ = m.initialize_from_store().await;
        }
    }
    Ok(m)
}

/// The authorization server of a 2025-03-26 server, which publishes no
/// protected-resource metadata: `/.well-known/oauth-authorization-server`
/// at the MCP server's own origin. Such servers name an issuer that need
/// not match that URL (the rule came later); trusted because it is the
/// MCP server's own origin, and only when no protected-resource metadata
/// points elsewhere.
async fn legacy_metadata(url: &str) -> Option<rmcp::transport::auth::AuthorizationMetadata> {
    let mut base = reqwest::Url::parse(url).ok()?;
    base.set_path("/.well-known/oauth-authorization-server");
    base.set_query(None);
    let client = reqwest::Client::builder()
        .use_preconfigured_tls(crate::util::tls::config())
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .ok()?;
    let resp = client.get(base).send().await.ok()?;
    if !resp.status().is_success() {
        return None;
    }
    let bytes = resp.bytes().await.ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Authorizes hermes with `server` at `url`: discovery from the server's
/// challenge (`WWW-Authenticate`), the client identity the config gives or
/// registration, the browser, and the code exchanged for tokens, which
/// the store keeps. `scope`: a scope the server asked for (step-up).
pub(crate) async fn login(
    server: &str,
    url: &str,
    oauth: &OAuthEntry,
    store: &Path,
    challenge: Option<&str>,
    cancel: &CancellationToken,
) -> Result<(), OAuthError> {
    let failed = |detail: String| OAuthError::Failed {
        server: server.to_string(),
        detail,
    };
    let mut m = manager(url, store)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let metadata = match m.resolve_metadata_from_challenge(challenge).await {
        Ok(found) => found.metadata,
        Err(AuthError::AuthorizationServerMismatch { .. }) => {
            legacy_metadata(url).await.ok_or_else(|| {
                failed("its authorization server's metadata names another issuer".into())
            })?
        }
        Err(e) => return Err(failed(format!("no authorization server found: {e}"))),
    };
    m.set_metadata(metadata);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| failed(format!("cannot listen for the browser: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| failed(e.to_string()))?
        .port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let mut request = AuthorizationRequest::new(&redirect).with_client_name("hermes");
    if let Some(c) = challenge {
        request = request.with_challenge(c);
    }
    if !oauth.scopes.is_empty() {
        request = request.with_scopes(oauth.scopes.iter().cloned());
    }
    if let Some(id) = &oauth.client_id {
        request = request.with_preregistered_client(id);
        if let Some(secret) = oauth
            .client_secret_env
            .as_deref()
            .and_then(|v| std::env::var(v).ok())
        {
            crate::util::secrets::remember(&secret);
            request = request.with_client_secret(secret);
        }
    }
    if let Some(doc) = &oauth.client_metadata_url {
        request = request.with_client_metadata_url(doc);
    }
    let session = AuthorizationSession::new(m, request)
        .await
        .map_err(|(_, e)| failed(e.to_string()))?;
    let url = session.get_authorization_url();
    // Only a web page is opened: `$BROWSER file:///etc/passwd` or a
    // `javascript:` URL from a server's metadata is not.
    let web = reqwest::Url::parse(url)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
    if !web {
        return Err(failed(format!(
            "its authorization URL is not an http(s) address ({}); not opened",
            crate::util::sanitize::clean(&crate::util::secrets::mask(url))
        )));
    }
    open_browser(server, url);
    let callback = tokio::select! {
        _ = cancel.cancelled() => return Err(OAuthError::Stopped { server: server.into() }),
        r = tokio::time::timeout(LOGIN_WAIT, callback(&listener)) => match r {
            Err(_) => return Err(OAuthError::TimedOut { server: server.into() }),
            Ok(Err(e)) => return Err(failed(format!("the browser's answer: {e}"))),
            Ok(Ok(url)) => url,
        },
    };
    let full = format!("http://127.0.0.1:{port}{callback}");
    session
        .handle_callback_url(&full)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let _ = std::fs::remove_file(refused_marker(store));
    Ok(())
}

/// Forgets a server's tokens and client registration.
pub(crate) fn logout(store: &Path) -> std::io::Result<bool> {
    let _ = std::fs::remove_file(refused_marker(store));
    match std::fs::remove_file(store) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// What `mcp list` says of a server's login: `authorized until …`, `needs
/// login`, or nothing when it has never asked for one.
pub(crate) fn standing(store: &Path) -> Option<String> {
    if let Ok(why) = std::fs::read_to_string(refused_marker(store)) {
        return Some(format!(
            "needs login: the server refused the stored login ({})",
            crate::util::sanitize::clean(why.trim())
        ));
    }
    let bytes = std::fs::read(store).ok()?;
    let stored: StoredCredentials = serde_json::from_slice(&bytes).ok()?;
    let Some(token) = &stored.token_response else {
        return Some("needs login".into());
    };
    use oauth2::TokenResponse;
    let expires = token.expires_in().zip(stored.token_received_at);
    Some(match expires {
        Some((d, at)) => {
            let until = at + d.as_secs();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            if until > now || token.refresh_token().is_some() {
                format!(
                    "authorized until {}",
                    crate::util::time::Utc::from_unix(until as i64, 0).rfc3339()
                )
            } else {
                "needs login (the token expired)".into()
            }
        }
        None => "authorized".into(),
    })
}

/// Shows the authorization URL to the person: `$BROWSER URL`, else the
/// platform opener, and always a line saying what to open.
fn open_browser(server: &str, url: &str) {
    let browser = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let opened = match &browser {
        Some(cmd) => {
            let mut words = cmd.split_whitespace();
            words.next().is_some_and(|program| {
                std::process::Command::new(program)
                    .args(words)
                    .arg(url)
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .is_ok()
            })
        }
        None => std::process::Command::new(if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        })
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok(),
    };
    let how = if opened {
        "opened in your browser"
    } else {
        "open this URL"
    };
    crate::util::stderr::line(&format!(
        "server `{server}` asks you to log in — {how}: {url}"
    ));
}

/// Waits for the browser's redirect and answers it: the path and query it
/// came back to (`/callback?code=…&state=…`).
async fn callback(listener: &tokio::net::TcpListener) -> std::io::Result<String> {
    loop {
        let (mut sock, _) = listener.accept().await?;
        let mut buf = vec![0u8; 8192];
        let mut n = 0;
        while n < buf.len() {
            let k = sock.read(&mut buf[n..]).await?;
            if k == 0 {
                break;
            }
            n += k;
            if buf[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
        let head = String::from_utf8_lossy(&buf[..n]);
        let target = head
            .lines()
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("")
            .to_string();
        if !target.starts_with("/callback") {
            let _ = sock
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
            continue;
        }
        let body = "hermes is logged in; you can close this tab.";
        let _ = sock
            .write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            )
            .await;
        return Ok(target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stored_tokens_are_masked_once_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tracker.json");
        let access = "ya29.a0AfB_byC-access-3f9e1c7d2b";
        let refresh = "1//0gRefresh-Token_9a8b7c6d5e4f";
        std::fs::write(
            &path,
            serde_json::json!({
                "client_id": "hermes-client",
                "token_response": {"access_token": access, "token_type": "Bearer",
                                   "refresh_token": refresh, "expires_in": 3599}
            })
            .to_string(),
        )
        .unwrap();
        let text = format!("token {access} and {refresh}");
        assert_eq!(crate::util::secrets::mask_known(&text), text.as_str());
        let _ = FileStore(path).load().await;
        let masked = crate::util::secrets::mask_known(&text);
        assert!(
            !masked.contains(access) && !masked.contains(refresh),
            "{masked}"
        );
    }

    #[test]
    fn a_refresh_refused_for_good_is_known_and_shown_until_a_new_login() {
        let lost = "Send message error Transport error: Auth error: OAuth token refresh failed: \
                    Server returned error response: invalid_client: Client not found";
        assert_eq!(refused_for_good(lost), Some("invalid_client"));
        assert_eq!(
            refused_for_good("OAuth refresh token was rejected: invalid_grant"),
            Some("invalid_grant")
        );
        // A refresh that failed for a while (a 503), or a code outside a
        // refresh, is not a refusal for good.
        assert_eq!(refused_for_good("OAuth token refresh failed: 503"), None);
        assert_eq!(
            refused_for_good("invalid_client_metadata at registration"),
            None
        );

        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("linear.json");
        std::fs::write(&store, "{}").unwrap();
        mark_refused(&store, "invalid_client");
        assert_eq!(
            standing(&store).as_deref(),
            Some("needs login: the server refused the stored login (invalid_client)")
        );
        let e = OAuthError::Refused {
            server: "linear".into(),
            why: "invalid_client",
        };
        assert_eq!(
            e.to_string(),
            "server `linear` no longer accepts hermes' stored login (invalid_client); run `hermes mcp login linear`"
        );
        assert!(logout(&store).unwrap());
        assert_eq!(standing(&store), None, "a logout forgets the refusal too");
    }
}
