//! Agent types: what a subagent is for, in Claude Code's format — a
//! Markdown file whose frontmatter gives `name`, `description`, `tools`
//! (comma-separated, Claude Code's names or hermes'; absent: every tool of
//! the parent) and `model` (`inherit` or absent: the parent's), and whose
//! body is the subagent's system prompt. Read from the project's
//! `.hermes/agents/` and `.claude/agents/`, then the user's
//! `~/.config/hermes/agents/` and `~/.claude/agents/` (the nearest first
//! for a name). A project's types come with the code it sits in, so they
//! are held until the folder is trusted (`hermes trust`, whose digest
//! covers them); the model is told which types exist, within a budget.

use std::path::{Path, PathBuf};

use crate::slash::frontmatter;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AgentType {
    pub name: String,
    pub description: String,
    /// The tools it may use, as hermes names them (`mcp__server__*` and
    /// `mcp__server` standing for a server's every tool); `None`: all of
    /// the parent's.
    pub tools: Option<Vec<String>>,
    /// Its model; `None`: the parent's.
    pub model: Option<String>,
    /// `isolation: worktree`: each subagent of the type works in a git
    /// worktree of its own (Claude Code's key).
    pub worktree: bool,
    /// Its system prompt.
    pub prompt: String,
    /// Where it comes from: `project .claude/agents`.
    pub origin: String,
    pub path: PathBuf,
}

/// The types a run can start, and what was not taken.
#[derive(Debug, Clone, Default)]
pub(crate) struct Types {
    pub types: Vec<AgentType>,
    /// Project types not used: the folder is not trusted (or they changed
    /// since it was).
    pub held: Vec<PathBuf>,
    /// What the person should know: names Claude Code has and hermes does
    /// not (`NotebookEdit`), a model alias that is Claude Code's.
    pub warnings: Vec<String>,
}

impl Types {
    pub(crate) fn get(&self, name: &str) -> Option<&AgentType> {
        self.types.iter().find(|t| t.name == name)
    }
}

/// Every type: the project's when `project_trusted`, and the user's.
pub(crate) fn discover(cwd: &Path, config_dir: &Path, project_trusted: bool) -> Types {
    let mut out = Types::default();
    let project = crate::config::project_agent_files(cwd);
    if !project_trusted {
        out.held = project.clone();
    }
    let mut places: Vec<(Vec<PathBuf>, bool)> = vec![(project, true)];
    places.push((
        crate::config::agent_type_files_in(&config_dir.join("agents")),
        false,
    ));
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        places.push((
            crate::config::agent_type_files_in(&home.join(".claude/agents")),
            false,
        ));
    }
    for (files, is_project) in places {
        if is_project && !project_trusted {
            continue;
        }
        for path in files {
            let origin = origin_of(&path, is_project);
            let Some(text) = crate::slash::commands::read_small(&path) else {
                continue;
            };
            match parse(&text, &path, &origin) {
                Ok((t, warnings)) => {
                    out.warnings.extend(warnings);
                    if !out.types.iter().any(|k| k.name == t.name) {
                        out.types.push(t);
                    }
                }
                Err(why) => out.warnings.push(why),
            }
        }
    }
    out
}

/// Where a type comes from, for a person: `project .claude/agents`,
/// `user ~/.claude/agents`.
fn origin_of(path: &Path, project: bool) -> String {
    let dir = path.parent().unwrap_or(path);
    let tail: Vec<String> = dir
        .components()
        .rev()
        .take(2)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let shown = format!("{}/{}", tail.get(1).map_or("", String::as_str), tail[0]);
    if project {
        format!("project {shown}")
    } else {
        format!("user ~/{shown}")
    }
}

