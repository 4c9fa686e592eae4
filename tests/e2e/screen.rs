//! What a user sees: the REPL in a real terminal emulator (tmux), read back as
//! the rendered screen, and the plain tool lines of a run off a terminal.

use serde_json::json;

use crate::support::fake_provider::{call_id, delta, finish};
use crate::support::tmux::Tmux;
use crate::support::{Reply, TestEnv};

/// `/stop` mid-batch: on the screen every entry ends in its final state,
/// and no spinner is left or redrawn after "stopped.".
#[test]
fn the_live_block_on_screen_after_a_stop() {
    let env = TestEnv::deferred(&[("t", "concurrency = \"parallel\"")]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("live"),
        "tool_call",
        r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"quick"}},{"name":"mcp__t__slow","arguments":{"ms":20000,"label":"long"}}]}"#,
    )]));
    let term = Tmux::start(&env, &[]);
    term.type_line("run both");
    term.wait_for("the slow entry running", |s| {
        s.contains("running") && s.contains("✓ mcp__t__echo")
    });
    term.type_line("/stop");
    term.wait_for("the stop", |s| s.contains("stopped."));
    // Long enough for a left-over spinner to tick several times.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let screen = term.screen();
    let line = |needle: &str| {
        screen
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} on screen:\n{screen}"))
            .trim()
            .to_string()
    };
    assert_eq!(
        line("mcp__t__echo"),
        "✓ mcp__t__echo {\"text\":\"quick\"} — quick"
    );
    let slow = line("mcp__t__slow");
    assert!(
        slow.starts_with("✗ mcp__t__slow {\"label\":\"long\",\"ms\":20000} — interrupted"),
        "{slow}"
    );
    // Cut to the width, never wrapped onto a second row.
    assert!(slow.chars().count() <= usize::from(crate::support::tmux::size().0));
    assert!(
        screen.lines().all(|l| !l.starts_with(" asked to cancel")),
        "a wrapped row:\n{screen}"
    );
    // What was typed during the turn is shown above the block, once.
    assert_eq!(screen.matches("› /stop").count(), 1, "{screen}");
    // A live entry reads "⠁ tool args  running 3s"; none may be left.
    crate::assert_not_contains!(screen, "  running ");
    crate::assert_not_contains!(screen, "thinking");
    assert_eq!(env.fake.requests().len(), 1);
    term.type_line("/quit");
    term.wait_for("hermes to leave", |s| s.contains("resume with"));
}

/// `--continue` opens on the earlier conversation, not a blank screen.
#[test]
fn a_resumed_session_shows_its_history_on_screen() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("The answer is 42."));
    env.run(&["-q", "what is the answer?"]).ok();
    let term = Tmux::start(&env, &["--continue"]);
    term.wait_for("the history", |s| s.contains("— resumed session"));
    let screen = term.screen();
    let at = |needle: &str| {
        screen
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} not on screen:\n{screen}"))
    };
    assert!(at("› what is the answer?") < at("The answer is 42."));
    assert!(at("The answer is 42.") < at("— resumed session"));
    term.type_line("/quit");
}

/// A reply that tries to set the title, switch to the alternate screen,
/// clear the screen and write the clipboard changes nothing on the terminal.
#[test]
fn escape_sequences_in_a_reply_do_nothing_to_the_terminal() {
    let env = TestEnv::new();
    env.fake.push(Reply::sse(vec![
        delta(json!({"content": "Safe\u{1b}]0;pwned\u{7}\u{1b}[?1049h"})),
        delta(json!({"content": "\u{1b}[2J\u{1b}[H\u{1b}]52;c;ZXZpbA==\u{7} and sound\n"})),
        finish("stop"),
    ]));
    let term = Tmux::start(&env, &[]);
    let title = term.pane("#{pane_title}");
    term.type_line("hello");
    term.wait_for("the answer", |s| s.contains("Safe and sound"));
    assert_eq!(term.pane("#{pane_title}"), title, "the title was changed");
    assert_eq!(
        term.pane("#{alternate_on}"),
        "0",
        "switched to the alternate screen"
    );
    let screen = term.screen();
    crate::assert_contains!(screen, "/help for commands"); // not cleared
    let buffers = term.pane("#{buffer_size}");
    assert!(
        buffers.is_empty() || buffers == "0",
        "clipboard written: {buffers}"
    );
    term.type_line("/quit");
}

