//! Search index benchmarks (criterion): building the index over 10 000
//! synthetic tools, and one query over it. Targets: build ≤ 50 ms, query ≤ 1 ms.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use hermes::tools::{CatalogTool, ToolCatalog};

const VERBS: &[&str] = &[
    "get", "list", "create", "update", "delete", "search", "read", "write", "sync", "send",
];
const NOUNS: &[&str] = &[
    "file", "issue", "ticket", "user", "message", "channel", "repo", "branch", "commit", "invoice",
    "customer", "order", "event", "calendar", "note", "page", "database", "table", "row", "image",
];

/// Deterministic synthetic tools: names, descriptions and parameters drawn
/// from small vocabularies, spread over 50 servers.
pub fn synthetic(n: usize) -> Vec<CatalogTool> {
    (0..n)
        .map(|i| {
            let v = VERBS[i % VERBS.len()];
            let o = NOUNS[(i / VERBS.len()) % NOUNS.len()];
            let server = format!("server{}", i % 50);
            CatalogTool {
                name: format!("mcp__{server}__{v}_{o}_{i}"),
                source: server,
                description: format!(
                    "{v} a {o} in the workspace. Works with {} records and returns the {o} as JSON. Variant {i}.",
                    NOUNS[(i * 7) % NOUNS.len()]
                ),
                schema: serde_json::json!({
                    "type": "object",
                    "properties": {
                        format!("{o}_id"): {"type": "string"},
                        "limit": {"type": "integer"},
                        NOUNS[(i * 3) % NOUNS.len()]: {"type": "string"}
                    },
                    "required": [format!("{o}_id")]
                }),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let tools = synthetic(10_000);
    let mut g = c.benchmark_group("tool_search");
    g.sample_size(20);
    g.bench_function("build index, 10k tools", |b| {
        b.iter_batched(
            || tools.clone(),
            |t| {
                let c = ToolCatalog::new(t);
                c.index();
                c
            },
            BatchSize::LargeInput,
        )
    });
    let catalog = ToolCatalog::new(tools.clone());
    g.bench_function("one query, 10k tools", |b| {
        b.iter(|| catalog.index().search("update the customer invoice", 5))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
