//! Editing config.toml in place (`toml_edit`): comments and layout kept, the
//! result checked as a config before it is written, owner-only.

use std::path::Path;

use super::ConfigError;

/// Reads the file (or starts empty), applies `f`, checks the result is a
/// valid config, and only then writes it.
pub(crate) fn edit_document<E>(
    path: &Path,
    f: impl FnOnce(&mut toml_edit::DocumentMut) -> Result<(), E>,
) -> Result<(), E>
where
    E: From<ConfigError> + From<std::io::Error>,
{
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            }
            .into())
        }
    };
    super::parse_text(path, &text)?;
    // The text parsed as config above, so it parses as a document too.
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| ConfigError::Read {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    })?;
    f(&mut doc)?;
    let out = doc.to_string();
    super::parse_text(path, &out)?;
    // The file may hold tokens (`--env GITHUB_TOKEN=…`): owner-only.
    crate::util::private::write(path, out.as_bytes())?;
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum EditError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot write the config file: {0}")]
    Io(#[from] std::io::Error),
}

/// The regex of a rule for exactly one command line.
pub(crate) fn exact_command_pattern(command: &str) -> String {
    format!("^{}$", regex::escape(command))
}

/// As [`allow_always`]; with `when` (a JSON pointer and a regex), an
/// `approvals.rules` entry that allows the tool when its argument matches
/// (a `shell` command line).
pub(crate) fn allow_always_when(
    path: &Path,
    tool: &str,
    when: Option<(&str, &str)>,
) -> Result<(), EditError> {
    edit_document(path, |doc| {
        let approvals = doc
            .entry("approvals")
            .or_insert(toml_edit::table())
            .as_table_like_mut()
            .ok_or_else(|| bad("approvals", "a table"))?;
        let Some((pointer, regex)) = when else {
            let allow = approvals
                .entry("allow")
                .or_insert(toml_edit::value(toml_edit::Array::new()))
                .as_array_mut()
                .ok_or_else(|| bad("approvals.allow", "an array of globs"))?;
            if !allow.iter().any(|v| v.as_str() == Some(tool)) {
                allow.push(tool);
            }
            return Ok::<(), EditError>(());
        };
        let rules = approvals
            .entry("rules")
            .or_insert(toml_edit::value(toml_edit::Array::new()))
            .as_array_mut()
            .ok_or_else(|| bad("approvals.rules", "an array of rules"))?;
        let mut cond = toml_edit::InlineTable::new();
        cond.insert(pointer, regex.into());
        let mut rule = toml_edit::InlineTable::new();
        rule.insert("tool", tool.into());
        rule.insert("when", toml_edit::Value::InlineTable(cond));
        rule.insert("decision", "allow".into());
        let same = |v: &toml_edit::Value| v.to_string().trim() == rule.to_string().trim();
        if !rules.iter().any(same) {
            rules.push(rule);
        }
        Ok::<(), EditError>(())
    })
}

/// An "always" answer about a host: `web_fetch`'s, or one a command was
/// refused (`127.0.0.1:5432` for this machine's port) — added to
/// `[network] allow`.
pub(crate) fn allow_host_always(path: &Path, host: &str) -> Result<(), EditError> {
    let rule = super::HostRule::try_from(host.to_string())
        .unwrap_or_else(|_| super::HostRule::host(host))
        .to_string();
    edit_document(path, |doc| {
        let allow = doc
            .entry("network")
            .or_insert(toml_edit::table())
            .as_table_like_mut()
            .ok_or_else(|| bad("network", "a table"))?
            .entry("allow")
            .or_insert(toml_edit::value(toml_edit::Array::new()))
            .as_array_mut()
            .ok_or_else(|| bad("network.allow", "an array of hosts"))?;
        if !allow.iter().any(|v| v.as_str() == Some(rule.as_str())) {
            allow.push(rule.as_str());
        }
        Ok::<(), EditError>(())
    })
}

/// The rules of the file at `path` that allow a tool without asking — what
/// "always" answers wrote there, and any written by hand: read again, so
/// those added since the run began are there too. A file that does not
/// read gives none (the run has told of it already).
pub(crate) fn saved_allows(path: &Path) -> Vec<super::ApprovalRule> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let section = super::parse_text(path, &text)
        .ok()
        .and_then(|t| t.get("approvals").cloned())
        .and_then(|a| a.try_into::<super::ApprovalsSection>().ok());
    section
        .and_then(|a| super::approval_settings(&a).ok())
        .map(|s| {
            s.rules
                .into_iter()
                .filter(|r| r.decision == super::Decision::Allow)
                .collect()
        })
        .unwrap_or_default()
}

fn bad(what: &str, expected: &'static str) -> EditError {
    EditError::Config(ConfigError::BadValue {
        what: what.into(),
        expected,
        got: "something else".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn always_for_a_shell_command_is_a_rule_the_config_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "model = \"m\"\n").unwrap();
        let re = exact_command_pattern("git status");
        allow_always_when(&path, "shell", Some(("/command", &re))).unwrap();
        allow_always_when(&path, "shell", Some(("/command", &re))).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches("decision").count(), 1, "{text}");
        let t = crate::config::parse_text(&path, &text).unwrap();
        let a: crate::config::ApprovalsSection = t["approvals"].clone().try_into().unwrap();
        let s = crate::config::approval_settings(&a).unwrap();
        assert_eq!(s.rules.len(), 1);
        assert!(s.rules[0].when[0].1.is_match("git status"));
        assert!(!s.rules[0].when[0].1.is_match("git status -s"));
        assert!(!s.rules[0].when[0].1.is_match("git status; rm -rf ~"));
    }

    #[test]
    fn always_adds_to_the_allow_list_and_keeps_comments() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "# my config\nmodel = \"m\" # keep me\n").unwrap();
        allow_always_when(&path, "mcp__files__write_file", None).unwrap();
        allow_always_when(&path, "mcp__files__write_file", None).unwrap();
        allow_always_when(&path, "mcp__git__git_commit", None).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# my config\nmodel = \"m\" # keep me\n"),
            "{text}"
        );
        assert!(
            text.contains(r#"allow = ["mcp__files__write_file", "mcp__git__git_commit"]"#),
            "{text}"
        );
    }
}
