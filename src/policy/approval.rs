//! Approval of one entry: the most specific matching rule decides; else the
//! tool's own annotations (`destructiveHint` is asked, `readOnlyHint` runs
//! without asking under `ask`); else the mode. Decided per entry, from the
//! tool's name and that entry's own arguments.

use serde_json::Value;

use crate::config::{ApprovalMode, ApprovalRule, ApprovalSettings, Decision};
use crate::util::glob::glob_match;

/// What a tool's server says of it (MCP tool annotations).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Hints {
    pub read_only: bool,
    pub destructive: bool,
}

/// A decision and what made it, for the model, the user and the session.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    pub decision: Decision,
    /// `rule approvals.deny[0]`, `annotation destructiveHint`, `mode ask`,
    /// `--approve`, `--yolo`.
    pub by: String,
    pub reason: Option<String>,
}

impl Outcome {
    fn new(decision: Decision, by: impl Into<String>) -> Outcome {
        Outcome {
            decision,
            by: by.into(),
            reason: None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Approvals {
    mode: ApprovalMode,
    rules: Vec<ApprovalRule>,
    /// `--yolo`: everything runs but what a rule denies.
    yolo: bool,
}

impl Default for Approvals {
    fn default() -> Self {
        Approvals::new(&ApprovalSettings::default())
    }
}

impl Approvals {
    pub(crate) fn new(s: &ApprovalSettings) -> Approvals {
        Approvals {
            mode: s.mode,
            rules: s.rules.clone(),
            yolo: s.yolo,
        }
    }

    /// `--approve GLOB` (repeatable) and `--yolo`, as the flags add them.
    #[cfg(test)]
    fn with_flags(mut self, approve: &[String], yolo: bool) -> Approvals {
        self.rules.extend(
            approve
                .iter()
                .map(|g| ApprovalRule::glob(g, Decision::Allow, "--approve".into())),
        );
        self.yolo = yolo;
        self
    }

    pub(crate) fn decide(&self, tool: &str, args: &Value, hints: Hints) -> Outcome {
        // Most specific first: a rule that looks at the arguments, then the
        // glob with more literal characters, then the stricter decision.
        let best = self
            .rules
            .iter()
            .filter(|r| glob_match(&r.tool, tool) && conditions_hold(r, args))
            .max_by_key(|r| {
                (
                    r.origin == "--approve",
                    !r.when.is_empty(),
                    literal_len(&r.tool),
                    r.decision,
                )
            });
        // A destructive tool is allowed without asking only by its own
        // name (or a flag of this run), not by a wildcard.
        let wildcard_allow = |r: &ApprovalRule| {
            r.decision == Decision::Allow
                && r.origin != "--approve"
                && (r.tool.contains('*') || r.tool.contains('?'))
        };
        let best = best.filter(|r| !(hints.destructive && !self.yolo && wildcard_allow(r)));
        match best {
            Some(r) if r.decision == Decision::Deny || !self.yolo => Outcome {
                decision: r.decision,
                by: if r.origin == "--approve" {
                    r.origin.clone()
                } else {
                    format!("rule {}", r.origin)
                },
                reason: r.reason.clone(),
            },
            _ if self.yolo => Outcome::new(Decision::Allow, "--yolo"),
            None if hints.destructive => Outcome::new(Decision::Ask, "annotation destructiveHint"),
            None if hints.read_only && self.mode == ApprovalMode::Ask => {
                Outcome::new(Decision::Allow, "annotation readOnlyHint")
            }
            _ => match self.mode {
                ApprovalMode::Ask => Outcome::new(Decision::Ask, "mode ask"),
                ApprovalMode::Auto => Outcome::new(Decision::Allow, "mode auto"),
                ApprovalMode::Deny => Outcome::new(Decision::Deny, "mode deny"),
            },
        }
    }
}

/// Every condition's pointer names a value its regex matches (strings as
/// they are, other values as JSON); a missing value fails the condition.
fn conditions_hold(rule: &ApprovalRule, args: &Value) -> bool {
    rule.when
        .iter()
        .all(|(pointer, re)| match args.pointer(pointer) {
            Some(Value::String(s)) => re.is_match(s),
            Some(v) => re.is_match(&v.to_string()),
            None => false,
        })
}

/// How much of a glob is literal: `mcp__git__git_push` beats `mcp__git__*`.
fn literal_len(glob: &str) -> usize {
    glob.chars().filter(|c| *c != '*' && *c != '?').count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ApprovalsSection;
    use serde_json::json;

    fn approvals(toml: &str) -> Approvals {
        let section: ApprovalsSection = toml::from_str(toml).unwrap();
        Approvals::new(&crate::config::approval_settings(&section).unwrap())
    }

    const NO_HINTS: Hints = Hints {
        read_only: false,
        destructive: false,
    };

    #[test]
    fn three_lines_hold_entry_by_entry() {
        // Never push to main, ask before writes, never ask for reads.
        let a = approvals(
            r#"mode = "ask"
               allow = ["mcp__*__read*", "mcp__*__list*"]
               rules = [{ tool = "mcp__git__git_push", when = { "/branch" = "^main$" }, decision = "deny", reason = "never push to main" }]"#,
        );
        let d = |tool: &str, args: Value| a.decide(tool, &args, NO_HINTS).decision;
        assert_eq!(
            d("mcp__files__read_text_file", json!({"path": "a"})),
            Decision::Allow
        );
        assert_eq!(
            d("mcp__files__write_file", json!({"path": "a"})),
            Decision::Ask
        );
        assert_eq!(
            d("mcp__git__git_push", json!({"branch": "main"})),
            Decision::Deny
        );
        assert_eq!(
            d("mcp__git__git_push", json!({"branch": "feature"})),
            Decision::Ask
        );
        assert_eq!(
            d("mcp__git__git_push", json!({})),
            Decision::Ask,
            "no value: no match"
        );
        let o = a.decide("mcp__git__git_push", &json!({"branch": "main"}), NO_HINTS);
        assert_eq!(o.by, "rule approvals.rules[0]");
        assert_eq!(o.reason.as_deref(), Some("never push to main"));
    }

    #[test]
    fn the_most_specific_rule_wins_and_ties_go_to_the_stricter() {
        let a = approvals(
            r#"deny = ["mcp__git__*"]
               allow = ["mcp__git__git_status"]
               ask = ["mcp__x__*"]"#,
        );
        let d = |tool: &str| a.decide(tool, &json!({}), NO_HINTS).decision;
        assert_eq!(d("mcp__git__git_status"), Decision::Allow);
        assert_eq!(d("mcp__git__git_commit"), Decision::Deny);
        let tie = approvals(
            r#"allow = ["mcp__x__*"]
               deny = ["mcp__x__*"]"#,
        );
        assert_eq!(
            tie.decide("mcp__x__y", &json!({}), NO_HINTS).decision,
            Decision::Deny
        );
    }

    #[test]
    fn annotations_count_and_flags_open_up() {
        let ask = approvals(r#"mode = "ask""#);
        let read = Hints {
            read_only: true,
            destructive: false,
        };
        let destroy = Hints {
            read_only: false,
            destructive: true,
        };
        assert_eq!(
            ask.decide("mcp__f__read", &json!({}), read).decision,
            Decision::Allow
        );
        let auto = approvals(r#"mode = "auto""#);
        let o = auto.decide("mcp__f__delete", &json!({}), destroy);
        assert_eq!(
            (o.decision, o.by.as_str()),
            (Decision::Ask, "annotation destructiveHint")
        );
        let named = approvals(
            r#"mode = "auto"
               allow = ["mcp__f__delete"]"#,
        );
        assert_eq!(
            named.decide("mcp__f__delete", &json!({}), destroy).decision,
            Decision::Allow
        );
        let flagged = approvals(r#"mode = "ask""#).with_flags(&["mcp__f__*".into()], false);
        let o = flagged.decide("mcp__f__write", &json!({}), NO_HINTS);
        assert_eq!((o.decision, o.by.as_str()), (Decision::Allow, "--approve"));
        let yolo = approvals(
            r#"mode = "deny"
               deny = ["mcp__f__rm"]"#,
        )
        .with_flags(&[], true);
        assert_eq!(
            yolo.decide("mcp__f__write", &json!({}), destroy).decision,
            Decision::Allow
        );
        assert_eq!(
            yolo.decide("mcp__f__rm", &json!({}), NO_HINTS).decision,
            Decision::Deny
        );
    }
}
