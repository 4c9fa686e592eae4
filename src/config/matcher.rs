//! Which tools a hook runs for, as written. hermes' own `match` is a glob
//! (`write_*`); Claude Code's `matcher` is read as Claude Code reads it:
//! empty or `*` is every tool, a word or words joined by `|` (`Bash`,
//! `Edit|Write`) are exact names, anything else is a regular expression
//! searched in the name (`mcp__memory__.*`, `Notebook.*`). The matching
//! itself, which also knows a built-in by its Claude Code name, is the
//! policy's.

#[derive(Debug, Clone)]
pub enum HookMatcher {
    /// hermes' `match`: a glob over the name.
    Glob(String),
    /// Claude Code's `matcher`: every tool.
    Every,
    /// Exact names.
    Names(Vec<String>),
    Regex(regex::Regex),
}

impl PartialEq for HookMatcher {
    fn eq(&self, other: &Self) -> bool {
        self.describe() == other.describe()
    }
}

impl HookMatcher {
    /// Claude Code's reading of `matcher`; `Err` says what does not
    /// compile.
    pub fn claude(matcher: &str) -> Result<HookMatcher, String> {
        let m = matcher.trim();
        if m.is_empty() || m == "*" {
            return Ok(HookMatcher::Every);
        }
        if m.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
        {
            return Ok(HookMatcher::Names(
                m.split('|')
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect(),
            ));
        }
        regex::Regex::new(m).map(HookMatcher::Regex).map_err(|e| {
            let e = e.to_string();
            format!(
                "`{m}` is not a regular expression ({})",
                e.lines().last().unwrap_or(&e).trim()
            )
        })
    }

    /// Whether it names `name` itself.
    pub fn is_match(&self, name: &str) -> bool {
        match self {
            HookMatcher::Glob(g) => crate::util::glob::glob_match(g, name),
            HookMatcher::Every => true,
            HookMatcher::Names(names) => names.iter().any(|x| x == name),
            HookMatcher::Regex(r) => r.is_match(name),
        }
    }

    /// How it reads, for `hermes hooks test`.
    pub fn describe(&self) -> String {
        match self {
            HookMatcher::Glob(g) => format!("match = \"{g}\" (a glob)"),
            HookMatcher::Every => "every tool".into(),
            HookMatcher::Names(n) => format!("matcher \"{}\" (exact names)", n.join("|")),
            HookMatcher::Regex(r) => {
                format!("matcher \"{}\" (a regular expression)", r.as_str())
            }
        }
    }
}
