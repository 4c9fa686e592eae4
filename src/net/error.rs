//! Why a fetch — `web_fetch`'s, or the shell's proxy reaching a host —
//! did not happen, each a line that says what to change.

use std::net::IpAddr;

/// Redirects followed at most.
pub(crate) const MAX_REDIRECTS: usize = 5;

#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("`{url}` is not a URL: {why}")]
    BadUrl { url: String, why: String },
    #[error("only http and https URLs are fetched, not {0}:")]
    Scheme(String),
    #[error("{host} is denied by [network] deny (`{rule}`); nothing was sent")]
    Denied { host: String, rule: String },
    #[error(
        "{host} is {ip}, {kind}: not fetched, nothing was sent (name `{named}` in [network] allow to reach it)"
    )]
    Special {
        host: String,
        ip: IpAddr,
        kind: &'static str,
        named: String,
    },
    #[error("cannot resolve {host}: {why}")]
    Resolve { host: String, why: String },
    #[error("{url}: {why}")]
    Http { url: String, why: String },
    #[error("{url} took longer than {ms} ms (tools.web_fetch.timeout_ms)")]
    Timeout { url: String, ms: u128 },
    #[error("{url} redirects more than {MAX_REDIRECTS} times; not followed")]
    TooManyRedirects { url: String },
    #[error("stopped")]
    Stopped,
}
