//! Approval of one entry, from the tool's names, that entry's own arguments
//! and what its server says of the tool. One precedence, whatever a rule's
//! origin (config file, project file, flag):
//!
//! 1. a rule that denies — any that matches, however general;
//! 2. `--yolo`: everything else runs;
//! 3. `--approve GLOB`: the user's answer for this run, given ahead;
//! 4. the most specific `allow` / `ask` rule (one that looks at the arguments,
//!    then the glob with more literal characters, then `ask` on a tie); a
//!    wildcard `allow` does not cover a tool its server marks destructive;
//! 5. the tool's annotations: `destructiveHint` asks, `readOnlyHint` runs
//!    under `mode = "ask"`;
//! 6. the mode.
//!
//! Hooks come on top (policy/checks.rs): a hook that blocks wins over all of
//! this; a hook's `allow` answers an `ask` but never a deny.

use serde_json::Value;

use crate::config::{ApprovalMode, ApprovalRule, ApprovalSettings, Decision, RuleOrigin};
use crate::util::glob::glob_match;

/// What a tool's server says of it (MCP annotations), or what a built-in
/// knows of one call of it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    /// Asked whatever the mode and the allow rules say — only a flag of
    /// this run (`--approve`, `--yolo`) or an answer lets it run: a write
    /// outside the working folder, a command run without the sandbox.
    pub always_ask: Option<&'static str>,
    /// `always_ask` holds under `--yolo`, `/yolo` and `--approve` too, and
    /// no hook's `allow` answers it: a URL that may carry a key out.
    pub even_under_yolo: bool,
    /// Changes nothing that stays, though not a read: runs in plan mode
    /// (`shell` in the sandbox, whose roots are then read-only; a built-in
    /// read outside the folder; `update_plan`; a subagent, whose own calls
    /// are held to plan mode too).
    pub investigates: bool,
    /// What the question adds about the call, when it is asked (`shell`
    /// with `background: true`: that it keeps running).
    pub note: Option<&'static str>,
}

/// The tool an entry calls, as rules and hook matchers see it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Subject {
    /// The model-facing name (`mcp__h__delete_all_1a2b3c4d`).
    pub name: String,
    /// The server's own name for it (`mcp__h__delete-all`), when that
    /// differs from `name`.
    pub own: Option<String>,
    /// The name it would have had without a collision (`mcp__h__delete_all`).
    pub plain: Option<String>,
    pub hints: Hints,
}

impl Subject {
    /// A tool with one name and nothing said of it.
    pub(crate) fn named(name: &str) -> Subject {
        Subject {
            name: name.to_string(),
            ..Subject::default()
        }
    }

    /// Whether `glob` names this tool. Its own and model-facing names count
    /// for every decision; the plain name of a tool renamed by a collision
    /// counts for what restricts (deny, ask, a hook's matcher), so renaming
    /// never lets a call escape a rule written for the plain name — and
    /// never lets an `allow` reach a second tool.
    pub(crate) fn matches(&self, glob: &str, restricts: bool) -> bool {
        glob_match(glob, &self.name)
            || self.own.as_deref().is_some_and(|n| glob_match(glob, n))
            || (restricts && self.plain.as_deref().is_some_and(|n| glob_match(glob, n)))
    }
}

