//! Real servers' tool schemas against each API's rules: the strict fakes
//! refuse the raw schemas the real APIs refuse, and hermes offers every
//! real catalog in tests/fixtures/catalogs directly (`defer = "never"`) to
//! each API without a 400, every tool still callable by the name it gets.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{call_id, schema_rules, Api, Reply, TestEnv};

/// Each fixture: its short name, file and tools.
fn catalogs() -> Vec<(String, PathBuf, Vec<Value>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogs");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "json").then_some(path)
        })
        .map(|path| {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, path, v["tools"].as_array().unwrap().clone())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The tools a request offers, as (name, schema), in any of the five APIs.
fn offered(req: &Value) -> Vec<(String, Value)> {
    let empty = Vec::new();
    let tools = req["tools"]
        .as_array()
        .or_else(|| req["toolConfig"]["tools"].as_array())
        .unwrap_or(&empty);
    // Gemini's are declarations inside a tool.
    let gemini: Vec<Value> = tools
        .iter()
        .flat_map(|t| {
            t["functionDeclarations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let tools = if gemini.is_empty() { tools } else { &gemini };
    tools
        .iter()
        .filter_map(|t| {
            let (name, schema) = if t["parametersJsonSchema"].is_object() {
                (&t["name"], &t["parametersJsonSchema"])
            } else if t["type"] == "function" && t["parameters"].is_object() {
                (&t["name"], &t["parameters"])
            } else if t["function"].is_object() {
                (&t["function"]["name"], &t["function"]["parameters"])
            } else if t["toolSpec"].is_object() {
                (
                    &t["toolSpec"]["name"],
                    &t["toolSpec"]["inputSchema"]["json"],
                )
            } else {
                (&t["name"], &t["input_schema"])
            };
            Some((name.as_str()?.to_string(), schema.clone()))
        })
        .collect()
}

/// The raw schemas of the real catalogs that each API refuses: there are
/// some (else the fakes check nothing), and the known ones are among them.
#[test]
fn the_fakes_refuse_the_raw_schemas_the_real_apis_refuse() {
    let mut openai = Vec::new();
    let mut anthropic = Vec::new();
    for (catalog, _, tools) in catalogs() {
        for t in &tools {
            let name = t["name"].as_str().unwrap();
            let schema = &t["inputSchema"];
            if let Some(e) = schema_rules::openai(name, schema) {
                openai.push((format!("{catalog}/{name}"), e));
            }
            if let Some(e) = schema_rules::anthropic(0, schema) {
                anthropic.push((format!("{catalog}/{name}"), e));
            }
        }
    }
    let refused = |list: &[(String, String)], tool: &str| list.iter().any(|(t, _)| t == tool);
    // mcp-grafana's update_dashboard and DigitalOcean's array fields
    // without `items`, as reported against those servers.
    for tool in ["grafana/update_dashboard", "digitalocean/vector-db-create"] {
        assert!(refused(&openai, tool), "{tool} passes: {openai:#?}");
    }
    assert!(
        openai
            .iter()
            .all(|(_, e)| e.contains("array schema missing items")),
        "{openai:#?}"
    );
    // No catalog recorded here has a top-level combinator (gitlab-mcp
    // 2.1.64 has none): the rule is held against that shape as servers
    // have shipped it.
    let shipped = serde_json::json!({"anyOf": [
        {"type": "object", "properties": {"project_id": {"type": "string"}, "merge_request_iid": {"type": "string"}}, "required": ["project_id", "merge_request_iid"]},
        {"type": "object", "properties": {"project_id": {"type": "string"}, "source_branch": {"type": "string"}}, "required": ["project_id", "source_branch"]}
    ]});
    assert_eq!(
        schema_rules::anthropic(3, &shipped).as_deref(),
        Some("tools.3.custom.input_schema.type: Field required")
    );
    let mut typed = shipped.clone();
    typed["type"] = "object".into();
    assert!(schema_rules::anthropic(3, &typed)
        .is_some_and(|e| e.contains("does not support oneOf, allOf, or anyOf at the top level")));
    assert!(
        schema_rules::openai("get_merge_request", &typed).is_some_and(
            |e| e.contains("not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level")
        )
    );
    assert!(anthropic.is_empty(), "{anthropic:#?}");
}

/// Tools offered in one run: under OpenAI's 128, and calls under a turn's
/// 200 (a larger catalog is offered in slices, by `enabled_tools`).
const SLICE: usize = 100;

/// One catalog (or a slice of it) offered directly to `api`, every tool called once with `{}`:
/// the fake takes the request (so every schema passed its rules) and every
/// call reached the server's tool — run, or refused for its arguments by
/// the server's own schema — never an unknown tool.
fn offer_and_call(api: Api, catalog: &str, path: &Path, tools: &[Value]) {
    let env = TestEnv::with_api(api);
    env.write_config("[tools]\ndefer = \"never\"\n");
    let names: Vec<String> = tools
        .iter()
        .map(|t| format!("{:?}", t["name"].as_str().unwrap()))
        .collect();
    env.add_test_server(
        catalog,
        &format!(
            "args = [\"--catalog\", {:?}]\nenabled_tools = [{}]",
            path.display().to_string(),
            names.join(", ")
        ),
    );
    env.prefill(catalog);
    // The first request is answered by a plain reply to learn the names.
    env.fake.push(Reply::text("listed"));
    env.run(&["-q", "list"]).ok();
    let first = env.fake.requests()[0].json();
    let names: Vec<String> = offered(&first)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.starts_with("mcp__"))
        .collect();
    assert_eq!(names.len(), tools.len(), "{api:?} {catalog}: {names:?}");
    for (name, schema) in offered(&first) {
        let refused = match api {
            Api::OpenAi | Api::Responses => schema_rules::openai(&name, &schema),
            Api::Gemini => schema_rules::gemini("tools[0].function_declarations[0]", &schema)
                .or_else(|| schema.get("$schema").map(|_| "a $schema".to_string())),
            _ => schema_rules::anthropic(0, &schema),
        };
        assert_eq!(refused, None, "{api:?} {catalog}: {name}");
    }

    let ids: Vec<String> = (0..names.len())
        .map(|i| call_id(&format!("{catalog}-{i}")))
        .collect();
    let calls: Vec<(&str, &str, &str)> = names
        .iter()
        .zip(&ids)
        .map(|(n, id)| (id.as_str(), n.as_str(), "{}"))
        .collect();
    env.fake.clear_requests();
    env.fake.push(Reply::tool_calls(&calls));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "call them all"]).ok();
    let results = env.results_of(1);
    assert_eq!(results.len(), names.len(), "{api:?} {catalog}");
    for (id, text, _) in results {
        assert!(
            !text.contains("unknown tool") && !text.contains("no tool named"),
            "{api:?} {catalog} {id}: {text}"
        );
    }
}

#[test]
fn every_real_catalog_is_offered_directly_to_openai_and_each_tool_is_callable() {
    for (catalog, path, tools) in catalogs() {
        for slice in tools.chunks(SLICE) {
            offer_and_call(Api::OpenAi, &catalog, &path, slice);
        }
    }
}

#[test]
fn every_real_catalog_is_offered_directly_to_anthropic_and_each_tool_is_callable() {
    for (catalog, path, tools) in catalogs() {
        for slice in tools.chunks(SLICE) {
            offer_and_call(Api::Anthropic, &catalog, &path, slice);
        }
    }
}

#[test]
fn every_real_catalog_is_offered_directly_to_gemini_and_each_tool_is_callable() {
    for (catalog, path, tools) in catalogs() {
        for slice in tools.chunks(SLICE) {
            offer_and_call(Api::Gemini, &catalog, &path, slice);
        }
    }
}

#[test]
fn every_real_catalog_is_offered_directly_to_responses_and_each_tool_is_callable() {
    for (catalog, path, tools) in catalogs() {
        for slice in tools.chunks(SLICE) {
            offer_and_call(Api::Responses, &catalog, &path, slice);
        }
    }
}

#[test]
fn every_real_catalog_is_offered_directly_to_bedrock_and_each_tool_is_callable() {
    for (catalog, path, tools) in catalogs() {
        for slice in tools.chunks(SLICE) {
            offer_and_call(Api::Bedrock, &catalog, &path, slice);
        }
    }
}

/// More tools than OpenAI takes in one request (128) with `defer =
/// "never"`: they go behind the bridge with a note, never a 400.
#[test]
fn more_tools_than_the_api_takes_are_deferred_with_a_note() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"never\"\n");
    let mut total = 0;
    for (catalog, path, tools) in catalogs() {
        env.add_test_server(
            &catalog,
            &format!("args = [\"--catalog\", {:?}]", path.display().to_string()),
        );
        env.prefill(&catalog);
        total += tools.len();
    }
    assert!(total > 128, "the fixtures have {total} tools");
    env.fake.push(Reply::text("ok"));
    let run = env.run(&["--json", "-q", "hi"]);
    run.ok();
    let names: Vec<String> = offered(&env.fake.requests()[0].json())
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(names.iter().any(|n| n == "tool_search"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("mcp__")), "{names:?}");
    let warnings: Vec<String> = run
        .events()
        .iter()
        .filter(|e| e["type"] == "warning")
        .map(|e| e["message"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("more than OpenAI Chat Completions takes in one request (128)")),
        "{warnings:?}"
    );
}
