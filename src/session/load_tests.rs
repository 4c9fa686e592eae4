//! Loading session files: torn lines, compactions, rewinds, pairing.

use super::*;

const META: &str = r#"{"type":"meta","version":1,"id":"s","created":"t","cwd":"/","provider":"p","model":"m","hermes_version":"0"}"#;

/// A tool result record answering `id`, with `id` as its content.
fn result(id: &str, name: &str) -> String {
    format!(
        r#"{{"type":"tool_result","ts":"t","tool_call_id":"{id}","name":"{name}","content":"{id}","is_error":false}}"#
    )
}

fn user(text: &str) -> String {
    format!(r#"{{"type":"message","ts":"t","message":{{"role":"user","content":"{text}"}}}}"#)
}

#[test]
fn torn_tail_is_skipped_with_a_warning() {
    let text = format!("{META}\n{}\n{{\"type\":\"mess", user("hi"));
    let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
    assert_eq!(s.messages.len(), 1);
    let torn = s.torn_tail.unwrap();
    assert_eq!(torn.line, 3);
    assert_eq!(torn.hash, crate::util::hash::hex(b"{\"type\":\"mess"));
    assert!(s.warnings[0].contains("f.jsonl:3"));
}

fn compaction(texts: &[&str]) -> String {
    let messages: Vec<String> = texts
        .iter()
        .map(|t| format!(r#"{{"role":"user","content":"{t}"}}"#))
        .collect();
    format!(
        r#"{{"type":"compaction","ts":"t","reason":"threshold","summarised":3,"stubbed":0,"messages":[{}]}}"#,
        messages.join(",")
    )
}

#[test]
fn the_last_compaction_replaces_all_before_it_which_is_not_even_parsed() {
    let tools = r#"{"type":"event","ts":"t","event":"tools","deferred":true}"#;
    let text = format!(
        "{META}\n{tools}\nnot json: never read\n{}\n{}\n{}\n{}\n",
        compaction(&["first summary"]),
        user("between"),
        compaction(&["second summary", "kept"]),
        user("after"),
    );
    let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
    let texts: Vec<&str> = s
        .messages
        .iter()
        .map(|m| match m {
            Message::User { content, .. } => content.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(texts, ["second summary", "kept", "after"]);
    assert_eq!(s.deferred, Some(true), "the decision before it still holds");
}

/// A rewind keeps the messages of the lines before its turn, and what
/// follows it; a second, further back, takes back more; one of files
/// only changes nothing here.
#[test]
fn a_rewind_keeps_the_lines_before_its_turn_and_what_follows_it() {
    let rewind = |line: u64, conversation: bool| {
        format!(
            r#"{{"type":"rewind","ts":"t","line":{line},"code":true,"conversation":{conversation}}}"#
        )
    };
    let texts = |text: &str| -> Vec<String> {
        parse(Path::new("f.jsonl"), text.as_bytes())
            .unwrap()
            .messages
            .iter()
            .map(|m| match m {
                Message::User { content, .. } => content.clone(),
                _ => String::new(),
            })
            .collect()
    };
    // Lines: 1 meta, 2 one, 3 two, 4 three.
    let base = format!(
        "{META}\n{}\n{}\n{}\n",
        user("one"),
        user("two"),
        user("three")
    );
    let once = format!("{base}{}\n{}\n", rewind(3, true), user("four"));
    assert_eq!(texts(&once), ["one", "four"]);
    let code_only = format!("{base}{}\n", rewind(3, false));
    assert_eq!(texts(&code_only), ["one", "two", "three"]);
    let twice = format!("{once}{}\n{}\n", rewind(2, true), user("five"));
    assert_eq!(texts(&twice), ["five"]);
    let after_compaction = format!(
        "{base}{}\n{}\n{}\n",
        compaction(&["summary"]),
        user("six"),
        rewind(6, true)
    );
    assert_eq!(texts(&after_compaction), ["summary"]);
}

#[test]
fn the_last_count_since_the_last_compaction_is_kept_with_its_request() {
    let usage = |n: u64| {
        format!(
            r#"{{"type":"event","ts":"t","event":"usage","completion_tokens":1,"prompt_tokens":{n},"total_tokens":{}}}"#,
            n + 1
        )
    };
    let text = format!(
        "{META}\n{}\n{}\n{}\n{}\n{}\n",
        user("one"),
        usage(50),
        compaction(&["summary"]),
        user("two"),
        usage(70),
    );
    let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
    assert_eq!(s.last_usage, Some((2, 70)));
    let text = format!(
        "{META}\n{}\n{}\n{}\n",
        user("one"),
        usage(50),
        compaction(&["s"])
    );
    let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
    assert_eq!(
        s.last_usage, None,
        "a count of the history before the compaction"
    );
}

#[test]
fn a_compaction_cut_off_mid_write_leaves_the_one_before_in_force() {
    let torn = compaction(&["never whole"]);
    let text = format!(
        "{META}\n{}\n{}\n{}\n{{\"type\":\"event\",\"ts\":\"t\",\"event\":\"torn_line\",\"line\":5,\"hash\":\"{}\"}}\n{}\n",
        compaction(&["summary"]),
        user("between"),
        &torn[..torn.len() / 2],
        crate::util::hash::hex(&torn.as_bytes()[..torn.len() / 2]),
        user("after"),
    );
    let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
    assert_eq!(s.messages.len(), 3, "{:?}", s.messages);
}

#[test]
fn garbage_in_the_middle_is_an_error_with_its_line() {
    let text = format!("{META}\nnot json\n{}\n", user("hi"));
    let err = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap_err();
    assert!(err.to_string().starts_with("f.jsonl:2: "), "{err}");
}

#[test]
fn an_acknowledged_torn_line_is_skipped() {
    let text = format!(
        "{META}\n{{\"type\":\"mess\n{{\"type\":\"event\",\"ts\":\"t\",\"event\":\"torn_line\",\"line\":2}}\n{}\n",
        user("again")
    );
    let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.torn_tail, None);
}

#[test]
fn a_torn_line_acknowledged_by_hash_is_skipped_where_edits_moved_it() {
    let fragment = "{\"type\":\"mess";
    let hash = crate::util::hash::hex(fragment.as_bytes());
    // Acknowledged as line 2; a line added above by hand moved it to 3.
    let text = format!(
        "{META}\n{}\n{fragment}\n{{\"type\":\"event\",\"ts\":\"t\",\"event\":\"torn_line\",\"line\":2,\"hash\":\"{hash}\"}}\n",
        user("added by hand")
    );
    let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
    assert_eq!(s.messages.len(), 1);
    // Another bad line at the acknowledged number is still an error.
    let text = format!(
        "{META}\nnot json\n{{\"type\":\"event\",\"ts\":\"t\",\"event\":\"torn_line\",\"line\":2,\"hash\":\"{hash}\"}}\n"
    );
    let err = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap_err();
    assert!(err.to_string().starts_with("f.jsonl:2: "), "{err}");
}

#[test]
fn a_tool_result_that_answers_no_call_is_skipped_with_a_warning() {
    let result = |id: &str| result(id, "echo");
    let text = [
        META.to_string(),
        user("x"),
        r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"echo","arguments":"{}"}]}}"#.to_string(),
        result("a"),
        result("a"),
        result("stranger"),
        user("y"),
        result("late"),
    ]
    .join("\n")
        + "\n";
    let s = parse(Path::new("f.jsonl"), text.as_bytes()).unwrap();
    let tools: Vec<&str> = s
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(r) => Some(r.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(tools, ["a"]);
    assert_eq!(s.warnings.len(), 3, "{:?}", s.warnings);
    assert!(
        s.warnings[0].starts_with("f.jsonl:5: skipped a tool result for `a`"),
        "{:?}",
        s.warnings
    );
    assert!(s.warnings[2].starts_with("f.jsonl:8: "), "{:?}", s.warnings);
    assert!(s.unanswered.is_empty());
}

/// A file written before hermes renamed repeated ids: two calls under
/// one id, each with its result. Both results stay, so each call is
/// answered when the history is sent again.
#[test]
fn two_calls_under_one_id_keep_both_results() {
    let text = [
        META.to_string(),
        user("x"),
        r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"echo","arguments":"{\"text\":\"s1\"}"},{"id":"a","name":"echo","arguments":"{\"text\":\"s2\"}"}]}}"#.to_string(),
        result("a", "echo"),
        result("a", "echo"),
    ]
    .join("\n")
        + "\n";
    let s = parse(Path::new("f"), text.as_bytes()).unwrap();
    let results = s
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Tool(_)))
        .count();
    assert_eq!(results, 2);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert!(s.unanswered.is_empty());
    // A third call under that id with no result is still a call to repair.
    let text = text.replacen(
        r#"{\"text\":\"s2\"}"}"#,
        r#"{\"text\":\"s2\"}"},{"id":"a","name":"echo","arguments":"{}"}"#,
        1,
    );
    let s = parse(Path::new("f"), text.as_bytes()).unwrap();
    assert_eq!(s.unanswered.len(), 1, "{:?}", s.unanswered);
}

