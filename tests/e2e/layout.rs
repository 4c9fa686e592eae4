//! The layout keeps its data path: no top-level module of `src/` uses a
//! module that uses it back, directly or through others. Read from the
//! source (`crate::…` paths), so a new back-edge fails here, naming the loop.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `.rs` file under `src/`: its path there and its text.
fn rust_files() -> Vec<(std::path::PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(&src).unwrap().to_path_buf();
                files.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files
}

/// Top-level module → the top-level modules its files name as `crate::x`.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in rust_files() {
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

/// A file's module path: `src/frontend/repl.rs` and `src/frontend/repl/mod.rs`
/// are both `frontend::repl`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts
}

/// The paths a file names from `start` (`crate::a::b`, `super::a::{b, c::d}`),
/// each as its segments.
fn paths_after(text: &str, start: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| -> usize {
        s.char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(s.len(), |(i, _)| i)
    };
    let mut out = Vec::new();
    for (i, _) in text.match_indices(start) {
        // `super::super::x` is read from its first `super::` only.
        if start == "super::" && text[..i].ends_with("super::") {
            continue;
        }
        let mut rest = &text[i + start.len()..];
        let mut segs = Vec::new();
        while rest.starts_with("super::") {
            segs.push("super".to_string());
            rest = &rest["super::".len()..];
        }
        loop {
            let n = ident(rest);
            if n == 0 {
                break;
            }
            segs.push(rest[..n].to_string());
            rest = &rest[n..];
            if let Some(r) = rest.strip_prefix("::") {
                rest = r;
            } else {
                break;
            }
        }
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',') {
                let item = item.trim();
                let mut s = segs.clone();
                s.extend(
                    item.split("::")
                        .map(|p| p[..ident(p)].to_string())
                        .filter(|p| !p.is_empty() && p != "self"),
                );
                out.push(s);
            }
        } else {
            out.push(segs);
        }
    }
    out
}

/// File → the files it uses: each `crate::` and `super::` path resolved to
/// the deepest module file it reaches. A module's own file declaring and
/// re-exporting its children is structure, not use: those edges are left out.
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files: BTreeMap<Vec<String>, (String, String)> = BTreeMap::new();
    for (rel, text) in rust_files() {
        // Comments name paths without using them.
        let text: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        files.insert(module_of(&rel), (rel.to_string_lossy().into_owned(), text));
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, (name, text)) in &files {
        let mut used = Vec::new();
        for p in paths_after(text, "crate::") {
            used.push(p);
        }
        for p in paths_after(text, "super::") {
            // `use super::*` is a test module's import of its own file.
            if p.is_empty() {
                continue;
            }
            // `super` is the parent of the file's module.
            let mut base = module.clone();
            base.pop();
            let mut segs = p.into_iter().peekable();
            while segs.peek().is_some_and(|s| s == "super") {
                segs.next();
                base.pop();
            }
            base.extend(segs);
            used.push(base);
        }
        let deps = graph.entry(name.clone()).or_default();
        for mut p in used {
            while !p.is_empty() && !files.contains_key(&p) {
                p.pop();
            }
            let Some((target, _)) = files.get(&p) else {
                continue;
            };
            let child_of_this = p.len() > module.len() && p.starts_with(module);
            if target != name && !child_of_this {
                deps.insert(target.clone());
            }
        }
    }
    graph
}

#[test]
fn no_file_uses_a_file_that_uses_it_back() {
    let graph = file_graph();
    assert!(
        graph["frontend/printer.rs"].contains("frontend/tool_block.rs"),
        "{:?}",
        graph["frontend/printer.rs"]
    );
    let mut cycles: Vec<Vec<String>> = graph
        .keys()
        .filter_map(|m| cycle_through(&graph, m))
        .collect();
    // Each loop once, from its smallest file.
    for c in &mut cycles {
        c.pop();
        let i = (0..c.len()).min_by_key(|&i| &c[i]).unwrap();
        c.rotate_left(i);
    }
    cycles.sort();
    cycles.dedup();
    let shown: Vec<String> = cycles.iter().map(|c| c.join(" → ")).collect();
    assert!(
        shown.is_empty(),
        "{} file cycles:\n{}",
        shown.len(),
        shown.join("\n")
    );
}

/// docs/architecture.md's block of module edges, as `module → a, b`.
fn documented_edges() -> BTreeMap<String, BTreeSet<String>> {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .unwrap();
    let start = doc.find("```text imports\n").expect("the imports block") + 16;
    let end = start + doc[start..].find("```").unwrap();
    doc[start..end]
        .lines()
        .map(|l| {
            let (from, to) = l.split_once('→').expect("`module → modules`");
            let to = to
                .split(',')
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .collect();
            (from.trim().to_string(), to)
        })
        .collect()
}

