//! A command made to run in the sandbox: the policy it runs under, the
//! helper that builds it, and whether the kernel gives user namespaces.

use super::stage::Stage;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Policy {
    /// Folders (and files) it may write under: the working folder, the temp
    /// folder, what `[tools.shell] writable` adds.
    pub(crate) writable: Vec<PathBuf>,
    /// Paths inside those it may not change: the control paths.
    pub(crate) protected: Vec<PathBuf>,
    /// Whether it may open network connections.
    pub(crate) network: bool,
    /// Whether to build the namespace view, or Landlock and seccomp only.
    pub(crate) namespaces: bool,
    /// Absent inside (namespaces only).
    pub(crate) hidden: Vec<PathBuf>,
    /// Where the writable roots' changes wait for review, first choice
    /// first (namespaces only; none: they land as written).
    pub(crate) stage: Vec<PathBuf>,
    pub(crate) max_processes: u64,
    pub(crate) max_memory_mb: u64,
    /// The session's loopback its commands join (namespaces only, and
    /// only without `network`, which opens the host's).
    #[cfg(target_os = "linux")]
    pub(crate) loopback: Option<std::sync::Arc<super::netns::SessionNet>>,
    /// The port of that loopback hermes' proxy listens on, when commands
    /// reach what `[network] allow` names.
    pub(crate) proxy: Option<u16>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum SandboxError {
    /// The kernel cannot sandbox (not on Linux).
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    #[error("this system cannot sandbox commands ({0})")]
    Unsupported(String),
    #[error("cannot set up the sandbox: {0}")]
    Setup(String),
}

/// The executable that serves as the helper: hermes itself. Unset in a
/// test harness or a benchmark that links the library, unless it names one.
static HELPER: OnceLock<PathBuf> = OnceLock::new();

/// For the hermes binary: the helper is this executable (its inode, even
/// after `hermes update` replaced the file).
pub(crate) fn serve_from_this_binary() {
    let _ = HELPER.set(PathBuf::from("/proc/self/exe"));
}

/// The hermes binary sandbox processes are started from, when there is one.
pub(crate) fn helper_exe() -> Option<PathBuf> {
    HELPER.get().cloned()
}

/// For benchmarks and tests that link the library: the hermes binary to
/// run as the helper.
pub(crate) fn use_helper(exe: PathBuf) {
    let _ = HELPER.set(exe);
}

/// Whether this kernel lets hermes' user enter new user, mount and PID
/// namespaces; asked once a run, by a child that tries and exits.
pub(crate) fn namespaces_available() -> Result<(), String> {
    static ANSWER: OnceLock<Result<(), String>> = OnceLock::new();
    ANSWER.get_or_init(probe).clone()
}

#[cfg(target_os = "linux")]
fn probe() -> Result<(), String> {
    // SAFETY: the child only calls unshare and _exit, which are
    // async-signal-safe; the parent waits for it.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        if pid == 0 {
            let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID;
            let code = if libc::unshare(flags) == 0 {
                0
            } else {
                *libc::__errno_location()
            };
            libc::_exit(code.clamp(0, 255));
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return Err(std::io::Error::last_os_error().to_string());
            }
        }
        match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
            Some(0) => Ok(()),
            Some(e) => Err(std::io::Error::from_raw_os_error(e).to_string()),
            None => Err("the probe was killed".into()),
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Result<(), String> {
    Err("not Linux".into())
}

/// The command that runs `program` in `dir` under `policy`: the helper
/// with the policy as its arguments. Paths are made real (symlinks
/// resolved) here, once: the helper binds them where they really are.
pub(crate) fn command(
    policy: &Policy,
    dir: &Path,
    program: &[OsString],
) -> Result<(tokio::process::Command, Option<Stage>), SandboxError> {
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (policy, dir, program);
        Err(SandboxError::Unsupported(
            "the shell sandbox is built on Linux's namespaces, Landlock and seccomp".into(),
        ))
    }
    #[cfg(target_os = "linux")]
    command_linux(policy, dir, program)
}

#[cfg(target_os = "linux")]
fn command_linux(
    policy: &Policy,
    dir: &Path,
    program: &[OsString],
) -> Result<(tokio::process::Command, Option<Stage>), SandboxError> {
    let exe = HELPER.get().ok_or_else(|| {
        SandboxError::Setup("the sandbox runs through the hermes binary, not this program".into())
    })?;
    let real = |p: &PathBuf| std::fs::canonicalize(p).ok();
    let mut writable: Vec<PathBuf> = policy.writable.iter().filter_map(real).collect();
    writable.sort_by_key(|p| p.components().count());
    writable.dedup();
    let mut protected: Vec<PathBuf> = policy
        .protected
        .iter()
        .filter_map(real)
        .filter(|p| writable.iter().any(|w| p.starts_with(w) && p != w))
        .collect();
    protected.sort_by_key(|p| p.components().count());
    protected.dedup();
    // Fail closed: a command whose changes cannot wait in a private stage
    // does not run — never a silent run without the review.
    let stage = if policy.namespaces && !policy.stage.is_empty() {
        Some(Stage::new(&policy.stage, &writable, dir).map_err(|why| {
            SandboxError::Setup(format!(
                "no private folder for the command's changes to wait in ({why})"
            ))
        })?)
    } else {
        None
    };
    let mut hidden: Vec<PathBuf> = policy.hidden.iter().filter_map(real).collect();
    hidden.extend(stage.as_ref().map(|s| s.base().to_path_buf()));
    let loopback = policy
        .loopback
        .clone()
        .filter(|_| policy.namespaces && !policy.network);
    let args = super::helper::Args {
        namespaces: policy.namespaces,
        network: policy.network,
        join: loopback.is_some(),
        proxy: policy.proxy.filter(|_| loopback.is_some()),
        cwd: real(&dir.to_path_buf()).unwrap_or_else(|| dir.to_path_buf()),
        writable,
        overlays: stage
            .as_ref()
            .map(|s| s.overlays.clone())
            .unwrap_or_default(),
        protected,
        hidden,
        max_processes: policy.max_processes,
        max_memory_mb: policy.max_memory_mb,
        program: program.to_vec(),
    };
    let mut cmd = tokio::process::Command::new(exe);
    cmd.arg(super::helper::HELPER_ARG).args(args.to_args());
    if let Some(net) = loopback {
        let (user, netfd) = net.fds();
        // SAFETY: dup2 is async-signal-safe; the descriptors stay open in
        // hermes (`net` is moved into the closure) until the helper has
        // started. dup2 leaves the copies open across exec.
        unsafe {
            cmd.pre_exec(move || {
                let _keep = &net;
                // Above both targets first, so neither copy overwrites
                // the other's source.
                let high = [user, netfd].map(|fd| libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10));
                for (from, to) in high
                    .into_iter()
                    .zip([super::netns::USER_FD, super::netns::NET_FD])
                {
                    if from < 0 || libc::dup2(from, to) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }
    Ok((cmd, stage))
}

/// A line the helper wrote about a setup that failed, if `output` ends
/// with one and `code` says so.
#[cfg(target_os = "linux")]
pub(crate) fn setup_failure(code: Option<i32>, output: &str) -> Option<String> {
    if code != Some(super::helper::SETUP_EXIT) {
        return None;
    }
    output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(super::helper::FAILED))
        .map(str::to_string)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn setup_failure(_: Option<i32>, _: &str) -> Option<String> {
    None
}
