//! `.mcp.json` as Claude Code's users write it (issue 34): `${VAR}` kept and
//! expanded at each start — never copied into config.toml, never sent on
//! as text — and a repository's own `.mcp.json` read in place, held by
//! trust, listed with where it came from. The server is the real
//! server-everything, whose `get-env` shows what it was started with.

use std::path::Path;

use serde_json::json;

use crate::support::calls::{batch, contents};
use crate::support::{call_id, real_server, Reply, TestEnv};

/// A `.mcp.json` for server-everything: its token from the environment,
/// its host with a default, and a tool the team turned off.
fn mcp_json(dir: &Path) -> std::path::PathBuf {
    let path = dir.join(".mcp.json");
    std::fs::write(
        &path,
        format!(
            r#"{{
  "mcpServers": {{
    "everything": {{
      "command": {:?},
      "args": [],
      "env": {{
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${{GITHUB_TOKEN}}",
        "GITHUB_HOST": "${{GH_HOST:-github.com}}"
      }},
      "disabledTools": ["trigger-long-running-operation"]
    }}
  }}
}}
"#,
            real_server("mcp-server-everything")
        ),
    )
    .unwrap();
    path
}

/// One `get-env` call through `tool_call`, then an answer.
fn ask_env(env: &TestEnv) {
    env.fake.push(Reply::tool_calls(&[(
        &call_id("env"),
        "tool_call",
        &batch(&[("mcp__everything__get_env", json!({}))]),
    )]));
    env.fake.push(Reply::text("done"));
}

/// A token as long as GitHub's.
const TOKEN: &str = "ghp_R3alLookingT0kenValue0123456789abcd";

/// `hermes -q go` asking for `get_env`, with `vars` set; it must succeed.
fn env_asked_with(env: &TestEnv, vars: &[(&str, &str)]) {
    ask_env(env);
    let mut cmd = env.cmd();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let run = cmd.args(["-q", "go"]).output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn an_imported_variable_is_read_at_each_start_and_never_written() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    let file = mcp_json(env.home.path());
    // Imported while GITHUB_TOKEN is not set.
    let imported = env.run(&["mcp", "import", file.to_str().unwrap()]);
    imported.ok();
    let cfg = std::fs::read_to_string(env.config_path()).unwrap();
    crate::assert_contains!(cfg, "GITHUB_PERSONAL_ACCESS_TOKEN = \"${GITHUB_TOKEN}\"");
    crate::assert_contains!(cfg, "disabled_tools = [\"trigger-long-running-operation\"]");

    // Set at run: the server gets the value (hidden from the model, as a
    // token is), and the default host.
    let token = TOKEN;
    env_asked_with(&env, &[("GITHUB_TOKEN", token)]);
    let got = contents(&env.tool_results(1)).join("\n");
    crate::assert_contains!(got, "GITHUB_HOST");
    crate::assert_contains!(got, "github.com");
    crate::assert_contains!(got, "GITHUB_PERSONAL_ACCESS_TOKEN");
    crate::assert_not_contains!(got, "${GITHUB_TOKEN}");
    crate::assert_not_contains!(got, token);
    assert!(
        !std::fs::read_to_string(env.config_path())
            .unwrap()
            .contains(token),
        "the token reached config.toml"
    );
    // The tool the file turned off is not offered.
    let tools = env.run(&["mcp", "tools", "everything"]);
    crate::assert_not_contains!(tools.stdout, "trigger-long-running-operation");

    // What does not map is said, field by field, and nothing else is lost.
    let more = env.home.path().join("more.json");
    std::fs::write(
        &more,
        r#"{"mcpServers": {
  "api": {"type": "http", "url": "https://api.example.com/mcp", "headersHelper": "/opt/bin/get-headers.sh"},
  "desktop": {"command": "C:\\Program Files\\nodejs\\node.exe", "args": ["server.js"]}
}}"#,
    )
    .unwrap();
    let imported = env.run(&["mcp", "import", more.to_str().unwrap()]);
    crate::assert_contains!(
        imported.stderr,
        "note: `api`: dropped `headersHelper`: hermes runs no header helper; set `headers` or `bearer_token_env`"
    );
    crate::assert_contains!(
        imported.stderr,
        "skipped desktop: `C:\\Program Files\\nodejs\\node.exe` is a Windows path"
    );

    // Unset at run: one line naming the server and the variable.
    ask_env(&env);
    env.run(&["-q", "go"]);
    let failed = contents(&env.tool_results(3)).join("\n");
    crate::assert_contains!(
        failed,
        "server `everything` needs ${GITHUB_TOKEN} (in its env.GITHUB_PERSONAL_ACCESS_TOKEN), which is not set"
    );
}

