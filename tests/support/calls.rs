//! Tool calls as the tests script and read them: a `tool_call` batch, the
//! calls a session file recorded, the contents of results, and a batch
//! stopped with Ctrl-C part way.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::{call_id, records, Reply, TestEnv};

/// `{"calls":[{"name":…,"arguments":…},…]}`.
pub fn batch(entries: &[(&str, Value)]) -> String {
    json!({"calls": entries.iter().map(|(n, a)| json!({"name": n, "arguments": a})).collect::<Vec<_>>()}).to_string()
}

/// The assistant tool calls recorded in a session file, in order.
pub fn recorded_calls(path: &Path) -> Vec<Value> {
    records(path)
        .into_iter()
        .filter(|r| r["type"] == "message" && r["message"]["role"] == "assistant")
        .flat_map(|r| {
            r["message"]["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

/// Runs `hermes [flags] -q go` on a scripted `tool_call` batch and presses
/// Ctrl-C once server `t`'s log shows `when`. Returns hermes' output, after it
/// exited with 130, and how long it took to exit after the signal.
#[cfg(unix)]
pub fn interrupted_batch(
    env: &TestEnv,
    flags: &[&str],
    args: &str,
    when: &str,
) -> (std::process::Output, Duration) {
    env.fake
        .push(Reply::tool_calls(&[(&call_id("stop"), "tool_call", args)]));
    let mut cmd = flags.to_vec();
    cmd.extend(["-q", "go"]);
    let child = env.spawn(&cmd);
    crate::wait_for(when, || env.server_log("t").contains(when));
    let signalled = std::time::Instant::now();
    crate::interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out, took)
}

pub fn contents(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .map(|r| r["content"].as_str().unwrap().to_string())
        .collect()
}

/// A reply of tool calls, each `(label, tool, arguments)`: the label makes
/// the call's realistic id.
pub fn reply_calls(list: &[(&str, &str, Value)]) -> Reply {
    let owned: Vec<(String, String, String)> = list
        .iter()
        .map(|(l, n, a)| (call_id(l), n.to_string(), a.to_string()))
        .collect();
    let borrowed: Vec<(&str, &str, &str)> = owned
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    Reply::tool_calls(&borrowed)
}

/// Every built-in tool, by name, as `[tools] builtin` lists them.
pub const ALL_BUILTINS: &str =
    r#"["read_file", "write_file", "edit_file", "glob", "grep", "shell"]"#;

/// A home offering every built-in, `approvals` as its `[approvals]`
/// lines, run as `user`.
pub fn builtins_env(user: super::users::User, approvals: &str) -> TestEnv {
    let env = TestEnv::new().run_as(user);
    env.write_config(&format!(
        "[tools]\nbuiltin = {ALL_BUILTINS}\n\n[approvals]\n{approvals}\n"
    ));
    env
}