/// Who or what settled an approval. Its text is what the session records
/// and `--json` prints (`rule approvals.deny[0]`, `--approve`, …).
#[derive(Debug, Clone, PartialEq)]
pub enum By {
    Rule(String),
    ApproveFlag,
    YoloFlag,
    /// `/yolo` in the REPL.
    YoloCommand,
    Hook,
    ReadOnlyHint,
    DestructiveHint,
    /// Why a call is asked whatever the rules say.
    AlwaysAsked(&'static str),
    Mode(ApprovalMode),
    /// The user's answer.
    User(UserAnswer),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UserAnswer {
    Once,
    ForSession,
    Always,
    Denied,
    StoppingTheTurn,
}

impl By {
    /// What a rule from `origin` is, when it settles a call.
    pub(crate) fn of(origin: &RuleOrigin) -> By {
        match origin {
            RuleOrigin::Flag => By::ApproveFlag,
            RuleOrigin::Config(key) => By::Rule(key.clone()),
        }
    }
}

impl std::fmt::Display for By {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            By::Rule(origin) => write!(f, "rule {origin}"),
            By::ApproveFlag => f.write_str("--approve"),
            By::YoloFlag => f.write_str("--yolo"),
            By::YoloCommand => f.write_str("/yolo"),
            By::Hook => f.write_str("hook"),
            By::ReadOnlyHint => f.write_str("annotation readOnlyHint"),
            By::DestructiveHint => f.write_str("annotation destructiveHint"),
            By::AlwaysAsked(why) => f.write_str(why),
            By::Mode(m) => write!(f, "mode {}", m.name()),
            By::User(a) => f.write_str(match a {
                UserAnswer::Once => "you, once",
                UserAnswer::ForSession => "you, for this session",
                UserAnswer::Always => "you, always",
                UserAnswer::Denied => "you",
                UserAnswer::StoppingTheTurn => "you, stopping the turn",
            }),
        }
    }
}

/// A decision and what made it, for the model, the user and the session.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    pub decision: Decision,
    pub by: By,
    pub reason: Option<String>,
}

impl Outcome {
    pub(crate) fn new(decision: Decision, by: By) -> Outcome {
        Outcome {
            decision,
            by,
            reason: None,
        }
    }

    fn of_rule(r: &ApprovalRule) -> Outcome {
        Outcome {
            decision: r.decision,
            by: By::of(&r.origin),
            reason: r.reason.clone(),
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
                .map(|g| ApprovalRule::glob(g, Decision::Allow, RuleOrigin::Flag)),
        );
        self.yolo = yolo;
        self
    }

    /// The configured mode (the one a run starts in).
    pub(crate) fn mode(&self) -> ApprovalMode {
        self.mode
    }

    #[cfg(test)]
    pub(crate) fn decide(&self, tool: &Subject, args: &Value) -> Outcome {
        self.decide_as(self.mode, self.yolo, tool, args)
    }

    /// Whether `--yolo` was given.
    pub(crate) fn yolo_flag(&self) -> bool {
        self.yolo
    }

    /// As [`Approvals::decide`], in `mode` (the one the person switched
    /// to) and with `--yolo` as it stands now (`/yolo` may have turned it
    /// off).
    pub(crate) fn decide_as(
        &self,
        mode: ApprovalMode,
        yolo: bool,
        tool: &Subject,
        args: &Value,
    ) -> Outcome {
        let applies = |r: &&ApprovalRule| {
            tool.matches(&r.tool, r.decision != Decision::Allow) && conditions_hold(r, args)
        };
        let matching: Vec<&ApprovalRule> = self.rules.iter().filter(applies).collect();
        // 1. A deny, from anywhere; the most specific one is named.
        if let Some(r) = most_specific(matching.iter().filter(|r| r.decision == Decision::Deny)) {
            return Outcome::of_rule(r);
        }
        // Plan mode: what would change something is refused, whatever
        // allows it; the rest is settled as in `ask`.
        let mode = match mode {
            ApprovalMode::Plan if !(tool.hints.read_only || tool.hints.investigates) => {
                return Outcome {
                    decision: Decision::Deny,
                    by: By::Mode(ApprovalMode::Plan),
                    reason: Some(PLAN_REFUSAL.into()),
                };
            }
            ApprovalMode::Plan => ApprovalMode::Ask,
            m => m,
        };
        // 2. --yolo.
        if yolo && !tool.hints.even_under_yolo {
            return Outcome::new(Decision::Allow, By::YoloFlag);
        }
        // 3. --approve.
        if let Some(r) = matching
            .iter()
            .find(|r| r.origin == RuleOrigin::Flag && !tool.hints.even_under_yolo)
        {
            return Outcome::of_rule(r);
        }
        // 4. The config's allow and ask rules. A destructive tool is allowed
        // without asking only by its own name, not by a wildcard; a call
        // that is always asked, by none.
        let wildcard = |r: &ApprovalRule| r.tool.contains(['*', '?']);
        let config = matching.iter().filter(|r| {
            !(r.decision == Decision::Allow
                && (tool.hints.always_ask.is_some() || tool.hints.destructive && wildcard(r)))
        });
        if let Some(r) = most_specific(config) {
            return Outcome::of_rule(r);
        }
        // 5. Annotations, 6. the mode.
        match (mode, tool.hints.always_ask) {
            (ApprovalMode::Deny, _) => Outcome::new(Decision::Deny, By::Mode(mode)),
            (_, Some(why)) => Outcome::new(Decision::Ask, By::AlwaysAsked(why)),
            _ if tool.hints.destructive => Outcome::new(Decision::Ask, By::DestructiveHint),
            (ApprovalMode::Ask, _) if tool.hints.read_only => {
                Outcome::new(Decision::Allow, By::ReadOnlyHint)
            }
            (ApprovalMode::Ask | ApprovalMode::Plan, _) => {
                Outcome::new(Decision::Ask, By::Mode(mode))
            }
            (ApprovalMode::Auto, _) => Outcome::new(Decision::Allow, By::Mode(mode)),
        }
    }
}

