//! The config as a run sees it: the user's file, the project's (held back
//! where the project is not trusted), Claude Code's and `.mcp.json` files,
//! and the flags, merged in that order and resolved once.

use std::path::{Path, PathBuf};

use super::{
    anchor, claude, load, paths, project_files, trust, ApprovalMode, ConfigError, ConfigFile, Paths,
};

/// What the flags may override; resolved once, after the files.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub config_path: Option<PathBuf>,
    pub sets: Vec<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub max_turns: Option<u32>,
    /// `--max-budget-tokens N`: what the whole run may spend.
    pub max_budget_tokens: Option<u64>,
    /// `--add-dir DIR`: more working folders, written in as the working
    /// one (already made absolute).
    pub add_dirs: Vec<PathBuf>,
    /// `--approve GLOB`: tools that run without asking, this run.
    pub approve: Vec<String>,
    /// `--yolo`: every tool runs unless a rule denies it.
    pub yolo: bool,
    /// `--mode`: the approval mode of this run.
    pub mode: Option<ApprovalMode>,
}

/// Checks one config text as a file at `path` would be checked.
pub fn parse_text(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    load::parse_layer(path, text)
}

/// Warnings about the config files themselves: one that holds secrets (an
/// `api_key`, a token in `env` or `headers`) while others may read it.
pub fn file_warnings(sources: &[PathBuf]) -> Vec<String> {
    sources
        .iter()
        .filter(|p| crate::util::private::readable_by_others(p))
        .filter(|p| {
            std::fs::read_to_string(p)
                .ok()
                .and_then(|t| t.parse::<toml::Table>().ok())
                .is_some_and(|t| holds_secret(&t))
        })
        .map(|p| {
            format!(
                "{} holds secrets and others may read it; make it owner-only: chmod 600 {}",
                p.display(),
                p.display()
            )
        })
        .collect()
}

fn holds_secret(t: &toml::Table) -> bool {
    t.iter().any(|(k, v)| match v {
        toml::Value::Table(inner) if k == "env" || k == "headers" => {
            inner.keys().any(|n| crate::util::secrets::looks_secret(n)) || holds_secret(inner)
        }
        toml::Value::Table(inner) => holds_secret(inner),
        _ => k == "api_key",
    })
}

/// Whether two paths name one file (the user file can also be the nearest
/// `.hermes/config.toml`, with `HERMES_HOME=~/.hermes`).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Every layer merged, and where it came from.
pub struct Merged {
    pub file: ConfigFile,
    /// The config files read, lowest layer first.
    pub sources: Vec<PathBuf>,
    /// What an untrusted project file set and was not applied, as a
    /// warning line (`trust`).
    pub held: Option<String>,
    /// The file each MCP server came from (the last that set it).
    pub origins: std::collections::BTreeMap<String, PathBuf>,
}

/// Notes the servers a layer sets as coming from `path`.
fn note_origins(
    origins: &mut std::collections::BTreeMap<String, PathBuf>,
    layer: &toml::Table,
    path: &Path,
) {
    if let Some(servers) = layer.get("mcp_servers").and_then(toml::Value::as_table) {
        for name in servers.keys() {
            origins.insert(name.clone(), path.to_path_buf());
        }
    }
}

