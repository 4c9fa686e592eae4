//! `/diff [N]`: what changed, drawn as a coloured diff. Without N, the
//! folder's uncommitted changes — `git diff HEAD` and the files git does
//! not track yet — or, outside a git repository, what the session's last
//! turn that changed files did; with N, what turn N changed (from its
//! checkpoints, so a later turn's or the person's own edits are not
//! mixed in).

use std::path::Path;
use std::time::Duration;

use super::context::ReplContext;
use crate::agent::Agent;
use crate::checkpoint::{diff, turns, Keep};
use crate::util::sanitize::clean;

/// The most lines drawn; the rest are counted.
const MAX_LINES: usize = 2000;

/// How long git may take.
const GIT_WAIT: Duration = Duration::from_secs(10);

/// The largest untracked file shown whole.
const MAX_UNTRACKED: u64 = 256 << 10;

pub(super) async fn command(agent: &Agent, ctx: &ReplContext<'_>, args: &str) {
    let arg = args.trim();
    let all = match turns::of_session(agent.session().path()) {
        Ok(t) => t,
        Err(e) => {
            errln!("error: {e}");
            return;
        }
    };
    let keep = Keep::new(
        crate::session::blob_folder(&ctx.settings.paths.sessions_dir()),
        0,
    );
    let shown = |p: &Path| clean(&crate::util::path::shown_from(p, ctx.cwd));
    let text = if arg.is_empty() {
        match folder(ctx.cwd).await {
            Ok(d) if d.is_empty() => {
                errln!("no uncommitted changes in this folder (/diff N shows what turn N changed)");
                return;
            }
            Ok(d) => d,
            Err(why) => {
                let Some(last) = all.iter().rev().find(|t| !t.changes.is_empty()) else {
                    errln!("{why}, and no turn of this session changed a file");
                    return;
                };
                errln!(
                    "{why}; what turn {} changed (/diff N for another):",
                    last.number
                );
                match diff::of_turn(&all, last.number, &keep, shown) {
                    Ok(d) => d,
                    Err(e) => {
                        errln!("{e}");
                        return;
                    }
                }
            }
        }
    } else {
        let Ok(n) = arg.parse::<usize>() else {
            errln!(
                "`{arg}` is not a turn number; /diff alone shows the folder's uncommitted changes"
            );
            return;
        };
        match diff::of_turn(&all, n, &keep, shown) {
            Ok(d) => d,
            Err(e) => {
                errln!("{e}");
                return;
            }
        }
    };
    draw(&text);
}

/// Each line coloured as a diff's, at most [`MAX_LINES`].
fn draw(text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    for l in lines.iter().take(MAX_LINES) {
        crate::util::stderr::diff_line("", l);
    }
    if lines.len() > MAX_LINES {
        errln!("… {} more lines not shown", lines.len() - MAX_LINES);
    }
}

/// The folder's uncommitted changes as git sees them: `git diff HEAD`,
/// then each untracked file as new. `Err` when git cannot say (not a
/// repository, no git).
async fn folder(cwd: &Path) -> Result<String, String> {
    // First: outside a repository `git diff` compares paths instead.
    let top = git(cwd, &["rev-parse", "--show-toplevel"]).await?;
    let top = Path::new(top.trim());
    // A repository without a commit yet: against the empty tree.
    let base = match git(cwd, &["rev-parse", "--verify", "-q", "HEAD"]).await {
        Ok(_) => "HEAD".to_string(),
        Err(_) => git(cwd, &["hash-object", "-t", "tree", "/dev/null"])
            .await?
            .trim()
            .to_string(),
    };
    let tracked = git(
        cwd,
        &[
            "diff",
            &base,
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
        ],
    )
    .await?;
    let untracked = git(
        cwd,
        &[
            "ls-files",
            "--others",
            "--exclude-standard",
            "-z",
            "--full-name",
        ],
    )
    .await?;
    let mut out = tracked;
    for name in untracked.split('\0').filter(|n| !n.is_empty()) {
        out.push_str(&new_file(&top.join(name), name));
    }
    Ok(out)
}

/// An untracked file as a diff that makes it.
fn new_file(path: &Path, name: &str) -> String {
    let big = std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_UNTRACKED);
    match std::fs::read(path)
        .ok()
        .filter(|_| !big)
        .map(String::from_utf8)
    {
        Some(Ok(text)) if !text.contains('\0') => {
            let mut d = similar::TextDiff::from_lines("", text.as_str())
                .unified_diff()
                .header("/dev/null", &format!("b/{name}"))
                .to_string();
            if !d.ends_with('\n') {
                d.push('\n');
            }
            d
        }
        _ => format!("# {name}: a new file, binary or large, not shown\n"),
    }
}

/// `git ARGS` in `cwd`, quiet: its stdout, or why it could not run.
async fn git(cwd: &Path, args: &[&str]) -> Result<String, String> {
    crate::util::git_quiet::run(cwd, args, GIT_WAIT).await
}
