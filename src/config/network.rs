//! `[network]`: the hosts hermes' own network reach is allowed and denied
//! (`web_fetch` today). One list, one syntax: `example.com` (that host,
//! any port), `*.example.com` (its subdomains, not itself),
//! `127.0.0.1:5432` or `[::1]:8080` (that host at that port). A deny wins
//! over every allow, an answer and `--yolo`.
//!
//! An entry is checked as the file is read, so a typo names the file, the
//! line and the key. `[tools.shell] network`'s three values are here too:
//! commands reach these hosts through hermes' proxy under `"allowed"`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// Hosts reached without asking — loopback and private addresses too,
    /// which nothing reaches otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<HostRule>,
    /// Hosts never reached, whatever allows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<HostRule>,
}

impl NetworkSection {
    pub fn is_empty(&self) -> bool {
        self == &NetworkSection::default()
    }
}

/// One `[network]` entry: a host name (lower case), a `*.` suffix, or an
/// address, with or without a port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HostRule {
    host: String,
    /// `*.example.com`: `host` is `example.com`.
    subdomains: bool,
    port: Option<u16>,
}

impl HostRule {
    /// Whether the rule names `host` (as a URL gives it: lower case, an
    /// IPv6 address without brackets) at `port`.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let named = if self.subdomains {
            host.strip_suffix(&self.host)
                .is_some_and(|rest| rest.ends_with('.') && rest.len() > 1)
        } else {
            host == self.host
        };
        named && self.port.is_none_or(|p| p == port)
    }

    /// The rule an answer of "always" writes for `host`.
    pub fn host(host: &str) -> HostRule {
        HostRule {
            host: host.trim_end_matches('.').to_ascii_lowercase(),
            subdomains: false,
            port: None,
        }
    }
}

impl TryFrom<String> for HostRule {
    type Error = String;

    fn try_from(s: String) -> Result<HostRule, String> {
        let bad = |why: &str| {
            format!(
                "`{s}` is not a host: {why} (write `example.com`, `*.example.com`, \
                 `127.0.0.1:5432` or `[::1]:8080`)"
            )
        };
        let t = s.trim();
        if t.contains("://") || t.contains('/') {
            return Err(bad("a host, not a URL"));
        }
        let (rest, subdomains) = match t.strip_prefix("*.") {
            Some(r) => (r, true),
            None => (t, false),
        };
        // `[v6]:port`, `[v6]`, a bare v6 address, `host:port`, `host`.
        let (host, port) = if let Some(inner) = rest.strip_prefix('[') {
            let (addr, after) = inner.split_once(']').ok_or_else(|| bad("no `]`"))?;
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':').ok_or_else(|| bad("junk after `]`"))?),
            };
            (addr, port)
        } else if rest.matches(':').count() > 1 {
            (rest, None)
        } else {
            match rest.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            }
        };
        let port = match port {
            None => None,
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => Some(n),
                _ => return Err(bad("its port is not 1 to 65535")),
            },
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let is_ip = host.parse::<std::net::IpAddr>().is_ok();
        let name_ok = !host.is_empty()
            && host.split('.').all(|l| {
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if !(is_ip || name_ok) || (subdomains && is_ip) {
            return Err(bad("not a host name or an address"));
        }
        Ok(HostRule {
            host,
            subdomains,
            port,
        })
    }
}

impl From<HostRule> for String {
    fn from(r: HostRule) -> String {
        r.to_string()
    }
}

impl std::fmt::Display for HostRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.subdomains {
            f.write_str("*.")?;
        }
        match (self.host.contains(':'), self.port) {
            (true, Some(p)) => write!(f, "[{}]:{p}", self.host),
            (false, Some(p)) => write!(f, "{}:{p}", self.host),
            _ => f.write_str(&self.host),
        }
    }
}

/// The `[network]` rules of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NetworkSettings {
    pub allow: Vec<HostRule>,
    pub deny: Vec<HostRule>,
}

