//! What a worktree changed since it left its repository's HEAD — its
//! commits and the files in its folder not yet committed, new ones
//! included — and what may be done with it: merged into the checkout the
//! person is in, or removed.

use std::path::{Path, PathBuf};

use super::found::{find, git, GIT_WAIT};
use super::{Worktree, WorktreeError};
use crate::util::git_quiet;

/// `git diff ARGS BASE` of everything in the worktree — committed or not,
/// new files too — against where it forked from the main checkout's HEAD.
/// The person's index is left alone: git reads the folder through an
/// index of hermes' own.
async fn against_base(wt: &Worktree, args: &[&str]) -> Result<String, String> {
    let base = fork_point(wt).await?;
    let index = scratch_index();
    let env = [("GIT_INDEX_FILE", index.as_os_str())];
    let mut diff = vec!["diff", "--cached"];
    diff.extend_from_slice(args);
    diff.push(base.trim());
    let mut result = Ok(String::new());
    for a in [&["read-tree", "HEAD"][..], &["add", "-A"], &diff] {
        result = git_quiet::run_with(&wt.path, a, GIT_WAIT, &env).await;
        if result.is_err() {
            break;
        }
    }
    let _ = std::fs::remove_file(&index);
    result
}

/// Where the worktree's branch left the main checkout's HEAD.
async fn fork_point(wt: &Worktree) -> Result<String, String> {
    let main_head = git(&wt.repo, &["rev-parse", "HEAD"]).await?;
    git(&wt.path, &["merge-base", "HEAD", main_head.trim()]).await
}

fn scratch_index() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "hermes-index-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// What changed, as `git diff --stat` draws it, and the commits made:
/// "" when nothing did.
pub(crate) async fn diffstat(wt: &Worktree) -> Result<String, String> {
    let stat = against_base(wt, &["--stat=100"]).await?;
    let base = fork_point(wt).await?;
    let commits = git(
        &wt.path,
        &["rev-list", "--count", &format!("{}..HEAD", base.trim())],
    )
    .await
    .ok()
    .and_then(|n| n.trim().parse::<u64>().ok())
    .unwrap_or(0);
    let mut out = stat;
    if commits > 0 {
        out.push_str(&format!(
            " {commits} commit{} on {}\n",
            if commits == 1 { "" } else { "s" },
            wt.branch
        ));
    }
    Ok(out)
}

/// The whole patch of what changed.
pub(crate) async fn diff(wt: &Worktree) -> Result<String, String> {
    against_base(wt, &["--patch", "--no-ext-diff", "--no-textconv"]).await
}

/// The files the worktree has not committed (`git status --porcelain`).
pub(crate) async fn uncommitted(wt: &Worktree) -> Result<usize, String> {
    let out = git(
        &wt.path,
        &["status", "--porcelain", "--untracked-files=all"],
    )
    .await?;
    Ok(out.lines().filter(|l| !l.trim().is_empty()).count())
}

/// A merge done: the files the worktree had not committed, committed on
/// its branch first; how the branch came in.
#[derive(Debug)]
pub(crate) struct Merged {
    pub worktree: Worktree,
    pub committed: usize,
    pub summary: String,
}

/// `hermes worktree merge NAME`: the worktree's work merged into the
/// branch checked out where the person is (`dir`). Files it has not
/// committed are committed on its branch first. A conflict is reported
/// and the merge taken back: nothing is forced, the checkout is left as
/// it was.
pub(crate) async fn merge(dir: &Path, name: &str) -> Result<Merged, WorktreeError> {
    let wt = find(dir, name).await?;
    let failed = |why: String| WorktreeError::Failed {
        name: name.to_string(),
        why,
    };
    let committed = uncommitted(&wt).await.map_err(failed)?;
    if committed > 0 {
        git(&wt.path, &["add", "-A"]).await.map_err(failed)?;
        git(
            &wt.path,
            &[
                "commit",
                "-q",
                "-m",
                &format!("hermes: the work of worktree {name}"),
            ],
        )
        .await
        .map_err(failed)?;
    }
    let top = git(dir, &["rev-parse", "--show-toplevel"])
        .await
        .map_err(failed)?;
    let top = PathBuf::from(top.trim());
    if top == wt.path {
        return Err(failed(
            "this is the worktree itself: merge it from the checkout it goes into".into(),
        ));
    }
    match git(&top, &["merge", "--no-edit", &wt.branch]).await {
        Ok(out) => Ok(Merged {
            summary: out.lines().next().unwrap_or("merged").trim().to_string(),
            worktree: wt,
            committed,
        }),
        Err(why) => {
            let conflicts = git(&top, &["diff", "--name-only", "--diff-filter=U"])
                .await
                .unwrap_or_default();
            let files: Vec<&str> = conflicts.lines().filter(|l| !l.is_empty()).collect();
            if files.is_empty() {
                return Err(failed(why));
            }
            let _ = git(&top, &["merge", "--abort"]).await;
            Err(failed(format!(
                "merging {} conflicts in {}: nothing was merged (to resolve it by hand: git merge {})",
                wt.branch,
                files.join(", "),
                wt.branch
            )))
        }
    }
}

/// A worktree removed; whether its branch was kept (work not merged).
#[derive(Debug)]
pub(crate) struct Removed {
    pub worktree: Worktree,
    pub branch_kept: bool,
}

/// `hermes worktree remove NAME`: refused while it holds work not
/// committed, unless `force`; its branch deleted when merged (or forced).
pub(crate) async fn remove(dir: &Path, name: &str, force: bool) -> Result<Removed, WorktreeError> {
    let wt = find(dir, name).await?;
    let failed = |why: String| WorktreeError::Failed {
        name: name.to_string(),
        why,
    };
    if !force {
        let n = uncommitted(&wt).await.map_err(failed)?;
        if n > 0 {
            return Err(failed(format!(
                "{n} file{} not committed in {}: merge it first (hermes worktree merge {name}), or remove it with --force",
                if n == 1 { "" } else { "s" },
                wt.path.display()
            )));
        }
    }
    let path = wt.path.to_string_lossy().into_owned();
    let mut args = vec!["worktree", "remove"];
    if force {
        args.push("--force");
    }
    args.push(&path);
    git(&wt.repo, &args).await.map_err(failed)?;
    let delete = if force { "-D" } else { "-d" };
    let branch_kept = git(&wt.repo, &["branch", "-q", delete, &wt.branch])
        .await
        .is_err();
    Ok(Removed {
        worktree: wt,
        branch_kept,
    })
}