/// Three lines typed at once (a paste without bracketed paste) while the
/// first turn runs: every one is sent, in order, each shown once.
#[test]
fn three_quick_lines_are_all_sent_in_order() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::text("first").delayed(std::time::Duration::from_millis(300)));
    env.fake.push(Reply::text("second"));
    env.fake.push(Reply::text("third"));
    let term = Tmux::start(&env, &[]);
    term.type_bytes(b"one\rtwo\rthree\r");
    term.wait_for("three answers", |s| s.contains("third"));
    let sent: Vec<String> = (0..env.fake.requests().len())
        .map(|n| env.last_user_text(n))
        .collect();
    assert_eq!(sent, ["one", "two", "three"]);
    term.type_line("/quit");
}

/// A byte that is not UTF-8 typed at the prompt (a Latin-1 `é`) becomes
/// U+FFFD in the line, and what is typed after it — in the same burst of
/// bytes, as a paste or fast typing gives them — is kept.
#[test]
fn a_typed_byte_that_is_not_utf8_is_replaced_and_the_line_kept() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("bien"));
    let term = Tmux::start(&env, &[]);
    term.type_bytes(b"un caf\xe9 au lait\r");
    term.wait_for("the answer", |s| s.contains("bien"));
    assert_eq!(env.last_user_text(0), "un caf\u{FFFD} au lait");
    crate::assert_contains!(term.screen(), "where a typed byte was not UTF-8");
    term.type_line("/quit");
}

/// A paste of several lines at the prompt shows as `[pasted N lines]` in
/// the line and is sent whole, in its place.
#[test]
fn a_paste_at_the_prompt_is_collapsed_and_sent_whole() {
    let env = TestEnv::new();
    env.fake.push(Reply::text("three errors"));
    let term = Tmux::start(&env, &[]);
    term.type_keys("why these? ");
    term.paste("error: one\nerror: two\nerror: three\n");
    term.wait_for("the placeholder", |s| {
        s.contains("› why these? [pasted 3 lines]")
    });
    crate::assert_not_contains!(term.screen(), "error: two");
    term.press("Enter");
    term.wait_for("the answer", |s| s.contains("three errors"));
    assert_eq!(
        env.last_user_text(0),
        "why these? error: one\nerror: two\nerror: three"
    );
    term.type_line("/quit");
}

/// Off a terminal a tool round is plain lines: each entry as it starts, and
/// each result labelled with its entry.
#[test]
fn plain_tool_lines_off_a_terminal() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("plain"),
        "tool_call",
        r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"first"}},{"name":"mcp__t__echo","arguments":{"text":"second\nand more"}},{"name":"mcp__t__fail","arguments":{}}]}"#,
    )]));
    env.fake.push(Reply::text("Done."));
    let run = env.run(&["-q", "echo twice"]);
    run.ok();
    insta::assert_snapshot!(run.stderr);
}

