//! `hermes update`: an installation made from a git checkout follows its
//! branch (or its newest `v*` tag). The checkout is the one the binary was
//! built from (embedded at build time) unless `install.json` in the hermes
//! home names another; the install root is the one the running binary sits in.
//!
//! Refuses a checkout with local changes, on another branch, or diverged from
//! origin; otherwise fetches, lists incoming commits, fast-forwards, rebuilds
//! with `cargo install` into the same root, and prints old → new. A failed
//! build leaves the old binary in place, moves the checkout back, and names
//! the build log.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::build_info;
use crate::config::Paths;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    Main,
    Stable,
}

#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("{} is not a git checkout, so hermes cannot update itself from it", .0.display())]
    NoCheckout(PathBuf),
    #[error("the checkout at {} has local changes", .0.display())]
    Dirty(PathBuf),
    #[error("the checkout at {} is on {found}, not {want}", path.display())]
    OtherBranch {
        path: PathBuf,
        found: String,
        want: String,
    },
    #[error("the checkout at {} has diverged from {upstream} ({ahead} local, {behind} incoming commits)", path.display())]
    Diverged {
        path: PathBuf,
        upstream: String,
        ahead: usize,
        behind: usize,
    },
    #[error("no v* tag found in the checkout's origin")]
    NoTags,
    #[error("`git {args}` failed in {}: {stderr}", path.display())]
    Git {
        path: PathBuf,
        args: String,
        stderr: String,
    },
    #[error("the build failed; the installed hermes is unchanged (still {old}); build log: {}", log.display())]
    BuildFailed { old: String, log: PathBuf },
    #[error("cannot run {what}: {source}")]
    Spawn {
        what: String,
        source: std::io::Error,
    },
}

impl UpdateError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            UpdateError::NoCheckout(_) => {
                "install with the README's command from a git clone".into()
            }
            UpdateError::Dirty(p) => {
                format!("commit or stash them first (git -C {} status)", p.display())
            }
            UpdateError::OtherBranch { path, want, .. } => {
                format!("git -C {} switch {want}, then update again", path.display())
            }
            UpdateError::Diverged { path, .. } => format!(
                "reconcile it by hand (git -C {} log --oneline --graph @ @{{u}})",
                path.display()
            ),
            UpdateError::BuildFailed { .. } => {
                "read the log; `hermes update` again once it is fixed".into()
            }
            _ => return None,
        })
    }
}

/// Where this installation came from and where it lives.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct InstallRecord {
    pub checkout: PathBuf,
    /// `cargo install --root`: the binary is `{root}/bin/hermes`.
    pub root: PathBuf,
}

fn record_path(paths: &Paths) -> PathBuf {
    paths.data_dir.join("install.json")
}

