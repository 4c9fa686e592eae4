//! Tool-call ids hermes makes: those of split children and those of calls
//! that arrived without one. Every id must be accepted by every supported
//! provider when it is replayed — at most 40 characters (OpenAI answers 400
//! past 40), only `[A-Za-z0-9_-]` (Anthropic `tool_use.id`, Bedrock
//! `toolUseId`), never empty — and must come out the same when the same
//! message is split again.
//!
//! A child id is the parent's alphabetic prefix (`call_`, `toolu_`,
//! `tooluse_`; `call_` when the parent has none) followed by 24 base62
//! characters hashed from the parent id, the entry's name, its canonical
//! arguments and its index. A collision re-hashes with an attempt counter, so
//! the suffix stays inside the same rules and the same length. Real parent ids
//! are long (`call_` + 24), so a child id cannot be "parent plus something".

use std::collections::HashSet;

use serde_json::Value;

use super::entry::Entry;

/// The longest id every supported provider accepts.
pub(crate) const MAX_ID_LEN: usize = 40;
/// Hash characters after the prefix.
const HASH_LEN: usize = 24;
/// Longest alphabetic prefix kept from a parent id (`tooluse_` is 8).
const MAX_PREFIX: usize = 12;
const FALLBACK_PREFIX: &str = "call_";

/// Whether every supported provider accepts `id` in a replayed history.
pub(crate) fn is_legal(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `id` as a provider with stricter rules than the one that issued it can
/// take it: itself when legal everywhere, else `call_` and a hash of it —
/// the same for the call and its result, and on every replay.
pub(crate) fn legal_everywhere(id: &str) -> std::borrow::Cow<'_, str> {
    if is_legal(id) {
        id.into()
    } else {
        format!("{FALLBACK_PREFIX}{}", hash_chars(id.as_bytes())).into()
    }
}

/// The parent's leading letters and the `_` or `-` after them, e.g. `toolu_`.
fn prefix_of(parent: &str) -> &str {
    let letters = parent
        .bytes()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    match parent.as_bytes().get(letters) {
        Some(b'_' | b'-') if (1..=MAX_PREFIX).contains(&letters) => &parent[..=letters],
        _ => FALLBACK_PREFIX,
    }
}

