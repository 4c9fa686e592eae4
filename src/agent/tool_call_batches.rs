//! Splitting local `tool_call` batches before the assistant message is
//! persisted (docs/tool-call-contract.md, "Splitting before persistence"). A batch of 2..=10 well-formed
//! entries that are not all `connectors__` becomes one `tool_call` per entry,
//! in entry order, at the parent's position; everything else is left exactly
//! as it came. Only the current, not-yet-persisted message is ever touched.

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::call::{classify, ids, names, CallClass, Entry};
use crate::model::{NativeBlocks, ToolCall};

/// The entries a call splits into, or `None` when the contract leaves it
/// whole — decided by the one classification.
fn split_entries(name: &str, raw_arguments: &str) -> Option<Vec<Entry>> {
    match classify(name, raw_arguments) {
        CallClass::Split(entries) => Some(entries),
        _ => None,
    }
}

/// A child's arguments: `{"calls":[entry]}`, the entry as parsed from the
/// model's batch and written again (compact, keys in sorted order) — not the
/// model's own bytes, which covered the whole batch. Written once, before the
/// message is persisted; replays send these bytes.
fn child_arguments(entry: &Entry) -> String {
    format!("{{\"calls\":[{}]}}", entry.raw)
}

/// Makes every call's id one of its own in the session: a call that arrived
/// without an id gets one, and a call whose id an earlier call already has
/// (in this message or before it) gets a new one — the first call keeps it.
/// Each is derived from the call and `position` (the history length), so the
/// same message always gets the same ids. `taken` holds the session's ids and
/// is given this message's.
pub(crate) fn assign_ids(calls: &mut [ToolCall], position: usize, taken: &mut HashSet<String>) {
    // What a new id must not be: any id of the session or of this message,
    // a later call's included.
    let mut avoid: HashSet<String> = taken.clone();
    avoid.extend(
        calls
            .iter()
            .filter(|c| !c.id.is_empty())
            .map(|c| c.id.clone()),
    );
    let mut kept: HashSet<String> = HashSet::with_capacity(calls.len());
    for (i, c) in calls.iter_mut().enumerate() {
        if c.id.is_empty() {
            c.id = ids::missing_id(position, i, &c.name, &c.arguments, &mut avoid);
        } else if taken.contains(&c.id) || kept.contains(&c.id) {
            c.id = ids::duplicate_id(&c.id, position, i, &c.name, &c.arguments, &mut avoid);
        }
        kept.insert(c.id.clone());
    }
    taken.extend(kept);
}

/// Expands every splittable `tool_call` of one assistant message in place.
/// Returns how many calls were split.
pub fn split_local_tool_batches(calls: &mut Vec<ToolCall>) -> usize {
    let mut taken: HashSet<String> = calls.iter().map(|c| c.id.clone()).collect();
    let mut out = Vec::with_capacity(calls.len());
    let mut split = 0;
    for call in calls.drain(..) {
        let Some(entries) = split_entries(&call.name, &call.arguments) else {
            out.push(call);
            continue;
        };
        split += 1;
        let ids = ids::entry_ids(&call.id, &entries, &mut taken);
        for (e, id) in entries.iter().zip(ids) {
            out.push(ToolCall {
                id,
                name: names::CALL.to_string(),
                arguments: child_arguments(e),
            });
        }
    }
    *calls = out;
    split
}

