//! Claude Code's `permissions` (`allow`, `ask`, `deny`) as hermes approval
//! rules with the same meaning: a settings file that denies
//! `Bash(git reset:*)` stops `git reset --hard` in hermes too, `--yolo` or
//! not (a deny rule wins over every flag). Each rule is named after where
//! it came from, so `hermes config show` and a refusal say so.
//!
//! | Claude Code | hermes |
//! |---|---|
//! | `Bash`, `Bash(*)` | `shell` |
//! | `Bash(git reset:*)`, `Bash(git reset *)` | `shell` whose command runs `git reset…` — for `deny` and `ask` anywhere in it (`git status && git reset --hard`), for `allow` only as the whole command, no operator after it |
//! | `Bash(npm test)` | `shell` with exactly that command (`deny`/`ask`: as one of its parts) |
//! | `Read(path)`, `Edit(path)`, `Write(path)` | `read_file`/`glob`/`grep`, `write_file`/`edit_file` on paths the gitignore-style pattern matches: `./x` and `x` from the project, `/x` from the settings file's folder's parent, `//x` absolute, `~/x` home |
//! | `WebFetch`, `WebFetch(domain:example.com)` | `web_fetch` (of that host) |
//! | `Glob`, `Grep`, `LS` | `glob`, `grep` |
//! | `mcp__server__tool`, `mcp__server` | that tool, that server's tools |
//!
//! Anything else (`Task`, `NotebookEdit`, `WebSearch`…) has no hermes tool:
//! [`notes`] says so, once, with the file and line.

use std::path::Path;

use serde_json::Value;

/// The permission lists, with the decision each gives.
const LISTS: [(&str, &str); 3] = [("deny", "deny"), ("ask", "ask"), ("allow", "allow")];

/// What a rule restricts a call to: its tools, and the argument (a JSON
/// pointer) and regex it must match.
struct Mapped {
    tools: &'static [&'static str],
    glob: Option<String>,
    when: Option<(&'static str, String)>,
}

/// Each permission of the file: its list, the decision it gives, and the
/// specifier, deny first.
fn each(top: &serde_json::Map<String, Value>) -> Vec<(&'static str, &'static str, &str)> {
    let Some(Value::Object(perms)) = top.get("permissions") else {
        return Vec::new();
    };
    LISTS
        .iter()
        .flat_map(|&(list, decision)| {
            perms
                .get(list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(move |spec| (list, decision, spec))
        })
        .collect()
}

/// The project a settings file belongs to: its folder's parent.
fn base_of(path: &Path) -> &Path {
    path.parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("/"))
}

/// The `approvals.rules` entries the file's permissions make, in list order
/// (deny first), each `{tool, decision, when?, reason}`; `label`: the file
/// as the reasons name it.
pub(crate) fn rules(
    path: &Path,
    label: &str,
    top: &serde_json::Map<String, Value>,
) -> Vec<toml::Value> {
    let mut out = Vec::new();
    for (list, decision, spec) in each(top) {
        let Some(m) = map(spec, decision, base_of(path)) else {
            continue;
        };
        let tools: Vec<String> = match &m.glob {
            Some(g) => vec![g.clone()],
            None => m.tools.iter().map(|t| t.to_string()).collect(),
        };
        for tool in tools {
            let mut rule = toml::Table::new();
            rule.insert("tool".into(), tool.into());
            rule.insert("decision".into(), decision.into());
            if let Some((pointer, regex)) = &m.when {
                let mut when = toml::Table::new();
                when.insert((*pointer).into(), regex.clone().into());
                rule.insert("when".into(), toml::Value::Table(when));
            }
            rule.insert(
                "reason".into(),
                format!("Claude Code's permissions.{list} `{spec}` in {label}").into(),
            );
            out.push(toml::Value::Table(rule));
        }
    }
    out
}

/// One line for each permission hermes has no tool for, naming the file
/// and line.
pub(crate) fn notes(path: &Path, text: &str, top: &serde_json::Map<String, Value>) -> Vec<String> {
    each(top)
        .into_iter()
        .filter(|(_, decision, spec)| map(spec, decision, base_of(path)).is_none())
        .map(|(list, _, spec)| {
            let line = text
                .find(&format!("\"{spec}\""))
                .map_or(1, |at| text[..at].matches('\n').count() + 1);
            format!(
                "{}:{line}: permissions.{list}: `{spec}` names no tool hermes has; it is skipped",
                path.display()
            )
        })
        .collect()
}

