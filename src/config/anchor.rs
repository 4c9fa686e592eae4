//! Relative commands belong to the file that declared them. A project file's
//! `command = "./scripts/guard.sh"` means the project's script, not whatever
//! `scripts/guard.sh` sits under the folder hermes happens to start in: run
//! from `/proj/vendor/evil`, a trusted `/proj/.hermes/config.toml` would
//! otherwise run `/proj/vendor/evil/scripts/guard.sh`. So when a layer is
//! read, the program of each hook and server that is a relative path (it
//! holds a `/`) and a server's relative `cwd` are made absolute against the
//! layer's base: the project folder for a project file (the folder trust
//! covers, as Cargo resolves `.cargo/config.toml`), the file's own folder for
//! the user file. A bare program name (`node`, `mcp-server-git`) is still
//! looked up on `PATH`. A project file's server with no `cwd` runs in the
//! project folder, so its relative arguments (`node ./build/index.js`) are
//! the project's too; a hook's arguments are relative to the working folder.

use std::path::{Path, PathBuf};

/// Anchors the relative programs and folders of one layer at `base`; a
/// `project` layer's servers without a `cwd` run in `base`.
pub(super) fn anchor(layer: &mut toml::Table, base: &Path, project: bool) {
    if let Some(servers) = layer.get_mut("mcp_servers").and_then(|v| v.as_table_mut()) {
        for (_, server) in servers.iter_mut() {
            let Some(server) = server.as_table_mut() else {
                continue;
            };
            if let Some(toml::Value::String(cmd)) = server.get_mut("command") {
                if let Some(p) = relative_program(cmd.as_str()) {
                    let anchored = path_text(&join(base, p));
                    *cmd = anchored;
                }
            }
            if let Some(toml::Value::String(cwd)) = server.get_mut("cwd") {
                if !cwd.is_empty()
                    && !Path::new(cwd.as_str()).is_absolute()
                    && !cwd.starts_with('~')
                {
                    let anchored = path_text(&join(base, cwd.as_str()));
                    *cwd = anchored;
                }
            } else if project && server.contains_key("command") {
                server.insert("cwd".into(), toml::Value::String(path_text(base)));
            }
        }
    }
    if let Some(hooks) = layer.get_mut("hooks").and_then(|v| v.as_table_mut()) {
        for (_, list) in hooks.iter_mut() {
            let Some(list) = list.as_array_mut() else {
                continue;
            };
            for hook in list.iter_mut().filter_map(|h| h.as_table_mut()) {
                if let Some(toml::Value::String(cmd)) = hook.get_mut("command") {
                    let anchored = anchor_shell(cmd.as_str(), base);
                    *cmd = anchored;
                }
            }
        }
    }
}

/// A server's `command`, when it is a relative path.
fn relative_program(cmd: &str) -> Option<&str> {
    (cmd.contains('/') && !cmd.starts_with('/') && !cmd.starts_with('~')).then_some(cmd)
}

/// A hook's shell command with its first word anchored, when that word is a
/// plain relative path (`./scripts/guard.sh --strict`). A first word with
/// quotes, variables or an assignment is left to the shell as written.
fn anchor_shell(cmd: &str, base: &Path) -> String {
    let trimmed = cmd.trim_start();
    let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
    let (word, rest) = trimmed.split_at(end);
    let plain = !word.contains(['\'', '"', '$', '`', '=', '\\', '(', ';', '&', '|', '<', '>']);
    match relative_program(word) {
        Some(p) if plain => format!("{}{rest}", shell_quote(&path_text(&join(base, p)))),
        _ => cmd.to_string(),
    }
}

/// `base/rel` with `.` and `..` resolved by their text.
fn join(base: &Path, rel: &str) -> PathBuf {
    crate::util::path::normalize(&base.join(rel))
}

fn path_text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A word the shell reads back as `s`.
fn shell_quote(s: &str) -> String {
    let safe = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchored(text: &str) -> toml::Table {
        let mut t: toml::Table = toml::from_str(text).unwrap();
        anchor(&mut t, Path::new("/proj"), true);
        t
    }

    #[test]
    fn relative_programs_and_folders_belong_to_the_declaring_file() {
        let t = anchored(
            r#"
            [mcp_servers.a]
            command = "./bin/server"
            cwd = "data"
            [mcp_servers.b]
            command = "node"
            args = ["./server.js"]
            [mcp_servers.c]
            command = "/usr/bin/env"
            cwd = "/tmp"
            [[hooks.pre_tool_call]]
            command = "./scripts/guard.sh --strict"
            [[hooks.pre_tool_call]]
            command = "../my hooks/x.sh"
            [[hooks.post_tool_call]]
            command = "jq . >> log.json"
            [[hooks.post_tool_call]]
            command = "\"$HOME/x.sh\""
            "#,
        );
        let s = |v: &toml::Value| v.as_str().unwrap().to_string();
        let servers = &t["mcp_servers"];
        assert_eq!(s(&servers["a"]["command"]), "/proj/bin/server");
        assert_eq!(s(&servers["a"]["cwd"]), "/proj/data");
        assert_eq!(s(&servers["b"]["command"]), "node", "PATH lookup stays");
        assert_eq!(s(&servers["b"]["args"][0]), "./server.js");
        assert_eq!(s(&servers["b"]["cwd"]), "/proj", "run in the project");
        assert_eq!(s(&servers["c"]["command"]), "/usr/bin/env");
        assert_eq!(s(&servers["c"]["cwd"]), "/tmp");
        let hooks = &t["hooks"];
        assert_eq!(
            s(&hooks["pre_tool_call"][0]["command"]),
            "/proj/scripts/guard.sh --strict"
        );
        // The first word ends at the space: `../my` is the program.
        assert_eq!(s(&hooks["pre_tool_call"][1]["command"]), "/my hooks/x.sh");
        assert_eq!(
            s(&hooks["post_tool_call"][0]["command"]),
            "jq . >> log.json"
        );
        assert_eq!(s(&hooks["post_tool_call"][1]["command"]), "\"$HOME/x.sh\"");
    }

    #[test]
    fn an_anchored_path_with_odd_characters_is_quoted_for_the_shell() {
        let mut t: toml::Table =
            toml::from_str("[[hooks.pre_tool_call]]\ncommand = \"./g.sh a\"\n").unwrap();
        anchor(&mut t, Path::new("/my proj/it's"), false);
        assert_eq!(
            t["hooks"]["pre_tool_call"][0]["command"].as_str().unwrap(),
            r"'/my proj/it'\''s/g.sh' a"
        );
    }
}
