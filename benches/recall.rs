//! Search quality on the labelled requests (tests/support/recall.rs): recall@1,
//! recall@3 and MRR for the tuning two thirds and the held-out third, and
//! what the turn-start prediction starts. Prints the tables of
//! docs/benchmarks.md. `cargo bench --bench recall` (`-- --misses` lists the
//! tuning set's misses; the held-out set's are never shown). `-- --dump FILE`
//! writes every request's scored ranking for scripts/embedding-experiment;
//! `-- --queries FILE` scores rewritten requests (JSON lines `{id, request}`)
//! in place of the labelled ones.

use hermes_test_support::recall;
fn main() {
    let catalog = recall::catalog();
    let mut cases = recall::cases(&catalog);
    if let Some(path) = std::env::args().skip_while(|a| a != "--queries").nth(1) {
        let text = std::fs::read_to_string(path).unwrap();
        let new: std::collections::HashMap<u64, String> = text
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["id"].as_u64().unwrap(),
                    v["request"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        for c in &mut cases {
            if let Some(r) = new.get(&c.id) {
                c.request = r.clone();
            }
        }
    }
    let index = catalog.index();
    let servers: std::collections::BTreeSet<&str> =
        catalog.tools.iter().map(|t| t.source.as_str()).collect();
    let (tune, held): (Vec<&recall::Case>, Vec<&recall::Case>) =
        cases.iter().partition(|c| !c.held_out());
    println!(
        "{} requests over {} tools of {} servers\n",
        cases.len(),
        catalog.tools.len(),
        servers.len()
    );
    println!("| set | requests | recall@1 | recall@3 | MRR |");
    println!("|---|---:|---:|---:|---:|");
    let (t, misses) = recall::score(index, tune.iter().copied());
    let (h, _) = recall::score(index, held.iter().copied());
    for (name, s) in [
        ("tuning (ids not divisible by 3)", t),
        ("held out (ids divisible by 3)", h),
    ] {
        println!(
            "| {name} | {} | {:.3} | {:.3} | {:.3} |",
            s.n, s.at1, s.at3, s.mrr
        );
    }
    let w = recall::warmup(index, cases.iter());
    println!("\n| turn-start prediction (all requests) | value |\n|---|---:|");
    println!("| requests whose server was started | {:.3} |", w.covered);
    println!("| servers started per request | {:.2} |", w.started);
    println!("| share of started servers not needed | {:.3} |", w.unused);
    println!(
        "| servers started per no-tool request ({}) | {:.2} |",
        recall::NO_TOOL.len(),
        w.started_for_chat
    );
    if std::env::args().any(|a| a == "--sweep") {
        println!("\n| score floor | covered | started per request | not needed | started per no-tool request |\n|---:|---:|---:|---:|---:|");
        for floor in [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 15.0] {
            let w = recall::warmup_above(index, tune.iter().copied(), floor);
            println!(
                "| {floor} | {:.3} | {:.2} | {:.3} | {:.2} |",
                w.covered, w.started, w.unused, w.started_for_chat
            );
        }
    }
    if let Some(path) = std::env::args().skip_while(|a| a != "--dump").nth(1) {
        let lines: Vec<String> = cases
            .iter()
            .map(|c| {
                serde_json::json!({"id": c.id, "request": c.request, "expected": c.expected,
                    "hits": index.scored(&c.request, 187)})
                .to_string()
            })
            .collect();
        std::fs::write(path, lines.join("\n")).unwrap();
    }
    if std::env::args().any(|a| a == "--misses") {
        println!("\ntuning misses at 3:");
        for m in misses {
            println!("  {m}");
        }
    }
}