/// One type's file; what it says that hermes cannot follow, as warnings.
fn parse(text: &str, path: &Path, origin: &str) -> Result<(AgentType, Vec<String>), String> {
    let doc = frontmatter::parse(text);
    let shown = path.display();
    let name = doc
        .get("name")
        .filter(|n| !n.trim().is_empty())
        .ok_or_else(|| format!("{shown}: an agent type needs a `name` in its frontmatter"))?;
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "{shown}: agent type name `{name}` may hold only letters, digits, `-` and `_`"
        ));
    }
    let description = doc
        .get("description")
        .filter(|d| !d.trim().is_empty())
        .ok_or_else(|| format!("{shown}: agent type `{name}` needs a `description`"))?;
    let mut warnings = Vec::new();
    // Absent, empty or `*`: every tool of the parent. A flow list
    // (`[Read, Grep]`) reads as the plain one.
    let list = doc.get("tools").map(|l| {
        l.trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string()
    });
    let list = list.filter(|l| !l.trim().is_empty() && l.trim() != "*");
    let tools = list.map(|list| {
        let mut mapped = Vec::new();
        for t in list
            .split(',')
            .map(|t| t.trim().trim_matches(['"', '\'']))
            .filter(|t| !t.is_empty())
        {
            match tool_name(t) {
                Some(n) => mapped.push(n),
                None => warnings.push(format!(
                    "{shown}: agent type `{name}` names `{t}`, which hermes has no tool for; it is left out"
                )),
            }
        }
        mapped
    });
    let model = match doc.get("model").map(str::trim) {
        None | Some("") | Some("inherit") => None,
        Some(a) if crate::config::claude::MODEL_ALIASES.contains(&a) => {
            warnings.push(format!(
                "{shown}: agent type `{name}` asks for `{a}`, Claude Code's alias; it uses the run's model"
            ));
            None
        }
        Some(m) => Some(m.to_string()),
    };
    let worktree = match doc.get("isolation").map(str::trim) {
        None | Some("") => false,
        Some("worktree") => true,
        Some(other) => {
            warnings.push(format!(
                "{shown}: agent type `{name}` asks for isolation `{other}`; hermes knows `worktree` only, and runs it in the parent's folder"
            ));
            false
        }
    };
    Ok((
        AgentType {
            name: name.to_string(),
            description: description.to_string(),
            tools,
            model,
            worktree,
            prompt: doc.body.trim().to_string(),
            origin: origin.to_string(),
            path: path.to_path_buf(),
        },
        warnings,
    ))
}

/// A name in a type's `tools` as hermes names the tool: Claude Code's
/// built-ins by their hermes names, MCP tools (and `mcp__server`, a
/// server's every tool) and hermes' own names as they are.
fn tool_name(t: &str) -> Option<String> {
    if let Some(h) = crate::policy::claude_tools::hermes_name(t) {
        return Some(h.to_string());
    }
    let ours = crate::config::defaults::BUILTIN_TOOLS;
    if ours.contains(&t)
        || t.contains('*')
        || t.starts_with("mcp__")
        || t.starts_with("connectors__")
    {
        return Some(t.to_string());
    }
    None
}

