//! The remote connector gateway. Its tools are named `connectors__…`; they are
//! listed once (`GET {url}/tools`) for search, and run with
//! `POST {url}/dispatch` — a whole `connectors__`-only batch in one request.
//! Protocol: docs/gateway-protocol.md.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::call::ToolOutput;
use crate::config::ConnectorSettings;
use crate::util::text::excerpt;

#[derive(Debug, Deserialize)]
struct Listing {
    tools: Vec<WireTool>,
}

/// One tool of the gateway's listing, named with its `connectors__` prefix.
#[derive(Debug, Clone)]
pub struct ConnectorTool {
    pub name: String,
    pub description: String,
    pub schema: Value,
}

#[derive(Debug, Deserialize)]
struct WireTool {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default = "empty_schema", alias = "inputSchema")]
    input_schema: Value,
}

fn empty_schema() -> Value {
    serde_json::json!({"type": "object"})
}

#[derive(Debug, Serialize)]
pub struct DispatchCall<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub arguments: &'a Value,
}

#[derive(Debug, Deserialize)]
struct DispatchReply {
    results: Vec<DispatchResult>,
}

#[derive(Debug, Deserialize)]
struct DispatchResult {
    id: String,
    #[serde(default)]
    content: Value,
    #[serde(default)]
    is_error: bool,
}

/// Why the gateway could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GatewayError {
    #[error("connector gateway at {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("connector gateway at {url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("connector gateway at {url} sent a listing that is not valid: {reason}")]
    BadListing { url: String, reason: String },
}

/// After a failed listing, calls within this long get the same error
/// instead of another request: a gateway that is down is not asked once per
/// entry, and one that comes back is listed again soon.
const RETRY_AFTER: Duration = Duration::from_secs(5);

pub struct Gateway {
    url: String,
    token: Option<String>,
    client: reqwest::Client,
    timeout: Duration,
    /// A successful listing, kept for the run and read without waiting.
    listing: std::sync::OnceLock<Vec<ConnectorTool>>,
    /// The last failed listing, kept only for [`RETRY_AFTER`]. The lock makes
    /// concurrent callers share one request.
    failed: Mutex<Option<(tokio::time::Instant, GatewayError)>>,
}

impl Gateway {
    pub fn new(cfg: &ConnectorSettings) -> Gateway {
        Gateway {
            url: cfg.url.trim_end_matches('/').to_string(),
            token: cfg
                .token_env
                .as_deref()
                .and_then(|v| std::env::var(v).ok())
                .inspect(|t| crate::util::secrets::remember(t)),
            client: reqwest::Client::builder()
                .use_preconfigured_tls(crate::util::tls::config())
                .build()
                .unwrap_or_default(),
            timeout: cfg.timeout,
            listing: std::sync::OnceLock::new(),
            failed: Mutex::new(None),
        }
    }

    fn request(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let rb = rb.timeout(self.timeout);
        match &self.token {
            Some(t) => rb.bearer_auth(t),
            None => rb,
        }
    }

    /// The gateway's tools: fetched once per run when the gateway answers,
    /// fetched again (after a short pause) when it did not.
    pub async fn tools(&self) -> Result<Vec<ConnectorTool>, GatewayError> {
        if let Some(t) = self.listing.get() {
            return Ok(t.clone());
        }
        let mut failed = self.failed.lock().await;
        // Another caller may have listed while this one waited for the lock.
        if let Some(t) = self.listing.get() {
            return Ok(t.clone());
        }
        if let Some((at, e)) = failed.as_ref() {
            if at.elapsed() < RETRY_AFTER {
                return Err(e.clone());
            }
        }
        match self.fetch_listing().await {
            Ok(t) => {
                *failed = None;
                Ok(self.listing.get_or_init(|| t).clone())
            }
            Err(e) => {
                *failed = Some((tokio::time::Instant::now(), e.clone()));
                Err(e)
            }
        }
    }

    async fn fetch_listing(&self) -> Result<Vec<ConnectorTool>, GatewayError> {
        let url = format!("{}/tools", self.url);
        let unreachable = |e: reqwest::Error| GatewayError::Unreachable {
            url: url.clone(),
            reason: e.to_string(),
        };
        let resp = self
            .request(self.client.get(&url))
            .send()
            .await
            .map_err(unreachable)?;
        if !resp.status().is_success() {
            return Err(GatewayError::Status {
                url,
                status: resp.status().as_u16(),
            });
        }
        let body = resp.bytes().await.map_err(unreachable)?;
        let listing: Listing =
            serde_json::from_slice(&body).map_err(|e| GatewayError::BadListing {
                url: url.clone(),
                reason: e.to_string(),
            })?;
        Ok(listing
            .tools
            .into_iter()
            .map(|t| ConnectorTool {
                name: crate::call::names::connector_name(t.name),
                description: t.description,
                schema: t.input_schema,
            })
            .collect())
    }

    /// The listing if it has been fetched, without waiting.
    pub fn tools_now(&self) -> Vec<ConnectorTool> {
        self.listing.get().cloned().unwrap_or_default()
    }

    /// One POST for all `calls`; results come back in the order of `calls`.
    pub async fn dispatch(
        &self,
        calls: &[DispatchCall<'_>],
        cancel: &CancellationToken,
    ) -> Vec<ToolOutput> {
        let url = format!("{}/dispatch", self.url);
        let fail = |msg: String| {
            calls
                .iter()
                .map(|_| ToolOutput::error(msg.clone()))
                .collect()
        };
        let send = self
            .request(self.client.post(&url))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(serde_json::json!({ "calls": calls }).to_string())
            .send();
        if cancel.is_cancelled() {
            return fail(crate::call::NOT_STARTED.into());
        }
        // Once sent, a stop cannot say the batch did not run.
        let stopped = || {
            fail(format!(
                "{}; the gateway may have run it, in part or whole",
                crate::call::INTERRUPTED
            ))
        };
        let resp = tokio::select! {
            biased;
            _ = cancel.cancelled() => return stopped(),
            r = send => r,
        };
        let resp = match resp {
            Ok(r) if r.status().is_success() => r,
            Ok(r) => {
                return fail(format!(
                    "connector gateway at {url} answered HTTP {}",
                    r.status().as_u16()
                ))
            }
            Err(e) => return fail(format!("connector gateway at {url}: {e}")),
        };
        let body = tokio::select! {
            biased;
            _ = cancel.cancelled() => return stopped(),
            b = resp.bytes() => match b {
                Ok(b) => b,
                Err(e) => return fail(format!("connector gateway at {url}: {e}")),
            },
        };
        let reply: DispatchReply = match serde_json::from_slice(&body) {
            Ok(r) => r,
            Err(e) => {
                return fail(format!(
                    "connector gateway at {url} sent an invalid reply: {e}"
                ))
            }
        };
        calls
            .iter()
            .map(|c| match reply.results.iter().find(|r| r.id == c.id) {
                Some(r) => ToolOutput {
                    content: match &r.content {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    },
                    is_error: r.is_error,
                    diff: None,
                    stale: false,
                    images: Vec::new(),
                    changes: None,
                    held_back: None,
                    refused: Vec::new(),
                },
                None => ToolOutput::error(format!(
                    "connector gateway returned no result for `{}` (id {})",
                    c.name,
                    excerpt(c.id, 40)
                )),
            })
            .collect()
    }
}
