//! The menu under the prompt, the pickers, the status line and a resumed
//! conversation, in a real terminal (tmux).

use std::time::Duration;

use crate::support::fake_provider::call_id;
use crate::support::tmux::Tmux;
use crate::support::{Reply, TestEnv};

/// The line the cursor is on: the prompt and what is typed.
fn prompt_line(screen: &str, text: &str) -> bool {
    screen
        .lines()
        .any(|l| l.trim_end() == format!("› {text}").trim_end())
}

/// Typing `/` opens the menu: commands with their help, filtered as typed;
/// ↓ moves, Tab takes; after `/model ` the provider's models, Enter takes
/// one and Enter again sends.
#[test]
fn the_menu_opens_as_a_command_is_typed_and_takes_the_highlighted_one() {
    let env = TestEnv::new();
    let term = Tmux::start(&env, &[]);
    term.type_keys("/co");
    term.wait_for("the commands, described", |s| {
        s.contains("› /compact  summarise the older turns now")
            && s.contains("  /context  what the next request carries")
    });
    term.press("Down");
    term.wait_for("the second highlighted", |s| s.contains("› /context  what"));
    term.press("Tab");
    term.wait_for("taken into the line, the menu closed", |s| {
        prompt_line(s, "/context") && !s.contains("/compact")
    });
    term.press("C-u");
    term.type_keys("/model ");
    term.wait_for("the provider's models", |s| {
        s.contains("› test-model") && s.contains("  test-model-large")
    });
    term.press("Down");
    term.press("Enter");
    term.wait_for("the model taken, not sent", |s| {
        prompt_line(s, "/model test-model-large")
    });
    term.press("Enter");
    term.wait_for("the switch", |s| {
        s.contains("model test-model-large from the next request on")
    });
    // A line with no candidate is sent as typed.
    term.type_line("/model nonesuch");
    term.wait_for("the warning", |s| {
        s.contains("warning: fake does not list a model `nonesuch`")
    });
    term.type_line("/quit");
    assert!(
        env.fake.requests().is_empty(),
        "nothing was sent to the model"
    );
}

/// `@` lists files and folders under the folder; Tab takes a folder and
/// goes on into it; Esc closes the menu until the line changes; the line
/// sent is what was typed.
#[test]
fn at_lists_files_and_esc_closes_the_menu() {
    let env = TestEnv::new();
    std::fs::create_dir(env.cwd.path().join("src")).unwrap();
    std::fs::write(env.cwd.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(env.cwd.path().join("src/lib.rs"), "").unwrap();
    env.fake.push(Reply::text("It prints nothing."));
    let term = Tmux::start(&env, &[]);
    term.type_keys("explain @sr");
    term.wait_for("the folder offered", |s| s.contains("› @src/"));
    term.press("Tab");
    term.wait_for("into the folder", |s| {
        prompt_line(s, "explain @src/") && s.contains("› @src/lib.rs") && s.contains("@src/main.rs")
    });
    term.press("Escape");
    term.wait_for("the menu closed", |s| {
        prompt_line(s, "explain @src/") && !s.contains("@src/main.rs")
    });
    term.type_keys("m");
    term.wait_for("open again as the line changes", |s| {
        s.contains("› @src/main.rs")
    });
    term.press("Enter");
    term.wait_for("taken", |s| prompt_line(s, "explain @src/main.rs"));
    term.press("Enter");
    term.wait_for("the answer", |s| s.contains("It prints nothing."));
    let text = env.last_user_text(0);
    assert!(
        text.contains("fn main() {}"),
        "the file was attached: {text}"
    );
    term.type_line("/quit");
}

/// The status line under the prompt names the model, how full the window
/// is and the session; during a turn it stays under the typed line and
/// counts the questions waiting.
#[test]
fn the_status_line_stays_under_the_prompt_and_counts_questions() {
    let env = TestEnv::new();
    env.write_config("[tools]\ndefer = \"always\"\n\n[approvals]\nmode = \"ask\"\n");
    env.add_test_server("t", "");
    env.prefill("t");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("asked"),
        "tool_call",
        r#"{"name":"mcp__t__echo","arguments":{"text":"hi"}}"#,
    )]));
    env.fake.push(Reply::text("echoed"));
    let term = Tmux::start(&env, &[]);
    term.wait_for("the status line", |s| {
        s.lines()
            .any(|l| l.starts_with("test-model") && l.contains("· session 20"))
    });
    let screen = term.screen();
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines.iter().position(|l| l.trim_end() == "›").unwrap();
    assert!(
        lines[at + 1].starts_with("test-model"),
        "right under the prompt:\n{screen}"
    );
    term.type_line("echo hi");
    term.wait_for("the question, counted", |s| {
        s.contains("· 1 question waiting") && s.contains("y allow once")
    });
    term.type_line("y");
    term.wait_for("the answer", |s| s.contains("echoed"));
    term.wait_for("no question left, the context counted", |s| {
        !s.contains("question waiting") && s.lines().any(|l| l.starts_with("test-model · context "))
    });
    term.type_line("/quit");
}

