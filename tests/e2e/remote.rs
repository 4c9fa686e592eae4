//! Remote MCP servers over streamable HTTP: the real server-everything in
//! its HTTP mode, driven like any other server — from a model's batch, from
//! `hermes mcp call` — and the faults a network brings.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};

use serde_json::json;

use super::split::{batch, contents};
use crate::support::{call_id, real_server, Reply, TestEnv};

/// server-everything serving streamable HTTP on a port of its own; killed
/// when dropped.
pub(crate) struct Everything {
    child: Child,
    pub(crate) port: u16,
}

impl Everything {
    pub(crate) fn start() -> Everything {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(real_server("mcp-server-everything"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        crate::support::wait_for("server-everything to listen", || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        Everything { child, port }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for Everything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A remote server is one more server: found with tool_search, called in
/// a split batch beside a local one, its result back in entry order; its
/// header and bearer token are sent, and neither is recorded anywhere.
#[test]
fn a_remote_server_is_searched_and_called_like_a_local_one() {
    let ev = Everything::start();
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.add_test_server("t", "");
    env.add_server(
        "ev",
        &format!(
            "url = {:?}\nheaders = {{ X-Team = \"platform\" }}\nbearer_token_env = \"EV_TOKEN\"",
            ev.url()
        ),
    );
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("search"),
        "tool_search",
        r#"{"queries":["echo a message back"]}"#,
    )]));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("both"),
        "tool_call",
        &batch(&[
            ("mcp__ev__echo", json!({"message": "over http"})),
            ("mcp__t__echo", json!({"text": "over stdio"})),
            ("mcp__ev__get_sum", json!({"a": 2, "b": 40})),
        ]),
    )]));
    env.fake.push(Reply::text("done"));
    let token = "ev-secret-token-8675309";
    let out = env
        .cmd()
        .env("EV_TOKEN", token)
        .args(["--json", "-q", "echo over both"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found = contents(&env.tool_results(1));
    crate::assert_contains!(found[0], "mcp__ev__echo");
    let r = contents(&env.tool_results(2));
    assert_eq!(r[1], "Echo: over http");
    assert_eq!(r[2], "over stdio");
    crate::assert_contains!(r[3], "42");
    let session = std::fs::read_to_string(env.only_session()).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    for text in [&session, &stdout.to_string()] {
        crate::assert_not_contains!(text, token);
    }
    let listed = env.run(&["mcp", "list"]);
    crate::assert_contains!(listed.stdout, format!("ev               13 tools"));
    crate::assert_contains!(listed.stdout, ev.url());
}

/// `hermes mcp call` runs one tool of a remote server: the result on
/// stdout, `--json` the whole result, a tool error exit 1.
#[test]
fn mcp_call_runs_one_remote_tool() {
    let ev = Everything::start();
    let env = TestEnv::new();
    env.add_server("ev", &format!("url = {:?}", ev.url()));
    let ok = env.run(&["mcp", "call", "ev", "echo", r#"{"message":"hi"}"#]);
    ok.ok();
    assert_eq!(ok.stdout, "Echo: hi\n");
    let json = env.run(&["--json", "mcp", "call", "ev", "get_sum", r#"{"a":1,"b":2}"#]);
    json.ok();
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["is_error"], false);
    crate::assert_contains!(v["content"].as_str().unwrap(), "3");
    let bad = env.run(&["mcp", "call", "ev", "get_sum", r#"{"a":"x"}"#]);
    bad.code(1);
    crate::assert_contains!(
        bad.error_line(),
        "`get_sum` on server `ev` answered with an error"
    );
    let not_json = env.run(&["mcp", "call", "ev", "echo", "{oops"]);
    not_json.code(2);
    crate::assert_contains!(not_json.error_line(), "the arguments are not JSON");
}

/// A server that asks for authorization, in a one-shot run with nobody to
/// log in through (no terminal, no `$BROWSER`): the call fails with the
/// command to run, and the session goes on.
#[test]
fn a_server_asking_for_login_in_a_one_shot_run_names_the_command() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Every request: 401 with a challenge pointing at metadata that is not there.
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut s = stream;
            let mut buf = [0u8; 8192];
            let _ = s.read(&mut buf);
            let body = r#"{"error":"invalid_token"}"#;
            let _ = write!(
                s,
                "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource\"\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.add_server("locked", &format!("url = \"http://127.0.0.1:{port}/mcp\""));
    env.fake.push(Reply::tool_calls(&[(
        &call_id("locked"),
        "tool_call",
        &batch(&[("mcp__locked__anything", json!({}))]),
    )]));
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(
        r[0],
        "server `locked` needs you to log in; run `hermes mcp login locked`"
    );
}

/// `mcp add --url` and `mcp import` of remote entries (with `${VAR}` and
/// `${VAR:-default}` expanded as Claude Code does) write servers that load.
#[test]
fn remote_servers_are_added_and_imported() {
    let env = TestEnv::new();
    env.run(&[
        "mcp",
        "add",
        "linear",
        "--url",
        "https://mcp.linear.example/mcp",
        "--header",
        "X-Org=acme",
        "--client-id",
        "hermes-cli",
        "--client-secret-env",
        "LINEAR_SECRET",
        "--scope",
        "read",
    ])
    .ok();
    let file = env.cwd.path().join(".mcp.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {
            "web": {"type": "http", "url": "${WEB_HOST:-https://web.example}/mcp", "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}},
            "old": {"type": "sse", "url": "https://old.example/sse"},
            "local": {"command": "${HOME}/bin/server", "args": ["--port", "${PORT:-7}"]}
        }}"#,
    )
    .unwrap();
    let imported = env
        .cmd()
        .env("WEB_TOKEN", "w3b-token-123456")
        .args(["mcp", "import"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    crate::assert_contains!(text, "url = \"https://mcp.linear.example/mcp\"");
    crate::assert_contains!(text, "client_id = \"hermes-cli\"");
    crate::assert_contains!(text, "url = \"https://web.example/mcp\"");
    crate::assert_contains!(text, "Authorization = \"Bearer w3b-token-123456\"");
    crate::assert_contains!(text, "args = [\"--port\", \"7\"]");
    let listed = env.run(&["mcp", "list"]);
    listed.ok();
    for name in ["linear", "web", "old", "local"] {
        crate::assert_contains!(listed.stdout, name);
    }
    // The header's secret is masked wherever hermes prints the config.
    crate::assert_not_contains!(env.run(&["config", "show"]).stdout, "w3b-token-123456");
}