/// The same split over a provider-native block list (Anthropic Messages or
/// Bedrock Converse `content`, Gemini `parts`, Responses output items): each
/// splittable tool-use block is replaced, at its position, by its
/// children's blocks; every other block — text, `thinking` with its
/// signature, `redacted_thinking`, reasoning items — is kept untouched.
/// Child 0 is the parent block with its own entry for arguments, so what
/// rides on the parent (Gemini's `thoughtSignature`) stays in its place.
/// Returns how many blocks were split.
pub(crate) fn split_block_list(native: &mut NativeBlocks) -> usize {
    let api = native.api;
    let mut taken: HashSet<String> = native
        .blocks
        .iter()
        .filter_map(|b| api.tool_use(b))
        .map(|t| t.id.to_string())
        .collect();
    let mut out: Vec<Value> = Vec::with_capacity(native.blocks.len());
    let mut split = 0;
    for block in native.blocks.drain(..) {
        let children = api.tool_use(&block).and_then(|t| {
            let entries = split_entries(t.name, &t.arguments())?;
            let ids = ids::entry_ids(t.id, &entries, &mut taken);
            Some(
                entries
                    .iter()
                    .zip(ids)
                    .enumerate()
                    .map(|(i, (e, id))| {
                        let input = json!({ "calls": [e.raw] });
                        match i {
                            0 => api.with_input(&block, input),
                            _ => api.tool_use_block(&id, t.name, input),
                        }
                    })
                    .collect::<Vec<_>>(),
            )
        });
        match children {
            Some(c) => {
                split += 1;
                out.extend(c);
            }
            None => out.push(block),
        }
    }
    native.blocks = out;
    split
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

    const P0: &str = "call_k3J9xQ2mV8nR4tY7wZ1aB5cD";
    const P1: &str = "call_Hq8Lm2Np4Rs6Tu0Vw3Xy5Za7";
    const P2: &str = "call_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8";
    const BATCH: &str = r#"{"calls":[{"name":"mcp__f__read","arguments":{"path":"a"}},{"name":"mcp__f__read","arguments":{"path":"b"}},{"name":"mcp__t__open","arguments":{"title":"x"}}]}"#;

    fn message() -> Vec<ToolCall> {
        vec![
            call(P0, "echo", "{}"),
            call(P1, "tool_call", BATCH),
            call(P2, "other", "{}"),
        ]
    }

    #[test]
    fn a_local_batch_splits_in_place_with_stable_legal_ids() {
        let mut calls = message();
        assert_eq!(split_local_tool_batches(&mut calls), 1);
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["echo", "tool_call", "tool_call", "tool_call", "other"]
        );
        assert_eq!(calls[1].id, P1, "child 0 keeps the parent id");
        assert_eq!(
            calls[1].arguments,
            r#"{"calls":[{"arguments":{"path":"a"},"name":"mcp__f__read"}]}"#
        );
        for c in &calls[2..4] {
            assert!(
                ids::is_legal(&c.id) && c.id.starts_with("call_"),
                "{}",
                c.id
            );
        }
        let all: HashSet<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(all.len(), 5, "ids are unique in the message");
        let mut again = message();
        split_local_tool_batches(&mut again);
        assert_eq!(calls, again, "replaying the message must give the same ids");
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
            let mut calls = vec![call(P0, "tool_call", &args)];
            let before = calls.clone();
            assert_eq!(split_local_tool_batches(&mut calls), 0, "{args}");
            assert_eq!(calls, before);
        }
    }

    #[test]
    fn a_mixed_batch_with_connectors_is_split() {
        let args = r#"{"calls":[{"name":"connectors__crm_find","arguments":{}},{"name":"mcp__a__b","arguments":{}}]}"#;
        let mut calls = vec![call(P0, "tool_call", args)];
        assert_eq!(split_local_tool_batches(&mut calls), 1);
        assert_eq!(calls.len(), 2);
    }

    #[test]
    fn a_batch_with_one_bad_argument_is_split_all_the_same() {
        let args = r#"{"calls":[{"name":"mcp__a__b","arguments":{"x":1}},{"name":"mcp__a__c","arguments":"{oops"}]}"#;
        let mut calls = vec![call(P0, "tool_call", args)];
        assert_eq!(split_local_tool_batches(&mut calls), 1);
        assert_eq!(
            calls[1].arguments,
            r#"{"calls":[{"arguments":"{oops","name":"mcp__a__c"}]}"#
        );
    }

    #[test]
    fn a_colliding_child_id_gets_another_legal_id() {
        let batch = r#"{"calls":[{"name":"mcp__a__b","arguments":{}},{"name":"mcp__a__c","arguments":{}}]}"#;
        let mut alone = vec![call(P1, "tool_call", batch)];
        split_local_tool_batches(&mut alone);
        let clash = alone[1].id.clone();
        let mut calls = vec![call(&clash, "echo", "{}"), call(P1, "tool_call", batch)];
        split_local_tool_batches(&mut calls);
        assert_ne!(calls[2].id, clash);
        assert!(ids::is_legal(&calls[2].id) && calls[2].id.len() == clash.len());
    }

    #[test]
    fn calls_without_ids_get_session_unique_ones() {
        let mut taken: HashSet<String> = [P0.to_string()].into();
        let mut a = vec![
            call("", "echo", "{}"),
            call("", "echo", "{}"),
            call(P2, "x", "{}"),
        ];
        assign_ids(&mut a, 4, &mut taken);
        assert_ne!(a[0].id, a[1].id);
        assert_eq!(a[2].id, P2);
        let mut b = vec![call("", "echo", "{}")];
        assign_ids(&mut b, 7, &mut taken);
        assert!(
            b[0].id != a[0].id && b[0].id != a[1].id,
            "a later round reuses no id"
        );
        let mut replay = vec![
            call("", "echo", "{}"),
            call("", "echo", "{}"),
            call(P2, "x", "{}"),
        ];
        assign_ids(&mut replay, 4, &mut [P0.to_string()].into());
        assert_eq!(replay, a);
        assert!(a.iter().all(|c| ids::is_legal(&c.id)));
    }

    #[test]
    fn a_repeated_id_is_renamed_the_first_keeping_it() {
        // Two calls under one id in a reply, and a later reply that reuses
        // an id of the session.
        let mut taken: HashSet<String> = HashSet::new();
        let mut a = vec![
            call(
                P0,
                "tool_call",
                r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"s1"}}]}"#,
            ),
            call(
                P0,
                "tool_call",
                r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"s2"}}]}"#,
            ),
        ];
        assign_ids(&mut a, 2, &mut taken);
        assert_eq!(a[0].id, P0);
        assert_ne!(a[1].id, P0);
        assert!(
            ids::is_legal(&a[1].id) && a[1].id.starts_with("call_"),
            "{}",
            a[1].id
        );
        let mut b = vec![call(P0, "echo", "{}"), call(P1, "echo", "{}")];
        assign_ids(&mut b, 5, &mut taken);
        assert!(!taken.is_empty() && b[0].id != P0 && b[0].id != a[1].id);
        assert_eq!(b[1].id, P1);
        // A new id never takes the id of a later call of the same message.
        let would = ids::duplicate_id(P0, 3, 1, "x", "{}", &mut [P0.to_string()].into());
        let mut c = vec![
            call(P0, "x", "{}"),
            call(P0, "x", "{}"),
            call(&would, "y", "{}"),
        ];
        assign_ids(&mut c, 3, &mut HashSet::new());
        assert_ne!(c[1].id, would);
        assert_eq!(c[2].id, would);
        let mut again = vec![
            call(
                P0,
                "tool_call",
                r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"s1"}}]}"#,
            ),
            call(
                P0,
                "tool_call",
                r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"s2"}}]}"#,
            ),
        ];
        assign_ids(&mut again, 2, &mut HashSet::new());
        assert_eq!(again, a, "the same message is renamed the same way");
    }

    #[test]
    fn block_lists_are_edited_in_place_and_other_blocks_keep_their_bytes() {
        use crate::model::BlockApi;
        let blocks_json = r#"[
            {"type":"thinking","thinking":"plan  it","signature":"EqQBCgIYAhIM+/sig=="},
            {"type": "text", "text": "Reading both."},
            {"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"tool_call","input":{"calls":[{"name":"mcp__f__read","arguments":{"path":"a"}},{"name":"mcp__f__read","arguments":{"path":"b"}}]}},
            {"type":"redacted_thinking","data":"opaque=="},
            {"type":"tool_use","id":"toolu_01B19r91rx91mr928946mr0","name":"tool_call","input":{"calls":[{"name":"mcp__f__read","arguments":{"path":"c"}}]}}
        ]"#;
        let mut n = NativeBlocks {
            api: BlockApi::Anthropic,
            blocks: serde_json::from_str(blocks_json).unwrap(),
        };
        let originals: Vec<String> = n.blocks.iter().map(Value::to_string).collect();
        assert_eq!(split_block_list(&mut n), 1);
        let got: Vec<String> = n.blocks.iter().map(Value::to_string).collect();
        assert_eq!(got.len(), 6);
        assert_eq!(got[0], originals[0]);
        assert_eq!(got[1], originals[1]);
        assert_eq!(got[4], originals[3]);
        assert_eq!(got[5], originals[4]);
        let (c0, c1) = (&n.blocks[2], &n.blocks[3]);
        assert_eq!(c0["id"], "toolu_01A09q90qw90lq917835lq9");
        assert_eq!(c0["input"]["calls"][0]["arguments"]["path"], "a");
        let id1 = c1["id"].as_str().unwrap();
        assert!(
            id1.starts_with("toolu_") && ids::is_legal(id1) && id1 != c0["id"],
            "{id1}"
        );
        assert_eq!(c1["input"]["calls"][0]["arguments"]["path"], "b");
        let calls = n.tool_calls();
        let mut plain = vec![call(
            "toolu_01A09q90qw90lq917835lq9",
            "tool_call",
            r#"{"calls":[{"name":"mcp__f__read","arguments":{"path":"a"}},{"name":"mcp__f__read","arguments":{"path":"b"}}]}"#,
        )];
        split_local_tool_batches(&mut plain);
        assert_eq!(
            calls[..2],
            plain[..],
            "a block list splits exactly as the same calls do"
        );

        let bedrock = r#"[{"text":"x"},{"toolUse":{"toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","name":"tool_call","input":{"calls":[{"name":"mcp__a__b","arguments":{}},{"name":"mcp__a__c","arguments":{}}]}}}]"#;
        let mut n = NativeBlocks {
            api: BlockApi::Bedrock,
            blocks: serde_json::from_str(bedrock).unwrap(),
        };
        assert_eq!(split_block_list(&mut n), 1);
        assert_eq!(n.blocks[0].to_string(), r#"{"text":"x"}"#);
        let c = &n.blocks[2];
        assert_eq!(c["toolUse"]["input"]["calls"][0]["name"], "mcp__a__c");
        assert!(c["toolUse"]["toolUseId"]
            .as_str()
            .unwrap()
            .starts_with("tooluse_"));
    }
}