/// Reads and merges every layer; does not require the provider to be usable.
pub fn load_merged(paths: &Paths, cwd: &Path, ov: &Overrides) -> Result<Merged, ConfigError> {
    let mut merged = toml::Table::new();
    let mut sources = Vec::new();
    let mut origins = std::collections::BTreeMap::new();
    let user = ov
        .config_path
        .clone()
        .unwrap_or_else(|| paths.config_file());
    if let Some(mut t) = load::read_layer(&user, ov.config_path.is_some())? {
        // `--config hermes.toml` has an empty parent: the working folder.
        let dir = user
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dir = std::path::absolute(dir).unwrap_or_else(|_| cwd.to_path_buf());
        anchor::anchor(&mut t, &dir, false);
        note_origins(&mut origins, &t, &user);
        load::merge(&mut merged, t);
        sources.push(user.clone());
    }
    // Claude Code's own user settings, unless the user's config says no.
    let claude_code = |m: &toml::Table| {
        m.get("hooks")
            .and_then(|h| h.get("claude_code"))
            .and_then(toml::Value::as_bool)
            != Some(false)
    };
    if claude_code(&merged) {
        if let Some(path) = claude::user_settings().filter(|p| p.is_file()) {
            if let Some(text) = load::read_text(&path, false)? {
                // Another tool's file: what cannot be read is a warning.
                load::merge(&mut merged, claude::layer(&path, &text).unwrap_or_default());
                sources.push(path);
            }
        }
    }
    let mut held = None;
    let mut files: trust::Files = Vec::new();
    for path in project_files(cwd) {
        if same_file(&path, &user) {
            continue;
        }
        if trust::owned_by_another(&path) {
            held = Some(format!(
                "{} belongs to another user and was not read; a project file must be your own",
                path.display()
            ));
            continue;
        }
        if claude::is_settings(&path) && !claude_code(&merged) {
            continue;
        }
        if let Some(text) = load::read_text(&path, false)? {
            files.push((path, text.into_bytes()));
        }
    }
    if !files.is_empty() {
        // The bytes judged are the bytes applied.
        let standing = trust::standing(paths, &files, cwd);
        let mut all_held = Vec::new();
        for (path, text) in &files {
            let mut t = load::layer_of(path, &String::from_utf8_lossy(text))?;
            if standing != trust::Standing::Trusted {
                all_held.extend(
                    trust::hold_back(&mut t)
                        .into_iter()
                        .map(|k| (path.clone(), k)),
                );
            }
            anchor::anchor(&mut t, &paths::folder_of(path), true);
            note_origins(&mut origins, &t, path);
            load::merge(&mut merged, t);
            sources.push(path.clone());
        }
        if !all_held.is_empty() {
            let why = if standing == trust::Standing::Changed {
                "it changed since this folder was trusted"
            } else {
                "this folder is not trusted"
            };
            let mut by_file: Vec<String> = Vec::new();
            for (path, _) in &files {
                let keys: Vec<String> = all_held
                    .iter()
                    .filter(|(p, _)| p == path)
                    .map(|(_, k)| format!("`{k}`"))
                    .collect();
                if !keys.is_empty() {
                    by_file.push(format!("{} sets {}", path.display(), keys.join(", ")));
                }
            }
            held = Some(format!(
                "{} — not applied: {why}; run `hermes trust` in {} to apply them",
                by_file.join("; "),
                paths::folder_of(&files[0].0).display()
            ));
        }
    }
    for (var, key) in [("HERMES_PROVIDER", "provider"), ("HERMES_MODEL", "model")] {
        if let Some(v) = std::env::var(var).ok().filter(|v| !v.is_empty()) {
            merged.insert(key.into(), toml::Value::String(v));
        }
    }
    for set in &ov.sets {
        load::apply_override(&mut merged, set)?;
    }
    let file: ConfigFile =
        toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::BadValue {
                what: "the merged config".into(),
                expected: "valid",
                got: e.message().to_string(),
            })?;
    Ok(Merged {
        file,
        sources,
        held,
        origins,
    })
}

#[cfg(test)]
mod properties {
    use crate::util::arbitrary::config;
    use proptest::prelude::*;
    use std::path::Path;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn config_files_are_checked_without_panicking(text in prop_oneof![
            ".{0,200}",
            prop::collection::vec(prop_oneof![
                Just("[providers.x]".to_string()),
                Just("[mcp_servers.s]".to_string()),
                Just("[tools]".to_string()),
                "[a-z_]{1,12} = [0-9]{1,3}",
                "[a-z_]{1,12} = \"[a-z]{0,6}\"",
                Just("max_turns = 0".to_string()),
                Just("concurrency = -1".to_string()),
            ], 0..12).prop_map(|l| l.join("\n")),
        ]) {
            let _ = crate::config::parse_text(Path::new("fuzz.toml"), &text);
        }
    }
}
