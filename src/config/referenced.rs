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

/// `word` as a path from `dir`, when it names an existing file.
fn file_named(word: &str, dir: &Path) -> Option<PathBuf> {
    let word =
        word.split_once('=')
            .map_or(word, |(k, v)| if k.starts_with('-') { v } else { word });
    if word.is_empty() || word.starts_with('-') {
        return None;
    }
    let p = dir.join(crate::util::path::expand_home(word));
    let p = crate::util::path::normalize(&p);
    std::fs::metadata(&p).ok()?.is_file().then_some(p)
}

/// Every existing file the hooks and local servers of `file` would run or
/// read as their program: hooks' words from `cwd` (where hooks run),
/// servers' command and arguments from their own folder. Sorted, once each.
pub(crate) fn files(file: &ConfigFile, cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for hook in file
        .hooks
        .pre_tool_call
        .iter()
        .chain(file.hooks.post_tool_call.iter())
    {
        out.extend(
            shell_words(&hook.command)
                .iter()
                .filter_map(|w| file_named(w, cwd)),
        );
    }
    for server in file.mcp_servers.values().filter(|s| s.url.is_none()) {
        let dir = server
            .cwd
            .as_deref()
            .map(crate::util::path::expand_home)
            .unwrap_or_else(|| cwd.to_path_buf());
        if server.command.contains('/') {
            out.extend(file_named(&server.command, &dir));
        }
        out.extend(server.args.iter().filter_map(|a| file_named(a, &dir)));
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
        for f in ["scripts/guard.sh", "scripts/check.py", "srv/build/index.js"] {
            std::fs::write(d.join(f), "").unwrap();
        }
        let text = format!(
            "[[hooks.pre_tool_call]]\ncommand = \"{0}/scripts/guard.sh --strict\"\n\
             [[hooks.pre_tool_call]]\ncommand = \"python3 scripts/check.py missing.py\"\n\
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
