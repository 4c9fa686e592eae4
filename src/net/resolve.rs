//! The one place a host hermes reaches is turned into the address it is
//! reached at — for `web_fetch` and for the shell's proxy alike: resolved
//! once, each address it has checked, the first one connected to.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use super::error::FetchError;
use crate::config::NetworkSettings;

/// How long a name may take to resolve.
const RESOLVE_WITHIN: Duration = Duration::from_secs(10);

/// The address `host` (a name, or an address without brackets) is reached
/// at on `port`. Loopback, private, link-local and metadata addresses are
/// refused unless `[network] allow` names the host — and a name with one
/// such address among public ones is refused, so its answer cannot be
/// picked later.
pub(crate) async fn pinned(
    network: &NetworkSettings,
    host: &str,
    port: u16,
) -> Result<SocketAddr, FetchError> {
    let addrs: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => {
            let resolve = tokio::net::lookup_host((host, port));
            match tokio::time::timeout(RESOLVE_WITHIN, resolve).await {
                Ok(Ok(a)) => a.collect(),
                Ok(Err(e)) => {
                    return Err(FetchError::Resolve {
                        host: host.to_string(),
                        why: e.to_string(),
                    })
                }
                Err(_) => {
                    return Err(FetchError::Resolve {
                        host: host.to_string(),
                        why: format!("no answer in {} s", RESOLVE_WITHIN.as_secs()),
                    })
                }
            }
        }
    };
    if !network.allowed(host, port) {
        for a in &addrs {
            if let Some(kind) = super::address::special(a.ip()) {
                return Err(FetchError::Special {
                    host: host.to_string(),
                    ip: a.ip(),
                    kind,
                    named: if host.contains(':') {
                        format!("[{host}]:{port}")
                    } else {
                        format!("{host}:{port}")
                    },
                });
            }
        }
    }
    addrs.first().copied().ok_or_else(|| FetchError::Resolve {
        host: host.to_string(),
        why: "it has no address".into(),
    })
}