#[test]
fn a_late_result_goes_back_to_its_round() {
    let result = |id: &str| result(id, "echo");
    // b's result could not be written; the run went on; a resume appended it.
    let text = [
        META.to_string(),
        user("x"),
        r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"echo","arguments":"{}"},{"id":"b","name":"echo","arguments":"{}"}]}}"#.to_string(),
        result("a"),
        user("y"),
        r#"{"type":"message","ts":"t","message":{"role":"assistant","content":"fine"}}"#.to_string(),
        result("b"),
    ]
    .join("\n")
        + "\n";
    let s = parse(Path::new("f"), text.as_bytes()).unwrap();
    let shape: Vec<String> = s
        .messages
        .iter()
        .map(|m| match m {
            Message::Tool(r) => format!("tool {}", r.tool_call_id),
            Message::User { content, .. } => format!("user {content}"),
            Message::Assistant { .. } => "assistant".into(),
            Message::System { .. } => "system".into(),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "user x",
            "assistant",
            "tool a",
            "tool b",
            "user y",
            "assistant"
        ]
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert!(s.unanswered.is_empty());
}

#[test]
fn unanswered_tool_calls_are_reported() {
    let text = format!(
        "{META}\n{}\n{}\n",
        user("x"),
        r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"echo","arguments":"{}"},{"id":"b","name":"echo","arguments":"{}"}]}}"#
    ) + r#"{"type":"tool_result","ts":"t","tool_call_id":"a","name":"echo","content":"ok","is_error":false}"#
        + "\n";
    let s = parse(Path::new("f"), text.as_bytes()).unwrap();
    assert_eq!(s.unanswered.len(), 1);
    assert_eq!(s.unanswered[0].id, "b");
}

