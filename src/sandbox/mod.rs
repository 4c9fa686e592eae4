//! The OS sandbox the built-in `shell` runs commands in — the kernel's
//! refusal, not string matching (docs/tools.md, "The sandbox"). Each command
//! runs under a helper, hermes' own binary started as `hermes
//! __hermes_sandbox` ([`helper`]), in a new session (no controlling
//! terminal: nothing it does reaches hermes' screen or keyboard) and:
//!
//! - with user namespaces (this kernel's default for root and normal users):
//!   a view of the system that is read-only but for the writable folders,
//!   the control paths inside those read-only again, a `/dev` without a
//!   `tty`, a PID namespace whose `/proc` shows only the command's own
//!   processes, all of which die with it ([`namespace`]);
//! - without them (`[tools.shell] sandbox = "landlock"`, or a kernel that
//!   refuses): Landlock and seccomp only, owner and xattr changes refused
//!   everywhere, what the command left behind ended by the helper;
//! - in a session's own network namespace, where one can be made: its
//!   loopback shared by the session's commands, nothing else ([`netns`]);
//! - both ways: no capabilities, Landlock (writes beneath the writable
//!   folders, no TCP, no abstract sockets or signals out), and a seccomp
//!   filter refusing every socket but socketpair ([`seccomp`]).

#[cfg(target_os = "linux")]
mod cgroup;
pub(crate) mod for_hooks;
pub(crate) mod git_view;
pub(crate) mod held;
#[cfg(target_os = "linux")]
pub(crate) mod helper;
mod homes;
pub(crate) mod kept;
#[cfg(target_os = "linux")]
mod landlock;
mod launch;
#[cfg(target_os = "linux")]
mod namespace;
#[cfg(target_os = "linux")]
pub(crate) mod netns;
#[cfg(target_os = "linux")]
pub(crate) mod orphans;
mod review;
#[cfg(target_os = "linux")]
pub(crate) mod seccomp;
mod snapshot;
mod stage;

pub(crate) use launch::{
    command, helper_exe, namespaces_available, serve_from_this_binary, setup_failure, use_helper,
    Policy, SandboxError,
};
pub(crate) use review::{ChangeKind, Changes, FileChange, Seen};
pub(crate) use snapshot::Snapshot;
pub(crate) use stage::{HeldBack, Stage};
