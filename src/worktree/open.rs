//! `--worktree NAME`: hermes' worktree of that name made — on a new branch
//! `hermes/NAME` from HEAD or `--worktree-base` — or found again (a retried
//! job, a second run). Fail closed: anything short of a worktree of the
//! repository is an error, never the main checkout instead.

use std::path::{Path, PathBuf};

use super::found::{git, list, of};
use super::{Worktree, WorktreeError, BRANCH_PREFIX};

/// What to open.
pub(crate) struct Spec<'a> {
    pub name: &'a str,
    /// Where its branch starts (a new one only); `None`: HEAD.
    pub base: Option<&'a str>,
    /// The folder hermes was started in.
    pub from: &'a Path,
    /// Where worktrees are kept; each repository's in a folder of its own.
    pub dir: &'a Path,
    /// Globs of ignored files copied in when it is made (`.env`).
    pub include: &'a [String],
}

/// A worktree opened: the folder to work in (the one hermes was started
/// in, as the worktree has it), and what the person should know.
#[derive(Debug)]
pub(crate) struct Opened {
    pub worktree: Worktree,
    pub cwd: PathBuf,
    pub notes: Vec<String>,
}

pub(crate) async fn open(spec: &Spec<'_>) -> Result<Opened, WorktreeError> {
    let name = spec.name;
    check_name(name)?;
    let shown = spec.from.display().to_string();
    let failed = |why: String| WorktreeError::Git {
        name: name.to_string(),
        why,
    };
    // One call in the usual case; a second tells a bare repository from
    // none when it fails.
    let top = match git(spec.from, &["rev-parse", "--show-toplevel"]).await {
        Ok(t) => PathBuf::from(t.trim()),
        Err(_) => {
            return Err(
                match git(spec.from, &["rev-parse", "--is-bare-repository"]).await {
                    Ok(b) if b.trim() == "true" => WorktreeError::Bare(shown),
                    _ => WorktreeError::NoRepository(shown),
                },
            )
        }
    };
    let mut all = list(spec.from).await.map_err(failed)?;
    if of(&all, name).is_some_and(|w| !w.path.is_dir()) {
        // Its folder was deleted by hand: git forgets it, and it is made
        // again.
        let _ = git(spec.from, &["worktree", "prune"]).await;
        all = list(spec.from).await.map_err(failed)?;
    }
    let from = std::fs::canonicalize(spec.from).unwrap_or_else(|_| spec.from.to_path_buf());
    let inside = |w: &Path| {
        from.strip_prefix(&top)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
            .map(|rel| w.join(rel))
    };
    let mut notes = Vec::new();
    if let Some(found) = of(&all, name) {
        if spec.base.is_some() {
            notes.push(format!(
                "worktree {name} exists: continuing it where it is (--worktree-base is for a new one)"
            ));
        }
        let cwd = inside(&found.path)
            .filter(|d| d.is_dir())
            .unwrap_or_else(|| found.path.clone());
        return Ok(Opened {
            worktree: found,
            cwd,
            notes,
        });
    }
    let branch = format!("{BRANCH_PREFIX}{name}");
    if let Some(l) = all
        .iter()
        .find(|l| l.branch.as_deref() == Some(branch.as_str()))
    {
        return Err(WorktreeError::Elsewhere {
            name: name.to_string(),
            branch,
            path: l.path.display().to_string(),
        });
    }
    let branch_ref = format!("refs/heads/{branch}");
    let has_branch = git(spec.from, &["rev-parse", "--verify", "-q", &branch_ref])
        .await
        .is_ok();
    let base = if has_branch {
        None
    } else {
        Some(match spec.base {
            Some(r) => git(
                spec.from,
                &["rev-parse", "--verify", "-q", &format!("{r}^{{commit}}")],
            )
            .await
            .map_err(|_| failed(format!("--worktree-base {r}: no such commit")))?,
            None => {
                if git(spec.from, &["rev-parse", "--verify", "-q", "HEAD"])
                    .await
                    .is_err()
                {
                    return Err(WorktreeError::NoCommit(shown));
                }
                if git(spec.from, &["symbolic-ref", "-q", "HEAD"])
                    .await
                    .is_err()
                {
                    return Err(WorktreeError::Detached(shown));
                }
                git(spec.from, &["rev-parse", "HEAD"])
                    .await
                    .map_err(failed)?
            }
        })
    };
    let main = all.first().map_or(top.clone(), |l| l.path.clone());
    let dir = if spec.dir.is_absolute() {
        spec.dir.to_path_buf()
    } else {
        top.join(spec.dir)
    };
    let target = dir.join(repo_key(&main)).join(name);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| failed(format!("cannot make {}: {e}", parent.display())))?;
    }
    let t = target.to_string_lossy().into_owned();
    let added = match &base {
        Some(commit) => {
            git(
                spec.from,
                &["worktree", "add", "-q", "-b", &branch, &t, commit.trim()],
            )
            .await
        }
        None => git(spec.from, &["worktree", "add", "-q", &t, &branch]).await,
    };
    added.map_err(failed)?;
    let worktree = Worktree {
        name: name.to_string(),
        branch,
        path: std::fs::canonicalize(&target).unwrap_or(target),
        repo: main,
    };
    if !spec.include.is_empty() {
        match copy_included(&top, &worktree.path, spec.include).await {
            Ok(0) => {}
            Ok(n) => notes.push(format!(
                "worktree {name}: {n} ignored file{} copied in ([worktree] include)",
                if n == 1 { "" } else { "s" }
            )),
            Err(why) => notes.push(format!("worktree {name}: [worktree] include: {why}")),
        }
    }
    let cwd = inside(&worktree.path)
        .filter(|d| d.is_dir())
        .unwrap_or_else(|| worktree.path.clone());
    Ok(Opened {
        worktree,
        cwd,
        notes,
    })
}

