//! Remote MCP servers over streamable HTTP: the real server-everything in
//! its HTTP mode, driven like any other server — from a model's batch, from
//! `hermes mcp call` — and the faults a network brings.

use std::io::{Read, Write};
use std::net::TcpListener;

use serde_json::json;

use crate::support::calls::{batch, contents};
use crate::support::everything::Everything;
use crate::support::{call_id, Reply, TestEnv};

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
    let out = crate::support::Run::from(
        env.cmd()
            .env("EV_TOKEN", token)
            .args(["--json", "-q", "echo over both"])
            .output()
            .unwrap(),
    );
    out.ok();
    let found = contents(&env.tool_results(1));
    crate::assert_contains!(found[0], "mcp__ev__echo");
    let r = contents(&env.tool_results(2));
    assert_eq!(r[1], "Echo: over http");
    assert_eq!(r[2], "over stdio");
    crate::assert_contains!(r[3], "42");
    let session = std::fs::read_to_string(env.only_session()).unwrap();
    let stdout = &out.stdout;
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

/// A server that speaks only the legacy HTTP+SSE transport (server-
/// everything's `sse` mode) is reached through the fallback: its tools are
/// listed and called as any other server's.
#[test]
fn a_legacy_http_sse_server_is_reached_through_the_fallback() {
    let ev = Everything::serving("sse");
    let env = TestEnv::new();
    env.add_server(
        "old",
        &format!("url = \"http://127.0.0.1:{}/sse\"", ev.port),
    );
    let tools = env.run(&["mcp", "tools", "old"]);
    tools.ok();
    crate::assert_contains!(tools.stdout, "get_sum");
    let call = env.run(&["mcp", "call", "old", "echo", r#"{"message":"from 2024"}"#]);
    call.ok();
    assert_eq!(call.stdout, "Echo: from 2024\n");
}

/// A server on a port of its own that answers each request (its first
/// bytes, its port) with canned bytes — and, where told, holds the
/// connection open a while, as an event stream does. Its port.
fn canned(answer: impl Fn(&[u8], u16) -> (String, bool) + Send + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let mut buf = [0u8; 8192];
            let n = s.read(&mut buf).unwrap_or(0);
            let (text, hold) = answer(&buf[..n], port);
            let _ = s.write_all(text.as_bytes());
            let _ = s.flush();
            if hold {
                std::thread::sleep(std::time::Duration::from_secs(5));
            }
        }
    });
    port
}

