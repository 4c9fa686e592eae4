//! The shell's network under `[tools.shell] network = "allowed"` (the
//! default, issue 68): a command reaches what `[network] allow` names
//! through hermes' proxy — this machine's own service at
//! `host.hermes.internal:PORT` where allow names `127.0.0.1:PORT` — and
//! nothing else, refused at once with what to write; as root and as a
//! normal user, through the real binary.

use std::time::Instant;

use crate::e2e::sandbox::{env_for, shells};
use crate::support::http_stub::HttpStub;
use crate::support::users;

/// A python3 one-liner that GETs `url` through whatever proxy the
/// environment names, and prints `reached BODY` or `refused STATUS BODY`.
fn get(url: &str) -> String {
    format!(
        "python3 -c \"
import urllib.request, urllib.error
try:
    print('reached', urllib.request.urlopen('{url}', timeout=5).read().decode())
except urllib.error.HTTPError as e:
    print('refused', e.code, e.read().decode().strip())
except Exception as e:
    print('failed', e)
\""
    )
}

/// The same through a CONNECT tunnel (how https goes through a proxy),
/// asking for `host:port` and sending a plain request over it.
fn tunnel(host: &str, port: u16) -> String {
    format!(
        "python3 -c \"
import http.client, os, urllib.parse
p = urllib.parse.urlparse(os.environ['HTTPS_PROXY'])
c = http.client.HTTPConnection(p.hostname, p.port, timeout=5)
c.set_tunnel('{host}', {port})
try:
    c.request('GET', '/tunnelled'); print('tunnelled', c.getresponse().read().decode())
except OSError as e:
    print('refused', e)
\""
    )
}

#[test]
fn a_command_reaches_an_allowed_host_service_through_the_proxy_and_nothing_else() {
    let open = HttpStub::start(|r| (200, vec![], format!("the host's service at {}", r.path)));
    let closed = HttpStub::start(|_| (200, vec![], "must not be reached".into()));
    for user in users::each() {
        let env = env_for(
            user,
            &format!("[network]\nallow = [\"127.0.0.1:{}\"]\n", open.port),
        );
        let start = Instant::now();
        let out = shells(
            &env,
            &[
                get(&format!("http://host.hermes.internal:{}/a", open.port)),
                get(&format!("http://host.hermes.internal:{}/b", closed.port)),
                get(&format!("http://registry.example:{}/c", open.port)),
                tunnel("host.hermes.internal", open.port),
                tunnel("host.hermes.internal", closed.port),
                // The command's own 127.0.0.1 is its loopback, not this machine.
                get(&format!("http://127.0.0.1:{}/d", open.port)),
                "env | grep -i '^https_proxy=' | sed 's/:[0-9]*$/:PORT/'".into(),
            ],
        );
        crate::assert_contains!(out[0], "reached the host's service at /a");
        crate::assert_contains!(out[1], "refused 403 hermes: host.hermes.internal:");
        crate::assert_contains!(
            out[1],
            &format!("(add \"127.0.0.1:{}\" to it in config.toml)", closed.port)
        );
        // The result tells the model what was refused.
        crate::assert_contains!(
            out[1],
            &format!("[network: refused host.hermes.internal:{}", closed.port)
        );
        crate::assert_contains!(out[2], "refused 403 hermes: registry.example:");
        crate::assert_contains!(out[2], "is not in [network] allow");
        crate::assert_contains!(out[3], "tunnelled the host's service at /tunnelled");
        crate::assert_contains!(out[4], "refused");
        crate::assert_contains!(out[4], "403");
        crate::assert_contains!(out[5], "failed");
        crate::assert_contains!(out[6], "HTTPS_PROXY=http://127.0.0.1:PORT");
        assert!(closed.seen().is_empty(), "{:?}", closed.seen());
        // Refused at once, not after a connect timeout.
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }
    let paths: Vec<String> = open.seen().into_iter().map(|r| r.path).collect();
    assert_eq!(paths.len(), 4, "{paths:?}");
}

/// `network = false` keeps commands to their own loopback: no proxy, no
/// way to this machine's services even where `[network] allow` names them.
#[test]
fn network_false_gives_no_proxy() {
    let open = HttpStub::start(|_| (200, vec![], "reached".into()));
    let env = env_for(
        users::User::current(),
        &format!(
            "[network]\nallow = [\"127.0.0.1:{}\"]\n[tools.shell]\nnetwork = false\n",
            open.port
        ),
    );
    let out = shells(
        &env,
        &[
            get(&format!("http://host.hermes.internal:{}/", open.port)),
            "echo proxy=${HTTPS_PROXY:-none}".into(),
        ],
    );
    crate::assert_contains!(out[0], "failed");
    crate::assert_contains!(out[1], "proxy=none");
    assert!(open.seen().is_empty());
}
