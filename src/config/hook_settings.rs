//! The hooks a run has, from the merged `[hooks]` lists: each with its
//! matcher read (a glob, or Claude Code's names or regular expression), so
//! a matcher that does not compile is an error before anything runs.

use std::time::Duration;

use super::defaults::{self, ms};
use super::{ConfigError, HookEntry, HookEvent};

#[derive(Debug, Clone, PartialEq)]
pub struct HookSettings {
    pub name: Option<String>,
    pub matcher: super::HookMatcher,
    pub command: String,
    pub timeout: Duration,
    /// `Some(false)`: never sandboxed; else sandboxed when it runs the
    /// project's code.
    pub sandbox: Option<bool>,
    /// The conditions on the call's arguments (pointer, regex), each
    /// checked to compile.
    pub when: Vec<(String, String)>,
    /// Runs beside the call, never holding it.
    pub background: bool,
}

impl HookSettings {
    /// `at`: where it stands (`hooks.pre_tool_call[0]`), for an error
    /// about a hook without a name.
    fn from_entry(e: &HookEntry, at: &str) -> Result<HookSettings, ConfigError> {
        let what = || match &e.name {
            Some(n) => format!("hook `{n}`"),
            None => at.to_string(),
        };
        let matcher = match (&e.matcher, &e.claude_matcher) {
            (Some(_), Some(_)) => {
                return Err(ConfigError::BadValue {
                    what: what(),
                    expected: "`match` (a glob) or `matcher` (Claude Code's), not both",
                    got: "both".into(),
                })
            }
            (_, Some(m)) => super::HookMatcher::claude(m).map_err(|got| ConfigError::BadValue {
                what: format!("{}'s matcher", what()),
                expected: "tool names joined by | or a regular expression",
                got,
            })?,
            (g, None) => {
                super::HookMatcher::Glob(g.clone().unwrap_or_else(|| defaults::HOOK_MATCH.into()))
            }
        };
        for (pointer, re) in &e.when {
            if let Err(err) = regex::Regex::new(re) {
                return Err(ConfigError::BadValue {
                    what: format!("{}'s when.\"{pointer}\"", what()),
                    expected: "a regular expression",
                    got: crate::util::text::excerpt(&err.to_string(), 200),
                });
            }
        }
        Ok(HookSettings {
            name: e.name.clone(),
            matcher,
            command: e.command.clone(),
            timeout: ms(e.timeout_ms.map_or(defaults::HOOK_TIMEOUT_MS, |n| n.get())),
            sandbox: e.sandbox,
            when: e.when.clone().into_iter().collect(),
            background: e.background.unwrap_or(false),
        })
    }
}

/// The hooks of every event, in config order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HooksSettings {
    lists: [Vec<HookSettings>; super::hook_event::EVENT_COUNT],
}

impl HooksSettings {
    pub fn of(&self, event: HookEvent) -> &[HookSettings] {
        &self.lists[event.index()]
    }

    pub(super) fn from_section(
        h: &super::HooksSection,
    ) -> Result<(HooksSettings, Vec<String>), ConfigError> {
        // A hook from Claude Code's settings whose matcher hermes cannot
        // read is skipped and named — the file is Claude Code's and never
        // stops hermes; one of hermes' own config is an error.
        let mut skipped = Vec::new();
        let mut settings = HooksSettings::default();
        for (event, l) in h.lists() {
            let key = event.key();
            for (i, e) in l.iter().enumerate() {
                match HookSettings::from_entry(e, &format!("hooks.{key}[{i}]")) {
                    Ok(h) => settings.lists[event.index()].push(h),
                    Err(err) if e.name.as_deref().is_some_and(from_claude_code) => {
                        skipped.push(format!("{err}; the hook is skipped"));
                    }
                    Err(err) => return Err(err),
                }
            }
        }
        Ok((settings, skipped))
    }
}

/// Whether a hook's name says it came from a Claude Code settings file
/// (`.claude/settings.json#PreToolUse[0].hooks[0]`).
fn from_claude_code(name: &str) -> bool {
    name.split_once('#')
        .is_some_and(|(file, _)| super::claude::is_settings(std::path::Path::new(file)))
}
