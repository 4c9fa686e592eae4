//! Splitting local `tool_call` batches before the assistant message is
//! persisted (deferred-tools contract §5). A batch of 2..=10 well-formed
//! entries that are not all `connectors__` becomes one `tool_call` per entry,
//! in entry order, at the parent's position; everything else is left exactly
//! as it came. Only the current, not-yet-persisted message is ever touched.

use std::collections::HashSet;

use serde_json::value::RawValue;
use serde_json::Value;

use crate::session::ToolCall;
use crate::tools::bridge;
use crate::tools::catalog::CONNECTOR_PREFIX;
use crate::tools::validation::{parse_calls, Entry, MAX_CALLS_PER_DISPATCH};

/// The entries a `tool_call` splits into, or `None` when the contract says to
/// leave it whole (malformed, over the limit, a single entry, connectors only).
fn split_entries(name: &str, arguments: &Value) -> Option<Vec<Entry>> {
    if name != bridge::CALL {
        return None;
    }
    let entries = parse_calls(arguments).ok()?;
    let n = entries.len();
    if !(2..=MAX_CALLS_PER_DISPATCH).contains(&n) {
        return None;
    }
    if entries.iter().all(|e| e.name.starts_with(CONNECTOR_PREFIX)) {
        return None;
    }
    Some(entries)
}

/// Keys sorted, no spaces: the same entry always hashes the same.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&m[k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// The id of child `index` ≥ 1: a hash of the parent id, the entry's name, its
/// canonical arguments and the index. Replaying a message yields the same ids.
pub fn deterministic_call_id(parent_id: &str, entry: &Entry, index: usize) -> String {
    let key = format!(
        "{parent_id}\u{0}{}\u{0}{}\u{0}{index}",
        entry.name,
        canonical(&entry.arguments)
    );
    let h = crate::util::hash::fnv1a(key.as_bytes());
    format!("{parent_id}_{index}_{:012x}", h & 0xffff_ffff_ffff)
}

/// A child's arguments: `{"calls":[entry]}`, the entry as the model wrote it.
fn child_arguments(entry: &Entry) -> String {
    format!("{{\"calls\":[{}]}}", entry.raw)
}

/// Makes `id` unique among `taken` with a stable suffix.
fn unique(id: String, taken: &mut HashSet<String>) -> String {
    let mut candidate = id.clone();
    let mut n = 1;
    while taken.contains(&candidate) {
        n += 1;
        candidate = format!("{id}~{n}");
    }
    taken.insert(candidate.clone());
    candidate
}

/// Expands every splittable `tool_call` of one assistant message in place.
/// Returns how many calls were split.
pub fn expand_local_tool_batches(calls: &mut Vec<ToolCall>) -> usize {
    let mut taken: HashSet<String> = calls.iter().map(|c| c.id.clone()).collect();
    let mut out = Vec::with_capacity(calls.len());
    let mut split = 0;
    for call in calls.drain(..) {
        let args = crate::tools::parse_arguments(&call.arguments).unwrap_or(Value::Null);
        let Some(entries) = split_entries(&call.name, &args) else {
            out.push(call);
            continue;
        };
        split += 1;
        for (i, e) in entries.iter().enumerate() {
            let id = if i == 0 {
                call.id.clone()
            } else {
                unique(deterministic_call_id(&call.id, e, i), &mut taken)
            };
            out.push(ToolCall {
                id,
                name: bridge::CALL.to_string(),
                arguments: child_arguments(e),
            });
        }
    }
    *calls = out;
    split
}