impl NetworkSettings {
    pub(super) fn from_section(s: &NetworkSection) -> NetworkSettings {
        NetworkSettings {
            allow: s.allow.clone(),
            deny: s.deny.clone(),
        }
    }

    /// The deny entry that names `host:port`, if one does.
    pub fn denied(&self, host: &str, port: u16) -> Option<&HostRule> {
        self.deny.iter().find(|r| r.matches(host, port))
    }

    /// Whether an allow entry names `host:port` (and no deny does).
    pub fn allowed(&self, host: &str, port: u16) -> bool {
        self.denied(host, port).is_none() && self.allow.iter().any(|r| r.matches(host, port))
    }
}

/// `[tools.shell] network`: `true`, `false` or `"allowed"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "NetworkValue", into = "NetworkValue")]
pub enum ShellNetwork {
    /// Their own loopback, nothing else.
    Off,
    /// Everything, the host's loopback too.
    On,
    /// The hosts `[network] allow` names, through hermes' proxy.
    #[default]
    Allowed,
}

/// How `network` is written: a boolean or `"allowed"`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NetworkValue {
    Bool(bool),
    Text(String),
}

impl TryFrom<NetworkValue> for ShellNetwork {
    type Error = String;

    fn try_from(v: NetworkValue) -> Result<ShellNetwork, String> {
        match v {
            NetworkValue::Bool(false) => Ok(ShellNetwork::Off),
            NetworkValue::Bool(true) => Ok(ShellNetwork::On),
            NetworkValue::Text(t) if t == "allowed" => Ok(ShellNetwork::Allowed),
            NetworkValue::Text(t) => Err(format!(
                "network must be true, false or \"allowed\", not \"{t}\""
            )),
        }
    }
}

impl From<ShellNetwork> for NetworkValue {
    fn from(n: ShellNetwork) -> NetworkValue {
        match n {
            ShellNetwork::Off => NetworkValue::Bool(false),
            ShellNetwork::On => NetworkValue::Bool(true),
            ShellNetwork::Allowed => NetworkValue::Text("allowed".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(s: &str) -> HostRule {
        HostRule::try_from(s.to_string()).unwrap()
    }

    #[test]
    fn a_rule_names_a_host_its_subdomains_or_one_port() {
        assert!(rule("Example.com").matches("example.com", 443));
        assert!(rule("example.com").matches("EXAMPLE.com.", 80));
        assert!(!rule("example.com").matches("api.example.com", 443));
        assert!(rule("*.example.com").matches("api.example.com", 443));
        assert!(!rule("*.example.com").matches("example.com", 443));
        assert!(!rule("*.example.com").matches("badexample.com", 443));
        assert!(rule("127.0.0.1:5432").matches("127.0.0.1", 5432));
        assert!(!rule("127.0.0.1:5432").matches("127.0.0.1", 5433));
        assert!(rule("[::1]:8080").matches("::1", 8080));
        assert!(rule("::1").matches("::1", 1));
        assert_eq!(rule("[::1]:8080").to_string(), "[::1]:8080");
        assert_eq!(rule("*.Example.com").to_string(), "*.example.com");
    }

    #[test]
    fn a_url_or_a_bad_port_is_not_a_rule() {
        for bad in [
            "https://example.com",
            "example.com/path",
            "example.com:0",
            "example.com:99999",
            "",
            "exa mple.com",
            "*.10.0.0.1",
            "[::1",
        ] {
            let e = HostRule::try_from(bad.to_string()).unwrap_err();
            assert!(e.contains("is not a host"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_deny_wins_over_an_allow() {
        let s = NetworkSettings {
            allow: vec![rule("*.example.com")],
            deny: vec![rule("evil.example.com")],
        };
        assert!(s.allowed("docs.example.com", 443));
        assert!(!s.allowed("evil.example.com", 443));
        assert!(s.denied("evil.example.com", 1).is_some());
    }
}