/// `/model` alone opens a picker over the provider's models, the one in
/// use highlighted; typing filters, Enter takes. `/resume` alone opens
/// one over the sessions (title and age); Esc takes none.
#[test]
fn pickers_for_model_and_resume() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("Ferris is the crab."));
    env.run(&["-q", "who is ferris?"]).ok();
    let term = Tmux::start(&env, &[]);
    term.type_line("/model");
    term.wait_for("the models, the one in use first", |s| {
        s.lines()
            .any(|l| l.starts_with("› test-model ") && l.ends_with("(in use)"))
            && s.contains("  test-model-large")
    });
    term.type_keys("large");
    term.wait_for("filtered", |s| {
        s.contains("› test-model-large") && !s.contains("(in use)")
    });
    term.press("Enter");
    term.wait_for("taken", |s| {
        s.contains("model test-model-large from the next request on")
    });
    term.type_line("/resume");
    term.wait_for("the session, with its title and age", |s| {
        s.lines()
            .any(|l| l.starts_with("› 20") && l.contains("who is ferris?") && l.contains(" ago"))
    });
    term.press("Escape");
    term.wait_for("none taken", |s| s.contains("no session opened"));
    term.type_line("/resume");
    term.wait_for("the picker again", |s| {
        s.contains("who is ferris?  ") || s.lines().any(|l| l.starts_with("› 20"))
    });
    term.press("Enter");
    term.wait_for("resumed, the conversation shown", |s| {
        s.contains("› who is ferris?")
            && s.contains("Ferris is the crab.")
            && s.contains("— resumed session")
    });
    term.type_line("/quit");
}

/// A resumed session shows its answers laid out as they were (a table as a
/// box, bold as bold) and each tool call on one line.
#[test]
fn a_resumed_conversation_is_laid_out_again() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("resumed"),
        "tool_call",
        r#"{"name":"mcp__t__echo","arguments":{"text":"hi"}}"#,
    )]));
    env.fake.push(Reply::text(
        "Build times:\n\n| crate | s |\n|---|--:|\n| rmcp | 41 |\n| **aws-lc-sys** | 97 |\n",
    ));
    env.run(&["-q", "which crates are slow?"]).ok();
    let term = Tmux::start(&env, &["--continue"]);
    term.wait_for("the conversation again", |s| {
        s.contains("› which crates are slow?") && s.contains("— resumed session")
    });
    let screen = term.screen();
    crate::assert_contains!(screen, "✓ tool_call");
    crate::assert_contains!(screen, "aws-lc-sys");
    crate::assert_not_contains!(screen, "| rmcp |");
    crate::assert_not_contains!(screen, "**aws-lc-sys**");
    assert!(screen.contains('│'), "a table drawn as a box:\n{screen}");
    term.type_line("/quit");
}

/// What is typed while an answer streams is drawn under the text as it
/// comes, and is in the editor after the turn.
#[test]
fn typing_shows_while_an_answer_streams() {
    let env = TestEnv::new();
    let long: String = (1..=12)
        .map(|i| format!("Step {i}: read the next part of the log.\n"))
        .collect();
    env.fake
        .push(Reply::text(&long).paced(Duration::from_millis(40)));
    let term = Tmux::start(&env, &[]);
    term.type_line("walk me through it");
    term.wait_for("text streaming", |s| s.contains("Step 2:"));
    term.type_keys("next question");
    term.wait_for("the typing under the streaming text", |s| {
        s.contains("› next question") && !s.contains("Step 12:")
    });
    term.wait_for("the whole answer", |s| s.contains("Step 12:"));
    term.wait_for("the draft back in the editor", |s| {
        let lines: Vec<&str> = s.lines().collect();
        let step = lines
            .iter()
            .position(|l| l.contains("Step 12:"))
            .unwrap_or(0);
        lines[step..]
            .iter()
            .any(|l| l.trim_end() == "› next question")
    });
    assert_eq!(env.fake.requests().len(), 1, "the draft was not sent");
    crate::assert_not_contains!(term.screen(), "(type to queue");
    term.type_line("/quit");
}

