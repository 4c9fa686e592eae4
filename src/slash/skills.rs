//! Agent Skills (the open format Claude Code and Codex read): a folder
//! holding `SKILL.md`, whose frontmatter gives `name` and `description`
//! and whose body says how to do something, with files beside it. Read
//! from a project's `.claude/skills/`, `.codex/skills/` and
//! `.agents/skills/`, and the user's `~/.claude/skills/` and
//! `~/.codex/skills/`. The model is told each skill's name, description
//! and path within a budget, and reads the body (and the files beside it)
//! with `read_file` when a skill applies; the person loads one with
//! `/NAME`.

use std::path::{Path, PathBuf};

use super::frontmatter;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Skill {
    pub name: String,
    pub description: String,
    /// Its `SKILL.md`.
    pub path: PathBuf,
    pub body: String,
    /// Where it comes from: `project .claude/skills`.
    pub origin: String,
}

fn places(cwd: &Path) -> Vec<(PathBuf, String)> {
    let project = crate::config::project_dir(cwd);
    let mut out: Vec<(PathBuf, String)> = [".claude/skills", ".codex/skills", ".agents/skills"]
        .iter()
        .map(|d| (project.join(d), format!("project {d}")))
        .collect();
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        for d in [".claude/skills", ".codex/skills"] {
            out.push((home.join(d), format!("user ~/{d}")));
        }
    }
    out
}

/// Every skill, the nearest place's first for a name. A `SKILL.md` without
/// a name and a description is not a skill (the specification requires
/// both).
pub(crate) fn discover(cwd: &Path) -> Vec<Skill> {
    let mut out: Vec<Skill> = Vec::new();
    for (dir, origin) in places(cwd) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut folders: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        folders.sort();
        for folder in folders {
            let path = folder.join("SKILL.md");
            let Some(text) = super::commands::read_small(&path) else {
                continue;
            };
            let doc = frontmatter::parse(&text);
            let (Some(name), Some(description)) = (doc.get("name"), doc.get("description")) else {
                continue;
            };
            if name.is_empty() || description.is_empty() || out.iter().any(|s| s.name == name) {
                continue;
            }
            out.push(Skill {
                name: name.to_string(),
                description: description.to_string(),
                path,
                body: doc.body.clone(),
                origin: origin.clone(),
            });
        }
    }
    out
}

/// The catalog of skills for the system prompt, held to `budget` bytes.
/// Every skill is named — a model must never be left unaware of one —
/// and as many as fit are described: the rest are listed by name under
/// their folder, where `NAME/SKILL.md` reads one. Only a list of names
/// too long for the budget itself is cut, saying how many and how to
/// find them.
pub(crate) fn section(skills: &[Skill], budget: usize) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "Skills: instructions for particular tasks, each a SKILL.md. When one applies, read its \
         SKILL.md with read_file and follow it; files it names are beside it.\n",
    );
    let line = |s: &Skill| {
        format!(
            "- {}: {} ({})\n",
            s.name,
            crate::util::text::excerpt(&s.description, 300),
            s.path.display()
        )
    };
    // Described in order while what is left can still be named.
    let mut described = 0;
    while let Some(next) = skills.get(described) {
        let with = out.len() + line(next).len() + named(&skills[described + 1..]).len();
        if with > budget {
            break;
        }
        out.push_str(&line(next));
        described += 1;
    }
    let rest = &skills[described..];
    let names = named(rest);
    if out.len() + names.len() <= budget {
        out.push_str(&names);
    } else if !rest.is_empty() {
        out.push_str(&format!(
            "[{} more skills not listed: over the budget; glob **/SKILL.md finds them]\n",
            rest.len()
        ));
    }
    out
}

/// Skills by name only, under the folder each is in: `In DIR (read
/// NAME/SKILL.md): a, b` — empty for none.
fn named(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut folders: Vec<(std::path::PathBuf, Vec<&str>)> = Vec::new();
    for s in skills {
        let folder = s
            .path
            .parent()
            .and_then(std::path::Path::parent)
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        match folders.iter_mut().find(|(f, _)| *f == folder) {
            Some((_, names)) => names.push(&s.name),
            None => folders.push((folder, vec![&s.name])),
        }
    }
    let mut out = String::from("More skills, by name:\n");
    for (folder, names) in folders {
        out.push_str(&format!(
            "- in {} (read NAME/SKILL.md): {}\n",
            folder.display(),
            names.join(", ")
        ));
    }
    out
}

/// What `/NAME ARGS` sends: the skill's body, with where it lives (its
/// files are beside it) and the person's words.
pub(crate) fn prompt(skill: &Skill, args: &str) -> String {
    let mut out = format!(
        "Use the skill `{}` ({}; files it names are beside it):\n\n{}",
        skill.name,
        skill.path.display(),
        skill.body.trim()
    );
    if !args.trim().is_empty() {
        out.push_str(&format!("\n\n{}", args.trim()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_keeps_to_its_budget() {
        let skill = |n: &str| Skill {
            name: n.into(),
            description: "Turn a list of changes into release notes.".into(),
            path: PathBuf::from(format!("/p/.claude/skills/{n}/SKILL.md")),
            body: "1. Read references/style.md".into(),
            origin: "project .claude/skills".into(),
        };
        let all: Vec<Skill> = (0..50).map(|i| skill(&format!("notes-{i}"))).collect();
        let s = section(&all, 1000);
        assert!(s.len() <= 1000, "{}", s.len());
        assert!(s.contains("- notes-0: Turn a list"));
        // Past the described ones, every other skill is named where it is.
        assert!(
            s.contains("- in /p/.claude/skills (read NAME/SKILL.md): "),
            "{s}"
        );
        for i in 0..50 {
            assert!(
                s.contains(&format!("notes-{i}")),
                "notes-{i} is not named: {s}"
            );
        }
        // Too many even to name: cut, saying how to find them.
        let s = section(&all, 400);
        assert!(s.len() <= 400 + 100, "{}", s.len());
        assert!(s.contains("more skills not listed"), "{s}");
        assert!(s.contains("**/SKILL.md"), "{s}");
        assert!(prompt(&all[0], "for v2").ends_with("for v2"));
    }
}