pub(crate) fn install_record(paths: &Paths) -> InstallRecord {
    if let Some(r) = std::fs::read(record_path(paths))
        .ok()
        .and_then(|b| serde_json::from_slice::<InstallRecord>(&b).ok())
    {
        return r;
    }
    let root = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    InstallRecord {
        checkout: PathBuf::from(build_info::CHECKOUT),
        root,
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<String, UpdateError> {
    let out = Command::new("git")
        .args(crate::util::git_quiet::args(dir))
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|source| UpdateError::Spawn {
            what: "git".into(),
            source,
        })?;
    if !out.status.success() {
        return Err(UpdateError::Git {
            path: dir.to_path_buf(),
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr)
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .take(2)
                .collect::<Vec<_>>()
                .join(" | "),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// What an update would do, found without changing anything but fetching.
pub(crate) struct Plan {
    pub checkout: PathBuf,
    pub root: PathBuf,
    pub current: String,
    pub target: String,
    /// Incoming commits, one line each, oldest last.
    pub incoming: Vec<String>,
    pub target_name: String,
}

pub(crate) fn plan(paths: &Paths, channel: Channel) -> Result<Plan, UpdateError> {
    let rec = install_record(paths);
    let dir = rec.checkout.clone();
    if git(&dir, &["rev-parse", "--git-dir"]).is_err() {
        return Err(UpdateError::NoCheckout(dir));
    }
    if !git(&dir, &["status", "--porcelain", "--untracked-files=no"])?.is_empty() {
        return Err(UpdateError::Dirty(dir));
    }
    let current = git(&dir, &["rev-parse", "HEAD"])?;
    let (target, target_name) = match channel {
        Channel::Main => {
            let branch = git(&dir, &["symbolic-ref", "--quiet", "--short", "HEAD"])
                .unwrap_or_else(|_| "a detached HEAD".into());
            if branch != "main" {
                return Err(UpdateError::OtherBranch {
                    path: dir,
                    found: format!("branch {branch}"),
                    want: "main".into(),
                });
            }
            git(&dir, &["fetch", "--quiet", "origin", "main"])?;
            (
                git(&dir, &["rev-parse", "origin/main"])?,
                "origin/main".to_string(),
            )
        }
        Channel::Stable => {
            git(&dir, &["fetch", "--quiet", "--tags", "origin"])?;
            let tags = git(&dir, &["tag", "--list", "v*", "--sort=-v:refname"])?;
            let tag = tags.lines().next().ok_or(UpdateError::NoTags)?.to_string();
            (git(&dir, &["rev-list", "-n", "1", &tag])?, tag)
        }
    };
    let counts = git(
        &dir,
        &[
            "rev-list",
            "--left-right",
            "--count",
            &format!("HEAD...{target}"),
        ],
    )?;
    let mut it = counts
        .split_whitespace()
        .map(|n| n.parse::<usize>().unwrap_or(0));
    let (ahead, behind) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
    if ahead > 0 && behind > 0 {
        return Err(UpdateError::Diverged {
            path: dir,
            upstream: target_name,
            ahead,
            behind,
        });
    }
    let incoming = if behind > 0 {
        git(&dir, &["log", "--format=%h %s", &format!("HEAD..{target}")])?
            .lines()
            .map(str::to_string)
            .collect()
    } else {
        Vec::new()
    };
    Ok(Plan {
        checkout: dir,
        root: rec.root,
        current,
        target,
        incoming,
        target_name,
    })
}

/// Runs the update; returns the line to print at the end.
pub(crate) fn apply(paths: &Paths, plan: &Plan, channel: Channel) -> Result<String, UpdateError> {
    let dir = &plan.checkout;
    let old = build_info::short(&plan.current).to_string();
    let new = build_info::short(&plan.target).to_string();
    match channel {
        Channel::Main => git(dir, &["merge", "--quiet", "--ff-only", &plan.target])?,
        Channel::Stable => git(dir, &["checkout", "--quiet", "--detach", &plan.target])?,
    };
    let logs = paths.data_dir.join("logs");
    let _ = crate::util::private::create_dir_all(&logs);
    let log = logs.join(format!(
        "update-{}.log",
        crate::util::time::Utc::now().compact()
    ));
    let log_file = crate::util::private::options()
        .create(true)
        .write(true)
        .truncate(true)
        .open(&log)
        .map_err(|source| UpdateError::Spawn {
            what: format!("the build log {}", log.display()),
            source,
        })?;
    let log_err = log_file.try_clone().map_err(|source| UpdateError::Spawn {
        what: "the build log".into(),
        source,
    })?;
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "install", "--locked", "--force", "--bin", "hermes", "--path",
        ])
        .arg(dir)
        .arg("--root")
        .arg(&plan.root)
        .stdout(log_file)
        .stderr(log_err)
        .status()
        .map_err(|source| UpdateError::Spawn {
            what: "cargo".into(),
            source,
        })?;
    if !status.success() {
        // Put the checkout back where the installed binary was built from.
        let _ = match channel {
            Channel::Main => git(dir, &["reset", "--quiet", "--keep", &plan.current]),
            Channel::Stable => git(dir, &["checkout", "--quiet", &plan.current]),
        };
        return Err(UpdateError::BuildFailed { old, log });
    }
    let rec = InstallRecord {
        checkout: dir.clone(),
        root: plan.root.clone(),
    };
    if let Ok(bytes) = serde_json::to_vec_pretty(&rec) {
        let _ = crate::util::private::write(&record_path(paths), &bytes);
    }
    Ok(format!("updated {old} → {new} ({})", plan.target_name))
}

/// For the REPL's `/update`: one line saying whether an update is available.
pub(crate) fn status_line(paths: &Paths) -> String {
    match plan(paths, Channel::Main) {
        Ok(p) if p.incoming.is_empty() => {
            format!("hermes is up to date ({})", build_info::short(&p.current))
        }
        Ok(p) => format!(
            "an update is available: {} new commit(s) on {}; run `hermes update`",
            p.incoming.len(),
            p.target_name
        ),
        Err(e) => format!("cannot check for updates: {e}"),
    }
}