/// An entry a rule refuses keeps its place in the live block, between the
/// entries before and after it, not moved to the end.
#[test]
fn a_refused_entry_keeps_its_place_in_the_block() {
    let env = TestEnv::deferred(&[("t", "concurrency = \"parallel\"")]);
    env.set_approvals("mode = \"auto\"\ndeny = [\"mcp__t__echo\"]");
    env.fake.push(Reply::tool_calls(&[(
        &call_id("refused"),
        "tool_call",
        &crate::support::calls::batch(&[
            (
                "mcp__t__slow",
                serde_json::json!({"ms": 300, "label": "first"}),
            ),
            ("mcp__t__echo", serde_json::json!({"text": "refused one"})),
            (
                "mcp__t__slow",
                serde_json::json!({"ms": 300, "label": "third"}),
            ),
        ]),
    )]));
    env.fake.push(Reply::text("two ran"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    term.wait_for("the answer", |s| s.contains("two ran"));
    let screen = term.screen();
    let at = |what: &str| {
        screen
            .lines()
            .position(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what:?} on the screen:\n{screen}"))
    };
    let (first, refused, third) = (at("first"), at("refused one"), at("third"));
    assert!(
        first < refused && refused < third,
        "in the batch's order:\n{screen}"
    );
    crate::assert_contains!(screen, "denied by rule approvals.deny[0]");
    term.type_line("/quit");
}

/// The menu matches loosely, as Claude Code's does: `/cmp` lists
/// `/compact`, and Tab puts the whole name in place of what was typed.
#[test]
fn the_menu_matches_a_command_loosely_and_tab_replaces_the_word() {
    let env = TestEnv::new();
    let term = Tmux::start(&env, &[]);
    term.type_keys("/cmp");
    term.wait_for("the command named loosely", |s| {
        s.contains("› /compact  summarise the older turns now")
    });
    term.press("Tab");
    term.wait_for("the name in place of the word", |s| {
        prompt_line(s, "/compact") && !s.contains("summarise the older")
    });
    term.press("C-u");
    term.type_line("/quit");
}

/// The rows from the prompt line down, session ids left out, trailing
/// blanks trimmed.
fn from_prompt(screen: &str) -> Vec<String> {
    let ids = regex::Regex::new(r"\d{8}-\d{6}-[0-9a-f]{6}").unwrap();
    let lines: Vec<String> = ids
        .replace_all(screen, "ID")
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("› /co"))
        .unwrap_or(0);
    let mut rows = lines[start..].to_vec();
    while rows.last().is_some_and(|l| l.is_empty()) {
        rows.pop();
    }
    rows
}

/// The `/` menu open through resizes (ten, ending at 80×24, each given
/// the time tmux takes to pass it on) is laid out again for each width:
/// the same rows as a menu opened at 80 columns — entries cut with `…`, no
/// wrapped row, one status line — and typing on leaves no row of an old
/// drawing. (Resizes that come faster than the terminal passes them on can
/// leave a row: docs/terminal.md says so.)
#[test]
fn the_menu_is_laid_out_again_on_every_resize() {
    let fresh = {
        let env = TestEnv::new();
        let term = Tmux::start(&env, &[]);
        term.resize(80, 24);
        term.type_keys("/co");
        term.wait_for("the menu", |s| s.contains("› /compact  summarise"));
        std::thread::sleep(Duration::from_millis(300));
        let rows = from_prompt(&term.screen());
        term.press("C-u");
        term.type_line("/quit");
        rows
    };
    assert!(
        fresh.iter().any(|r| r.ends_with('…')),
        "an entry cut at 80 columns: {fresh:#?}"
    );
    let env = TestEnv::new();
    let term = Tmux::start(&env, &[]);
    term.resize(120, 40);
    term.type_keys("/co");
    term.wait_for("the menu", |s| s.contains("› /compact  summarise"));
    let sizes = [(80, 24), (100, 30), (120, 40), (90, 28), (80, 24)];
    // tmux holds a resize back from the program for up to 250 ms while
    // resizes come quickly; each here lands before the next.
    for i in 0..10 {
        let (w, h) = sizes[i % sizes.len()];
        term.resize(w, h);
        std::thread::sleep(Duration::from_millis(400));
    }
    assert_eq!(from_prompt(&term.screen()), fresh);
    term.type_keys("n");
    term.wait_for("the menu filtered", |s| s.contains("› /context  what"));
    let screen = term.screen();
    assert_eq!(
        screen.matches("mode auto").count(),
        1,
        "one status line:\n{screen}"
    );
    assert!(!screen.contains("/compact"), "{screen}");
    term.press("C-u");
    term.type_line("/quit");
}
