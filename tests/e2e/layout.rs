//! The layout keeps its data path: no top-level module of `src/` uses a
//! module that uses it back, directly or through others, and no file uses
//! a file that uses it back — a `mod.rs` and its own children included.
//! Read from the source (`crate::…`, `super::…` and a child's bare paths,
//! re-exports followed to the file that declares the item), so a new
//! back-edge fails here, naming the loop and the paths that make it.

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
/// each as its segments. `start` counts only where a path begins: not inside
/// another path (`x::super::`) or another name (`my_crate::`).
fn paths_after(text: &str, start: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| -> usize {
        s.char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(s.len(), |(i, _)| i)
    };
    let mut out = Vec::new();
    for (i, _) in text.match_indices(start) {
        if text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        {
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

/// A file's code as the graph reads it: no comments (they name paths
/// without using them) and nothing from its `#[cfg(test)] mod tests` on
/// (a test uses what it tests; that is not the file's structure).
fn code_of(text: &str) -> String {
    let text = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at]);
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The `pub use …;` statements of a file (any visibility), cut out of its
/// code: the remaining code and the statements' texts after `use `.
fn split_reexports(code: &str) -> (String, Vec<String>) {
    let mut rest = String::new();
    let mut reexports = Vec::new();
    let mut text = code;
    loop {
        // `pub use`, `pub(crate) use`, `pub(in crate::x) use` … at a
        // line's start.
        let at = text
            .match_indices("pub")
            .filter(|&(i, _)| i == 0 || text[..i].ends_with('\n'))
            .find_map(|(i, _)| {
                let after = &text[i + 3..];
                let vis = if after.starts_with('(') {
                    after.find(')')? + 1
                } else {
                    0
                };
                after[vis..]
                    .starts_with(" use ")
                    .then_some((i, 3 + vis + " use ".len()))
            });
        let Some((i, k)) = at else {
            rest.push_str(text);
            break;
        };
        rest.push_str(&text[..i]);
        let end = text[i..].find(';').map_or(text.len(), |e| i + e + 1);
        reexports.push(text[i + k..end].to_string());
        text = &text[end..];
    }
    (rest, reexports)
}

/// A path as a file of `module` writes it, made absolute: `crate::a`,
/// `super::a`, `self::a`, or a child's bare name. `None` for paths outside
/// the crate (`std::…`) and items of the file itself.
fn absolute(
    module: &[String],
    path: &[String],
    is_module: &dyn Fn(&[String]) -> bool,
) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut b = module.to_vec();
            b.pop();
            b
        }
        _ => {
            let mut child = module.to_vec();
            child.push(first.clone());
            if !is_module(&child) {
                return None;
            }
            child
        }
    };
    let mut segs = rest.iter().peekable();
    if first == "super" {
        while segs.peek().is_some_and(|s| *s == "super") {
            segs.next();
            base.pop();
        }
    }
    base.extend(segs.cloned());
    Some(base)
}

/// File → the files it uses: each `crate::`, `super::`, `self::` path and
/// each bare path to one of its own children, resolved to the file that
/// declares what it names — through re-exports, so a child's
/// `super::Item` that its parent only re-exports from a sibling is an edge
/// to that sibling. A file declaring and re-exporting its children is
/// structure, not use; a `mod.rs` calling its own child is use.
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    file_uses()
        .into_iter()
        .map(|(file, uses)| (file, uses.into_keys().collect()))
        .collect()
}

/// File → file it uses → the paths by which it uses it (what a failure
/// names, so the loop can be cut where it is).
fn file_uses() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    file_uses_in(rust_files())
}

/// [`file_uses`] of the files given (path under `src/`, text).
fn file_uses_in(
    sources: Vec<(std::path::PathBuf, String)>,
) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    struct File {
        name: String,
        code: String,
        reexports: BTreeMap<String, Vec<String>>,
    }
    let mut files: BTreeMap<Vec<String>, File> = BTreeMap::new();
    let mut raw = Vec::new();
    for (rel, text) in sources {
        let (code, reexports) = split_reexports(&code_of(&text));
        raw.push((
            module_of(&rel),
            rel.to_string_lossy().into_owned(),
            code,
            reexports,
        ));
    }
    let modules: BTreeSet<Vec<String>> = raw.iter().map(|r| r.0.clone()).collect();
    let is_module = |m: &[String]| modules.contains(m);
    for (module, name, code, mut statements) in raw {
        // A file's own `use` gives its children the name too: a child's
        // `super::Item` then names what that `use` names.
        statements.extend(code.lines().filter_map(|l| {
            let at = code.find(l)?;
            let statement = l.strip_prefix("use ")?;
            let end = code[at..].find(';').map_or(code.len(), |e| at + e);
            Some(code[at + "use ".len()..end].to_string()).filter(|_| !statement.is_empty())
        }));
        let mut reexports = BTreeMap::new();
        for statement in statements {
            for p in paths_after(&format!("@{statement}"), "@") {
                if let Some(target) = absolute(&module, &p, &is_module) {
                    if let Some(item) = target.last() {
                        reexports.insert(item.clone(), target);
                    }
                }
            }
        }
        files.insert(
            module,
            File {
                name,
                code,
                reexports,
            },
        );
    }
    // The file that declares what `path` names, following re-exports.
    let resolve = |mut path: Vec<String>| -> Option<&File> {
        for _ in 0..8 {
            let mut n = path.len();
            while n > 0 && !files.contains_key(&path[..n]) {
                n -= 1;
            }
            let file = files.get(&path[..n])?;
            match path.get(n).and_then(|item| file.reexports.get(item)) {
                Some(target) if *target != path[..=n] => {
                    let mut next = target.clone();
                    next.extend(path[n + 1..].iter().cloned());
                    path = next;
                }
                _ => return Some(file),
            }
        }
        None
    };
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, file) in &files {
        let mut used = Vec::new();
        for start in ["crate::", "super::", "self::"] {
            for mut p in paths_after(&file.code, start) {
                // `use super::*` is a test module's import of its own file.
                if p.is_empty() {
                    continue;
                }
                p.insert(0, start.trim_end_matches("::").to_string());
                used.extend(absolute(module, &p, &is_module));
            }
        }
        let children = files
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module));
        for child in children {
            let own = child.last().unwrap();
            for mut p in paths_after(&file.code, &format!("{own}::")) {
                p.insert(0, own.clone());
                used.extend(absolute(module, &p, &is_module));
            }
        }
        let deps = graph.entry(file.name.clone()).or_default();
        for p in used {
            let shown = p.join("::");
            if let Some(target) = resolve(p) {
                if target.name != file.name {
                    deps.entry(target.name.clone()).or_default().insert(shown);
                }
            }
        }
    }
    graph
}