/// The same split over a provider-native block list (Anthropic Messages or
/// Bedrock Converse `content`): each splittable `tool_use`/`toolUse` block is
/// replaced, at its position, by its children's blocks; every other block —
/// text, `thinking` with its signature, `redacted_thinking` — is kept as the
/// very bytes it arrived as.
pub fn expand_block_list(blocks: &mut Vec<Box<RawValue>>) -> Result<usize, serde_json::Error> {
    let mut taken: HashSet<String> = HashSet::new();
    let mut parsed: Vec<Option<(String, String, String, Value)>> = Vec::with_capacity(blocks.len());
    for b in blocks.iter() {
        let v: Value = serde_json::from_str(b.get())?;
        let anthropic = v.get("type").and_then(|t| t.as_str()) == Some("tool_use");
        let (kind, body) = if anthropic {
            ("anthropic", &v)
        } else if let Some(tu) = v.get("toolUse") {
            ("bedrock", tu)
        } else {
            parsed.push(None);
            continue;
        };
        let id_key = if kind == "anthropic" {
            "id"
        } else {
            "toolUseId"
        };
        let id = body
            .get(id_key)
            .and_then(|i| i.as_str())
            .unwrap_or("")
            .to_string();
        let name = body
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string();
        taken.insert(id.clone());
        parsed.push(Some((
            kind.to_string(),
            id,
            name,
            body.get("input").cloned().unwrap_or(Value::Null),
        )));
    }
    let mut out: Vec<Box<RawValue>> = Vec::with_capacity(blocks.len());
    let mut split = 0;
    for (raw, info) in blocks.drain(..).zip(parsed) {
        let Some((kind, id, name, input)) = info else {
            out.push(raw);
            continue;
        };
        let Some(entries) = split_entries(&name, &input) else {
            out.push(raw);
            continue;
        };
        split += 1;
        for (i, e) in entries.iter().enumerate() {
            let child_id = if i == 0 {
                id.clone()
            } else {
                unique(deterministic_call_id(&id, e, i), &mut taken)
            };
            let input = serde_json::json!({ "calls": [e.raw] });
            let block = if kind == "anthropic" {
                serde_json::json!({"type": "tool_use", "id": child_id, "name": name, "input": input})
            } else {
                serde_json::json!({"toolUse": {"toolUseId": child_id, "name": name, "input": input}})
            };
            out.push(RawValue::from_string(block.to_string())?);
        }
    }
    *blocks = out;
    Ok(split)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, args: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        }
    }

    const BATCH: &str = r#"{"calls":[{"name":"mcp__f__read","arguments":{"path":"a"}},{"name":"mcp__f__read","arguments":{"path":"b"}},{"name":"mcp__t__open","arguments":{"title":"x"}}]}"#;

    #[test]
    fn a_local_batch_splits_in_place_with_stable_ids() {
        let mut calls = vec![
            call("p0", "echo", "{}"),
            call("p1", "tool_call", BATCH),
            call("p2", "other", "{}"),
        ];
        assert_eq!(expand_local_tool_batches(&mut calls), 1);
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["echo", "tool_call", "tool_call", "tool_call", "other"]
        );
        assert_eq!(calls[1].id, "p1");
        assert_eq!(
            calls[1].arguments,
            r#"{"calls":[{"arguments":{"path":"a"},"name":"mcp__f__read"}]}"#
        );
        assert!(calls[2].id.starts_with("p1_1_") && calls[3].id.starts_with("p1_2_"));
        let mut again = vec![
            call("p0", "echo", "{}"),
            call("p1", "tool_call", BATCH),
            call("p2", "other", "{}"),
        ];
        expand_local_tool_batches(&mut again);
        assert_eq!(calls, again, "replaying the message must give the same ids");
    }

    #[test]
    fn ids_depend_on_name_arguments_and_index_not_key_order() {
        let e = |args: Value| Entry {
            name: "n".into(),
            arguments: args.clone(),
            raw: args,
        };
        let a = deterministic_call_id("p", &e(serde_json::json!({"x": 1, "y": 2})), 1);
        let b = deterministic_call_id(
            "p",
            &e(serde_json::from_str(r#"{"y":2,"x":1}"#).unwrap()),
            1,
        );
        assert_eq!(a, b);
        assert_ne!(
            a,
            deterministic_call_id("p", &e(serde_json::json!({"x": 1, "y": 2})), 2)
        );
        assert_ne!(
            a,
            deterministic_call_id("p", &e(serde_json::json!({"x": 2, "y": 2})), 1)
        );
    }

    #[test]
    fn the_table_rows_that_stay_whole() {
        let eleven = serde_json::json!({"calls": (0..11).map(|i| serde_json::json!({"name": "mcp__a__b", "arguments": {"i": i}})).collect::<Vec<_>>()}).to_string();
        let cases = [
            r#"{"calls":[{"name":"connectors__a","arguments":{}},{"name":"connectors__b","arguments":{}}]}"#.to_string(),
            r#"{"calls":"[{\"name\": broken"}"#.to_string(),
            r#"{"calls":[{"name":"mcp__a__b"},42]}"#.to_string(),
            r#"{"calls":[{"arguments":{}},{"name":"mcp__a__b"}]}"#.to_string(),
            eleven,
            r#"{"calls":[{"name":"mcp__a__b","arguments":{}}]}"#.to_string(),
        ];
        for args in cases {
            let mut calls = vec![call("p", "tool_call", &args)];
            let before = calls.clone();
            assert_eq!(expand_local_tool_batches(&mut calls), 0, "{args}");
            assert_eq!(calls, before);
        }
    }

    #[test]
    fn a_mixed_batch_with_connectors_is_split() {
        let args = r#"{"calls":[{"name":"connectors__crm_find","arguments":{}},{"name":"mcp__a__b","arguments":{}}]}"#;
        let mut calls = vec![call("p", "tool_call", args)];
        assert_eq!(expand_local_tool_batches(&mut calls), 1);
        assert_eq!(calls.len(), 2);
    }

    #[test]
    fn a_colliding_child_id_gets_a_stable_suffix() {
        let batch = r#"{"calls":[{"name":"mcp__a__b","arguments":{}},{"name":"mcp__a__c","arguments":{}}]}"#;
        let entries = parse_calls(&serde_json::from_str(batch).unwrap()).unwrap();
        let clash = deterministic_call_id("p", &entries[1], 1);
        let mut calls = vec![call(&clash, "echo", "{}"), call("p", "tool_call", batch)];
        expand_local_tool_batches(&mut calls);
        assert_eq!(calls[2].id, format!("{clash}~2"));
    }

    #[test]
    fn block_lists_are_edited_in_place_and_other_blocks_keep_their_bytes() {
        let blocks_json = r#"[
            {"type":"thinking","thinking":"plan  it","signature":"EqQBCgIYAhIM+/sig=="},
            {"type": "text", "text": "Reading both."},
            {"type":"tool_use","id":"toolu_1","name":"tool_call","input":{"calls":[{"name":"mcp__f__read","arguments":{"path":"a"}},{"name":"mcp__f__read","arguments":{"path":"b"}}]}},
            {"type":"redacted_thinking","data":"opaque=="},
            {"type":"tool_use","id":"toolu_2","name":"tool_call","input":{"calls":[{"name":"mcp__f__read","arguments":{"path":"c"}}]}}
        ]"#;
        let mut blocks: Vec<Box<RawValue>> = serde_json::from_str(blocks_json).unwrap();
        let originals: Vec<String> = blocks.iter().map(|b| b.get().to_string()).collect();
        assert_eq!(expand_block_list(&mut blocks).unwrap(), 1);
        let got: Vec<String> = blocks.iter().map(|b| b.get().to_string()).collect();
        assert_eq!(got.len(), 6);
        assert_eq!(got[0], originals[0]);
        assert_eq!(got[1], originals[1]);
        assert_eq!(got[4], originals[3]);
        assert_eq!(got[5], originals[4]);
        let c0: Value = serde_json::from_str(&got[2]).unwrap();
        let c1: Value = serde_json::from_str(&got[3]).unwrap();
        assert_eq!(c0["id"], "toolu_1");
        assert_eq!(c0["input"]["calls"][0]["arguments"]["path"], "a");
        assert!(c1["id"].as_str().unwrap().starts_with("toolu_1_1_"));
        assert_eq!(c1["input"]["calls"][0]["arguments"]["path"], "b");

        let bedrock = r#"[{"text":"x"},{"toolUse":{"toolUseId":"t1","name":"tool_call","input":{"calls":[{"name":"mcp__a__b","arguments":{}},{"name":"mcp__a__c","arguments":{}}]}}}]"#;
        let mut blocks: Vec<Box<RawValue>> = serde_json::from_str(bedrock).unwrap();
        assert_eq!(expand_block_list(&mut blocks).unwrap(), 1);
        assert_eq!(blocks[0].get(), r#"{"text":"x"}"#);
        let c: Value = serde_json::from_str(blocks[2].get()).unwrap();
        assert_eq!(c["toolUse"]["input"]["calls"][0]["name"], "mcp__a__c");
    }
}
