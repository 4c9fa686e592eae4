//! `hermes worktree list|diff|merge|remove`: hermes' worktrees of the
//! repository hermes is started in — what `--worktree NAME` and
//! subagents' `isolation: "worktree"` made — looked at, merged into the
//! checkout the person is in, or removed.

use clap::Subcommand;

use super::Context;
use crate::app::CommandError;
use crate::util::sanitize::clean;

#[derive(Debug, Subcommand)]
pub(crate) enum WorktreeCommand {
    /// hermes' worktrees of this repository: name, branch, folder, and
    /// how many files each has not committed.
    List,
    /// What a worktree changed since it left HEAD, committed or not.
    Diff {
        name: String,
        /// Only the files and their lines added and removed.
        #[arg(long)]
        stat: bool,
    },
    /// Merge a worktree's branch into the branch checked out here (what
    /// it has not committed is committed on its branch first). A conflict
    /// is reported and the merge taken back, never forced.
    Merge { name: String },
    /// Remove a worktree, and its branch once merged. Refused while it
    /// holds files not committed, unless --force (which also deletes a
    /// branch not merged).
    Remove {
        name: String,
        #[arg(long)]
        force: bool,
    },
}

pub(crate) async fn run(
    cmd: &WorktreeCommand,
    json: bool,
    ctx: &Context<'_>,
) -> Result<(), CommandError> {
    let not_repo = |why: String| {
        CommandError::usage(
            format!("hermes worktree: {why}"),
            "run it inside the repository whose worktrees you mean (or -C it)",
        )
    };
    match cmd {
        WorktreeCommand::List => {
            let all = crate::worktree::list(ctx.cwd).await.map_err(not_repo)?;
            let ours = crate::worktree::ours(&all);
            let mut rows = Vec::new();
            for w in &ours {
                rows.push((w, crate::worktree::uncommitted(w).await.ok()));
            }
            if json {
                let list: Vec<serde_json::Value> = rows
                    .iter()
                    .map(|(w, n)| {
                        serde_json::json!({
                            "name": w.name, "branch": w.branch, "path": w.path,
                            "repo": w.repo, "uncommitted": n,
                        })
                    })
                    .collect();
                outln!("{}", serde_json::Value::Array(list));
                return Ok(());
            }
            if rows.is_empty() {
                errln!("no hermes worktrees in this repository (hermes --worktree NAME makes one)");
            }
            for (w, n) in rows {
                let state = match n {
                    Some(0) => "clean".to_string(),
                    Some(n) => format!("{n} not committed"),
                    None => "unreadable".to_string(),
                };
                outln!(
                    "{}  {}  {}  {state}",
                    clean(&w.name),
                    clean(&w.branch),
                    clean(&w.path.display().to_string())
                );
            }
            Ok(())
        }
        WorktreeCommand::Diff { name, stat } => {
            let wt = crate::worktree::find(ctx.cwd, name).await?;
            let text = if *stat {
                crate::worktree::diffstat(&wt).await
            } else {
                crate::worktree::diff(&wt).await
            }
            .map_err(|why| CommandError::runtime(format!("worktree {name}: {why}"), None))?;
            if text.trim().is_empty() {
                errln!("worktree {name}: nothing changed since it left HEAD");
            }
            crate::frontend::out(clean(&text).as_bytes());
            Ok(())
        }
        WorktreeCommand::Merge { name } => {
            let m = crate::worktree::merge(ctx.cwd, name).await?;
            if m.committed > 0 {
                errln!(
                    "committed {} file{} on {} first",
                    m.committed,
                    if m.committed == 1 { "" } else { "s" },
                    m.worktree.branch
                );
            }
            outln!("merged {}: {}", m.worktree.branch, clean(&m.summary));
            outln!(
                "to remove the worktree: hermes worktree remove {}",
                m.worktree.name
            );
            Ok(())
        }
        WorktreeCommand::Remove { name, force } => {
            let r = crate::worktree::remove(ctx.cwd, name, *force).await?;
            outln!(
                "removed worktree {} ({})",
                r.worktree.name,
                clean(&r.worktree.path.display().to_string())
            );
            if r.branch_kept {
                outln!(
                    "kept the branch {}: it is not merged (git branch -D {} deletes it)",
                    r.worktree.branch,
                    r.worktree.branch
                );
            }
            Ok(())
        }
    }
}