#[test]
fn no_file_uses_a_file_that_uses_it_back() {
    let uses = file_uses();
    let graph = file_graph();
    // What the graph must see for a loop to show: a file's use of another,
    // and a child's use of what its parent only re-exports, at the file
    // that declares it.
    for (from, to) in [
        ("frontend/printer.rs", "frontend/tool_block.rs"),
        ("tools/builtin/set.rs", "tools/builtin/find.rs"),
        ("session/blobs.rs", "session/error.rs"),
        ("frontend/repl/commands.rs", "frontend/repl/context.rs"),
    ] {
        assert!(graph[from].contains(to), "{from} → {to}: {:?}", graph[from]);
    }
    assert!(
        !graph["session/blobs.rs"].contains("session/mod.rs"),
        "a re-export is not a use of the file that re-exports"
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
    let shown: Vec<String> = cycles
        .iter()
        .map(|c| {
            let mut loop_ = c.clone();
            loop_.push(c[0].clone());
            let steps: Vec<String> = loop_
                .windows(2)
                .map(|w| {
                    format!("{} → {} ({})", w[0], w[1], {
                        let by: Vec<&str> = uses[&w[0]][&w[1]].iter().map(String::as_str).collect();
                        by.join(", ")
                    })
                })
                .collect();
            steps.join("; ")
        })
        .collect();
    assert!(
        shown.is_empty(),
        "{} file cycles:\n{}",
        shown.len(),
        shown.join("\n")
    );
}

/// A `mod.rs` that calls its own child by its bare name, and the child
/// that uses the `mod.rs` back, are a loop; a parent that only re-exports
/// what its child declares is not used by a sibling that names it.
#[test]
fn the_file_graph_sees_a_mod_rs_and_its_child_use_each_other() {
    let tree = |files: &[(&str, &str)]| {
        file_uses_in(
            files
                .iter()
                .map(|(p, t)| (std::path::PathBuf::from(p), t.to_string()))
                .collect(),
        )
    };
    let uses = tree(&[
        (
            "a/mod.rs",
            "mod b;\nmod c;\npub use c::Item;\npub fn f() { b::g() }\n",
        ),
        ("a/b.rs", "pub fn g() { super::f() }\n"),
        ("a/c.rs", "pub struct Item;\n"),
        ("d.rs", "use crate::a::Item;\n"),
    ]);
    assert!(uses["a/mod.rs"].contains_key("a/b.rs"), "{uses:?}");
    assert!(uses["a/b.rs"].contains_key("a/mod.rs"), "{uses:?}");
    assert!(uses["d.rs"].contains_key("a/c.rs"), "{uses:?}");
    assert!(!uses["d.rs"].contains_key("a/mod.rs"), "{uses:?}");
    assert!(
        !uses["a/mod.rs"].contains_key("a/c.rs"),
        "a re-export is no use: {uses:?}"
    );
}

/// What a `mod.rs` holds besides declaring its children and re-exporting
/// what they declare: its lines of code, uses, attributes and comments
/// left out (and its tests).
fn logic_of_mod_rs(text: &str) -> Vec<String> {
    let code = code_of(text);
    let (code, _) = split_reexports(&code);
    let mut lines = Vec::new();
    let mut in_use = false;
    for line in code.lines() {
        let t = line.trim();
        if in_use {
            in_use = !t.ends_with(';');
            continue;
        }
        if t.starts_with("use ") {
            in_use = !t.ends_with(';');
            continue;
        }
        let declares = t.ends_with(';')
            && t.trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ")
                .starts_with("mod ");
        if t.is_empty() || t.starts_with("#[") || t.starts_with("//") || declares {
            continue;
        }
        lines.push(t.to_string());
    }
    lines
}

#[test]
fn a_mod_rs_declares_and_reexports_only() {
    let mut with_code = Vec::new();
    for (rel, text) in rust_files() {
        let name = rel.to_string_lossy().into_owned();
        let code = logic_of_mod_rs(&text);
        if name.ends_with("mod.rs") && !code.is_empty() {
            with_code.push(format!("{name}: {}", code[0]));
        }
    }
    assert!(
        with_code.is_empty(),
        "a mod.rs only declares its children and re-exports what they declare: move \
         this code to a file named after what it is:\n{}",
        with_code.join("\n")
    );
    // The reading itself: a declaration and re-exports are not code, an
    // item is.
    let declared = "//! doc\nmod a;\npub(crate) mod b;\npub use a::{X,\n    Y};\nuse b::Z;\n";
    assert!(logic_of_mod_rs(declared).is_empty());
    assert_eq!(
        logic_of_mod_rs(&format!("{declared}const N: u8 = 1;\n")),
        ["const N: u8 = 1;"]
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
