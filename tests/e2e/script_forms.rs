//! A server's form answered by a script (`--json --json-answers`): the
//! core puts it as a `form_asked` event with its typed fields and waits on
//! the answers channel approvals use; a line on stdin answers it by the
//! form's id. Against server-everything's `trigger-elicitation-request`, a
//! form with every kind of field.

use std::io::{BufRead, Write};

use serde_json::{json, Map, Value};

use crate::support::calls::{batch, contents};
use crate::support::{call_id, real_server, Reply, TestEnv};

/// A home with server-everything as `ev`, its tools allowed, and a first
/// turn queued that starts it (`echo`, then "ready"): the server adds its
/// form tool once it has seen the client declare elicitation.
pub(super) fn form_server_env() -> TestEnv {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n");
    env.set_approvals("allow = [\"mcp__ev__*\"]");
    env.add_server(
        "ev",
        &format!("command = {:?}", real_server("mcp-server-everything")),
    );
    env.fake.push(Reply::tool_calls(&[(
        &call_id("first"),
        "tool_call",
        &batch(&[("mcp__ev__echo", json!({"message": "start"}))]),
    )]));
    env.fake.push(Reply::text("ready"));
    env
}

/// A value a script would give `field`, from what `form_asked` says of it.
fn value_for(field: &Value) -> Value {
    match field["type"].as_str().unwrap_or("") {
        "boolean" => json!(true),
        "integer" => json!(7),
        "number" => json!(2.5),
        "choice" => field["choices"][0]["value"].clone(),
        "choices" => json!([field["choices"][0]["value"].clone()]),
        _ => match field["format"].as_str() {
            Some("date") => json!("1815-12-10"),
            Some("email") => json!("ada@example.org"),
            Some("uri") => json!("https://example.org/ada"),
            _ => json!("Ada Lovelace"),
        },
    }
}

/// The script fills the required fields (the rest take their defaults)
/// after two lines the form does not take — a required field missing, a
/// value out of range — which are reported and leave it waiting.
#[test]
fn a_script_answers_a_servers_form_by_its_id_and_bad_content_is_refused() {
    let env = form_server_env();
    env.run(&["--json", "--json-answers", "-q", "start"]).ok();
    env.fake.push(Reply::tool_calls(&[(
        &call_id("form"),
        "tool_call",
        &batch(&[("mcp__ev__trigger_elicitation_request", json!({}))]),
    )]));
    env.fake.push(Reply::text("thanks"));
    let mut child = env.spawn_with_stdin(&[
        "--continue",
        "--json",
        "--json-answers",
        "-q",
        "fill the form",
    ]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut asked = Vec::new();
    for line in stdout.lines() {
        let ev: Value = serde_json::from_str(&line.unwrap()).unwrap();
        crate::support::event_fits_schema(&ev).unwrap();
        if ev["type"] != "form_asked" {
            continue;
        }
        let id = ev["id"].as_str().unwrap().to_string();
        let fields = ev["fields"].as_array().unwrap().clone();
        let required: Vec<&Value> = fields.iter().filter(|f| f["required"] == true).collect();
        assert!(!required.is_empty(), "{ev}");
        let mut content = Map::new();
        for f in &required {
            content.insert(f["name"].as_str().unwrap().into(), value_for(f));
        }
        // A required field missing: refused, the form still waits.
        let mut short = content.clone();
        let first = required[0]["name"].as_str().unwrap();
        short.remove(first);
        writeln!(
            stdin,
            "{}",
            json!({"id": id, "answer": "accept", "content": short})
        )
        .unwrap();
        // An answer for a call, to a form: refused too.
        writeln!(stdin, "{}", json!({"id": id, "answer": "once"})).unwrap();
        writeln!(
            stdin,
            "{}",
            json!({"id": id, "answer": "accept", "content": content})
        )
        .unwrap();
        asked.push(ev);
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(asked.len(), 1, "one form: {asked:?}");
    let form = &asked[0];
    assert_eq!(form["server"], "ev");
    assert!(
        form["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{form}"
    );
    // Every kind of field, typed.
    let kinds: Vec<&str> = form["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["type"].as_str())
        .collect();
    for kind in ["text", "boolean", "integer", "choice", "choices"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    let first = form["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["required"] == true)
        .unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string();
    crate::assert_contains!(
        stderr,
        &format!(
            "the form `{}` does not take that content: field `{first}` is required",
            form["id"].as_str().unwrap()
        )
    );
    crate::assert_contains!(stderr, "is a server's form: answer accept");
    // The server got the script's values, and the defaults for the rest.
    let result = contents(&env.tool_results(3)).join("\n");
    crate::assert_contains!(result, "Ada Lovelace");
    crate::assert_contains!(result, "It was a dark and stormy night.");
    crate::assert_not_contains!(result, "declined");
}