/// A name git takes as part of a branch name, and a folder name.
fn check_name(name: &str) -> Result<(), WorktreeError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && !name.ends_with(".lock")
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(WorktreeError::BadName(name.to_string()))
    }
}

/// A repository's folder under the worktrees folder: its checkout's name
/// and a hash of its path, so two clones named alike do not meet.
fn repo_key(main: &Path) -> String {
    let base: String = main
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let hash = crate::util::hash::sha256_hex(main.as_os_str().as_encoded_bytes());
    format!("{}-{}", base.trim_start_matches('.'), &hash[..8])
}

/// The ignored files of the checkout at `top` that an `include` glob
/// names (by path, or by file name for a glob without `/`), copied to the
/// same place in `to`: regular files only, no link followed. How many.
async fn copy_included(top: &Path, to: &Path, include: &[String]) -> Result<usize, String> {
    let listed = git(
        top,
        &[
            "ls-files",
            "-z",
            "--others",
            "--ignored",
            "--exclude-standard",
        ],
    )
    .await?;
    let mut n = 0;
    for rel in listed.split('\0').filter(|r| !r.is_empty()) {
        let file_name = rel.rsplit('/').next().unwrap_or(rel);
        let wanted = include.iter().any(|g| {
            crate::util::glob::glob_match(g, rel)
                || (!g.contains('/') && crate::util::glob::glob_match(g, file_name))
        });
        if !wanted || rel.split('/').any(|c| c == "..") {
            continue;
        }
        let src = top.join(rel);
        if !std::fs::symlink_metadata(&src).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let dst = to.join(rel);
        if let Some(p) = dst.parent() {
            std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        std::fs::copy(&src, &dst).map_err(|e| format!("{rel}: {e}"))?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_one_a_branch_and_a_folder_can_take() {
        for good in ["fix-login", "task.42", "a", "A_b-9"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "-x",
            ".x",
            "a/b",
            "a..b",
            "x.lock",
            "ä",
            "a b",
            &"x".repeat(65),
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn two_checkouts_named_alike_get_folders_of_their_own() {
        let a = repo_key(Path::new("/home/p/one/app"));
        let b = repo_key(Path::new("/home/p/two/app"));
        assert!(a.starts_with("app-") && b.starts_with("app-"));
        assert_ne!(a, b);
        assert_eq!(
            repo_key(Path::new("/x/.hidden repo")).len(),
            "hidden_repo-".len() + 8
        );
    }
}