/// The terminal made narrower while a batch runs: the live block is drawn
/// again for the new width — each entry on one line, once, nothing left of
/// the wider drawing.
#[test]
fn the_live_block_is_redrawn_cleanly_when_the_terminal_is_resized() {
    let env = TestEnv::deferred(&[("t", "concurrency = \"parallel\"")]);
    let long = "a label long enough to fill most of a hundred columns of terminal";
    env.fake.push(Reply::tool_calls(&[(
        &call_id("resize"),
        "tool_call",
        &json!({"calls": [
            {"name": "mcp__t__slow", "arguments": {"ms": 1500, "label": format!("one {long}")}},
            {"name": "mcp__t__slow", "arguments": {"ms": 1500, "label": format!("two {long}")}},
        ]})
        .to_string(),
    )]));
    env.fake.push(Reply::text("both slept"));
    let term = Tmux::start(&env, &[]);
    term.type_line("sleep twice");
    term.wait_for("both running", |s| s.matches("running").count() == 2);
    term.resize(60, 30);
    std::thread::sleep(std::time::Duration::from_millis(400));
    let during = term.screen();
    term.wait_for("the answer", |s| s.contains("both slept"));
    let after = term.screen();
    for screen in [&during, &after] {
        // Each entry on a line of its own, once; no row left of the wider
        // drawing (a fragment of a label, a stray "running").
        assert_eq!(screen.matches("mcp__t__slow").count(), 2, "{screen}");
        for l in screen.lines().filter(|l| !l.trim().is_empty()) {
            let known = l.starts_with("hermes ")
                || l.starts_with("› ")
                || l.trim() == "›"
                || l.contains("mcp__t__slow")
                || l.contains("both slept")
                // The status line.
                || l.starts_with("test-model · ");
            assert!(known, "debris {l:?} on the screen:\n{screen}");
        }
    }
    assert_eq!(during.matches("running").count(), 2, "{during}");
    term.type_line("/quit");
}

/// An answer with a table, a long paragraph, a numbered heading, a task
/// list and strikethrough, as a terminal 100 columns wide shows it.
#[test]
fn markdown_tables_and_paragraphs_fit_the_terminal() {
    let env = TestEnv::new();
    let paragraph = "The fixture is read before the server has started, so the loader sees an empty file and every test after it fails in the same way; moving the read after start() fixes all of them at once.";
    env.fake.push(Reply::text(&format!(
        "## 1. Steps\n\n| Tool | Calls | Share |\n|:-----|------:|:-----:|\n| read_file | 12 | 40% |\n| grep | 3 | 10% |\n\n{paragraph}\n\n- [x] ~~flaky~~ fixed\n- [ ] docs\n"
    )));
    let term = Tmux::start(&env, &[]);
    term.type_line("explain");
    term.wait_for("the answer", |s| s.contains("☐ docs"));
    let screen = term.screen();
    crate::assert_contains!(screen, "1. Steps");
    crate::assert_contains!(
        screen,
        "┌───────────┬───────┬───────┐\n│ Tool      │ Calls │ Share │\n├───────────┼───────┼───────┤\n│ read_file │    12 │  40%  │\n│ grep      │     3 │  10%  │\n└───────────┴───────┴───────┘"
    );
    // The paragraph in lines that end at a word, none wider than the pane.
    let words: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.starts_with("The fixture"))
        .take_while(|l| !l.trim().is_empty())
        .inspect(|l| {
            assert!(
                l.chars().count() <= usize::from(crate::support::tmux::size().0),
                "{l:?}"
            )
        })
        .flat_map(|l| l.split_whitespace())
        .collect();
    assert_eq!(words.join(" "), paragraph, "{screen}");
    crate::assert_contains!(screen, "☑ flaky fixed");
    term.type_line("/quit");
}

