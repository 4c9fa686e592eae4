//! Landlock and seccomp, prepared in hermes and entered in the child.

use std::os::fd::{AsRawFd, OwnedFd};

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use super::{Policy, SandboxError};

/// The newest Landlock ABI whose rights hermes asks for; an older kernel
/// enforces what it knows (best effort), a kernel without Landlock none.
const FS_ABI: ABI = ABI::V5;

/// Devices a command may write to wherever it runs.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/random",
    "/dev/urandom",
    "/dev/shm",
];

/// A sandbox ready to enter: a Landlock ruleset and, without network, a
/// seccomp filter.
pub(crate) struct Prepared {
    ruleset: OwnedFd,
    filter: Option<BpfProgram>,
}

impl Prepared {
    pub(crate) fn new(policy: &Policy) -> Result<Prepared, SandboxError> {
        let setup = |e: landlock::RulesetError| SandboxError::Setup(e.to_string());
        let mut ruleset = Ruleset::default()
            .handle_access(AccessFs::from_all(FS_ABI))
            .map_err(setup)?;
        if !policy.network {
            ruleset = ruleset
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                .map_err(setup)?;
        }
        let created = ruleset
            .create()
            .map_err(setup)?
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(FS_ABI)))
            .map_err(setup)?
            .add_rules(path_beneath_rules(
                &policy.writable,
                AccessFs::from_all(FS_ABI),
            ))
            .map_err(setup)?
            .add_rules(path_beneath_rules(DEVICES, AccessFs::from_all(FS_ABI)))
            .map_err(setup)?;
        let ruleset: Option<OwnedFd> = created.into();
        let Some(ruleset) = ruleset else {
            return Err(SandboxError::Unsupported(
                "the kernel has no Landlock, or it is not enabled".into(),
            ));
        };
        let filter = if policy.network {
            None
        } else {
            Some(no_network()?)
        };
        Ok(Prepared { ruleset, filter })
    }

    /// Enters the sandbox: for the child, after fork and before exec. Only
    /// system calls — nothing here allocates or takes a lock.
    pub(crate) fn enter(&self) -> std::io::Result<()> {
        let check = |rc: libc::c_long| {
            if rc < 0 {
                Err(std::io::Error::last_os_error())
            } else {
                Ok(())
            }
        };
        // SAFETY: prctl and the two syscalls take plain integers and a
        // pointer to a program that lives in `self`, which outlives them.
        unsafe {
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) as libc::c_long)?;
            check(libc::syscall(
                libc::SYS_landlock_restrict_self,
                self.ruleset.as_raw_fd(),
                0,
            ))?;
            if let Some(filter) = &self.filter {
                let prog = libc::sock_fprog {
                    len: filter.len() as u16,
                    filter: filter.as_ptr() as *mut libc::sock_filter,
                };
                check(libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0,
                    &prog as *const libc::sock_fprog,
                ))?;
            }
        }
        Ok(())
    }
}

/// IP and packet sockets, and io_uring (which can open sockets without the
/// `socket` call), refused with EPERM; everything else allowed — Unix
/// sockets included, which local tools use to talk to each other.
fn no_network() -> Result<BpfProgram, SandboxError> {
    let setup = |e: seccompiler::BackendError| SandboxError::Setup(e.to_string());
    let arch = std::env::consts::ARCH.try_into().map_err(|_| {
        SandboxError::Setup(format!("no seccomp support for {}", std::env::consts::ARCH))
    })?;
    let domain = |d: i32| -> Result<SeccompRule, SandboxError> {
        let cond = SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, d as u64)
            .map_err(setup)?;
        SeccompRule::new(vec![cond]).map_err(setup)
    };
    let rules = [
        (
            libc::SYS_socket,
            vec![
                domain(libc::AF_INET)?,
                domain(libc::AF_INET6)?,
                domain(libc::AF_PACKET)?,
            ],
        ),
        (libc::SYS_io_uring_setup, Vec::new()),
    ]
    .into_iter()
    .collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(setup)?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| SandboxError::Setup(e.to_string()))
}
