//! One fetch of a URL by hermes itself, outside the sandbox: the host
//! resolved once and the connection pinned to that address (a name that
//! answers differently the second time reaches nothing new), loopback,
//! private and metadata addresses refused unless `[network] allow` names
//! the host, `[network] deny` first, every redirect checked the same way
//! (a move to another host is followed only where `allow` names it — the
//! model is told the new URL otherwise, and fetching it is asked as any
//! other), the body read up to a bound and the rest never read. Answers
//! with a validator (`ETag`, `Last-Modified`) are kept for the session
//! and asked again conditionally.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::Url;
use tokio_util::sync::CancellationToken;

use super::error::FetchError;
use super::error::MAX_REDIRECTS;
use crate::config::{NetworkSettings, WebFetchSettings};

/// What the session's cache holds at most; past it, it starts again.
const CACHE_BYTES: usize = 32 * 1024 * 1024;
/// How long a name may take to resolve, and a connection to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A body fetched.
#[derive(Debug, Clone)]
pub(crate) struct Page {
    /// Where it was found, after the redirects followed.
    pub url: Url,
    pub status: u16,
    pub content_type: String,
    pub body: Arc<Vec<u8>>,
    /// The body went on past the bound: how much was read of how much
    /// (when the server said).
    pub cut: Option<Option<u64>>,
    /// The server said it had not changed (304): the body is the one kept.
    pub unchanged: bool,
    /// Bytes read from the network for it.
    pub received: u64,
}

/// What a fetch came to.
#[derive(Debug)]
pub(crate) enum Fetched {
    Page(Page),
    /// A redirect to another host that `[network] allow` does not name.
    Elsewhere {
        from: Url,
        to: Url,
        status: u16,
    },
}

#[derive(Debug, Clone)]
struct Kept {
    etag: Option<HeaderValue>,
    modified: Option<HeaderValue>,
    content_type: String,
    body: Arc<Vec<u8>>,
}

/// Fetches for one session: the rules, the bounds and the cache.
pub(crate) struct Fetcher {
    network: NetworkSettings,
    settings: WebFetchSettings,
    cache: Mutex<(HashMap<String, Kept>, usize)>,
}

/// A URL's host as rules name it (lower case, IPv6 without brackets) and
/// its port.
pub(crate) fn host_port(url: &Url) -> Option<(String, u16)> {
    let host = match url.host()? {
        url::Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
        url::Host::Ipv4(ip) => ip.to_string(),
        url::Host::Ipv6(ip) => ip.to_string(),
    };
    Some((host, url.port_or_known_default()?))
}

