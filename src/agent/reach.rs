//! What the system prompt of a new session tells the model it can reach:
//! each MCP server by name with a line of its own words, the names of its
//! tools when they sit behind `tool_search` (so the model knows `git_status`
//! exists before it searches), the servers' own `instructions`, and the
//! project's `AGENTS.md` files. Each part has a byte budget. Written once,
//! into the session's system message: a resumed session replays it as it
//! was, so the prompt cache holds.

use std::path::{Path, PathBuf};

use crate::util::inside::Refused;

use crate::config::PromptSettings;
use crate::mcp::About;

/// One configured server as the prompt describes it.
#[derive(Debug, Clone)]
pub(super) struct ServerReach {
    pub name: String,
    pub about: About,
    /// Its tools' names as the model calls them; `None`: no catalog yet.
    pub tools: Option<Vec<String>>,
}

/// The servers part: empty when no server is configured.
pub(super) fn servers_section(
    servers: &[ServerReach],
    deferred: bool,
    b: &PromptSettings,
) -> String {
    if servers.is_empty() {
        return String::new();
    }
    let mut out = String::from(if deferred {
        "MCP servers you can reach. Their tools are not in your tool list: find them with \
         tool_search (or tool_describe a name below), run them with tool_call, named \
         mcp__SERVER__TOOL.\n"
    } else {
        "MCP servers you can reach; their tools are in your tool list, named mcp__SERVER__TOOL.\n"
    });
    let share = b.tool_names_bytes / servers.len();
    for s in servers {
        out.push_str(&format!("- {}", s.name));
        if let Some(line) = one_line(&s.about) {
            out.push_str(&format!(": {line}"));
        }
        match &s.tools {
            None => out.push_str(" (not listed yet; tool_search finds its tools once it is)"),
            Some(tools) if deferred => out.push_str(&names(&s.name, tools, share)),
            Some(tools) => out.push_str(&format!(" ({} tools)", tools.len())),
        }
        out.push('\n');
    }
    let mut left = b.instructions_bytes;
    let mut said = String::new();
    for s in servers {
        let Some(text) = s.about.instructions.as_deref().map(str::trim) else {
            continue;
        };
        if text.is_empty() || left == 0 {
            continue;
        }
        let cap = b.server_instructions_bytes.min(left);
        if cap == 0 {
            continue;
        }
        let cut = cut_at(text, cap);
        left -= cut.len();
        said.push_str(&format!("\n[{}]\n{cut}", s.name));
        if cut.len() < text.len() {
            said.push_str(&format!(
                " [… {} more bytes of this server's instructions not shown]",
                text.len() - cut.len()
            ));
        }
        said.push('\n');
    }
    if !said.is_empty() {
        out.push_str("\nInstructions the servers give for their tools:\n");
        out.push_str(&said);
    }
    out
}

/// ` — 12 tools: a, b, c … (+4 more)`, within `budget` bytes.
fn names(server: &str, tools: &[String], budget: usize) -> String {
    let mut listed = Vec::new();
    let mut used = 0;
    for t in tools {
        let short = if crate::call::names::is_of_server(t, server) {
            crate::call::names::bare(t)
        } else {
            t
        };
        if used + short.len() + 2 > budget {
            break;
        }
        used += short.len() + 2;
        listed.push(short);
    }
    let more = tools.len() - listed.len();
    if listed.is_empty() {
        return format!(" — {} tools (tool_search finds them)", tools.len());
    }
    let mut s = format!(" — {} tools: {}", tools.len(), listed.join(", "));
    if more > 0 {
        s.push_str(&format!(" (+{more} more; tool_search finds them)"));
    }
    s
}

/// The server's own description or title, on one line, cut to 160 bytes.
fn one_line(about: &About) -> Option<String> {
    let text = about
        .description
        .as_deref()
        .or(about.title.as_deref())?
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty()).then(|| cut_at(&text, 160).to_string())
}

