//! Custom slash commands: Markdown files whose body is a prompt, from
//! where Claude Code and Codex keep them — a project's `.hermes/commands/`
//! and `.claude/commands/` (subfolders too), the user's hermes config
//! folder's `commands/`, `~/.claude/commands/` and `~/.codex/prompts/`. A
//! file's name is the command (`review.md` is `/review`); the nearer place
//! wins a name. The frontmatter may give `description`, `argument-hint`,
//! `model` and `allowed-tools`; the body takes `$ARGUMENTS` and `$1`…`$9`,
//! `` !`command` `` (run through the `shell` tool, so its approval and
//! sandbox hold) and `@file` (attached as a typed mention is).

use std::path::{Path, PathBuf};

use super::frontmatter;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Command {
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
    pub model: Option<String>,
    /// Shown, not applied: what runs without asking is hermes' approvals'
    /// to decide.
    pub allowed_tools: Option<String>,
    pub body: String,
    pub path: PathBuf,
    /// Where it comes from, for Tab and /help: `project .claude/commands`.
    pub origin: String,
}

/// The places commands are read from, nearest first, each with its label.
fn places(cwd: &Path, hermes_config: &Path) -> Vec<(PathBuf, String)> {
    let project = crate::config::project_dir(cwd);
    let mut out = vec![
        (
            project.join(".hermes/commands"),
            "project .hermes/commands".to_string(),
        ),
        (
            project.join(".claude/commands"),
            "project .claude/commands".to_string(),
        ),
        (
            hermes_config.join("commands"),
            "user hermes commands".to_string(),
        ),
    ];
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        out.push((
            home.join(".claude/commands"),
            "user ~/.claude/commands".into(),
        ));
        out.push((home.join(".codex/prompts"), "user ~/.codex/prompts".into()));
    }
    out
}

/// Every command, by name, the nearest place's first; names hermes' own
/// commands have are left out (they stay hermes').
pub(crate) fn discover(cwd: &Path, hermes_config: &Path, reserved: &[&str]) -> Vec<Command> {
    let mut out: Vec<Command> = Vec::new();
    for (dir, origin) in places(cwd, hermes_config) {
        let mut files = Vec::new();
        markdown_files(&dir, 0, &mut files);
        files.sort();
        for path in files {
            let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            let valid = name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if !valid || reserved.contains(&format!("/{name}").as_str()) {
                continue;
            }
            if out.iter().any(|c| c.name == name) {
                continue;
            }
            let Some(text) = read_small(&path) else {
                continue;
            };
            let doc = frontmatter::parse(&text);
            let first_line = doc
                .body
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .trim_start_matches('#')
                .trim();
            out.push(Command {
                name: name.to_string(),
                description: doc
                    .get("description")
                    .map(str::to_string)
                    .unwrap_or_else(|| crate::util::text::excerpt(first_line, 80)),
                argument_hint: doc.get("argument-hint").map(str::to_string),
                model: doc
                    .get("model")
                    .map(str::to_string)
                    .filter(|m| !m.is_empty()),
                allowed_tools: doc.get("allowed-tools").map(str::to_string),
                body: doc.body.clone(),
                path: path.clone(),
                origin: origin.clone(),
            });
        }
    }
    out
}

/// The `.md` files under `dir`, subfolders a few levels deep.
fn markdown_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() && depth < 3 {
            markdown_files(&p, depth + 1, out);
        } else if kind.is_file() && p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// A command or skill file, when it is small enough to be a prompt.