/// Why plan mode refused a call, for the model (so it stops trying) and
/// the person.
pub(crate) const PLAN_REFUSAL: &str = "plan mode: only reads and investigation run until the \
     person approves a plan — finish investigating and end with your plan; the person leaves plan \
     mode with Shift-Tab or /mode in the REPL, or --mode for a run";

/// A rule that looks at the arguments, then the glob with more literal
/// characters (`mcp__git__git_push` beats `mcp__git__*`), then the
/// stricter decision.
fn most_specific<'r>(
    rules: impl Iterator<Item = &'r &'r ApprovalRule>,
) -> Option<&'r ApprovalRule> {
    rules
        .max_by_key(|r| (!r.when.is_empty(), literal_len(&r.tool), r.decision))
        .copied()
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
        always_ask: None,
        investigates: false,
        even_under_yolo: false,
        note: None,
    };
    const READ: Hints = Hints {
        read_only: true,
        ..NO_HINTS
    };
    const DESTROY: Hints = Hints {
        destructive: true,
        ..NO_HINTS
    };
    const OUTSIDE: Hints = Hints {
        always_ask: Some("a write outside the working folder"),
        ..NO_HINTS
    };

    fn decide(a: &Approvals, tool: &str, args: Value, hints: Hints) -> (Decision, String) {
        let subject = Subject {
            hints,
            ..Subject::named(tool)
        };
        let o = a.decide(&subject, &args);
        (o.decision, o.by.to_string())
    }

    #[test]
    fn plan_mode_refuses_what_changes_whatever_allows_it_and_asks_the_rest_as_ask_does() {
        let a = approvals(
            r#"mode = "plan"
               allow = ["write_file", "mcp__*"]
               deny = ["mcp__files__read_secret"]"#,
        );
        let yolo = Approvals {
            yolo: true,
            ..a.clone()
        };
        let investigates = Hints {
            investigates: true,
            ..NO_HINTS
        };
        for a in [&a, &yolo] {
            let (d, by) = decide(a, "write_file", json!({"path": "x"}), NO_HINTS);
            assert_eq!((d, by.as_str()), (Decision::Deny, "mode plan"));
            let o = a.decide(&Subject::named("mcp__files__write_file"), &json!({}));
            assert_eq!(o.reason.as_deref(), Some(PLAN_REFUSAL));
            assert_eq!(decide(a, "read_file", json!({}), READ).0, Decision::Allow);
            // A deny rule still names itself.
            let (d, by) = decide(a, "mcp__files__read_secret", json!({}), READ);
            assert_eq!((d, by.as_str()), (Decision::Deny, "rule approvals.deny[0]"));
        }
        // What investigates (a sandboxed command, a read outside) is settled
        // as in `ask`: asked, or allowed by --yolo.
        assert_eq!(
            decide(&a, "shell", json!({}), investigates).0,
            Decision::Ask
        );
        assert_eq!(
            decide(&yolo, "shell", json!({}), investigates).0,
            Decision::Allow
        );
    }

    /// A URL that may carry a key out is asked under --yolo, --approve and
    /// an allow rule alike; a deny still wins.
    #[test]
    fn what_is_asked_even_under_yolo_is_asked_under_every_flag() {
        let a = approvals(
            r#"mode = "auto"
               allow = ["web_fetch"]"#,
        );
        let mut flagged = a.clone();
        flagged.yolo = true;
        flagged.rules.push(ApprovalRule::glob(
            "web_fetch",
            Decision::Allow,
            RuleOrigin::Flag,
        ));
        let key = Hints {
            always_ask: Some("the URL may carry a key"),
            even_under_yolo: true,
            investigates: true,
            ..NO_HINTS
        };
        for a in [&a, &flagged] {
            let (d, by) = decide(a, "web_fetch", json!({}), key);
            assert_eq!((d, by.as_str()), (Decision::Ask, "the URL may carry a key"));
        }
        // Without it, the same flags allow what is always asked.
        let (d, _) = decide(
            &flagged,
            "web_fetch",
            json!({}),
            Hints {
                even_under_yolo: false,
                ..key
            },
        );
        assert_eq!(d, Decision::Allow);
        let denied = approvals(r#"deny = ["web_fetch"]"#);
        assert_eq!(
            decide(&denied, "web_fetch", json!({}), key).0,
            Decision::Deny
        );
    }

    #[test]
    fn three_lines_hold_entry_by_entry() {
        // Never push to main, ask before writes, never ask for reads.
        let a = approvals(
            r#"mode = "ask"
               allow = ["mcp__*__read*", "mcp__*__list*"]
               rules = [{ tool = "mcp__git__git_push", when = { "/branch" = "^main$" }, decision = "deny", reason = "never push to main" }]"#,
        );
        let d = |tool: &str, args: Value| decide(&a, tool, args, NO_HINTS).0;
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
        let o = a.decide(
            &Subject::named("mcp__git__git_push"),
            &json!({"branch": "main"}),
        );
        assert_eq!(o.by.to_string(), "rule approvals.rules[0]");
        assert_eq!(o.reason.as_deref(), Some("never push to main"));
    }

    /// The one precedence (docs/configuration.md, "Which rule decides"),
    /// row by row: config, flags, annotations → decision and who made it.
    #[test]
    fn one_precedence_whatever_the_origin() {
        let etc = r#"rules = [{ tool = "write_file", when = { "/path" = "^/etc/" }, decision = "deny" }]"#;
        /// config, --approve, --yolo, tool, arguments, hints → decision, by
        type Row<'a> = (
            &'a str,
            &'a [&'a str],
            bool,
            &'a str,
            Value,
            Hints,
            Decision,
            &'a str,
        );
        #[rustfmt::skip]
        let rows: &[Row<'_>] = &[
            // config, --approve, --yolo, tool, arguments, hints → decision, by
            // A deny wins over --approve, however general the --approve.
            (r#"deny = ["mcp__h__delete_all"]"#, &["mcp__h__*"], false, "mcp__h__delete_all", json!({}), NO_HINTS, Decision::Deny, "rule approvals.deny[0]"),
            (etc, &["*"], false, "write_file", json!({"path": "/etc/passwd"}), NO_HINTS, Decision::Deny, "rule approvals.rules[0]"),
            (etc, &["*"], false, "write_file", json!({"path": "notes.md"}), NO_HINTS, Decision::Allow, "--approve"),
            // … and over --yolo.
            (r#"deny = ["mcp__h__*"]"#, &[], true, "mcp__h__delete_all", json!({}), DESTROY, Decision::Deny, "rule approvals.deny[0]"),
            // A general deny wins over a specific allow.
            ("deny = [\"mcp__git__*\"]\nallow = [\"mcp__git__git_status\"]", &[], false, "mcp__git__git_status", json!({}), READ, Decision::Deny, "rule approvals.deny[0]"),
            // --approve answers an ask rule and a destructive tool.
            (r#"ask = ["mcp__x__*"]"#, &["mcp__x__*"], false, "mcp__x__y", json!({}), DESTROY, Decision::Allow, "--approve"),
            // --yolo runs what is not denied.
            (r#"mode = "deny""#, &[], true, "mcp__f__write", json!({}), DESTROY, Decision::Allow, "--yolo"),
            // Between allow and ask, the most specific; a tie asks.
            ("allow = [\"mcp__x__*\"]\nask = [\"mcp__x__*\"]", &[], false, "mcp__x__y", json!({}), NO_HINTS, Decision::Ask, "rule approvals.ask[0]"),
            ("ask = [\"mcp__x__*\"]\nallow = [\"mcp__x__y\"]", &[], false, "mcp__x__y", json!({}), NO_HINTS, Decision::Allow, "rule approvals.allow[0]"),
            // A wildcard allow does not cover a destructive tool; its own name does.
            (r#"mode = "auto""#, &[], false, "mcp__f__delete", json!({}), DESTROY, Decision::Ask, "annotation destructiveHint"),
            ("mode = \"auto\"\nallow = [\"mcp__f__*\"]", &[], false, "mcp__f__delete", json!({}), DESTROY, Decision::Ask, "annotation destructiveHint"),
            ("mode = \"auto\"\nallow = [\"mcp__f__delete\"]", &[], false, "mcp__f__delete", json!({}), DESTROY, Decision::Allow, "rule approvals.allow[0]"),
            // Annotations, then the mode.
            (r#"mode = "ask""#, &[], false, "mcp__f__read", json!({}), READ, Decision::Allow, "annotation readOnlyHint"),
            (r#"mode = "auto""#, &[], false, "mcp__f__read", json!({}), NO_HINTS, Decision::Allow, "mode auto"),
            (r#"mode = "ask""#, &[], false, "mcp__f__x", json!({}), NO_HINTS, Decision::Ask, "mode ask"),
            (r#"mode = "deny""#, &[], false, "mcp__f__delete", json!({}), DESTROY, Decision::Deny, "mode deny"),
            // Always asked: no allow rule and no mode lets it run; a flag of this run does.
            ("mode = \"auto\"\nallow = [\"write_file\"]", &[], false, "write_file", json!({}), OUTSIDE, Decision::Ask, "a write outside the working folder"),
            (r#"mode = "auto""#, &["write_file"], false, "write_file", json!({}), OUTSIDE, Decision::Allow, "--approve"),
            (r#"mode = "auto""#, &[], true, "write_file", json!({}), OUTSIDE, Decision::Allow, "--yolo"),
            (r#"deny = ["write_file"]"#, &[], true, "write_file", json!({}), OUTSIDE, Decision::Deny, "rule approvals.deny[0]"),
        ];
        for (i, (config, approve, yolo, tool, args, hints, decision, by)) in rows.iter().enumerate()
        {
            let approve: Vec<String> = approve.iter().map(|s| s.to_string()).collect();
            let a = approvals(config).with_flags(&approve, *yolo);
            assert_eq!(
                decide(&a, tool, args.clone(), *hints),
                (*decision, by.to_string()),
                "row {i}: {config} --approve {approve:?} yolo={yolo} {tool} {args}"
            );
        }
    }

    #[test]
    fn a_rule_for_the_plain_name_holds_after_a_collision_renamed_the_tool() {
        let a = approvals(r#"deny = ["mcp__h__delete_all"]"#);
        // `delete-all` and `delete_all` both clean to mcp__h__delete_all.
        let renamed = |own: &str| Subject {
            name: "mcp__h__delete_all_1a2b3c4d".into(),
            own: Some(own.into()),
            plain: Some("mcp__h__delete_all".into()),
            hints: NO_HINTS,
        };
        for own in ["mcp__h__delete_all", "mcp__h__delete-all"] {
            assert_eq!(
                a.decide(&renamed(own), &json!({})).decision,
                Decision::Deny,
                "{own}"
            );
        }
        // An allow reaches only the tool it names.
        let a = approvals("mode = \"ask\"\nallow = [\"mcp__h__delete_all\"]");
        assert_eq!(
            a.decide(&renamed("mcp__h__delete-all"), &json!({}))
                .decision,
            Decision::Ask
        );
        assert_eq!(
            a.decide(&renamed("mcp__h__delete_all"), &json!({}))
                .decision,
            Decision::Allow
        );
    }
}