/// Typing while a turn runs: the line shows live under the block as it is
/// typed; Enter queues it; Esc stops the turn; and what was queued or
/// typed comes back into the editor instead of going to the model.
#[test]
fn typing_during_a_turn_is_shown_and_a_stop_gives_it_back() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("typed"),
        "tool_call",
        r#"{"calls":[{"name":"mcp__t__slow","arguments":{"ms":20000,"label":"long"}}]}"#,
    )]));
    env.fake.push(Reply::text("sent when asked"));
    let term = Tmux::start(&env, &[]);
    term.type_line("run the slow one");
    term.wait_for("the hint under the block", |s| {
        s.contains("running") && s.contains("Esc stops the turn")
    });
    term.type_keys("fix the docs");
    term.wait_for("the line as it is typed, under the block", |s| {
        let lines: Vec<&str> = s.lines().collect();
        let block = lines.iter().position(|l| l.contains("mcp__t__slow"));
        let typed = lines.iter().position(|l| l.starts_with("› fix the docs"));
        matches!((block, typed), (Some(b), Some(t)) if t > b)
    });
    term.press("Enter");
    term.wait_for("queued", |s| {
        s.contains("(queued: sent when this turn ends")
    });
    term.type_keys("and the changelog");
    term.press("Escape");
    term.wait_for("the stop", |s| s.contains("stopped."));
    term.wait_for("the lines given back", |s| {
        s.contains("is back in the editor") && s.contains("and the changelog")
    });
    let screen = term.screen();
    crate::assert_contains!(screen, "stopping… (Esc)");
    assert_eq!(env.fake.requests().len(), 1, "sent behind the user's back");
    // Enter sends them, as one message, when the user says so.
    term.press("Enter");
    term.wait_for("the answer", |s| s.contains("sent when asked"));
    crate::assert_contains!(env.last_user_text(1), "fix the docs\nand the changelog");
    term.type_line("/quit");
}

/// A line queued with Enter and a draft typed after it, then the turn
/// ends: the queued line is sent, the draft stays on screen as the line
/// being typed while that turn runs, and is in the editor after it —
/// never dropped, never sent until Enter.
#[test]
fn a_draft_typed_after_a_queued_line_survives_the_queued_turn() {
    let env = TestEnv::new();
    env.fake
        .push(Reply::text("first answer").delayed(std::time::Duration::from_millis(2500)));
    env.fake
        .push(Reply::text("answer to one").delayed(std::time::Duration::from_millis(1500)));
    env.fake.push(Reply::text("answer to the draft"));
    let term = Tmux::start(&env, &[]);
    term.type_line("start");
    term.wait_for("the turn", |s| s.contains("thinking"));
    term.type_keys("one");
    term.press("Enter");
    term.wait_for("queued", |s| {
        s.contains("(queued: sent when this turn ends")
    });
    term.type_keys("two-draft");
    term.wait_for("the queued line sent", |s| {
        s.contains("first answer") && s.contains("› one")
    });
    term.wait_for("the draft shown while the queued turn runs", |s| {
        s.contains("thinking") && s.lines().any(|l| l.starts_with("› two-draft"))
    });
    term.wait_for("the answer to the queued line", |s| {
        s.contains("answer to one")
    });
    assert_eq!(env.fake.requests().len(), 2, "the draft was not sent");
    assert_eq!(env.last_user_text(1), "one");
    term.type_keys(" done");
    term.press("Enter");
    term.wait_for("the draft's answer", |s| s.contains("answer to the draft"));
    assert_eq!(env.last_user_text(2), "two-draft done");
    term.type_line("/quit");
}