/// The architecture page says which module uses which, and that is what
/// the code imports: an edge added or dropped in either fails here.
#[test]
fn the_documented_module_edges_are_the_imports() {
    let documented = documented_edges();
    let graph = module_graph();
    assert!(documented.len() > 10, "{documented:?}");
    let mut drift = Vec::new();
    for m in graph.keys().chain(documented.keys()) {
        let code = graph.get(m).cloned().unwrap_or_default();
        let doc = documented.get(m).cloned().unwrap_or_default();
        if !graph.contains_key(m) || !documented.contains_key(m) || code != doc {
            drift.push(format!("{m}: code {code:?}, docs {doc:?}"));
        }
    }
    drift.dedup();
    assert!(
        drift.is_empty(),
        "docs/architecture.md drifts:\n{}",
        drift.join("\n")
    );
}

/// Every `module::item` the data-path diagram names exists: a module file
/// under src/, or an item its module's file declares.
#[test]
fn the_diagram_names_only_what_exists() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .unwrap();
    let start = doc.find("## The data path of one turn").unwrap();
    let start = start + doc[start..].find("```\n").unwrap() + 4;
    let end = start + doc[start..].find("```").unwrap();
    let diagram = &doc[start..end];
    let files = rust_files();
    let paths = regex_free_paths(diagram);
    let missing: Vec<&String> = paths.iter().filter(|p| !resolves(p, &files)).collect();
    assert!(
        paths.len() > 10,
        "{} paths read from the diagram",
        paths.len()
    );
    assert!(
        missing.is_empty(),
        "the diagram names what is not there: {missing:?}"
    );
}

/// Whether `a::b::item` names something: the longest prefix that is a
/// module of src/ (top-level or not), then each item declared in that
/// module's files (`fn`, `struct`, `enum`, `trait`, `mod`, `type`, or a
/// `pub use` of it). A path that starts with no module (`Agent::request`)
/// is looked for in every file.
fn resolves(path: &str, files: &[(std::path::PathBuf, String)]) -> bool {
    let segs: Vec<&str> = path.split("::").collect();
    let module_files = |module: &[&str]| -> Vec<&String> {
        let dir = module.join("/");
        files
            .iter()
            .filter(|(rel, _)| {
                let r = rel.to_string_lossy();
                r == format!("{dir}.rs") || r.starts_with(&format!("{dir}/"))
            })
            .map(|(_, t)| t)
            .collect()
    };
    let (texts, items): (Vec<&String>, &[&str]) = (1..=segs.len())
        .rev()
        .map(|n| (module_files(&segs[..n]), &segs[n..]))
        .find(|(t, _)| !t.is_empty())
        .unwrap_or_else(|| (files.iter().map(|(_, t)| t).collect(), &segs[..]));
    let declared = |item: &str| {
        texts.iter().any(|t| {
            ["fn ", "struct ", "enum ", "trait ", "mod ", "type "]
                .iter()
                .any(|k| {
                    t.match_indices(&format!("{k}{item}")).any(|(i, m)| {
                        !t[i + m.len()..]
                            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    })
                })
                || t.lines().any(|l| {
                    l.trim_start().starts_with("pub")
                        && l.contains(" use ")
                        && l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .any(|w| w == item)
                })
        })
    };
    items.iter().all(|item| declared(item))
}

/// `a::b::C` paths in text (`a::{b, c}` counted as `a::b` and `a::c`).
fn regex_free_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !is_ident(chars[i]) || (i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let mut j = i;
        let mut segs = vec![String::new()];
        let mut group: Vec<String> = Vec::new();
        while j < chars.len() {
            if is_ident(chars[j]) {
                segs.last_mut().unwrap().push(chars[j]);
                j += 1;
            } else if text_at(&chars, j, "::{") {
                let close = (j..chars.len())
                    .find(|&k| chars[k] == '}')
                    .unwrap_or(chars.len());
                let inner: String = chars[j + 3..close].iter().collect();
                group = inner.split(',').map(|s| s.trim().to_string()).collect();
                j = close + 1;
                break;
            } else if text_at(&chars, j, "::") {
                segs.push(String::new());
                j += 2;
            } else {
                break;
            }
        }
        if segs.len() > 1 || !group.is_empty() {
            let base = segs.join("::");
            if group.is_empty() {
                out.push(base);
            } else {
                out.extend(group.iter().map(|g| format!("{base}::{g}")));
            }
        }
        i = j.max(i + 1);
    }
    out
}

fn text_at(chars: &[char], at: usize, s: &str) -> bool {
    s.chars()
        .enumerate()
        .all(|(k, c)| chars.get(at + k) == Some(&c))
}
