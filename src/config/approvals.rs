//! The `[approvals]` a run works with: the mode, the per-turn cap, and the
//! allow / ask / deny globs and `[[approvals.rules]]` as one ordered list,
//! conditions compiled once when the config is read.

use super::defaults;
use super::file::{ApprovalMode, ApprovalsSection, Decision};
use super::ConfigError;

#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalSettings {
    pub mode: ApprovalMode,
    /// The `allow` / `ask` / `deny` globs and the `[[approvals.rules]]`, in
    /// that order, conditions compiled.
    pub rules: Vec<ApprovalRule>,
    pub max_tool_calls_per_turn: u32,
    /// `--yolo`: everything runs but what a rule denies.
    pub yolo: bool,
}

impl Default for ApprovalSettings {
    fn default() -> Self {
        ApprovalSettings {
            mode: defaults::APPROVAL_MODE,
            rules: Vec::new(),
            max_tool_calls_per_turn: defaults::MAX_TOOL_CALLS_PER_TURN,
            yolo: false,
        }
    }
}

/// One approval rule: a glob over tool names, the argument conditions that
/// must all hold (a JSON pointer and a regex its value must match), and
/// what it decides.
#[derive(Debug, Clone)]
pub struct ApprovalRule {
    pub tool: String,
    pub decision: Decision,
    pub when: Vec<(String, regex::Regex)>,
    pub reason: Option<String>,
    /// Where it came from, for the session record.
    pub origin: RuleOrigin,
}

/// Where an approval rule came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleOrigin {
    /// A config key: `approvals.deny[0]`, `approvals.rules[2]`.
    Config(String),
    /// `--approve GLOB`.
    Flag,
}

impl PartialEq for ApprovalRule {
    fn eq(&self, o: &Self) -> bool {
        let conds = |r: &ApprovalRule| {
            r.when
                .iter()
                .map(|(p, re)| (p.clone(), re.as_str().to_string()))
                .collect::<Vec<_>>()
        };
        self.tool == o.tool
            && self.decision == o.decision
            && self.reason == o.reason
            && self.origin == o.origin
            && conds(self) == conds(o)
    }
}

impl ApprovalRule {
    /// A glob rule with no conditions (the `allow`/`ask`/`deny` lists,
    /// `--approve`).
    pub fn glob(tool: &str, decision: Decision, origin: RuleOrigin) -> ApprovalRule {
        ApprovalRule {
            tool: tool.to_string(),
            decision,
            when: Vec::new(),
            reason: None,
            origin,
        }
    }
}

/// An `[approvals]` table, defaults filled in and conditions compiled.
pub(crate) fn approval_settings(a: &ApprovalsSection) -> Result<ApprovalSettings, ConfigError> {
    Ok(ApprovalSettings {
        mode: a.mode.unwrap_or(defaults::APPROVAL_MODE),
        rules: approval_rules(a)?,
        max_tool_calls_per_turn: a
            .max_tool_calls_per_turn
            .map_or(defaults::MAX_TOOL_CALLS_PER_TURN, |n| n.get()),
        yolo: false,
    })
}

/// The rules of an `[approvals]` table, regexes compiled; a bad pointer or
/// regex names its key.
fn approval_rules(a: &ApprovalsSection) -> Result<Vec<ApprovalRule>, ConfigError> {
    let mut rules = Vec::new();
    for (key, list, decision) in [
        ("allow", &a.allow, Decision::Allow),
        ("ask", &a.ask, Decision::Ask),
        ("deny", &a.deny, Decision::Deny),
    ] {
        for (i, g) in list.iter().enumerate() {
            rules.push(ApprovalRule::glob(
                g,
                decision,
                RuleOrigin::Config(format!("approvals.{key}[{i}]")),
            ));
        }
    }
    for (i, r) in a.rules.iter().enumerate() {
        let mut when = Vec::new();
        for (pointer, pattern) in &r.when {
            let what = format!("approvals.rules[{i}].when.\"{pointer}\"");
            if !(pointer.is_empty() || pointer.starts_with('/')) {
                return Err(ConfigError::BadValue {
                    what,
                    expected: "a JSON pointer into the arguments, like \"/branch\"",
                    got: pointer.clone(),
                });
            }
            let re = regex::Regex::new(pattern).map_err(|e| ConfigError::BadValue {
                what,
                expected: "a regular expression",
                got: format!("{pattern} ({})", e.to_string().lines().last().unwrap_or("")),
            })?;
            when.push((pointer.clone(), re));
        }
        rules.push(ApprovalRule {
            tool: r.tool.clone(),
            decision: r.decision,
            when,
            reason: r.reason.clone(),
            origin: RuleOrigin::Config(format!("approvals.rules[{i}]")),
        });
    }
    Ok(rules)
}
