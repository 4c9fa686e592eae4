//! The layout keeps its data path: no top-level module of `src/` uses a
//! module that uses it back, directly or through others. Read from the
//! source (`crate::…` paths), so a new back-edge fails here, naming the loop.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its files name as `crate::x`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).unwrap();
            let first = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let module = first.trim_end_matches(".rs").to_string();
            if module == "lib" || module == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let deps = graph.entry(module.clone()).or_default();
            for (i, _) in text.match_indices("crate::") {
                let name: String = text[i + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    deps.insert(name);
                }
            }
        }
    }
    graph
}

/// A path from `from` back to itself, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![from.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap();
        for next in graph.get(last).into_iter().flatten() {
            if next == from {
                let mut cycle = path.clone();
                cycle.push(next.clone());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_module_uses_a_module_that_uses_it_back() {
    let graph = module_graph();
    assert!(
        graph.contains_key("agent") && graph["agent"].contains("tools"),
        "{graph:?}"
    );
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_through(&graph, m))
        .map(|c| c.join(" → "))
        .collect();
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

/// Edges the layout does without: the message types are a leaf (`model`),
/// so a provider and the tools never use the session file, and the tools
/// never use a provider.
#[test]
fn the_message_types_are_a_leaf_and_providers_and_tools_keep_out_of_the_session_file() {
    let graph = module_graph();
    assert!(graph.contains_key("model"), "{graph:?}");
    let uses = |from: &str| graph.get(from).cloned().unwrap_or_default();
    assert!(uses("model").is_empty(), "model uses {:?}", uses("model"));
    for (from, not) in [
        ("provider", ["session", "tools", "agent"]),
        ("tools", ["session", "provider", "agent"]),
        ("session", ["provider", "tools", "agent"]),
        ("call", ["session", "provider", "tools"]),
    ] {
        for n in not {
            assert!(!uses(from).contains(n), "{from} uses {n}: {:?}", uses(from));
        }
    }
}

#[test]
fn the_cycle_check_finds_a_loop() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("c".into());
    graph.entry("c".into()).or_default().insert("a".into());
    assert_eq!(cycle_through(&graph, "a").unwrap(), ["a", "b", "c", "a"]);
    graph.get_mut("c").unwrap().clear();
    assert!(cycle_through(&graph, "a").is_none());
}
