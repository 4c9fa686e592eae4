//! Whether a hook's matcher names a tool: by any of the tool's names, and
//! a built-in by its Claude Code name as well (`Bash` and `shell`), so
//! hooks written for Claude Code and for hermes both find it.

use super::claude_tools::{also_called, claude_name};
use super::Subject;
use crate::config::HookMatcher;

fn names(m: &HookMatcher, name: &str) -> bool {
    m.is_match(name)
        || (claude_name(name) != name && m.is_match(claude_name(name)))
        || also_called(name).iter().any(|n| m.is_match(n))
}

/// Whether `m` names the tool: by its model-facing or own name, or —
/// `restricts` — by the plain name a collision took away (see
/// [`Subject::matches`]).
pub(crate) fn matches(m: &HookMatcher, tool: &Subject, restricts: bool) -> bool {
    names(m, &tool.name)
        || tool.own.as_deref().is_some_and(|n| names(m, n))
        || (restricts && tool.plain.as_deref().is_some_and(|n| names(m, n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(m: &str, tool: &str) -> bool {
        matches(
            &HookMatcher::claude(m).unwrap(),
            &Subject::named(tool),
            true,
        )
    }

    #[test]
    fn matchers_read_as_claude_code_reads_them() {
        assert!(hits("Bash", "shell"));
        assert!(!hits("Bash", "write_file"));
        assert!(hits("Edit|Write", "write_file"));
        assert!(hits("Edit|Write", "edit_file"));
        assert!(!hits("Edit|Write", "read_file"));
        // Exact names: `Read` is no prefix of another name.
        assert!(!hits("Read", "read_file_extra"));
        assert!(hits("mcp__memory__.*", "mcp__memory__create_entities"));
        assert!(!hits("mcp__memory__.*", "mcp__files__read"));
        assert!(hits("", "anything"));
        assert!(hits("*", "anything"));
        assert!(hits("shell", "shell"));
        // The subagent tool by both of Claude Code's names.
        assert!(hits("Task", "agent"));
        assert!(hits("Agent", "agent"));
        assert!(!hits("Agent", "shell"));
        assert!(HookMatcher::claude("mcp__(a").is_err());
        let glob = HookMatcher::Glob("Wr*".into());
        assert!(matches(&glob, &Subject::named("write_file"), true));
    }
}