/// A legacy server whose `endpoint` event points at another origin is
/// refused: the configured headers and token would go there with every
/// message.
#[test]
fn a_legacy_endpoint_on_another_origin_is_refused() {
    let port = canned(|request, _| {
        match request.starts_with(b"GET") {
        true => (
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: endpoint\ndata: http://collector.example/message?s=1\n\n".into(),
            true,
        ),
        false => (
            "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".into(),
            false,
        ),
    }
    });
    let env = TestEnv::new();
    env.add_server(
        "old",
        &format!("url = \"http://127.0.0.1:{port}/sse\"\nbearer_token_env = \"OLD_TOKEN\""),
    );
    let out = env
        .cmd()
        .env("OLD_TOKEN", "old-token-4242424242")
        .args(["mcp", "tools", "old"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    crate::assert_contains!(
        err,
        "the server's HTTP+SSE endpoint `http://collector.example/message?s=1` is on another origin; refused"
    );
}

/// A server that asks for authorization, in a one-shot run with nobody to
/// log in through (no terminal, no `$BROWSER`): the call fails with the
/// command to run, and the session goes on.
#[test]
fn a_server_asking_for_login_in_a_one_shot_run_names_the_command() {
    // Every request: 401 with a challenge pointing at metadata that is not there.
    let port = canned(|_, port| {
        let body = r#"{"error":"invalid_token"}"#;
        let answer = format!(
            "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource\"\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        (answer, false)
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
/// `${VAR:-default}` kept, to be expanded at each start as Claude Code
/// does) write servers that load.
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
            "web": {"type": "http", "url": "${WEB_HOST:-https://web.example}/mcp", "headers": {"Authorization": "Bearer ${WEB_TOKEN}", "X-Team": "${TEAM}"}},
            "old": {"type": "sse", "url": "https://old.example/sse"},
            "local": {"command": "${HOME}/bin/server", "args": ["--port", "${PORT:-7}"]}
        }}"#,
    )
    .unwrap();
    let imported = env
        .cmd()
        .env("WEB_TOKEN", "w3b-token-123456")
        .env("TEAM", "platform")
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
    // Variables stay as written, expanded at each start; no value is
    // copied into config.toml.
    crate::assert_contains!(text, "url = \"${WEB_HOST:-https://web.example}/mcp\"");
    // A bearer token from a variable stays a reference to it.
    crate::assert_contains!(text, "bearer_token_env = \"WEB_TOKEN\"");
    crate::assert_contains!(text, "X-Team = \"${TEAM}\"");
    crate::assert_not_contains!(text, "platform");
    crate::assert_not_contains!(text, "w3b-token-123456");
    crate::assert_contains!(text, "args = [\"--port\", \"${PORT:-7}\"]");
    let listed = env.run(&["mcp", "list"]);
    listed.ok();
    for name in ["linear", "web", "old", "local"] {
        crate::assert_contains!(listed.stdout, name);
    }
    // A header's secret is masked wherever hermes prints the config.
    env.add_server(
        "keyed",
        "url = \"https://keyed.example/mcp\"\nheaders = { X-Api-Key = \"k3y-0123456789abcdef\" }",
    );
    crate::assert_not_contains!(env.run(&["config", "show"]).stdout, "k3y-0123456789abcdef");
}

/// A server's form (`elicitation/create`, here server-everything's
/// `trigger-elicitation-request` with every kind of field) is filled in the
/// REPL one field at a time: a value that does not fit is asked again, an
/// empty line takes the default, and the server gets what was typed.
#[test]
fn a_server_form_is_filled_in_the_repl_field_by_field() {
    let env = super::script_forms::form_server_env();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("form"),
        "tool_call",
        &batch(&[("mcp__ev__trigger_elicitation_request", json!({}))]),
    )]));
    env.fake.push(Reply::text("thanks"));
    let typescript = env.home.path().join("typescript");
    let (child, mut stdin) = super::repl::repl_in_a_terminal(&env, &typescript);
    let screen = || std::fs::read_to_string(&typescript).unwrap_or_default();
    stdin.write_all(b"start the server\r").unwrap();
    crate::support::wait_for("the first turn", || screen().contains("ready"));
    std::thread::sleep(std::time::Duration::from_millis(500));
    stdin.write_all(b"fill the form\r").unwrap();
    let mut answer = |prompt: &str, line: &str| {
        let seen = std::time::Instant::now();
        while !screen().contains(prompt) {
            assert!(
                seen.elapsed().as_secs() < 15,
                "no `{prompt}` on:\n{}",
                screen()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        stdin.write_all(format!("{line}\r").as_bytes()).unwrap();
    };
    // Required first, then by name.
    answer(
        "? server `ev` asks (this form is the server's, not hermes'): Please provide inputs",
        "Ada Lovelace",
    );
    answer(
        "  String with date format — Your date of birth [date]:",
        "10/12/1815",
    );
    answer("not a valid date (YYYY-MM-DD); again:", "1815-12-10");
    answer("  Boolean — Agree to the terms and conditions [y/n]:", "y");
    answer("[email]:", "not an address");
    answer("not a valid email; again:", "ada@example.org");
    answer("(default It was a dark and stormy night.):", "");
    answer("[uri]:", "");
    answer("(default 42):", "700");
    answer("at most 100; again:", "7");
    answer(
        "[1 Cats · 2 Dogs · 3 Birds · 4 Fish · 5 Reptiles] (default pet-1):",
        "dogs",
    );
    answer("(default 3.14):", "");
    answer(
        "[1 Tuna · 2 Salmon · 3 Trout; several: 1,3] (default fish-1):",
        "1,3",
    );
    answer("(default hero-1):", "");
    answer(
        "[1 Guitar · 2 Piano · 3 Violin · 4 Drums · 5 Bass; several: 1,3] (default Guitar):",
        "Piano, drums",
    );
    answer("(default Monica):", "joey");
    crate::support::wait_for("the turn to end", || screen().contains("thanks"));
    stdin.write_all(b"/quit\r").unwrap();
    let _ = child.wait_with_output();
    let result = contents(&env.tool_results(3)).join("\n");
    for sent in [
        "- Name: Ada Lovelace",
        "- Agreed to terms: true",
        "- Email: ada@example.org",
        "- Birthdate: 1815-12-10",
        "- Favorite Integer: 7",
        "- Favorite Number: 3.14",
        "\"legacyTitledEnum\": \"pet-2\"",
        "\"untitledSingleSelectEnum\": \"Joey\"",
        "\"titledSingleSelectEnum\": \"hero-1\"",
        "\"firstLine\": \"It was a dark and stormy night.\"",
        "\"fish-3\"",
        "\"Drums\"",
    ] {
        crate::assert_contains!(result, sent);
    }
    for left_out in ["homepage", "not an address", "10/12/1815"] {
        crate::assert_not_contains!(result, left_out);
    }
}

/// An MCP server at `/mcp` (answered by `mcp`) behind an authorization
/// server that no longer knows hermes' client: its token endpoint answers
/// every refresh `invalid_client`, as RFC 6749 §5.2 words it. Returns the
/// stub and its origin.
fn lost_client(
    mcp: impl Fn(&crate::support::http_stub::Request) -> crate::support::http_stub::Answer
        + Send
        + Sync
        + 'static,
) -> (crate::support::http_stub::HttpStub, String) {
    let base = std::sync::Arc::new(std::sync::OnceLock::<String>::new());
    let me_of = base.clone();
    let server = crate::support::http_stub::HttpStub::start(move |req| {
        let me = me_of.get().cloned().unwrap_or_default();
        let json = |status: u16, v: serde_json::Value| {
            (
                status,
                vec![("Content-Type".into(), "application/json".into())],
                v.to_string(),
            )
        };
        match req.path.as_str() {
            "/.well-known/oauth-protected-resource/mcp"
            | "/.well-known/oauth-protected-resource" => json(
                200,
                json!({"resource": format!("{me}/mcp"), "authorization_servers": [me]}),
            ),
            p if p.starts_with("/.well-known/oauth-authorization-server")
                || p.starts_with("/.well-known/openid-configuration") =>
            {
                json(
                    200,
                    json!({
                        "issuer": me,
                        "authorization_endpoint": format!("{me}/authorize"),
                        "token_endpoint": format!("{me}/token"),
                        "registration_endpoint": format!("{me}/register"),
                        "response_types_supported": ["code"],
                        "grant_types_supported": ["authorization_code", "refresh_token"],
                        "code_challenge_methods_supported": ["S256"]
                    }),
                )
            }
            "/token" => json(
                401,
                json!({"error": "invalid_client", "error_description": "Client not found"}),
            ),
            "/mcp" => mcp(req),
            _ => (404, Vec::new(), String::new()),
        }
    });
    let me = format!("http://127.0.0.1:{}", server.port);
    let _ = base.set(me.clone());
    (server, me)
}

const ACCESS_TOKEN: &str = "lin_oauth_8c2f0e9a4b7d1c6e3f5a2b9d8e7c6f5a";

/// A login hermes stored for server `linear` at `me`, received at
/// `received_at` (Unix seconds) and good for `expires_in` seconds.
fn stored_login(env: &TestEnv, me: &str, received_at: u64, expires_in: u64) {
    let store = env.home.path().join("oauth/linear.json");
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    std::fs::write(
        &store,
        json!({
            "client_id": "3f1c9a7e-52d4-4b8e-9c61-0d2a7b5e8f13",
            "token_response": {
                "access_token": ACCESS_TOKEN,
                "token_type": "Bearer",
                "expires_in": expires_in,
                "refresh_token": "lin_refresh_1d4e7a2c9b6f3e8d5a0c7b4e1f6a9d2c"
            },
            "granted_scopes": ["read", "write"],
            "token_received_at": received_at,
            "issuer": me
        })
        .to_string(),
    )
    .unwrap();
}

const LOST: &str = "server `linear` no longer accepts hermes' stored login (invalid_client); run `hermes mcp login linear`";

/// The authorization server lost hermes' client (it dropped its
/// registrations, as servers do after a redeploy) and the stored token,
/// from a month ago, has expired: its refresh is refused. The call fails at
/// once with the command to run — no retry of a refresh that cannot work —
/// and `mcp list` shows the refusal until a new login.
#[test]
fn a_stored_login_the_server_no_longer_knows_asks_for_a_new_one() {
    let (server, me) = lost_client(|_| (401, Vec::new(), String::new()));
    let env = TestEnv::new();
    env.add_server("linear", &format!("url = \"{me}/mcp\""));
    stored_login(&env, &me, 1_793_000_000, 3600);

    let run = env.run(&["mcp", "call", "linear", "list_issues", "{}"]);
    assert_ne!(run.code, 0, "{}", run.stderr);
    crate::assert_contains!(run.error_line(), LOST);
    let refreshes = server.seen().iter().filter(|r| r.path == "/token").count();
    assert_eq!(
        refreshes,
        1,
        "one refresh, not retried: {:?}",
        server.seen()
    );

    let list = env.run(&["mcp", "list"]);
    list.ok();
    crate::assert_contains!(
        list.stdout,
        "needs login: the server refused the stored login (invalid_client)"
    );
}

/// The same refusal mid-session: the token was good when the session
/// began and expires between two calls. The second call says to log in
/// again — not that the server crashed — and the session goes on.
#[test]
fn a_login_refused_mid_session_names_the_command() {
    let (_server, me) = lost_client(|req| {
        if req.header("authorization") != Some(&format!("Bearer {ACCESS_TOKEN}")) {
            return (401, Vec::new(), String::new());
        }
        if req.method != "POST" {
            return (405, Vec::new(), String::new());
        }
        let msg: serde_json::Value = serde_json::from_str(&req.body).unwrap_or_default();
        let result = match msg["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "linear", "version": "1.4.0"}
            }),
            "tools/list" => json!({"tools": [{
                "name": "list_issues",
                "description": "List issues in the user's Linear workspace",
                "inputSchema": {"type": "object", "properties": {"limit": {"type": "number"}}}
            }]}),
            "tools/call" => {
                json!({"content": [{"type": "text", "text": "ENG-412 Fix login redirect"}]})
            }
            _ => return (202, Vec::new(), String::new()),
        };
        (
            200,
            vec![("Content-Type".into(), "application/json".into())],
            json!({"jsonrpc": "2.0", "id": msg["id"], "result": result}).to_string(),
        )
    });
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.add_server("linear", &format!("url = \"{me}/mcp\""));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    // Refreshed once less than a second is left: good for about 3 s.
    stored_login(&env, &me, now, 4);
    let list = || batch(&[("mcp__linear__list_issues", json!({}))]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("first"),
        "tool_call",
        &list(),
    )]));
    env.fake.push(
        Reply::tool_calls(&[(&call_id("second"), "tool_call", &list())])
            .delayed(std::time::Duration::from_secs(5)),
    );
    env.fake.push(Reply::text("ok"));
    env.run(&["-q", "what is open?"]).ok();
    let first = contents(&env.tool_results(1));
    crate::assert_contains!(first[0], "ENG-412 Fix login redirect");
    let second = contents(&env.tool_results(2));
    assert_eq!(second.len(), 2, "{second:?}");
    crate::assert_contains!(second[1], LOST);
}