/// What the system prompt says of the types, within `budget` bytes: the
/// names and descriptions, and how many did not fit.
pub(crate) fn section(types: &[AgentType], budget: usize) -> String {
    if types.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "## Agent types\n\nThe `agent` tool starts a subagent; its `type` may name one of these:\n",
    );
    let mut left = 0;
    for t in types {
        let line = format!(
            "- {}: {}\n",
            t.name,
            crate::util::text::excerpt(&t.description.replace('\n', " "), 300)
        );
        if out.len() + line.len() > budget {
            left += 1;
            continue;
        }
        out.push_str(&line);
    }
    if left > 0 {
        out.push_str(&format!("- ({left} more not listed)\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As Claude Code's users write them: a reviewer limited to reading,
    /// and one that inherits everything.
    const REVIEWER: &str = "---\nname: code-reviewer\ndescription: Reviews a change for bugs and style. Use after writing code.\ntools: Read, Grep, Glob, Bash, WebFetch, NotebookEdit, mcp__github__get_pull_request\nmodel: sonnet\n---\n\nYou are a senior reviewer. Read the diff, then the files it touches.\n";

    #[test]
    fn claude_codes_format_is_read_and_its_names_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("code-reviewer.md");
        let (t, warnings) = parse(REVIEWER, &path, "project .claude/agents").unwrap();
        assert_eq!(t.name, "code-reviewer");
        assert_eq!(
            t.tools.as_deref().unwrap(),
            [
                "read_file",
                "grep",
                "glob",
                "shell",
                "web_fetch",
                "mcp__github__get_pull_request"
            ]
        );
        assert_eq!(t.model, None, "Claude Code's alias: the run's model");
        assert_eq!(
            t.prompt,
            "You are a senior reviewer. Read the diff, then the files it touches."
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("`NotebookEdit`"));
        let all = parse(
            "---\nname: helper\ndescription: Anything.\nmodel: gpt-5-mini\n---\nHelp.",
            &path,
            "x",
        )
        .unwrap()
        .0;
        assert_eq!(
            (all.tools, all.model.as_deref()),
            (None, Some("gpt-5-mini"))
        );
        assert!(parse("---\ndescription: d\n---\n", &path, "x")
            .unwrap_err()
            .contains("needs a `name`"));
        assert!(parse("---\nname: a b\ndescription: d\n---\n", &path, "x").is_err());
    }

    /// The other ways Claude Code's users write `tools`: a YAML list, a
    /// flow list, globs, `*`, and an empty key — never a type left with no
    /// tools by a list it could not read.
    #[test]
    fn every_way_of_writing_tools_is_read() {
        let path = Path::new("t.md");
        let tools = |list: &str| {
            let text = format!("---\nname: t\ndescription: d\ntools:{list}\n---\nDo it.\n");
            let (t, warnings) = parse(&text, path, "x").unwrap();
            assert!(warnings.is_empty(), "{list:?}: {warnings:?}");
            t.tools
        };
        let want = Some(vec![
            "read_file".to_string(),
            "agent".into(),
            "mcp__notes__read_*".into(),
        ]);
        assert_eq!(tools("\n  - Read\n  - Task\n  - mcp__notes__read_*"), want);
        assert_eq!(tools(" [Read, Task, \"mcp__notes__read_*\"]"), want);
        assert_eq!(tools(" Read, Task, mcp__notes__read_*"), want);
        assert_eq!(tools(" read_*"), Some(vec!["read_*".to_string()]));
        for every in ["", " ", " *", " \"*\""] {
            assert_eq!(tools(every), None, "{every:?}");
        }
    }

    #[test]
    fn project_types_wait_for_trust_and_the_nearest_wins() {
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir(project.path().join(".git")).unwrap();
        std::fs::create_dir_all(project.path().join(".claude/agents")).unwrap();
        std::fs::write(
            project.path().join(".claude/agents/code-reviewer.md"),
            REVIEWER,
        )
        .unwrap();
        let config = tempfile::tempdir().unwrap();
        std::fs::create_dir(config.path().join("agents")).unwrap();
        std::fs::write(
            config.path().join("agents/code-reviewer.md"),
            "---\nname: code-reviewer\ndescription: The user's own.\n---\nMine.",
        )
        .unwrap();
        let held = discover(project.path(), config.path(), false);
        assert_eq!(held.held.len(), 1);
        assert_eq!(
            held.get("code-reviewer").unwrap().description,
            "The user's own."
        );
        let trusted = discover(project.path(), config.path(), true);
        assert!(trusted.held.is_empty());
        assert_eq!(
            trusted.get("code-reviewer").unwrap().origin,
            "project .claude/agents"
        );
        let s = section(&trusted.types, 4096);
        assert!(s.contains("- code-reviewer: Reviews a change"), "{s}");
        assert!(section(&trusted.types, 80).contains("(1 more not listed)"));
    }
}
