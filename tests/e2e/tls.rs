//! One trust policy for every HTTP client: a private CA named by
//! `SSL_CERT_FILE` works for the model provider and a remote MCP server
//! alike (both reached over TLS through [`PrivateCa::front`]), and without
//! it both are refused for the same reason.

use serde_json::json;

use crate::support::calls::{batch, contents};
use crate::support::everything::Everything;
use crate::support::tls_proxy::PrivateCa;
use crate::support::{call_id, Reply, TestEnv, KEY_ENV};

fn behind_tls() -> (Everything, PrivateCa, TestEnv) {
    let ev = Everything::start();
    let env = TestEnv::new();
    let ca = PrivateCa::new(env.home.path());
    let provider = ca.front(env.fake.port());
    let server = ca.front(ev.port);
    // The provider section as TestEnv writes it, at an https URL.
    env.write_config(&format!(
        "provider = \"tls\"\n[tools]\ndefer = \"never\"\n\n[providers.tls]\n\
         base_url = \"https://localhost:{provider}/v1\"\napi_key_env = \"{KEY_ENV}\"\n\
         max_retries = 0\n"
    ));
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    std::fs::write(
        env.config_path(),
        text.replacen("provider = \"fake\"\n", "", 1),
    )
    .unwrap();
    env.add_server("ev", &format!("url = \"https://localhost:{server}/mcp\""));
    (ev, ca, env)
}

#[test]
fn a_private_ca_in_ssl_cert_file_works_for_the_provider_and_a_remote_server() {
    let (_ev, ca, env) = behind_tls();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("tls"),
        "tool_call",
        &batch(&[("mcp__ev__echo", json!({ "message": "over tls" }))]),
    )]));
    env.fake.push(Reply::text("done"));
    let run = crate::support::Run::from(
        env.cmd()
            .env("SSL_CERT_FILE", &ca.pem_file)
            .args(["-q", "echo over tls"])
            .output()
            .unwrap(),
    );
    run.ok();
    assert!(run.stdout.contains("done"), "{}", run.stdout);
    assert_eq!(contents(&env.tool_results(1)), ["Echo: over tls"]);
}

#[test]
fn without_the_private_ca_the_provider_is_refused_with_its_url() {
    let (_ev, _ca, env) = behind_tls();
    env.fake.push(Reply::text("never"));
    let run = crate::support::Run::from(
        env.cmd()
            .env("SSL_CERT_FILE", env.home.path().join("no-such-bundle.pem"))
            .env("SSL_CERT_DIR", env.home.path().join("no-such-dir"))
            .args(["-q", "hi"])
            .output()
            .unwrap(),
    );
    assert_ne!(run.code, 0);
    let line = run.error_line();
    assert!(line.contains("https://localhost:"), "{line}");
    assert!(env.fake.requests().is_empty(), "nothing got through");
}
