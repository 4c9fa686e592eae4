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

/// Where someone answers, a refused host is put to them once: "this
/// session" lets the next command reach it (until `/new`), "always" writes
/// it to `[network] allow`.
#[test]
fn a_refused_host_is_offered_to_the_person_for_the_session_or_always() {
    use crate::support::calls::reply_calls;
    use crate::support::tmux::Tmux;
    use crate::support::Reply;
    use serde_json::json;
    let service = HttpStub::start(|_| (200, vec![], "the host's database".into()));
    let env = env_for(users::User::current(), "");
    let cmd = get(&format!("http://host.hermes.internal:{}/q", service.port));
    let run = |tag: &str| reply_calls(&[(tag, "shell", json!({ "command": cmd }))]);
    env.fake.push(run("r1"));
    env.fake.push(Reply::text("first refused"));
    env.fake.push(run("r2"));
    env.fake.push(Reply::text("second reached"));
    env.fake.push(run("r3"));
    env.fake.push(Reply::text("third refused"));
    let term = Tmux::start(&env, &[]);
    term.wait_for("the banner", |s| s.contains("session "));
    term.type_line("one");
    let rule = format!("127.0.0.1:{}", service.port);
    // Unwrapped: the question's lines are wrapped to the terminal's width.
    let unwrapped = |s: &str| s.replace("\n  ", " ");
    term.wait_for("the question", |s| {
        unwrapped(s).contains("let commands reach it?")
    });
    crate::assert_contains!(
        unwrapped(&term.screen()),
        &format!("s allow commands to reach {rule} for this session")
    );
    term.type_line("s");
    term.wait_for("the first turn", |s| s.contains("first refused"));
    term.type_line("two");
    term.wait_for("the second turn", |s| s.contains("second reached"));
    // A new session: refused, and asked, again.
    term.type_line("/new");
    term.type_line("three");
    crate::support::wait_for("the second question", || {
        unwrapped(&term.scrollback())
            .matches("let commands reach it?")
            .count()
            == 2
    });
    term.type_line("a");
    term.wait_for("the third turn", |s| s.contains("third refused"));
    term.type_line("/quit");
    let requests = env.fake.requests();
    let result = |n: usize| {
        env.results_of(n)
            .into_iter()
            .map(|(_, t, _)| t)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let first = result(1);
    crate::assert_contains!(first, "refused 403");
    crate::assert_contains!(
        first,
        &format!("[network: the person let commands reach {rule} for this session; run the command again]")
    );
    crate::assert_contains!(result(3), "reached the host's database");
    crate::assert_contains!(
        result(requests.len() - 1),
        &format!("[network: the person let commands reach {rule} from now on")
    );
    let config = std::fs::read_to_string(env.config_path()).unwrap();
    crate::assert_contains!(config, &format!("\"{rule}\""));
    assert_eq!(service.seen().len(), 1);
}