/// A repository's own `.mcp.json`: held until trusted, then listed with
/// where it came from, and called.
#[test]
fn a_repositorys_mcp_json_is_read_in_place_once_trusted() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    let cwd = env.cwd.path();
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    mcp_json(cwd);
    let held = env.run(&["mcp", "list"]);
    crate::assert_contains!(
        held.stderr,
        ".mcp.json sets `mcp_servers` — not applied: this folder is not trusted"
    );
    crate::assert_not_contains!(held.stdout, "everything");

    let trusted = env.run(&["trust"]);
    trusted.ok();
    crate::assert_contains!(trusted.stderr, ".mcp.json");
    let listed = env.run(&["mcp", "list"]);
    listed.ok();
    crate::assert_contains!(listed.stdout, "everything");
    crate::assert_contains!(
        listed.stdout,
        &format!("from {}", cwd.join(".mcp.json").display())
    );
    crate::assert_contains!(listed.stdout, "cannot start: a variable is not set");

    env_asked_with(
        &env,
        &[("GITHUB_TOKEN", TOKEN), ("GH_HOST", "ghe.example.internal")],
    );
    crate::assert_contains!(
        contents(&env.tool_results(1)).join("\n"),
        "ghe.example.internal"
    );
}

/// Codex's `config.toml` as its users write it (ours): its servers
/// imported — a variable Codex passes by name (`env_vars`) passed as
/// `${NAME}`, read at each start; the timeout in seconds in milliseconds;
/// the tool it turns off off — and what does not map named.
#[test]
fn codex_config_toml_is_imported_and_its_passed_variables_read_at_each_start() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    let codex = env.home.path().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let file = codex.join("config.toml");
    std::fs::write(
        &file,
        format!(
            r#"model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.everything]
command = {:?}
args = []
env = {{ "DOCS_REGION" = "eu-west" }}
env_vars = ["DEPLOY_STAGE"]
startup_timeout_sec = 20
disabled_tools = ["trigger-long-running-operation"]
required = true
"#,
            real_server("mcp-server-everything")
        ),
    )
    .unwrap();
    let imported = env.run(&["mcp", "import", file.to_str().unwrap()]);
    imported.ok();
    crate::assert_contains!(imported.stdout, "added MCP server `everything`");
    crate::assert_contains!(
        imported.stderr,
        "note: `everything`: dropped `required`: hermes starts a server when it is first needed"
    );
    let cfg = std::fs::read_to_string(env.config_path()).unwrap();
    crate::assert_contains!(cfg, "DEPLOY_STAGE = \"${DEPLOY_STAGE}\"");
    crate::assert_contains!(cfg, "startup_timeout_ms = 20000");

    env_asked_with(&env, &[("DEPLOY_STAGE", "canary-7")]);
    let got = contents(&env.tool_results(1)).join("\n");
    crate::assert_contains!(got, "DEPLOY_STAGE");
    crate::assert_contains!(got, "canary-7");
    crate::assert_contains!(got, "eu-west");
    let tools = env.run(&["mcp", "tools", "everything"]);
    crate::assert_not_contains!(tools.stdout, "trigger-long-running-operation");

    // Not TOML: the file and the line.
    std::fs::write(&file, "model = \"x\"\n[mcp_servers.a\n").unwrap();
    let bad = env.run(&["mcp", "import", file.to_str().unwrap()]);
    assert_ne!(bad.code, 0);
    crate::assert_contains!(bad.stderr, "config.toml: line 2:");
}
