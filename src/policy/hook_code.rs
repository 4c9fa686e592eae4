//! Whether a hook runs the project's code — code a sandboxed command could
//! have rewritten — and so must run in the sandbox too: a program or
//! script inside a writable folder (found by path or through a PATH entry
//! there), a module run with `python -m`, or a tool that runs what the
//! project says (`make` its Makefile, `npm` its package.json, `npx` its
//! node_modules, `cargo` its build scripts). Read from the command's
//! words as `sh` would split them; what the words cannot show (a script
//! that runs another found elsewhere) the docs say.

use std::path::{Path, PathBuf};

use crate::config::referenced::{claude_project_dir, run_by, shell_words};

/// Tools that run what the project's files say.
const PROJECT_RUNNERS: &[&str] = &[
    "make", "gmake", "just", "npm", "npx", "yarn", "pnpm", "pnpx", "bun", "bunx", "cargo",
    "poetry", "pipenv", "uv", "uvx", "tox", "nox", "rake", "bundle", "mvn", "gradle",
];

/// Words before the program that do not change it.
const WRAPPERS: &[&str] = &["env", "exec", "command", "nice", "nohup", "time"];

/// The segments of a command line: split at `;`, `&`, `|` and newlines
/// outside quotes.
fn segments(command: &str) -> Vec<String> {
    let (mut out, mut cur) = (Vec::new(), String::new());
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.push(c);
            }
            (_, '\\') => {
                cur.push(c);
                cur.extend(chars.next());
            }
            (None, ';' | '&' | '|' | '\n') => out.push(std::mem::take(&mut cur)),
            (_, c) => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// `program` as the shell would find it from `dir`, real path.
fn resolve(program: &str, dir: &Path) -> Option<PathBuf> {
    if program.contains('/') {
        return std::fs::canonicalize(dir.join(crate::util::path::expand_home(program))).ok();
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| if d.is_absolute() { d } else { dir.join(d) })
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// Why `command`, run in `cwd`, runs the project's code, if it does;
/// `roots`: the writable folders (real paths).
pub(crate) fn why(command: &str, cwd: &Path, project: &Path, roots: &[PathBuf]) -> Option<String> {
    let inside = |p: &Path| roots.iter().any(|r| p.starts_with(r));
    for segment in segments(command) {
        let words: Vec<String> = shell_words(&segment)
            .into_iter()
            .map(|w| claude_project_dir(&w, project))
            .collect();
        let start = words
            .iter()
            .position(|w| {
                let assignment = w.split_once('=').is_some_and(|(k, _)| {
                    !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
                !assignment && !WRAPPERS.contains(&w.as_str())
            })
            .unwrap_or(words.len());
        let words = &words[start..];
        let Some(program) = words.first() else {
            continue;
        };
        let name = Path::new(program)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        if PROJECT_RUNNERS.contains(&name) {
            return Some(format!("`{name}` runs what the project's files say"));
        }
        if name.starts_with("python") && words.iter().any(|w| w == "-m") {
            return Some("`python -m` runs a module found from the folder".into());
        }
        // Inline code resolves its packages from the folder's node_modules.
        let inline = ["-e", "--eval", "-p", "--print"];
        if ["node", "nodejs", "deno", "bun"].contains(&name)
            && words.iter().any(|w| inline.contains(&w.as_str()))
        {
            return Some(format!(
                "`{name}` with inline code loads packages from the folder"
            ));
        }
        if let Some(p) = resolve(program, cwd).filter(|p| inside(p)) {
            return Some(format!(
                "its program {} is in a writable folder",
                p.display()
            ));
        }
        let scripts = run_by(words, cwd);
        if let Some(p) = scripts
            .iter()
            .map(|s| std::fs::canonicalize(s).unwrap_or_else(|_| s.clone()))
            .find(|p| inside(p))
        {
            return Some(format!(
                "its script {} is in a writable folder",
                p.display()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_that_run_the_projects_code_are_told_from_those_that_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/check.py"), "print(1)\n").unwrap();
        std::fs::create_dir_all(root.join(".venv/bin")).unwrap();
        std::fs::write(root.join(".venv/bin/tool"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(
            root.join(".venv/bin/tool"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let roots = vec![root.clone()];
        let w = |c: &str| why(c, &root, &root, &roots);
        assert!(w("make -s lint").is_some());
        assert!(w("cd sub && npm run -s lint").is_some());
        assert!(w("npx --no-install prettier --write .").is_some());
        assert!(w("FOO=1 python3 -m scripts.check").is_some());
        assert!(w("python3 scripts/check.py").is_some());
        assert!(w("\"$CLAUDE_PROJECT_DIR\"/scripts/check.py").is_some());
        assert!(w("./.venv/bin/tool --fix").is_some());
        assert!(w("node -e \"require('lodash')\"").is_some());
        assert!(w("node /opt/hooks/guard.js").is_none());
        assert!(w("jq -r .tool_name >> /tmp/log").is_none());
        assert!(w("echo '{\"decision\": \"approve\"}'").is_none());
        assert!(w("touch marker; true").is_none());
    }
}
