//! tool_search quality on the labelled requests over 18 real catalogs
//! (tests/support/recall.rs; `cargo bench --bench recall` prints the table in
//! docs/benchmarks.md). These are floors under today's figures, so a change
//! that makes search find less fails here.

#[path = "../support/recall.rs"]
mod recall;

#[test]
fn the_labelled_set_is_big_and_varied_enough_to_mean_something() {
    let catalog = recall::catalog();
    let cases = recall::cases(&catalog);
    let servers: std::collections::BTreeSet<&str> =
        catalog.tools.iter().map(|t| t.source.as_str()).collect();
    assert!(cases.len() >= 120, "{} requests", cases.len());
    assert!(servers.len() >= 8, "{} servers", servers.len());
    let held = cases.iter().filter(|c| c.held_out()).count();
    assert!(
        held * 3 >= cases.len() - 2,
        "{held} of {} held out",
        cases.len()
    );
}

#[test]
fn recall_and_mrr_stay_above_their_floors() {
    let catalog = recall::catalog();
    let cases = recall::cases(&catalog);
    let index = catalog.index();
    let (tune, _) = recall::score(index, cases.iter().filter(|c| !c.held_out()));
    let (held, _) = recall::score(index, cases.iter().filter(|c| c.held_out()));
    for (set, s) in [("tuning", tune), ("held out", held)] {
        assert!(s.at3 >= 0.82, "{set}: recall@3 {:.3}", s.at3);
        assert!(s.mrr >= 0.67, "{set}: MRR {:.3}", s.mrr);
    }
}

#[test]
fn the_turn_start_guess_finds_most_servers_and_few_for_small_talk() {
    let catalog = recall::catalog();
    let cases = recall::cases(&catalog);
    let w = recall::warmup(catalog.index(), cases.iter());
    assert!(w.covered >= 0.8, "covered {:.3}", w.covered);
    assert!(w.started <= 2.0, "{:.2} servers a request", w.started);
    assert!(w.unused <= 0.45, "not needed {:.3}", w.unused);
    assert!(
        w.started_for_chat <= 1.0,
        "small talk {:.2}",
        w.started_for_chat
    );
}
