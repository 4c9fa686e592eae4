//! Why a worktree could not be made, found, merged or removed: one line
//! each that says what to do.

#[derive(Debug, thiserror::Error)]
pub(crate) enum WorktreeError {
    #[error("--worktree: {0} is not in a git repository")]
    NoRepository(String),
    #[error("--worktree: {0} is a bare repository, which has no checkout to branch from")]
    Bare(String),
    #[error("--worktree: HEAD is detached in {0}; a worktree's branch starts from a named commit")]
    Detached(String),
    #[error("--worktree: the repository in {0} has no commit yet to start a branch from")]
    NoCommit(String),
    #[error("worktree name `{0}`: use letters, digits, `.`, `_` and `-` (up to 64, not starting with `.` or `-`)")]
    BadName(String),
    #[error("--worktree {name}: {why}")]
    Git { name: String, why: String },
    #[error(
        "--worktree {name}: the branch {branch} is checked out in {path}, not in a hermes worktree"
    )]
    Elsewhere {
        name: String,
        branch: String,
        path: String,
    },
    #[error("no worktree `{0}` in this repository (`hermes worktree list` shows them)")]
    NotFound(String),
    #[error("worktree {name}: {why}")]
    Failed { name: String, why: String },
}

impl WorktreeError {
    /// What to do about it, for the `hint:` line.
    pub(crate) fn hint(&self) -> &'static str {
        match self {
            WorktreeError::NoRepository(_) => {
                "start hermes inside a git repository (or -C one), or leave out --worktree"
            }
            WorktreeError::Bare(_) => "start hermes in a checkout of the repository",
            WorktreeError::Detached(_) => "name where the branch starts: --worktree-base REF",
            WorktreeError::NoCommit(_) => "commit something first, or leave out --worktree",
            WorktreeError::BadName(_) => "name it like `fix-login` or `task.42`",
            WorktreeError::Git { .. } => "see git's message above; nothing was run",
            WorktreeError::Elsewhere { .. } => "choose another name, or remove that worktree",
            WorktreeError::NotFound(_) => "give one of the names `hermes worktree list` shows",
            WorktreeError::Failed { .. } => "see git's message; nothing was forced",
        }
    }
}
