//! Worktrees: a session, or a subagent, working in a git worktree of its
//! own on a branch `hermes/NAME`, so parallel work cannot collide — made
//! or found again (`open`), listed and found by name (`found`), and what
//! one changed, merged or removed (`changes`). Every git call is hermes'
//! own, quiet (`util::git_quiet`): nothing a repository plants runs.

mod changes;
mod error;
mod found;
mod open;

pub(crate) use changes::{diff, diffstat, merge, remove, uncommitted};
pub(crate) use error::WorktreeError;
pub(crate) use found::{containing, find, list, ours, Worktree, BRANCH_PREFIX};
pub(crate) use open::{open, Opened, Spec};
