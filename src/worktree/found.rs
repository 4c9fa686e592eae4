//! The worktrees of a repository as git lists them, and hermes' among
//! them: those on a branch `hermes/NAME`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::WorktreeError;
use crate::util::git_quiet;

/// The prefix of every branch hermes makes a worktree on.
pub(crate) const BRANCH_PREFIX: &str = "hermes/";

/// How long one git call may take.
pub(super) const GIT_WAIT: Duration = Duration::from_secs(60);

/// A worktree of hermes': `NAME`, on `hermes/NAME`, at `path`, made from
/// the checkout at `repo` (the repository's main worktree).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct Worktree {
    pub name: String,
    pub branch: String,
    pub path: PathBuf,
    pub repo: PathBuf,
}

impl Worktree {
    /// The folders git writes for a commit on this worktree's branch:
    /// its own git folder, the shared object store, and the refs and logs
    /// of hermes' branches — the main checkout's branches are not among
    /// them. Those that exist.
    pub(crate) fn git_writable(&self) -> Vec<PathBuf> {
        // Read from its `.git` file and `commondir`, as git finds them:
        // no git process for it.
        let Some(own) = crate::util::git_config::gitfile_target(&self.path.join(".git")) else {
            return Vec::new();
        };
        let Ok(common) = std::fs::read_to_string(own.join("commondir")) else {
            return Vec::new();
        };
        let common = crate::util::path::normalize(&own.join(common.trim()));
        [
            own,
            common.join("objects"),
            common.join("refs/heads/hermes"),
            common.join("logs/refs/heads/hermes"),
        ]
        .into_iter()
        .filter(|p| p.is_dir())
        .collect()
    }
}

/// `git ARGS` in `dir`, quiet, within [`GIT_WAIT`].
pub(super) async fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    git_quiet::run(dir, args, GIT_WAIT).await
}

/// One worktree as `git worktree list --porcelain` gives it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Listed {
    pub path: PathBuf,
    pub head: Option<String>,
    /// Its branch without `refs/heads/`; none when detached (or bare).
    pub branch: Option<String>,
}

/// Every worktree of the repository `dir` is in, the main one first.
pub(crate) async fn list(dir: &Path) -> Result<Vec<Listed>, String> {
    let out = git(dir, &["worktree", "list", "--porcelain"]).await?;
    Ok(parse(&out))
}

fn parse(text: &str) -> Vec<Listed> {
    let mut out: Vec<Listed> = Vec::new();
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("worktree ") {
            out.push(Listed {
                path: PathBuf::from(p),
                head: None,
                branch: None,
            });
        } else if let Some(last) = out.last_mut() {
            if let Some(h) = line.strip_prefix("HEAD ") {
                last.head = Some(h.to_string());
            } else if let Some(b) = line.strip_prefix("branch ") {
                last.branch = Some(b.strip_prefix("refs/heads/").unwrap_or(b).to_string());
            }
        }
    }
    out
}

/// hermes' worktree `name` of the repository `dir` is in.
pub(crate) async fn find(dir: &Path, name: &str) -> Result<Worktree, WorktreeError> {
    let all = list(dir).await.map_err(|why| WorktreeError::Failed {
        name: name.to_string(),
        why,
    })?;
    of(&all, name).ok_or_else(|| WorktreeError::NotFound(name.to_string()))
}

/// hermes' worktree `name` among `all`, when there is one.
pub(super) fn of(all: &[Listed], name: &str) -> Option<Worktree> {
    let branch = format!("{BRANCH_PREFIX}{name}");
    let repo = all.first()?.path.clone();
    all.iter()
        .skip(1)
        .find(|l| l.branch.as_deref() == Some(branch.as_str()))
        .map(|l| Worktree {
            name: name.to_string(),
            branch: branch.clone(),
            path: l.path.clone(),
            repo: repo.clone(),
        })
}

/// hermes' worktree `dir` lies in, when it is one (an editor opened it).
pub(crate) async fn containing(dir: &Path) -> Option<Worktree> {
    let top = git(dir, &["rev-parse", "--show-toplevel"]).await.ok()?;
    let top = std::fs::canonicalize(top.trim()).ok()?;
    let all = list(dir).await.ok()?;
    ours(&all)
        .into_iter()
        .find(|w| std::fs::canonicalize(&w.path).is_ok_and(|p| p == top))
}

/// hermes' worktrees among `all`.
pub(crate) fn ours(all: &[Listed]) -> Vec<Worktree> {
    all.iter()
        .skip(1)
        .filter_map(|l| l.branch.as_deref()?.strip_prefix(BRANCH_PREFIX))
        .filter_map(|name| of(all, name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_porcelain_list_gives_the_main_checkout_first_and_hermes_branches_by_name() {
        let text = "worktree /r\nHEAD 1111\nbranch refs/heads/main\n\n\
                    worktree /d/wt/fix\nHEAD 2222\nbranch refs/heads/hermes/fix\n\n\
                    worktree /d/other\nHEAD 3333\ndetached\n\n\
                    worktree /d/mine\nHEAD 4444\nbranch refs/heads/feature\nlocked\n";
        let all = parse(text);
        assert_eq!(all.len(), 4);
        assert_eq!(all[2].branch, None);
        let fix = of(&all, "fix").unwrap();
        assert_eq!(fix.path, PathBuf::from("/d/wt/fix"));
        assert_eq!(fix.repo, PathBuf::from("/r"));
        assert_eq!(fix.branch, "hermes/fix");
        assert!(of(&all, "feature").is_none());
        assert_eq!(ours(&all), vec![fix]);
    }
}
