//! hermes' own git calls (`/diff`, `hermes update`) run with every key
//! that makes git run a program turned off: a repository's config is the
//! person's to act on, and a sandboxed command may once have reached it.
//! The fixed keys go first; the filters and drivers the repository's own
//! config (and what it includes) defines are emptied by name, since git
//! has no switch that turns them all off.

use std::path::{Path, PathBuf};

/// Keys that run programs, off.
const QUIET: &[&str] = &[
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.askPass=",
    "protocol.ext.allow=never",
    "diff.external=",
    "credential.helper=",
    "gpg.program=false",
];

/// `-c KEY=VALUE` pairs for a git run in `dir`.
pub(crate) fn args(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for kv in QUIET {
        out.push("-c".to_string());
        out.push((*kv).to_string());
    }
    for (section, name) in drivers_for(dir) {
        let keys: &[&str] = match section.as_str() {
            "filter" => &["clean", "smudge", "process"],
            "diff" => &["textconv", "command"],
            "merge" => &["driver"],
            _ => &[],
        };
        for k in keys {
            out.push("-c".to_string());
            out.push(format!("{section}.{name}.{k}="));
        }
        if section == "filter" {
            out.push("-c".to_string());
            out.push(format!("filter.{name}.required=false"));
        }
    }
    out
}

/// The filters and diff and merge drivers the config of the repository
/// `dir` is in defines (its own config and all it includes, the person's
/// global ones): (section, name).
fn drivers_for(dir: &Path) -> Vec<(String, String)> {
    let mut files = crate::util::git_config::global_configs(home().as_deref());
    let mut at = Some(dir);
    while let Some(d) = at {
        let dot = d.join(".git");
        let git = if dot.is_dir() {
            Some(dot)
        } else {
            crate::util::git_config::gitfile_target(&dot)
        };
        if let Some(g) = git {
            files.push(g.join("config"));
            if let Ok(c) = std::fs::read_to_string(g.join("commondir")) {
                files.push(crate::util::path::normalize(&g.join(c.trim())).join("config"));
            }
            break;
        }
        at = d.parent();
    }
    let mut out = Vec::new();
    let home = home();
    let read = |p: &Path| std::fs::read_to_string(p).into_iter().collect::<Vec<_>>();
    let mut seen = crate::util::git_config::Named::default();
    for f in &files {
        let cx = crate::util::git_config::Context {
            home: home.as_deref(),
            top: dir,
        };
        crate::util::git_config::collect(f, &cx, &read, &mut seen, 0);
    }
    for f in files.iter().chain(&seen.files) {
        for text in read(f) {
            for e in crate::util::git_config::entries(&text) {
                if let (true, Some(sub)) = (
                    matches!(e.section.as_str(), "filter" | "diff" | "merge"),
                    e.sub,
                ) {
                    let pair = (e.section, sub);
                    if !out.contains(&pair) {
                        out.push(pair);
                    }
                }
            }
        }
    }
    out
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository whose config (and a file it includes) plants an
    /// fsmonitor, a pager, a clean filter and a textconv: hermes' own
    /// `git diff` runs none of them.
    #[test]
    fn hermes_own_git_runs_nothing_a_repository_plants() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("r");
        let mark = dir.path().join("ran");
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(&repo)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", dir.path())
                .output()
                .unwrap()
        };
        std::fs::create_dir_all(&repo).unwrap();
        git(&["init", "-q"]);
        std::fs::write(repo.join("a.txt"), "one\n").unwrap();
        std::fs::write(repo.join(".gitattributes"), "*.txt filter=evil diff=evil\n").unwrap();
        git(&["add", "."]);
        git(&[
            "-c",
            "user.name=p",
            "-c",
            "user.email=p@example.org",
            "commit",
            "-qm",
            "x",
        ]);
        let touch = format!("touch {}", mark.display());
        std::fs::write(
            repo.join("extra.cfg"),
            format!("[filter \"evil\"]\n\tclean = sh -c '{touch}; cat'\n[diff \"evil\"]\n\ttextconv = sh -c '{touch}; cat'\n"),
        )
        .unwrap();
        let config = repo.join(".git/config");
        let mut text = std::fs::read_to_string(&config).unwrap();
        text.push_str(&format!(
            "[core]\n\tfsmonitor = \"{touch}\"\n\tpager = \"{touch}\"\n[include]\n\tpath = ../extra.cfg\n"
        ));
        std::fs::write(&config, text).unwrap();
        std::fs::write(repo.join("a.txt"), "two\n").unwrap();
        let mut cmd = std::process::Command::new("git");
        let out = cmd
            .args(args(&repo))
            .args(["diff", "HEAD", "--no-ext-diff", "--no-textconv"])
            .current_dir(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("+two"));
        assert!(!mark.exists(), "git ran what the repository planted");
        // The same without the quiet keys runs it: the test can fail.
        git(&["diff", "HEAD"]);
        assert!(mark.exists());
    }
}