pub(crate) fn read_small(path: &Path) -> Option<String> {
    const MOST: u64 = 256 * 1024;
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MOST {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// A command's prompt for `args` (the rest of the line): `$ARGUMENTS` and
/// `$1`…`$9` filled; a body that takes neither gets the arguments after
/// it, as Claude Code does. `` !`…` `` and `@…` are left for the caller.
///
/// Codex's named placeholders (`$FILE`, `$TICKET_ID`: capitals, digits,
/// `_`) take `KEY=value` words (`/draftpr FILES=a.txt "TITLE=Fix it"`);
/// those words are not positional ones.
pub(crate) fn fill(body: &str, args: &str) -> String {
    let args = args.trim();
    let all = crate::config::referenced::shell_words(args);
    let (named, words): (Vec<String>, Vec<String>) =
        all.into_iter().partition(|w| named_pair(w).is_some());
    let mut named: Vec<(String, String)> = named
        .iter()
        .filter_map(|w| named_pair(w))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    // `$FILES` before `$FILE`.
    named.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
    let takes = body.contains("$ARGUMENTS")
        || (1..=9).any(|i| body.contains(&format!("${i}")))
        || named.iter().any(|(k, _)| placeholder_at(body, k).is_some());
    let mut out = body.to_string();
    for (k, v) in &named {
        // On past each value put in: a value may itself hold `$KEY`.
        let mut from = 0;
        while let Some(at) = placeholder_at(&out[from..], k).map(|i| from + i) {
            out.replace_range(at..at + k.len() + 1, v);
            from = at + v.len();
        }
    }
    let mut out = out.replace("$ARGUMENTS", args);
    for i in (1..=9).rev() {
        let v = words.get(i - 1).map(String::as_str).unwrap_or("");
        out = out.replace(&format!("${i}"), v);
    }
    if !takes && !args.is_empty() {
        out = format!("{}\n\nARGUMENTS: {args}", out.trim_end());
    }
    out.trim().to_string()
}

/// `KEY=value` with KEY a Codex placeholder name.
fn named_pair(word: &str) -> Option<(&str, &str)> {
    let (k, v) = word.split_once('=')?;
    let name = k.starts_with(|c: char| c.is_ascii_uppercase())
        && k.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    name.then_some((k, v))
}

/// Where `$KEY` stands in `text` as a whole name (not the start of a
/// longer one).
fn placeholder_at(text: &str, key: &str) -> Option<usize> {
    let needle = format!("${key}");
    let mut from = 0;
    while let Some(i) = text[from..].find(&needle) {
        let at = from + i;
        let next = text[at + needle.len()..].chars().next();
        if !next.is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') {
            return Some(at);
        }
        from = at + needle.len();
    }
    None
}

/// The `` !`command` `` spans of a prompt, in order: (the span, the command).
pub(crate) fn shell_spans(prompt: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = prompt;
    while let Some(at) = rest.find("!`") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('`') else { break };
        let cmd = &after[..end];
        if !cmd.trim().is_empty() && !cmd.contains('\n') {
            out.push((format!("!`{cmd}`"), cmd.to_string()));
        }
        rest = &after[end + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_fill_as_claude_code_fills_them() {
        assert_eq!(
            fill("Fix issue #$ARGUMENTS now", "123"),
            "Fix issue #123 now"
        );
        assert_eq!(
            fill("Review PR #$1 with priority $2", "456 high"),
            "Review PR #456 with priority high"
        );
        assert_eq!(
            fill("Review the diff.", "src/main.rs"),
            "Review the diff.\n\nARGUMENTS: src/main.rs"
        );
        assert_eq!(fill("Only $1", ""), "Only");
        // Codex's named placeholders, a longer name kept apart from a
        // shorter one; positional words are the rest.
        assert_eq!(
            fill(
                "Draft a PR for $FILES titled $TITLE ($FILE stays), then $1",
                "FILES=a.txt \"TITLE=Fix the parser\" push"
            ),
            "Draft a PR for a.txt titled Fix the parser ($FILE stays), then push"
        );
        assert_eq!(
            shell_spans("Status: !`git status --short`\nDiff: !`git diff HEAD`"),
            vec![
                (
                    "!`git status --short`".to_string(),
                    "git status --short".to_string()
                ),
                ("!`git diff HEAD`".to_string(), "git diff HEAD".to_string())
            ]
        );
    }
}