/// `s` as an http(s) URL with a host, or why not.
pub(crate) fn parse(s: &str) -> Result<Url, FetchError> {
    let url = Url::parse(s.trim()).map_err(|e| FetchError::BadUrl {
        url: s.to_string(),
        why: e.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(FetchError::Scheme(url.scheme().to_string()));
    }
    if url.host().is_none() {
        return Err(FetchError::BadUrl {
            url: s.to_string(),
            why: "it has no host".into(),
        });
    }
    Ok(url)
}

impl Fetcher {
    pub(crate) fn new(network: NetworkSettings, settings: WebFetchSettings) -> Fetcher {
        Fetcher {
            network,
            settings,
            cache: Mutex::new((HashMap::new(), 0)),
        }
    }

    pub(crate) fn network(&self) -> &NetworkSettings {
        &self.network
    }

    /// The most of a body read: `asked` where it is lower than the
    /// configured bound.
    pub(crate) fn bound(&self, asked: Option<u64>) -> u64 {
        asked.map_or(self.settings.max_bytes, |a| {
            a.clamp(1, self.settings.max_bytes)
        })
    }

    /// Fetches `url`, following what redirects may be followed, within the
    /// configured time; a stop ends it at once.
    pub(crate) async fn fetch(
        &self,
        url: Url,
        max_bytes: u64,
        cancel: &CancellationToken,
    ) -> Result<Fetched, FetchError> {
        let shown = url.to_string();
        tokio::select! {
            _ = cancel.cancelled() => Err(FetchError::Stopped),
            r = tokio::time::timeout(self.settings.timeout, self.follow(url, max_bytes)) => {
                r.unwrap_or(Err(FetchError::Timeout {
                    url: shown,
                    ms: self.settings.timeout.as_millis(),
                }))
            }
        }
    }

    async fn follow(&self, mut url: Url, max_bytes: u64) -> Result<Fetched, FetchError> {
        for hop in 0..=MAX_REDIRECTS {
            let (host, port) = host_port(&url).ok_or_else(|| FetchError::BadUrl {
                url: url.to_string(),
                why: "it has no host".into(),
            })?;
            if let Some(rule) = self.network.denied(&host, port) {
                return Err(FetchError::Denied {
                    host,
                    rule: rule.to_string(),
                });
            }
            let addr = super::resolve::pinned(&self.network, &host, port).await?;
            let http = |e: reqwest::Error| FetchError::Http {
                url: url.to_string(),
                why: crate::util::text::root_cause(&e),
            };
            let mut client = reqwest::Client::builder()
                .use_preconfigured_tls(crate::util::tls::config())
                .redirect(reqwest::redirect::Policy::none())
                // The address checked is the one connected to: no proxy
                // of the environment's in between.
                .no_proxy()
                .connect_timeout(CONNECT_TIMEOUT)
                .user_agent(concat!("hermes/", env!("CARGO_PKG_VERSION")));
            if let Some(url::Host::Domain(d)) = url.host() {
                client = client.resolve(d, addr);
            }
            let client = client.build().map_err(http)?;
            let kept = self.kept(&url);
            let mut req = client.get(url.clone()).header(
                reqwest::header::ACCEPT,
                "text/html, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.5",
            );
            if let Some(k) = &kept {
                req = req.headers(conditional(k));
            }
            let resp = req.send().await.map_err(http)?;
            let status = resp.status().as_u16();
            if resp.status().is_redirection() && status != 304 {
                let Some(next) = resp
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| url.join(l).ok())
                else {
                    return self.read(url, resp, max_bytes).await.map(Fetched::Page);
                };
                if !matches!(next.scheme(), "http" | "https") {
                    return Err(FetchError::Scheme(next.scheme().to_string()));
                }
                if hop == MAX_REDIRECTS {
                    return Err(FetchError::TooManyRedirects {
                        url: url.to_string(),
                    });
                }
                let (next_host, next_port) = host_port(&next).unwrap_or_default();
                if next_host != host && !self.network.allowed(&next_host, next_port) {
                    return Ok(Fetched::Elsewhere {
                        from: url,
                        to: next,
                        status,
                    });
                }
                url = next;
                continue;
            }
            if let (304, Some(k)) = (status, kept) {
                return Ok(Fetched::Page(Page {
                    url,
                    status,
                    content_type: k.content_type,
                    body: k.body,
                    cut: None,
                    unchanged: true,
                    received: 0,
                }));
            }
            return self.read(url, resp, max_bytes).await.map(Fetched::Page);
        }
        Err(FetchError::TooManyRedirects {
            url: url.to_string(),
        })
    }

    /// The body, up to `max_bytes`: the rest is never read (the connection
    /// is dropped), so a large body costs no more than the bound.
    async fn read(
        &self,
        url: Url,
        mut resp: reqwest::Response,
        max_bytes: u64,
    ) -> Result<Page, FetchError> {
        let status = resp.status().as_u16();
        let header = |name| {
            resp.headers()
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_string)
        };
        let content_type = header(reqwest::header::CONTENT_TYPE).unwrap_or_default();
        let (etag, modified) = (
            resp.headers().get(reqwest::header::ETAG).cloned(),
            resp.headers().get(reqwest::header::LAST_MODIFIED).cloned(),
        );
        let length = resp.content_length();
        let cap = usize::try_from(max_bytes).unwrap_or(usize::MAX);
        let mut body: Vec<u8> = Vec::with_capacity(length.map_or(0, |l| (l as usize).min(cap)));
        let mut cut = None;
        loop {
            match resp.chunk().await {
                Ok(Some(c)) => {
                    let room = cap - body.len();
                    if c.len() > room {
                        body.extend_from_slice(&c[..room]);
                        cut = Some(length);
                        break;
                    }
                    body.extend_from_slice(&c);
                }
                Ok(None) => break,
                Err(e) => {
                    return Err(FetchError::Http {
                        url: url.to_string(),
                        why: crate::util::text::root_cause(&e),
                    })
                }
            }
        }
        let body = Arc::new(body);
        if status == 200 && cut.is_none() && (etag.is_some() || modified.is_some()) {
            self.keep(
                &url,
                Kept {
                    etag,
                    modified,
                    content_type: content_type.clone(),
                    body: body.clone(),
                },
            );
        }
        Ok(Page {
            received: body.len() as u64,
            url,
            status,
            content_type,
            body,
            cut,
            unchanged: false,
        })
    }

    fn kept(&self, url: &Url) -> Option<Kept> {
        let c = self.cache.lock().ok()?;
        c.0.get(url.as_str()).cloned()
    }

    fn keep(&self, url: &Url, k: Kept) {
        let Ok(mut c) = self.cache.lock() else { return };
        if c.1 + k.body.len() > CACHE_BYTES {
            c.0.clear();
            c.1 = 0;
        }
        c.1 += k.body.len();
        if let Some(old) = c.0.insert(url.to_string(), k) {
            c.1 = c.1.saturating_sub(old.body.len());
        }
    }
}

/// The validators of a kept answer, as the next request's conditions.
fn conditional(k: &Kept) -> HeaderMap {
    let mut h = HeaderMap::new();
    if let Some(e) = &k.etag {
        h.insert(reqwest::header::IF_NONE_MATCH, e.clone());
    }
    if let Some(m) = &k.modified {
        h.insert(reqwest::header::IF_MODIFIED_SINCE, m.clone());
    }
    h
}