/// A hook's `"if"` (a permission rule: `Bash(git commit:*)`) as the
/// condition on a call's arguments it puts: `Some(None)` for none (a bare
/// tool name), `None` for a rule hermes cannot read. It matches as a deny
/// does: anywhere in a command line (`git add . && git commit`).
/// `path`: the settings file.
pub(crate) fn condition(spec: &str, path: &Path) -> Option<Option<(String, String)>> {
    let m = map(spec, "deny", base_of(path))?;
    Some(m.when.map(|(p, re)| (p.to_string(), re)))
}

/// `spec` as hermes tools and a condition, or `None` for a tool hermes
/// lacks or a specifier it cannot read.
fn map(spec: &str, decision: &str, base: &Path) -> Option<Mapped> {
    let spec = spec.trim();
    let (name, inner) = match spec.split_once('(') {
        Some((n, rest)) => (n, Some(rest.strip_suffix(')')?)),
        None => (spec, None),
    };
    let inner = inner.filter(|i| !i.is_empty() && *i != "*");
    let all = |tools: &'static [&'static str]| Mapped {
        tools,
        glob: None,
        when: None,
    };
    if let Some(server) = name.strip_prefix("mcp__") {
        let glob = if server.contains("__") {
            name.to_string()
        } else {
            format!("{name}__*")
        };
        return Some(Mapped {
            tools: &[],
            glob: Some(glob),
            when: None,
        });
    }
    const READ: &[&str] = &["read_file", "glob", "grep"];
    const WRITE: &[&str] = &["write_file", "edit_file"];
    match (name, inner) {
        ("Bash", None) => Some(all(&["shell"])),
        ("Bash", Some(cmd)) => Some(Mapped {
            tools: &["shell"],
            glob: None,
            when: Some(("/command", command_regex(cmd, decision == "allow"))),
        }),
        ("Read", None) => Some(all(READ)),
        ("Edit" | "Write" | "MultiEdit", None) => Some(all(WRITE)),
        ("Read", Some(p)) => Some(Mapped {
            tools: READ,
            glob: None,
            when: Some(("/path", path_regex(p, base))),
        }),
        ("Edit" | "Write" | "MultiEdit", Some(p)) => Some(Mapped {
            tools: WRITE,
            glob: None,
            when: Some(("/path", path_regex(p, base))),
        }),
        ("WebFetch", None) => Some(all(&["web_fetch"])),
        ("WebFetch", Some(d)) => {
            let host = d.strip_prefix("domain:")?.trim().to_ascii_lowercase();
            let host = regex::escape(&host);
            // An allow names that host; a deny or an ask its subdomains too.
            let sub = if decision == "allow" {
                ""
            } else {
                r"(?:[^/?#@]*\.)?"
            };
            Some(Mapped {
                tools: &["web_fetch"],
                glob: None,
                when: Some((
                    "/url",
                    format!(r"(?i)^https?://(?:[^/?#@]*@)?{sub}{host}\.?(?::\d+)?(?:[/?#]|$)"),
                )),
            })
        }
        ("Glob" | "LS", None) => Some(all(&["glob"])),
        ("Grep", None) => Some(all(&["grep"])),
        _ => None,
    }
}

/// Claude Code's command specifier as a regex over a `shell` command line:
/// `cmd:*` and `cmd *` a prefix, `*` anywhere a wildcard, else the exact
/// command. An allow must be the whole command line with no operator
/// (`;`, `&&`, `|`, `$(…)`…) after it — `npm test:*` never covers `npm test
/// && rm -rf x`; a deny or an ask matches it as any part of the line.
fn command_regex(spec: &str, allow: bool) -> String {
    let spec = spec.trim();
    let (body, prefix) = match spec.strip_suffix(":*") {
        Some(p) => (p.trim_end(), true),
        None => match spec.strip_suffix(" *") {
            Some(p) => (p.trim_end(), true),
            None => (spec, false),
        },
    };
    let words: String = body
        .split('*')
        .map(|part| {
            part.split_whitespace()
                .map(regex::escape)
                .collect::<Vec<_>>()
                .join(r"\s+")
        })
        .collect::<Vec<_>>()
        .join(".*");
    if allow {
        let rest = if prefix {
            r"(?:\s+[^;&|`$()<>\n]*)?"
        } else {
            ""
        };
        format!(r"^\s*{words}{rest}\s*$")
    } else {
        // At the start, or after an operator, a subshell's `(`, a
        // backtick, `$(`, or a wrapper word such as `sudo`/`env`/`exec`.
        let before = r"(?:^|[;&|\n(`]|\$\()\s*(?:(?:sudo|env|exec|nohup|time|command|builtin)\s+(?:-\S+\s+)*)*";
        let after = if prefix {
            r"(?:\s|$|[;&|)`])"
        } else {
            r"\s*(?:$|[;&|)\n`])"
        };
        format!("{before}{words}{after}")
    }
}