/// The first `max` bytes of `s`, backed off to a character boundary.
fn cut_at(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The folders whose `AGENTS.md` / `CLAUDE.md` count, outermost first:
/// from the repository's root (the nearest folder above `cwd` holding
/// `.git`; `cwd` itself outside a repository) down to `cwd`; and that root.
fn instruction_folders(cwd: &Path) -> (Vec<&Path>, &Path) {
    let mut chain: Vec<&Path> = cwd.ancestors().collect();
    let root = chain
        .iter()
        .position(|d| d.join(".git").exists())
        .unwrap_or(0);
    chain.truncate(root + 1);
    let top = chain[chain.len() - 1];
    chain.reverse();
    (chain, top)
}

/// The instructions file of `dir` — its `AGENTS.md`, else its `CLAUDE.md`
/// — resolved inside `root`, or why the one there is not read (a link out
/// of the repository).
fn instructions_file(dir: &Path, root: &Path) -> Option<Result<(PathBuf, PathBuf), Refused>> {
    ["AGENTS.md", "CLAUDE.md"].iter().find_map(|f| {
        let p = dir.join(f);
        std::fs::symlink_metadata(&p).ok()?;
        Some(crate::util::inside::resolve(root, &p).map(|real| (p, real)))
    })
}

/// What the person is told before a new session's first request about the
/// project's instructions: each AGENTS.md / CLAUDE.md not read because it
/// is a link out of the repository.
pub fn project_warnings(cwd: &Path) -> Vec<String> {
    let (chain, root) = instruction_folders(cwd);
    chain
        .iter()
        .filter_map(|d| match instructions_file(d, root)? {
            Err(e @ Refused::Outside { .. }) => Some(e.to_string()),
            _ => None,
        })
        .collect()
}

/// The project's instructions: `AGENTS.md` (or, where a folder has none,
/// `CLAUDE.md`) in each folder from the repository's root down to `cwd`,
/// outermost first, within `budget` bytes in all. A file that is a link
/// out of the repository is not read ([`project_warnings`] says so).
pub(super) fn project_section(cwd: &Path, budget: usize) -> String {
    let (chain, root) = instruction_folders(cwd);
    let mut left = budget;
    let mut parts = Vec::new();
    for dir in chain {
        let Some(Ok((file, real))) = instructions_file(dir, root) else {
            continue;
        };
        let Ok((bytes, _)) = crate::util::inside::read_head(&real, budget + 1) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim();
        if text.is_empty() || left == 0 {
            continue;
        }
        let cut = cut_at(text, left);
        left -= cut.len();
        let shown = file
            .strip_prefix(cwd)
            .unwrap_or(&file)
            .display()
            .to_string();
        let mut part = format!("[{shown}]\n{cut}");
        if cut.len() < text.len() {
            part.push_str(&format!(
                "\n[… cut: the project instructions are held to {budget} bytes]"
            ));
        }
        parts.push(part);
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "Project instructions (from the repository's AGENTS.md files, outermost first; follow \
         them):\n\n{}\n",
        parts.join("\n\n")
    )
}

/// The most of the system prompt the skills' catalog takes.
const SKILLS_BYTES: usize = 4096;
/// The most of it the agent types' list takes.
const AGENT_TYPES_BYTES: usize = 2048;

/// What a new session's system prompt tells the model it can reach: the
/// configured servers (with their tools' names when those are deferred and
/// the servers' instructions) and the project's AGENTS.md files.
pub(crate) fn reach_prompt(
    tools: &crate::tools::Registry,
    cwd: &std::path::Path,
    budgets: &crate::config::PromptSettings,
    agent_types: Option<&super::subagents::Types>,
) -> String {
    let servers: Vec<ServerReach> = tools
        .mcp_registry()
        .map(|m| m.described())
        .unwrap_or_default()
        .into_iter()
        .map(|(name, about, tools)| ServerReach { name, about, tools })
        .collect();
    // Skills are read with read_file: without it there is nothing to say.
    let skills = if tools.has_builtin("read_file") {
        crate::slash::skills::section(&crate::slash::skills::discover(cwd), SKILLS_BYTES)
    } else {
        String::new()
    };
    // The types the `agent` tool may name, when it is offered.
    let agents = match agent_types {
        Some(t) if tools.offers_subagents() => {
            super::subagents::types::section(&t.types, AGENT_TYPES_BYTES)
        }
        _ => String::new(),
    };
    let parts = [
        servers_section(&servers, tools.would_defer(), budgets),
        project_section(cwd, budgets.project_instructions_bytes),
        skills,
        agents,
    ];
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| p.trim_end())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budgets() -> PromptSettings {
        PromptSettings::default()
    }

    #[test]
    fn an_agents_md_that_links_out_of_the_repository_is_not_read_and_said_so() {
        let repo = tempfile::tempdir().unwrap();
        let secret = tempfile::tempdir().unwrap();
        std::fs::write(secret.path().join("id_rsa"), "-----BEGIN PRIVATE KEY-----").unwrap();
        std::fs::create_dir(repo.path().join(".git")).unwrap();
        std::os::unix::fs::symlink(secret.path().join("id_rsa"), repo.path().join("AGENTS.md"))
            .unwrap();
        std::fs::create_dir(repo.path().join("docs")).unwrap();
        std::fs::write(repo.path().join("docs/agents.md"), "Use tabs.").unwrap();
        std::os::unix::fs::symlink("../docs/agents.md", repo.path().join("docs/CLAUDE.md"))
            .unwrap();
        let s = project_section(&repo.path().join("docs"), 16_384);
        assert!(!s.contains("PRIVATE KEY"), "{s}");
        assert!(
            s.contains("[CLAUDE.md]\nUse tabs."),
            "a link inside is read: {s}"
        );
        let w = project_warnings(&repo.path().join("docs"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("AGENTS.md is a link out of"), "{w:?}");
    }

    #[test]
    fn project_instructions_come_from_the_root_down_with_claude_md_where_no_agents_md() {
        let repo = tempfile::tempdir().unwrap();
        let cwd = repo.path().join("crates/core");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir(repo.path().join(".git")).unwrap();
        std::fs::write(
            repo.path().join("AGENTS.md"),
            "Run ./scripts/test before a commit.",
        )
        .unwrap();
        std::fs::write(
            repo.path().join("CLAUDE.md"),
            "not read: AGENTS.md is there",
        )
        .unwrap();
        std::fs::write(
            repo.path().join("crates/CLAUDE.md"),
            "Crates use thiserror.",
        )
        .unwrap();
        std::fs::write(cwd.join("AGENTS.md"), "core: no unsafe.").unwrap();
        let s = project_section(&cwd, 16_384);
        let at = |needle: &str| s.find(needle).unwrap_or_else(|| panic!("{needle} in {s}"));
        assert!(
            at("Run ./scripts/test") < at("Crates use thiserror")
                && at("Crates use") < at("no unsafe")
        );
        assert!(!s.contains("not read"));
        let small = project_section(&cwd, 20);
        assert!(
            small.contains("[… cut: the project instructions are held to 20 bytes]"),
            "{small}"
        );
        assert!(!small.contains("no unsafe"));
        assert_eq!(
            project_section(&std::env::temp_dir().join("no-such"), 100),
            ""
        );
    }

    /// The real catalogs of tests/fixtures/catalogs, as servers named after
    /// their files, in name order.
    fn fixtures(only: &[&str]) -> Vec<ServerReach> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogs");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        files
            .into_iter()
            .filter_map(|p| {
                let name = p.file_stem()?.to_string_lossy().into_owned();
                if !only.is_empty() && !only.contains(&name.as_str()) {
                    return None;
                }
                let v: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&p).ok()?).ok()?;
                let tools = v["tools"]
                    .as_array()?
                    .iter()
                    .filter_map(|t| Some(format!("mcp__{name}__{}", t["name"].as_str()?)))
                    .collect();
                Some(ServerReach {
                    about: About {
                        title: v["package"].as_str().map(str::to_string),
                        ..About::default()
                    },
                    name,
                    tools: Some(tools),
                })
            })
            .collect()
    }

    #[test]
    fn twenty_four_servers_and_their_995_tools_keep_to_the_names_budget() {
        let servers = fixtures(&[]);
        let tools: usize = servers
            .iter()
            .map(|s| s.tools.as_ref().map_or(0, Vec::len))
            .sum();
        assert_eq!((servers.len(), tools), (24, 995));
        let b = budgets();
        let s = servers_section(&servers, true, &b);
        // Each server's line frame (name, title, count) is outside the
        // names budget; the names themselves stay within it.
        let frames: usize = servers
            .iter()
            .map(|r| r.name.len() + r.about.title.as_ref().map_or(0, String::len) + 80)
            .sum();
        assert!(
            s.len() <= b.tool_names_bytes + frames + 300,
            "{} bytes:\n{s}",
            s.len()
        );
        for r in &servers {
            assert!(
                s.contains(&format!("\n- {}: ", r.name)),
                "{} missing",
                r.name
            );
        }
    }

    #[test]
    fn the_servers_part_for_four_real_catalogs() {
        let mut servers = fixtures(&["everything", "filesystem", "git", "time"]);
        servers[0].about.instructions = Some("Call get_sum for arithmetic.".into());
        insta::assert_snapshot!(servers_section(&servers, true, &budgets()));
        insta::assert_snapshot!("listed", servers_section(&servers, false, &budgets()));
    }

    #[test]
    fn tool_names_and_instructions_keep_to_their_budgets() {
        let servers: Vec<ServerReach> = (0..4)
            .map(|i| ServerReach {
                name: format!("s{i}"),
                about: About {
                    title: Some(format!("Server {i}")),
                    description: None,
                    instructions: Some("Use the tools with care. ".repeat(200)),
                },
                tools: Some((0..100).map(|t| format!("mcp__s{i}__tool_{t}")).collect()),
            })
            .collect();
        let b = PromptSettings {
            tool_names_bytes: 400,
            server_instructions_bytes: 300,
            instructions_bytes: 700,
            ..budgets()
        };
        let s = servers_section(&servers, true, &b);
        assert!(
            s.contains("- s0: Server 0 — 100 tools: tool_0, tool_1,"),
            "{s}"
        );
        assert!(s.contains("more; tool_search finds them)"));
        assert!(
            !s.contains("mcp__s0__tool_0"),
            "names shown without their prefix"
        );
        // 300 + 300 + 100 bytes of instructions, then none.
        assert!(
            s.contains("[s0]") && s.contains("[s2]") && !s.contains("[s3]"),
            "{s}"
        );
        assert!(s.len() < 400 + 700 + 1_200, "{} bytes", s.len());
        let none = PromptSettings {
            tool_names_bytes: 0,
            server_instructions_bytes: 0,
            ..budgets()
        };
        let bare = servers_section(&servers, true, &none);
        assert!(
            bare.contains("- s0: Server 0 — 100 tools (tool_search finds them)\n"),
            "{bare}"
        );
        assert!(!bare.contains("Instructions the servers give"), "{bare}");
        let listed = servers_section(&servers, false, &b);
        assert!(listed.contains("- s1: Server 1 (100 tools)"));
        assert_eq!(servers_section(&[], true, &b), "");
    }
}
