//! The files a config makes hermes run: the scripts of its hooks
//! (`./scripts/guard.sh`, `python3 scripts/check.py`) and of its local
//! servers (`node ./build/index.js`). Trust covers them — a changed hook
//! script asks again, as a changed config does — and the shell's sandbox
//! keeps them read-only, so a command cannot rewrite what will later run
//! outside it.

use std::path::{Path, PathBuf};

use super::ConfigFile;

/// The words of a shell command as `sh` would split a simple one: quotes
/// and backslashes honoured, nothing expanded.
pub(crate) fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>') => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// Programs that run the file named by their first argument.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "node", "nodejs", "deno",
    "bun", "tsx", "ts-node", "ruby", "perl", "php", "lua", "Rscript", "pwsh",
];

/// Endings of files that are scripts, wherever they stand in a command.
const SCRIPT_ENDINGS: &[&str] = &[
    ".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".rb", ".pl", ".php",
    ".lua", ".ps1",
];

/// `word` as a path from `dir`, when it names an existing file.
fn file_named(word: &str, dir: &Path) -> Option<PathBuf> {
    let word = word
        .split_once('=')
        .map_or(word, |(k, v)| if k.starts_with('-') { v } else { word });
    if word.is_empty() || word.starts_with('-') {
        return None;
    }
    let p = crate::util::path::normalize(&dir.join(crate::util::path::expand_home(word)));
    std::fs::metadata(&p).ok()?.is_file().then_some(p)
}

/// The files a command line runs: its program when that is a path, the
/// script an interpreter is given (`python3 scripts/check.py`), and any
/// word that names a script or an executable — not the files it merely
/// reads or writes (`touch marker`).
pub(crate) fn run_by(words: &[String], dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Some(first) = words.first() else {
        return out;
    };
    out.extend(module_file(words, dir));
    if first.contains('/') {
        out.extend(file_named(first, dir));
    }
    let program = Path::new(first)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let interpreted = INTERPRETERS.contains(&program)
        || program.starts_with("python3.")
        || program.starts_with("node");
    if interpreted {
        if let Some(script) = words[1..].iter().find(|w| !w.starts_with('-')) {
            out.extend(file_named(script, dir));
        }
    }
    for w in &words[1..] {
        let Some(p) = file_named(w, dir) else {
            continue;
        };
        let script = SCRIPT_ENDINGS.iter().any(|e| w.ends_with(e));
        let executable = std::fs::metadata(&p)
            .is_ok_and(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0);
        if script || executable {
            out.push(p);
        }
    }
    out
}

/// The file `python -m pkg.mod` runs from `dir`: `pkg/mod.py`, or a
/// package's `pkg/mod/__main__.py`.
fn module_file(words: &[String], dir: &Path) -> Option<PathBuf> {
    let program = Path::new(words.first()?).file_name()?.to_str()?;
    if !program.starts_with("python") {
        return None;
    }
    let i = words.iter().position(|w| w == "-m")?;
    let module = words.get(i + 1)?.replace('.', "/");
    [format!("{module}.py"), format!("{module}/__main__.py")]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
}

/// Each file, and — where a link leads to it — the file the link ends
/// at: a changed target is a changed script.
fn with_links_followed(files: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for f in files {
        if let Ok(real) = std::fs::canonicalize(&f) {
            if real != f {
                out.push(real);
            }
        }
        out.push(f);
    }
    out
}

/// A word with Claude Code's `$CLAUDE_PROJECT_DIR` (which hermes sets for
/// every hook) in front as the shell will expand it.
pub(crate) fn claude_project_dir(word: &str, project: &Path) -> String {
    for var in ["${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR"] {
        if let Some(rest) = word.strip_prefix(var) {
            return format!("{}{rest}", project.display());
        }
    }
    word.to_string()
}

/// Every existing file the hooks and local servers of `file` run: hooks'
/// from `cwd` (where hooks run), servers' from their own folder. Sorted,
/// once each.
pub(crate) fn files(file: &ConfigFile, cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let project_dir = super::project_dir(cwd);
    for hook in file.hooks.lists().flat_map(|(_, l)| l) {
        let words: Vec<String> = shell_words(&hook.command)
            .into_iter()
            .map(|w| claude_project_dir(&w, &project_dir))
            .collect();
        out.extend(with_links_followed(run_by(&words, cwd)));
    }
    for server in file.mcp_servers.values().filter(|s| s.url.is_none()) {
        let dir = server
            .cwd
            .as_deref()
            .map(crate::util::path::expand_home)
            .unwrap_or_else(|| cwd.to_path_buf());
        let words: Vec<String> = std::iter::once(server.command.clone())
            .chain(server.args.iter().cloned())
            .collect();
        out.extend(run_by(&words, &dir));
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_split_as_a_shell_splits_a_simple_command() {
        assert_eq!(
            shell_words(r#"python3 'my scripts/check.py' --flag="a b" x\ y;z"#),
            ["python3", "my scripts/check.py", "--flag=a b", "x y", "z"]
        );
        assert!(shell_words("  ").is_empty());
    }

    #[test]
    fn hook_and_server_scripts_are_found_where_they_run() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("scripts")).unwrap();
        std::fs::create_dir_all(d.join("srv/build")).unwrap();
        for f in [
            "scripts/guard.sh",
            "scripts/check.py",
            "srv/build/index.js",
            "scripts/marker",
        ] {
            std::fs::write(d.join(f), "").unwrap();
        }
        let text = format!(
            "[[hooks.pre_tool_call]]\ncommand = \"{0}/scripts/guard.sh --strict\"\n\
             [[hooks.pre_tool_call]]\ncommand = \"python3 scripts/check.py missing.py\"\n\
             [[hooks.post_tool_call]]\ncommand = \"touch scripts/marker\"\n\
             [mcp_servers.s]\ncommand = \"node\"\nargs = [\"./build/index.js\", \"-v\"]\ncwd = \"{0}/srv\"\n\
             [mcp_servers.r]\nurl = \"https://h/mcp\"\n",
            d.display()
        );
        let file: ConfigFile = toml::from_str(&text).unwrap();
        assert_eq!(
            files(&file, d),
            [
                d.join("scripts/check.py"),
                d.join("scripts/guard.sh"),
                d.join("srv/build/index.js")
            ]
        );
    }
}
