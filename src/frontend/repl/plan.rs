//! Plan mode in the REPL: `/mode` switches, and a plan-mode answer is put
//! to the person — run it (back to the mode they came from, the model told
//! to carry it out), keep planning, or say what should change.

use std::sync::Mutex;

use super::context::ReplError;
use super::editor::{next_line, Editor};
use crate::agent::Agent;
use crate::config::ApprovalMode;

/// The modes `/mode` without a name steps through, in order.
const CYCLE: [ApprovalMode; 3] = [ApprovalMode::Ask, ApprovalMode::Auto, ApprovalMode::Plan];

/// `/mode [NAME]`: that mode, or the next of ask → auto → plan.
pub(super) fn switch(agent: &mut Agent, name: Option<&str>) {
    let to = match name {
        None => next(agent.mode()),
        Some("ask") => ApprovalMode::Ask,
        Some("auto") => ApprovalMode::Auto,
        Some("plan") => ApprovalMode::Plan,
        Some("deny") => ApprovalMode::Deny,
        Some(other) => {
            errln!("no mode {other:?}: ask, auto, plan or deny");
            return;
        }
    };
    agent.set_mode(to);
    errln!("mode {}: {}", to.name(), what(to));
}

/// Shift-Tab ended the line `line` typed after `shown`: it is taken off
/// the screen (it comes back into the editor) and the mode steps on.
pub(super) fn cycled(agent: &mut Agent, shown: &str, line: &str) {
    use unicode_width::UnicodeWidthStr;
    let columns = crate::frontend::terminal::columns(1).unwrap_or(80).max(1);
    let rows = (shown.width() + line.width()) / columns + 1;
    crate::util::stderr::erase_rows_above(rows);
    switch(agent, None);
}

/// The mode after `mode` in the cycle (`deny` goes to `ask`).
pub(super) fn next(mode: ApprovalMode) -> ApprovalMode {
    let at = CYCLE.iter().position(|m| *m == mode);
    at.map_or(ApprovalMode::Ask, |i| CYCLE[(i + 1) % CYCLE.len()])
}

fn what(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::Ask => "you are asked before a change runs",
        ApprovalMode::Auto => "changes run without asking (rules that ask or deny still hold)",
        ApprovalMode::Deny => "whatever would be asked is refused",
        ApprovalMode::Plan => {
            "reads and investigation only — commands see the folder read-only; the model ends \
             with a plan you approve"
        }
    }
}

/// After a plan-mode answer: "run this plan?". Yes leaves plan mode and
/// sends the model on; edit sends what should change, still planning; no
/// (or nothing) keeps planning.
pub(super) async fn approve(
    editor: Editor,
    queued: &Mutex<Vec<String>>,
    agent: &mut Agent,
) -> Result<Editor, ReplError> {
    errln!("run this plan? y: yes · n: no, keep planning · e: edit — say what should change");
    let (editor, answer) = next_line(editor, queued, "plan? (y/n/e) › ".into(), None).await?;
    let answer = answer.map(|a| a.trim().to_lowercase()).unwrap_or_default();
    let send = |text: String| {
        if let Ok(mut q) = queued.lock() {
            q.insert(0, text);
        }
    };
    match answer.as_str() {
        "y" | "yes" => {
            let back = agent.approve_plan();
            errln!(
                "plan approved: mode {} — the model carries it out",
                back.name()
            );
            send("Go ahead with the plan.".into());
            Ok(editor)
        }
        "e" | "edit" => {
            let (editor, change) =
                next_line(editor, queued, "what should change? › ".into(), None).await?;
            match change.map(|c| c.trim().to_string()) {
                Ok(c) if !c.is_empty() => send(c),
                _ => errln!("nothing to send; still in plan mode"),
            }
            Ok(editor)
        }
        _ => {
            errln!("still in plan mode: /mode leaves it");
            Ok(editor)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_without_a_name_steps_ask_auto_plan_and_back() {
        assert_eq!(next(ApprovalMode::Ask), ApprovalMode::Auto);
        assert_eq!(next(ApprovalMode::Auto), ApprovalMode::Plan);
        assert_eq!(next(ApprovalMode::Plan), ApprovalMode::Ask);
        assert_eq!(next(ApprovalMode::Deny), ApprovalMode::Ask);
    }
}
