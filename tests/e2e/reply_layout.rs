//! An answer as a terminal shows it, read back from a real terminal
//! (tmux): laid out under `NO_COLOR` too, tabs as the spaces they take,
//! an autolink once.

use crate::support::tmux::{size, Tmux};
use crate::support::{Reply, TestEnv};

const ANSWER: &str = "## Where the time goes\n\n\
| step | share |\n|:---|---:|\n| `load()` | 61% |\n| parse | 30% |\n\n\
The fixture is read before the server starts, so the first request waits for the whole file \
to be parsed; moving the read after start() takes it off the path. See <https://example.org/bench>.\n";

/// `NO_COLOR` takes the colours away, not the layout: the table is drawn,
/// the heading's `##` is gone, the paragraph wraps between words.
#[test]
fn no_colour_keeps_the_tables_and_the_wrapping() {
    let env = TestEnv::new();
    env.fake.push(Reply::text(ANSWER));
    let term = Tmux::start_with(&env, &[], &[("NO_COLOR", "1")]);
    term.type_line("where does the time go?");
    term.wait_for("the answer", |s| s.contains("off the path"));
    let screen = term.screen();
    crate::assert_contains!(screen, "┌────────┬───────┐");
    crate::assert_contains!(screen, "│ load() │   61% │");
    crate::assert_not_contains!(screen, "## Where");
    crate::assert_not_contains!(screen, "|:---|");
    // Wrapped by hermes, at a space: no line is the terminal's cut.
    let words: Vec<&str> = screen.split_whitespace().collect();
    for w in ["parsed;", "moving", "start()"] {
        assert!(words.contains(&w), "{w} cut on\n{screen}");
    }
    // The autolink once, not `url (url)`.
    assert_eq!(
        screen.matches("https://example.org/bench").count(),
        1,
        "{screen}"
    );
    term.type_line("/quit");
}

/// A tab takes the columns it shows in: a line with tabs wraps between
/// words at the terminal's width, and columns of tab-separated text line
/// up.
#[test]
fn tabs_in_an_answer_take_the_columns_they_show() {
    let env = TestEnv::new();
    let long = "word ".repeat(17);
    env.fake.push(Reply::text(&format!(
        "name\tcalls\tnote\nread_file\t12\tok\n\t\t{long}tail-end\n"
    )));
    let term = Tmux::start(&env, &[]);
    term.type_line("counts?");
    term.wait_for("the answer", |s| s.contains("tail-end"));
    let screen = term.screen();
    crate::assert_contains!(screen, "name    calls   note");
    crate::assert_contains!(screen, "read_file   12  ok");
    assert!(
        screen
            .lines()
            .all(|l| l.chars().count() <= usize::from(size().0)),
        "{screen}"
    );
    // The tabbed line wrapped by hermes under its indent, whole words.
    let wrapped: Vec<&str> = screen
        .lines()
        .filter(|l| l.starts_with("        word"))
        .collect();
    assert!(!wrapped.is_empty(), "{screen}");
    assert!(
        screen.lines().any(|l| l.trim_end().ends_with("tail-end")),
        "{screen}"
    );
    term.type_line("/quit");
}