/// Keys sorted, no spaces: the same arguments always hash the same, whatever
/// order the model wrote the keys in.
pub(crate) fn canonical(v: &Value) -> String {
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

/// FNV-1a, 128 bits: stable across machines and runs, wide enough that 24
/// base62 characters look (and are) unrelated for different inputs.
fn fnv1a_128(bytes: &[u8]) -> u128 {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for b in bytes {
        h ^= u128::from(*b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    h
}

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `HASH_LEN` base62 characters of `key`: half from each of two hashes, so no
/// character is a leftover zero of a number that ran out.
fn hash_chars(key: &[u8]) -> String {
    let mut out = String::with_capacity(HASH_LEN);
    for salt in [0u8, 1] {
        let mut salted = Vec::with_capacity(key.len() + 1);
        salted.push(salt);
        salted.extend_from_slice(key);
        let mut h = fnv1a_128(&salted);
        for _ in 0..HASH_LEN / 2 {
            out.push(BASE62[(h % 62) as usize] as char);
            h /= 62;
        }
    }
    out
}

/// Tries `make(0)`, `make(1)`, … until an id not in `taken`; records it.
fn first_free(taken: &mut HashSet<String>, make: impl Fn(u32) -> String) -> String {
    let mut attempt = 0;
    loop {
        let id = make(attempt);
        debug_assert!(is_legal(&id), "hermes made an illegal id {id}");
        if taken.insert(id.clone()) {
            return id;
        }
        attempt += 1;
    }
}

/// The id of child `index` ≥ 1 of `parent_id`, unique among `taken`.
pub(crate) fn child_id(
    parent_id: &str,
    entry: &Entry,
    index: usize,
    taken: &mut HashSet<String>,
) -> String {
    let prefix = prefix_of(parent_id);
    let args = canonical(entry.identity_arguments());
    first_free(taken, |attempt| {
        let key = format!(
            "{parent_id}\u{0}{}\u{0}{args}\u{0}{index}\u{0}{attempt}",
            entry.name
        );
        format!("{prefix}{}", hash_chars(key.as_bytes()))
    })
}

/// Ids for all entries of a batch with id `parent_id`: the parent's own for
/// the first, child ids after it, unique among `taken`.
pub(crate) fn entry_ids(
    parent_id: &str,
    entries: &[Entry],
    taken: &mut HashSet<String>,
) -> Vec<String> {
    taken.insert(parent_id.to_string());
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if i == 0 {
                parent_id.to_string()
            } else {
                child_id(parent_id, e, i, taken)
            }
        })
        .collect()
}

/// An id for a call that arrived without one (some OpenAI-compatible servers
/// send none). Derived from the call itself and from `position` — where the
/// message stands in the session (its history length) — so ids differ from
/// round to round, and unique among `taken` (every id of the session).
pub(crate) fn missing_id(
    position: usize,
    index: usize,
    name: &str,
    arguments: &str,
    taken: &mut HashSet<String>,
) -> String {
    first_free(taken, |attempt| {
        let key = format!("{position}\u{0}{index}\u{0}{name}\u{0}{arguments}\u{0}{attempt}");
        format!("{FALLBACK_PREFIX}{}", hash_chars(key.as_bytes()))
    })
}

/// A new id for a call whose id another call already has — earlier in its
/// message (some OpenAI-compatible servers give every call of a reply the
/// same id) or earlier in the session (some number each reply's calls from
/// `call_0`). Results pair with calls by id, so two calls under one id leave
/// one of them unanswered on replay, and Anthropic refuses a request with a
/// repeated `tool_use` id. Derived from the id, where the message stands
/// (`position`), the call's place in it, its name and arguments: the same
/// message is renamed the same way. Keeps the id's alphabetic prefix.
pub(crate) fn duplicate_id(
    original: &str,
    position: usize,
    index: usize,
    name: &str,
    arguments: &str,
    taken: &mut HashSet<String>,
) -> String {
    let prefix = prefix_of(original);
    first_free(taken, |attempt| {
        let key = format!(
            "{original}\u{0}{position}\u{0}{index}\u{0}{name}\u{0}{arguments}\u{0}{attempt}"
        );
        format!("{prefix}{}", hash_chars(key.as_bytes()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn entry(name: &str, args: Value) -> Entry {
        Entry {
            name: name.into(),
            arguments: Ok(args.clone()),
            raw: json!({"name": name, "arguments": args}),
        }
    }

    #[test]
    fn prefixes_follow_the_provider() {
        assert_eq!(prefix_of("call_abcDEF0123456789abcdEFGH"), "call_");
        assert_eq!(prefix_of("toolu_01A09q90qw90lq917835lq9"), "toolu_");
        assert_eq!(prefix_of("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"), "tooluse_");
        assert_eq!(prefix_of("aB3dE5fG7"), "call_");
        assert_eq!(prefix_of("0"), "call_");
        assert_eq!(prefix_of("_x"), "call_");
        assert_eq!(prefix_of("averyveryverylongword_x"), "call_");
    }

    #[test]
    fn child_ids_are_legal_and_depend_on_name_arguments_and_index_not_key_order() {
        let parent = "call_Pq7rT2vW9xY4zA1bC3dE5fG6";
        let id = |e: &Entry, i| child_id(parent, e, i, &mut HashSet::new());
        let a = id(&entry("n", json!({"x": 1, "y": 2})), 1);
        assert!(is_legal(&a) && a.len() == 5 + HASH_LEN, "{a}");
        assert!(a.starts_with("call_"));
        let b = id(
            &entry("n", serde_json::from_str(r#"{"y":2,"x":1}"#).unwrap()),
            1,
        );
        assert_eq!(a, b);
        assert_ne!(a, id(&entry("n", json!({"x": 1, "y": 2})), 2));
        assert_ne!(a, id(&entry("n", json!({"x": 2, "y": 2})), 1));
        assert_ne!(a, id(&entry("m", json!({"x": 1, "y": 2})), 1));
    }

    #[test]
    fn a_collision_rehashes_inside_the_same_rules() {
        let parent = "toolu_01A09q90qw90lq917835lq9";
        let e = entry("mcp__a__b", json!({}));
        let first = child_id(parent, &e, 1, &mut HashSet::new());
        let mut taken: HashSet<String> = [first.clone()].into();
        let second = child_id(parent, &e, 1, &mut taken);
        assert_ne!(first, second);
        assert!(is_legal(&second) && second.len() == first.len(), "{second}");
        let mut again: HashSet<String> = [first.clone()].into();
        assert_eq!(
            child_id(parent, &e, 1, &mut again),
            second,
            "the suffix is stable"
        );
    }

    #[test]
    fn missing_ids_differ_by_position_and_are_stable() {
        let mut taken = HashSet::new();
        let a = missing_id(3, 0, "echo", "{}", &mut taken);
        let b = missing_id(5, 0, "echo", "{}", &mut taken);
        assert_ne!(a, b, "the same call in two rounds must get two ids");
        assert!(is_legal(&a) && a.starts_with("call_") && a.len() == 29);
        assert_eq!(a, missing_id(3, 0, "echo", "{}", &mut HashSet::new()));
        // Asked again with `a` already taken (the same call twice in a message).
        assert_ne!(missing_id(3, 0, "echo", "{}", &mut taken), a);
    }

    #[test]
    fn a_repeated_id_gets_a_legal_stable_one_with_its_prefix() {
        let id = "call_k3J9xQ2mV8nR4tY7wZ1aB5cD";
        let mut taken: HashSet<String> = [id.to_string()].into();
        let a = duplicate_id(id, 4, 1, "tool_call", "{}", &mut taken);
        assert!(is_legal(&a) && a.starts_with("call_") && a != id, "{a}");
        let b = duplicate_id(id, 4, 2, "tool_call", "{}", &mut taken);
        assert_ne!(a, b, "two repeats in one message differ");
        let mut again: HashSet<String> = [id.to_string()].into();
        assert_eq!(duplicate_id(id, 4, 1, "tool_call", "{}", &mut again), a);
        let odd = duplicate_id("0", 4, 1, "x", "{}", &mut HashSet::new());
        assert!(is_legal(&odd) && odd.starts_with("call_"), "{odd}");
    }

    /// Parent ids as real providers issue them, and odd ones up to 64 chars.
    fn parent_ids() -> impl Strategy<Value = String> {
        prop_oneof![
            "call_[A-Za-z0-9]{24}",
            "toolu_[A-Za-z0-9]{24}",
            "toolu_bdrk_[A-Za-z0-9]{24}",
            "tooluse_[A-Za-z0-9_-]{22}",
            "[A-Za-z0-9]{9}",
            "[A-Za-z0-9_.:~-]{1,64}",
        ]
    }

    fn entries() -> impl Strategy<Value = Vec<Entry>> {
        let arg = prop_oneof![
            any::<i64>().prop_map(Value::from),
            "[a-z ]{0,12}".prop_map(Value::from),
            Just(Value::Null),
        ];
        let one = (
            "[a-z_]{1,20}",
            prop::collection::btree_map("[a-z]{1,6}", arg, 0..4),
        )
            .prop_map(|(name, m)| entry(&format!("mcp__s__{name}"), json!(m)));
        prop::collection::vec(one, 1..=10)
    }

    proptest! {
        #[test]
        fn every_child_id_is_legal_unique_and_the_same_on_replay(
            parent in parent_ids(),
            siblings in prop::collection::vec(parent_ids(), 0..3),
            entries in entries(),
        ) {
            let mut taken: HashSet<String> = siblings.iter().cloned().collect();
            taken.insert(parent.clone());
            let before = taken.clone();
            let ids = entry_ids(&parent, &entries, &mut taken);
            prop_assert_eq!(&ids[0], &parent);
            let mut seen: HashSet<&String> = siblings.iter().filter(|s| **s != parent).collect();
            for id in &ids[1..] {
                prop_assert!(is_legal(id), "illegal child id {}", id);
                prop_assert!(seen.insert(id), "duplicate id {}", id);
                prop_assert!(*id != parent);
            }
            let mut again = before;
            prop_assert_eq!(entry_ids(&parent, &entries, &mut again), ids);
        }
    }
}
