//! No typed or queued text is ever lost, whatever the order of Enter, Esc,
//! `/stop`, Ctrl-C and the end of a turn: a property test over sequences
//! of them, each run against the real binary in a terminal (tmux).
//!
//! Each case is a few rounds. A round sends a message and, while its turn
//! runs (the reply takes 1.2 s), presses a sequence of keys: words typed,
//! Enter (the line is queued), Esc, `/stop` or Ctrl-C (the turn stops);
//! then it waits for the turn (and any queued turns) to end. Every word
//! typed must at the end have reached the model or be in the editor.

use std::time::{Duration, Instant};

use proptest::prelude::*;

use crate::support::tmux::Tmux;
use crate::support::{Reply, TestEnv};

#[derive(Clone, Copy, Debug)]
enum Key {
    Word,
    Enter,
    Esc,
    Stop,
    CtrlC,
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        4 => Just(Key::Word),
        3 => Just(Key::Enter),
        1 => Just(Key::Esc),
        1 => Just(Key::Stop),
        1 => Just(Key::CtrlC),
    ]
}

/// Whether a turn is still running: the spinner, the empty input line or
/// a stop under way at the bottom of the screen (the live part).
fn busy(s: &str) -> bool {
    let bottom: Vec<&str> = s
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    bottom
        .iter()
        .any(|l| l.contains("thinking…") || l.contains("(type to queue") || l.contains("stopping…"))
}

fn settle(term: &Tmux<'_>) {
    // The next turn (a queued line) may start a moment after one ends.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut quiet_since = None;
    loop {
        let s = term.screen();
        if busy(&s) {
            quiet_since = None;
        } else if quiet_since.get_or_insert_with(Instant::now).elapsed()
            > Duration::from_millis(700)
        {
            return;
        }
        assert!(Instant::now() < deadline, "the turns never ended:\n{s}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn run_case(rounds: &[Vec<Key>]) -> Result<(), TestCaseError> {
    let env = TestEnv::new();
    for _ in 0..40 {
        env.fake
            .push(Reply::text("noted").delayed(Duration::from_millis(1200)));
    }
    let term = Tmux::start(&env, &[]);
    let mut typed: Vec<String> = Vec::new();
    let word = |typed: &mut Vec<String>| {
        let w = format!("w{}q", typed.len() + 100);
        typed.push(w.clone());
        w
    };
    for keys in rounds {
        let w = word(&mut typed);
        term.type_keys(&format!(" {w}"));
        term.press("Enter");
        term.wait_for("the turn running", |s| s.contains("thinking…"));
        let mut draft = false;
        for key in keys {
            std::thread::sleep(Duration::from_millis(120));
            match key {
                Key::Word => {
                    let w = word(&mut typed);
                    term.type_keys(&format!("{w} "));
                    draft = true;
                }
                Key::Enter => {
                    term.press("Enter");
                    draft = false;
                }
                Key::Esc => term.press("Escape"),
                // `/stop` after a draft would be part of that line.
                Key::Stop if !draft => term.type_line("/stop"),
                Key::Stop => term.press("Escape"),
                Key::CtrlC => term.press("C-c"),
            }
            if matches!(key, Key::Esc | Key::Stop | Key::CtrlC) {
                // The turn stops; the keys after it would be at the
                // prompt, which is another test's subject.
                break;
            }
        }
        settle(&term);
    }
    let screen = term.screen();
    // What is in the editor now: the last prompt line and the lines it
    // goes on to (a queued line and a draft given back together are two
    // lines), up to the status line.
    let lines: Vec<&str> = screen.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.starts_with('›'))
        .unwrap_or(lines.len());
    let editor = lines[start..]
        .iter()
        .take_while(|l| !l.trim().is_empty() && !l.contains(" · session "))
        .copied()
        .collect::<Vec<&str>>()
        .join("\n");
    let sent: String = env
        .fake
        .requests()
        .iter()
        .map(|r| r.body_str().to_string())
        .collect();
    let lost: Vec<&String> = typed
        .iter()
        .filter(|w| !sent.contains(w.as_str()) && !editor.contains(w.as_str()))
        .collect();
    term.press("C-u");
    term.type_line("/quit");
    prop_assert!(
        lost.is_empty(),
        "lost {lost:?} of {typed:?} after {rounds:?}; the screen:\n{screen}"
    );
    Ok(())
}

proptest! {
    // Each case drives the binary for a few seconds a round.
    #![proptest_config(ProptestConfig {
        cases: 8,
        max_shrink_iters: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn nothing_typed_is_lost_in_any_order_of_keys(
        rounds in prop::collection::vec(prop::collection::vec(key(), 1..5), 1..4)
    ) {
        run_case(&rounds)?;
    }
}

/// The case the property test was written after: a line queued, a draft
/// typed after it, the turn ending — the queued line runs, the draft stays.
#[test]
fn a_draft_after_a_queued_line_is_kept_through_the_queued_turn() {
    run_case(&[vec![Key::Word, Key::Enter, Key::Word], vec![Key::Word]]).unwrap();
}