/// A paste of several lines during a turn joins the line being typed, as
/// one placeholder — words can be typed around it — and is sent whole,
/// with them, on Enter after the turn.
#[test]
fn a_paste_during_a_turn_joins_the_line_being_typed() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("paste"),
        "tool_call",
        r#"{"calls":[{"name":"mcp__t__slow","arguments":{"ms":4000,"label":"short"}}]}"#,
    )]));
    env.fake.push(Reply::text("first done"));
    env.fake.push(Reply::text("read the log"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    term.wait_for("running", |s| s.contains("running"));
    term.type_keys("explain this: ");
    term.paste("error: one\nerror: two\nerror: three\n");
    term.wait_for("the paste in the line", |s| {
        s.contains("› explain this: [pasted 3 lines]")
    });
    crate::assert_not_contains!(term.screen(), "(queued");
    term.type_keys(" please");
    term.press("Enter");
    term.wait_for("queued whole", |s| {
        s.contains("› explain this: [pasted 3 lines] please") && s.contains("(queued")
    });
    term.wait_for("both answers", |s| s.contains("read the log"));
    assert_eq!(env.fake.requests().len(), 3);
    assert_eq!(
        env.last_user_text(2),
        "explain this: error: one\nerror: two\nerror: three please"
    );
    term.type_line("/quit");
}

/// Tab, when the menu has been closed (Esc), lists candidates with what
/// each is as readline does: commands with their help, and after `/model`
/// the models the provider lists; a model it does not list is used, with
/// a warning.
#[test]
fn tab_lists_commands_with_their_help_and_the_providers_models() {
    let env = TestEnv::new();
    let term = Tmux::start(&env, &[]);
    term.type_keys("/co");
    term.wait_for("the menu", |s| s.contains("› /compact"));
    term.press("Escape");
    term.wait_for("the menu closed", |s| !s.contains("› /compact"));
    term.press("Tab");
    term.press("Tab");
    term.wait_for("the commands, described", |s| {
        s.contains("/compact  summarise the older turns now")
            && s.contains("/context  what the next request carries")
    });
    term.press("C-u");
    term.type_keys("/model test-model");
    term.wait_for("the menu", |s| s.contains("  test-model-large"));
    term.press("Escape");
    term.wait_for("the menu closed", |s| !s.contains("test-model-large"));
    term.press("Tab");
    term.press("Tab");
    term.wait_for("the provider's models", |s| s.contains("test-model-large"));
    term.press("C-u");
    term.type_line("/model nonesuch");
    term.wait_for("the warning", |s| {
        s.contains("warning: fake does not list a model `nonesuch`")
    });
    term.type_line("/model test-model-large");
    term.wait_for("the switch", |s| {
        s.contains("model test-model-large from the next request on")
    });
    crate::assert_not_contains!(term.screen(), "does not list a model `test-model-large`");
    term.type_line("/quit");
}

/// On a serial server, an entry waiting behind a running one shows
/// `queued` — never the running one's progress — and once it starts, its
/// timer counts from then, not from when it was queued.
#[test]
fn progress_shows_on_its_own_entry_and_a_timer_counts_from_the_start() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.fake.push(Reply::tool_calls(&[(
        &call_id("serial"),
        "tool_call",
        r#"{"calls":[{"name":"mcp__t__progress","arguments":{"steps":3,"ms":700}},{"name":"mcp__t__slow","arguments":{"ms":1200,"label":"after"}}]}"#,
    )]));
    env.fake.push(Reply::text("both done"));
    let term = Tmux::start(&env, &[]);
    term.type_line("go");
    term.wait_for("progress on the running entry", |s| {
        s.lines()
            .any(|l| l.contains("mcp__t__progress") && l.contains("/3"))
    });
    let screen = term.screen();
    let waiting = screen
        .lines()
        .find(|l| l.contains("mcp__t__slow"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(
        waiting.contains("queued") && !waiting.contains("/3"),
        "{screen}"
    );
    // The second starts about 2 s after it was queued: its timer says 0s.
    term.wait_for("the second running", |s| {
        s.lines()
            .any(|l| l.contains("mcp__t__slow") && l.contains("running"))
    });
    let screen = term.screen();
    let running = screen
        .lines()
        .find(|l| l.contains("mcp__t__slow"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(running.trim_end().ends_with("running 0s"), "{running:?}");
    term.wait_for("the answer", |s| s.contains("both done"));
    term.type_line("/quit");
}

/// At 80 columns a live line too long for its row is cut with `…`, running
/// and finished — not cut off mid-word with nothing to say so.
#[test]
fn live_lines_cut_at_the_width_end_with_an_ellipsis() {
    let env = TestEnv::deferred(&[("t", "")]);
    let long = "a label long enough to run past the end of an eighty column terminal row";
    env.fake.push(Reply::tool_calls(&[(
        &call_id("cut"),
        "tool_call",
        &json!({"calls": [
            {"name": "mcp__t__slow", "arguments": {"ms": 2500, "label": long}},
        ]})
        .to_string(),
    )]));
    env.fake.push(Reply::text("slept"));
    let term = Tmux::start(&env, &[]);
    term.resize(80, 30);
    term.type_line("sleep");
    term.wait_for("running, cut with an ellipsis", |s| {
        s.lines()
            .any(|l| l.contains("mcp__t__slow") && l.contains("…") && l.contains("  running"))
    });
    term.wait_for("the answer", |s| s.contains("slept"));
    let screen = term.screen();
    let done = screen
        .lines()
        .find(|l| l.contains("✓ mcp__t__slow"))
        .unwrap();
    assert!(done.trim_end().ends_with('…'), "{screen}");
    assert!(done.chars().count() < 80, "{screen}");
    term.type_line("/quit");
}

/// A turn with a live block of two slow entries and a quick one, then an
/// answer streamed slowly in lines narrower than any size used; `storm`
/// resizes the terminal 20 times in 2 s, between 120×40, 100×30 and 80×24
/// (half while the block runs, half while the answer streams), ending at
/// 120×40. Returns the last 40 lines the pane holds once the turn is over,
/// session ids and trailing blank rows left out.
fn storm_screen(storm: bool) -> Vec<String> {
    let env = TestEnv::deferred(&[("t", "concurrency = \"parallel\"")]);
    let long = "a label long enough to fill most of a hundred columns of terminal";
    env.fake.push(Reply::tool_calls(&[(
        &call_id("storm"),
        "tool_call",
        &json!({"calls": [
            {"name": "mcp__t__slow", "arguments": {"ms": 1800, "label": format!("one {long}")}},
            {"name": "mcp__t__slow", "arguments": {"ms": 1800, "label": format!("two {long}")}},
            {"name": "mcp__t__echo", "arguments": {"text": "quick"}},
        ]})
        .to_string(),
    )]));
    let answer: String = (1..=12)
        .map(|i| format!("- step {i} of the plan, said in a short line\n"))
        .collect();
    env.fake
        .push(Reply::text(&answer).paced(std::time::Duration::from_millis(12)));
    let term = Tmux::start(&env, &[]);
    term.resize(120, 40);
    term.type_line("work");
    term.wait_for("both running", |s| s.matches("running").count() == 2);
    if storm {
        let sizes = [(80, 24), (100, 30), (120, 40), (80, 24), (120, 40)];
        for i in 0..20 {
            let (w, h) = sizes[i % sizes.len()];
            term.resize(w, h);
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    term.wait_for("the answer", |s| {
        s.contains("step 12 of the plan") && s.contains("context")
    });
    // Long enough for a resize tmux held back to arrive and be answered.
    std::thread::sleep(std::time::Duration::from_millis(600));
    let ids = regex::Regex::new(r"\d{8}-\d{6}-[0-9a-f]{6}").unwrap();
    let shown = ids.replace_all(&term.scrollback(), "ID").into_owned();
    term.type_line("/quit");
    let mut lines: Vec<String> = shown.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.split_off(lines.len().saturating_sub(40))
}

/// 20 resizes in 2 s while a live block runs and an answer streams leave
/// the screen as a run without them draws it: nothing of an old drawing
/// left, no line merged into another, no entry drawn twice.
#[test]
fn a_resize_storm_leaves_the_screen_a_fresh_drawing_would() {
    let calm = storm_screen(false);
    let stormy = storm_screen(true);
    assert!(
        calm.iter().any(|l| l.contains("✓ mcp__t__slow")),
        "{calm:#?}"
    );
    assert_eq!(stormy, calm, "after the storm:\n{}", stormy.join("\n"));
}