#[test]
fn results_come_back_in_entry_order_whatever_order_they_were_written_in() {
    let result = |id: &str| result(id, "tool_call");
    let text = [
        META.to_string(),
        user("x"),
        r#"{"type":"message","ts":"t","message":{"role":"assistant","tool_calls":[{"id":"a","name":"tool_call","arguments":"{}"},{"id":"b","name":"tool_call","arguments":"{}"},{"id":"c","name":"tool_call","arguments":"{}"}]}}"#.to_string(),
        result("c"),
        r#"{"type":"event","ts":"t","event":"tools","deferred":true}"#.to_string(),
        result("a"),
        result("b"),
        user("y"),
    ]
    .join("\n")
        + "\n";
    let s = parse(Path::new("f"), text.as_bytes()).unwrap();
    let ids: Vec<&str> = s.messages[2..5]
        .iter()
        .map(|m| match m {
            Message::Tool(r) => r.tool_call_id.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert!(matches!(s.messages[5], Message::User { .. }));
    assert_eq!(s.deferred, Some(true));
}

/// A session written before events were typed: it loads, and every record
/// hermes wrote reads and writes back as the very same bytes.
#[test]
fn a_committed_earlier_session_still_loads_and_round_trips() {
    let text = include_str!("../../tests/fixtures/session-v1.jsonl");
    let s = parse(Path::new("session-v1.jsonl"), text.as_bytes()).unwrap();
    assert_eq!(s.deferred, Some(true));
    assert_eq!(s.torn_tail, None, "the torn line was acknowledged");
    let roles: Vec<&str> = s
        .messages
        .iter()
        .map(|m| match m {
            Message::System { .. } => "system",
            Message::User { .. } => "user",
            Message::Assistant { .. } => "assistant",
            Message::Tool(_) => "tool",
        })
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "tool", "assistant"]
    );
    let Message::Tool(first) = &s.messages[3] else {
        unreachable!()
    };
    assert_eq!(first.content, "alpha", "results come back in entry order");
    for (n, line) in text.lines().enumerate() {
        let Ok(rec) = serde_json::from_str::<Record>(line) else {
            assert_eq!(n + 1, 10, "only the torn line may fail to parse");
            continue;
        };
        if let Record::Event {
            event: SessionEvent::Unknown,
            ..
        } = rec
        {
            assert!(line.contains("some_later_event"));
            continue;
        }
        assert_eq!(serde_json::to_string(&rec).unwrap(), line, "line {}", n + 1);
    }
}

#[test]
fn a_file_without_meta_is_not_a_session() {
    let err = parse(Path::new("f"), format!("{}\n", user("x")).as_bytes()).unwrap_err();
    assert!(matches!(err, SessionError::NotASession { .. }));
}