/// A gitignore-style path pattern as a regex over the resolved, absolute
/// path a built-in's rule sees.
fn path_regex(pattern: &str, base: &Path) -> String {
    let p = pattern.trim();
    let home = std::env::var("HOME").unwrap_or_default();
    let absolute = if let Some(rest) = p.strip_prefix("//") {
        format!("/{rest}")
    } else if let Some(rest) = p.strip_prefix("~/") {
        format!("{home}/{rest}")
    } else if let Some(rest) = p.strip_prefix('/') {
        format!("{}/{rest}", base.display())
    } else if let Some(rest) = p.strip_prefix("./") {
        format!("{}/{rest}", base.display())
    } else {
        // A bare name matches at any depth under the project, as in
        // .gitignore.
        format!("{}/**/{p}", base.display())
    };
    let mut re = String::from("^");
    let chars: Vec<char> = absolute.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                // `**/` is any folders, none included.
                if chars.get(i + 2) == Some(&'/') {
                    re.push_str("(?:.*/)?");
                    i += 3;
                } else {
                    re.push_str(".*");
                    i += 2;
                }
                continue;
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    // A folder covers what is under it.
    re.push_str("(?:/.*)?$");
    re
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(re: &str, s: &str) -> bool {
        regex::Regex::new(re).unwrap().is_match(s)
    }

    #[test]
    fn a_command_deny_catches_it_anywhere_and_an_allow_only_alone() {
        let deny = command_regex("git reset:*", false);
        for cmd in [
            "git reset --hard",
            "git reset",
            "git status && git reset --hard HEAD~1",
            "cd repo; git  reset --hard",
            "sudo git reset --hard",
            "echo $(git reset --hard)",
        ] {
            assert!(matches(&deny, cmd), "{cmd}");
        }
        for cmd in ["git status", "git resets", "echo git reset"] {
            assert!(!matches(&deny, cmd), "{cmd}");
        }
        let allow = command_regex("npm run test:*", true);
        assert!(matches(&allow, "npm run test"));
        assert!(matches(&allow, "npm run test -- --watch=false"));
        assert!(!matches(&allow, "npm run test && rm -rf src"));
        assert!(!matches(&allow, "npm run test; curl x | sh"));
        assert!(!matches(&allow, "npm run testing"));
        let exact = command_regex("npm test", true);
        assert!(matches(&exact, "npm test") && !matches(&exact, "npm test x"));
        let star = command_regex("git push * --force", false);
        assert!(matches(&star, "git push origin main --force"));
    }

    #[test]
    fn paths_read_as_claude_code_reads_them() {
        let base = Path::new("/proj");
        let env = path_regex("./.env", base);
        assert!(matches(&env, "/proj/.env") && !matches(&env, "/proj/src/.env"));
        let secrets = path_regex("./secrets/**", base);
        assert!(matches(&secrets, "/proj/secrets/a/b.key"));
        let any = path_regex(".env", base);
        assert!(matches(&any, "/proj/.env") && matches(&any, "/proj/app/.env"));
        let abs = path_regex("//etc/passwd", base);
        assert!(matches(&abs, "/etc/passwd"));
        let rel = path_regex("/docs/*.md", base);
        assert!(matches(&rel, "/proj/docs/a.md") && !matches(&rel, "/proj/docs/x/a.md"));
    }

    #[test]
    fn each_specifier_maps_to_tools_or_to_nothing() {
        let base = Path::new("/proj");
        assert_eq!(map("Bash", "deny", base).unwrap().tools, ["shell"]);
        assert_eq!(
            map("Read(./.env)", "deny", base).unwrap().tools,
            ["read_file", "glob", "grep"]
        );
        assert_eq!(
            map("mcp__github", "allow", base).unwrap().glob.as_deref(),
            Some("mcp__github__*")
        );
        let web = map("WebFetch(domain:docs.rs)", "allow", base).unwrap();
        let (_, re) = web.when.unwrap();
        assert!(
            matches(&re, "https://docs.rs/tokio") && !matches(&re, "https://docs.rs.evil.com/")
        );
        assert!(map("Task", "allow", base).is_none());
        assert!(map("NotebookEdit(x)", "deny", base).is_none());
    }
}
