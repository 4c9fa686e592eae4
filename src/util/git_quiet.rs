//! hermes' own git calls (`/diff`, `hermes update`) run with every key
//! that makes git run a program turned off: a repository's config is the
//! person's to act on, and a sandboxed command may once have reached it.
//! The fixed keys go first; the filters and drivers the repository's own
//! config (and what it includes) defines are emptied by name, since git
//! has no switch that turns them all off.

use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// `git ARGS` in `cwd` with the quiet keys, within `wait`: its stdout, or
/// a line that says why it failed (git's first line of stderr).
pub(crate) async fn run(cwd: &Path, args: &[&str], wait: Duration) -> Result<String, String> {
    run_with(cwd, args, wait, &[]).await
}

/// [`run`] with more environment (`GIT_INDEX_FILE`).
pub(crate) async fn run_with(
    cwd: &Path,
    args: &[&str],
    wait: Duration,
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<String, String> {
    let mut cmd = tokio::process::Command::new("git");
    cmd.args(self::args(cwd))
        .args(["-c", "core.quotepath=off"])
        .args(args)
        .current_dir(cwd)
        .env("GIT_PAGER", "cat")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = match tokio::time::timeout(wait, cmd.output()).await {
        Err(_) => return Err(format!("git gave no answer within {} s", wait.as_secs())),
        Ok(Err(e)) => return Err(format!("git could not run ({e})")),
        Ok(Ok(o)) => o,
    };
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(if err.to_lowercase().contains("not a git repository") {
            "this folder is not in a git repository".into()
        } else {
            let line = err
                .lines()
                .map(|l| {
                    l.trim_start_matches("fatal: ")
                        .trim_start_matches("error: ")
                })
                .find(|l| !l.trim().is_empty())
                .unwrap_or("failed");
            format!("git {}: {}", args.first().unwrap_or(&""), line.trim())
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
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
