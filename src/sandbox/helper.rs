//! The sandbox helper: hermes' own binary run as `hermes __hermes_sandbox
//! …` for each `shell` command, a fresh single-threaded process that may
//! allocate, fork and enter namespaces freely — which a forked child of
//! hermes' runtime may not. It builds the sandbox, runs the command in it,
//! waits, and exits as the command did.
//!
//! Arguments: `--ns` (namespaces) or `--landlock` (Landlock and seccomp
//! only), `--net`, `--cwd DIR`, `--rw PATH`…, `--ov ROOT UPPER WORK`… (a
//! writable root whose writes go to UPPER, reviewed by hermes before they
//! land), `--ro PATH`…, `--hide PATH`…, `--procs N`, `--mem MB`, `--join`
//! (enter the session's user and network namespaces, given as descriptors
//! 3 and 4: its loopback, [`super::netns`]), then `--` and the program
//! with its arguments. A setup failure is one line
//! on stderr starting [`FAILED`], and exit code [`SETUP_EXIT`].

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use super::{namespace, netns, seccomp};

/// The argument that makes a hermes process the sandbox helper.
pub(crate) const HELPER_ARG: &str = "__hermes_sandbox";
/// How a line about a failed setup starts.
pub(crate) const FAILED: &str = "hermes sandbox: ";
/// The exit code of a failed setup (as `env` and `timeout` use 125).
pub(crate) const SETUP_EXIT: i32 = 125;

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Args {
    pub namespaces: bool,
    pub network: bool,
    /// Join the session's network namespace (descriptors 3 and 4).
    pub join: bool,
    /// The port of the session's loopback hermes' proxy listens on: the
    /// command finds it in `HTTP_PROXY` and its kin.
    pub proxy: Option<u16>,
    pub cwd: PathBuf,
    pub writable: Vec<PathBuf>,
    /// Writable roots seen through an overlay: (root, upper, work).
    pub overlays: Vec<(PathBuf, PathBuf, PathBuf)>,
    pub protected: Vec<PathBuf>,
    /// Absent inside: an empty folder, or an empty file, over each.
    pub hidden: Vec<PathBuf>,
    /// Processes the command may have at once (0: no bound).
    pub max_processes: u64,
    /// Memory each of its processes may take, in MiB (0: no bound).
    pub max_memory_mb: u64,
    pub program: Vec<OsString>,
}

impl Args {
    /// The helper's arguments after [`HELPER_ARG`].
    pub(crate) fn to_args(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![if self.namespaces {
            "--ns"
        } else {
            "--landlock"
        }
        .into()];
        if self.network {
            out.push("--net".into());
        }
        if self.join {
            out.push("--join".into());
        }
        if let Some(p) = self.proxy {
            out.push("--proxy".into());
            out.push(p.to_string().into());
        }
        out.push("--cwd".into());
        out.push(self.cwd.clone().into());
        for (flag, paths) in [
            ("--rw", &self.writable),
            ("--ro", &self.protected),
            ("--hide", &self.hidden),
        ] {
            for p in paths {
                out.push(flag.into());
                out.push(p.clone().into());
            }
        }
        for (root, upper, work) in &self.overlays {
            out.extend(["--ov".into(), root.into(), upper.into(), work.into()]);
        }
        for (flag, n) in [
            ("--procs", self.max_processes),
            ("--mem", self.max_memory_mb),
        ] {
            out.push(flag.into());
            out.push(n.to_string().into());
        }
        out.push("--".into());
        out.extend(self.program.iter().cloned());
        out
    }

    pub(crate) fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Args, String> {
        let mut a = Args::default();
        while let Some(flag) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .map(PathBuf::from)
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match flag.to_str() {
                Some("--ns") => a.namespaces = true,
                Some("--landlock") => a.namespaces = false,
                Some("--net") => a.network = true,
                Some("--join") => a.join = true,
                Some("--cwd") => a.cwd = value("--cwd")?,
                Some("--rw") => a.writable.push(value("--rw")?),
                Some("--ro") => a.protected.push(value("--ro")?),
                Some("--hide") => a.hidden.push(value("--hide")?),
                Some("--ov") => {
                    let root = value("--ov")?;
                    let upper = value("--ov")?;
                    a.overlays.push((root, upper, value("--ov")?));
                }
                Some("--proxy") => {
                    a.proxy = Some(
                        value("--proxy")?
                            .to_str()
                            .and_then(|n| n.parse::<u16>().ok())
                            .ok_or("--proxy needs a port")?,
                    )
                }
                Some(flag @ ("--procs" | "--mem")) => {
                    let n = value(flag)?
                        .to_str()
                        .and_then(|n| n.parse::<u64>().ok())
                        .ok_or_else(|| format!("{flag} needs a number"))?;
                    if flag == "--procs" {
                        a.max_processes = n;
                    } else {
                        a.max_memory_mb = n;
                    }
                }
                Some("--") => {
                    a.program = args.collect();
                    break;
                }
                _ => return Err(format!("unknown argument {}", flag.to_string_lossy())),
            }
        }
        if a.program.is_empty() {
            return Err("no program to run".into());
        }
        Ok(a)
    }
}

/// The proxy variables every common tool reads (curl, git, pip, npm,
/// cargo, Python's and Node's HTTP clients): hermes' proxy for http and
/// https, never for the command's own loopback. The child has one thread:
/// nothing else reads the environment while it is set.
fn set_proxy(port: u16) {
    let url = format!("http://127.0.0.1:{port}");
    for key in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
        std::env::set_var(key, &url);
    }
    for key in ["NO_PROXY", "no_proxy"] {
        std::env::set_var(key, "localhost,127.0.0.1,::1");
    }
}

/// The helper's whole life.
pub(crate) fn main() -> ExitCode {
    // Nothing hermes inherited from whatever started it crosses in: a
    // descriptor left open (not close-on-exec) would be a way out.
    // The session's namespaces, when given, are the only exception.
    let join = std::env::args_os()
        .skip(2)
        .take_while(|a| a != "--")
        .any(|a| a == "--join");
    close_inherited(if join { netns::NET_FD + 1 } else { 3 });
    let args = match Args::parse(std::env::args_os().skip(2)) {
        Ok(a) => a,
        Err(e) => fail(&e),
    };
    // Root is exempt from the process rlimit. In a PID namespace of its
    // own, the namespace's `pid_max` bounds it (Linux 6.14 on); else a
    // cgroup does, where one can be made — which costs a command a few
    // milliseconds (moving a process between cgroups waits for RCU).
    let pid_max_per_namespace = args.namespaces && kernel_at_least(6, 14);
    let _group = (args.max_processes > 0 && !pid_max_per_namespace)
        .then(|| super::cgroup::PidsGroup::join(args.max_processes))
        .flatten();
    let child = if args.namespaces {
        if args.join {
            if let Err(e) = join_session_net() {
                fail(&format!("cannot join the session's loopback: {e}"));
            }
        }
        if let Err(e) = namespace::unshare() {
            fail(&format!("cannot enter new namespaces: {e}"));
        }
        fork(|| {
            let view = namespace::View {
                writable: &args.writable,
                overlays: &args.overlays,
                protected: &args.protected,
                hidden: &args.hidden,
                shm_mb: shm_mb(args.max_memory_mb),
                // The lowest a namespace takes is 301; a tighter bound is
                // the rlimit's (not root's).
                max_pids: match args.max_processes {
                    0 => 0,
                    n => (n + 1).max(301),
                },
            };
            namespace::enter(&view, &args.cwd).map_err(|e| e.to_string())?;
            if let Some(port) = args.proxy {
                set_proxy(port);
            }
            confine(&args, namespace::writable_devices(), false)?;
            bound(args.max_processes, args.max_memory_mb)?;
            Err(exec(&args.program))
        })
    } else {
        // Orphans come back to the helper, which ends them with the command
        // — and when hermes dies first (SIGKILL), it is told, ends the
        // command and every orphan, then goes; what escaped both carries a
        // mark the next hermes ends it by.
        // SAFETY: prctl with integer arguments; getppid cannot fail.
        let mark = unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            let hermes = libc::getppid();
            HERMES.store(hermes, Ordering::Relaxed);
            on_hermes_gone();
            if libc::getppid() != hermes {
                // Gone before it could tell us: nothing is started.
                std::process::exit(137);
            }
            super::orphans::mark_of(hermes)
        };
        fork(|| {
            if let Some(m) = &mark {
                // The helper's child has one thread: nothing else reads the
                // environment while it is set.
                std::env::set_var(super::orphans::MARK, m);
            }
            if let Err(e) = std::env::set_current_dir(&args.cwd) {
                return Err(format!("cannot enter {}: {e}", args.cwd.display()));
            }
            confine(&args, landlock_devices(), true)?;
            // Without a user namespace of its own, a process bound would
            // count every process of this user on the machine.
            bound(0, args.max_memory_mb)?;
            Err(exec(&args.program))
        })
    };
    let status = if args.namespaces {
        wait(child)
    } else {
        let st = wait_or_hermes_gone(child);
        sweep();
        st
    };
    drop(_group);
    mirror(status)
}

/// Whether the running kernel is at least `major.minor`.
fn kernel_at_least(major: u32, minor: u32) -> bool {
    let Ok(release) = std::fs::read_to_string("/proc/sys/kernel/osrelease") else {
        return false;
    };
    let mut parts = release
        .trim()
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|p| p.parse::<u32>().ok());
    let (Some(a), Some(b)) = (parts.next(), parts.next()) else {
        return false;
    };
    (a, b) >= (major, minor)
}

/// Enters the session's user namespace, then its network namespace (the
/// user namespace owns it, so only inside it may the helper join), and
/// closes both descriptors: the command's own namespaces nest in these.
fn join_session_net() -> std::io::Result<()> {
    for (fd, kind) in [
        (netns::USER_FD, libc::CLONE_NEWUSER),
        (netns::NET_FD, libc::CLONE_NEWNET),
    ] {
        // SAFETY: setns and close on descriptors hermes handed over; the
        // helper has one thread.
        unsafe {
            if libc::setns(fd, kind) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::close(fd);
        }
    }
    Ok(())
}

/// Closes every descriptor from `first` on (0, 1 and 2 stay).
fn close_inherited(first: i32) {
    // SAFETY: close_range with integers; on a kernel without it (< 5.9)
    // each descriptor is closed in turn.
    unsafe {
        if libc::syscall(libc::SYS_close_range, first as u32, u32::MAX, 0u32) < 0 {
            let max = libc::sysconf(libc::_SC_OPEN_MAX).clamp(1024, 1 << 20) as i32;
            for fd in first..max {
                libc::close(fd);
            }
        }
    }
}

/// The sandbox's `/dev/shm`: shared memory counts against no process's
/// bound, so it is sized to a quarter of one.
fn shm_mb(max_memory_mb: u64) -> u64 {
    if max_memory_mb == 0 {
        0
    } else {
        (max_memory_mb / 4).max(16)
    }
}

/// The kernel's bounds on the command: processes (counted in its own user
/// namespace) and each process's data (heap and private writable maps —
/// not address space, which runtimes reserve by the gigabyte unused).
fn bound(processes: u64, memory_mb: u64) -> Result<(), String> {
    let set = |what: libc::__rlimit_resource_t, n: u64, name: &str| {
        let lim = libc::rlimit {
            rlim_cur: n,
            rlim_max: n,
        };
        // SAFETY: a struct that lives across the call.
        if unsafe { libc::setrlimit(what, &lim) } < 0 {
            return Err(format!(
                "cannot bound {name}: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(())
    };
    if processes > 0 {
        set(libc::RLIMIT_NPROC, processes, "processes")?;
    }
    if memory_mb > 0 {
        set(libc::RLIMIT_DATA, memory_mb << 20, "memory")?;
    }
    Ok(())
}

/// Devices a command may write to when no `/dev` of its own is built.
fn landlock_devices() -> Vec<PathBuf> {
    [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/shm",
    ]
    .map(PathBuf::from)
    .to_vec()
}

/// Capabilities gone, Landlock, then seccomp: the last steps before the
/// command. `metadata`: refuse chown and xattr changes in seccomp, where
/// no read-only mount does.
fn confine(args: &Args, devices: Vec<PathBuf>, metadata: bool) -> Result<(), String> {
    drop_capabilities()?;
    let writable: Vec<PathBuf> = args
        .writable
        .iter()
        .filter(|p| p.exists())
        .cloned()
        .collect();
    let devices: Vec<PathBuf> = devices.into_iter().filter(|p| p.exists()).collect();
    // In the session's namespace, IP reaches its loopback only.
    let ip = args.network || (args.join && args.namespaces);
    match super::landlock::restrict(&writable, &devices, ip) {
        Ok(true) => {}
        Ok(false) => return Err("the kernel has no Landlock, or it is not enabled".into()),
        Err(e) => return Err(format!("cannot enter Landlock: {e}")),
    }
    let program = seccomp::program(seccomp::Rules {
        network: ip,
        metadata,
    });
    seccomp::install(&program).map_err(|e| format!("cannot install the seccomp filter: {e}"))
}

/// No capability left, in any set, and none to come back on exec: root in
/// the sandbox's user namespace (or root without one) is a plain user.
fn drop_capabilities() -> Result<(), String> {
    // SAFETY: prctl and capset with integers and structs that live across
    // the calls. Without CAP_SETPCAP (a normal user without namespaces)
    // the first two fail with EPERM, and there is nothing to drop.
    unsafe {
        let bits = libc::SECBIT_NOROOT
            | libc::SECBIT_NOROOT_LOCKED
            | libc::SECBIT_NO_SETUID_FIXUP
            | libc::SECBIT_NO_SETUID_FIXUP_LOCKED
            | libc::SECBIT_KEEP_CAPS_LOCKED
            | libc::SECBIT_NO_CAP_AMBIENT_RAISE
            | libc::SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
        libc::prctl(libc::PR_SET_SECUREBITS, bits as libc::c_ulong, 0, 0, 0);
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) < 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL)
            {
                break;
            }
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        let header = Header {
            version: 0x2008_0522,
            pid: 0,
        };
        let data = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr()) < 0 {
            return Err(format!(
                "cannot drop capabilities: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

/// execvp of `program`; returns only on failure.
fn exec(program: &[OsString]) -> String {
    let args: Vec<CString> = match program
        .iter()
        .map(|a| CString::new(a.clone().into_vec()))
        .collect()
    {
        Ok(a) => a,
        Err(_) => return "an argument holds a NUL byte".into(),
    };
    let mut ptrs: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: a NULL-terminated array of NUL-terminated strings.
    unsafe { libc::execvp(ptrs[0], ptrs.as_ptr()) };
    format!(
        "cannot run {}: {}",
        Path::new(&program[0]).display(),
        std::io::Error::last_os_error()
    )
}

/// Forks; the child runs `f`, which only returns with why it failed.
fn fork(f: impl FnOnce() -> Result<(), String>) -> libc::pid_t {
    // SAFETY: the helper has one thread, so the child may do anything.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        fail(&format!("cannot fork: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        // The command dies with the helper, which dies with hermes; it
        // starts with none of the helper's waited signals blocked.
        let set = waited_signals();
        // SAFETY: prctl with integer arguments; sigprocmask with our set.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
        let why = match f() {
            Ok(()) => "the command did not start".to_string(),
            Err(e) => e,
        };
        fail(&why);
    }
    pid
}

/// The hermes that started the helper (Landlock-only mode).
static HERMES: AtomicI32 = AtomicI32::new(0);

/// The signals the Landlock-only helper waits on: its command's end and
/// hermes' death (the kernel's SIGUSR2). Blocked, so neither is missed
/// between two looks; the command unblocks them before it starts.
fn waited_signals() -> libc::sigset_t {
    // SAFETY: a zeroed set filled by sigemptyset/sigaddset.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        libc::sigaddset(&mut set, libc::SIGUSR2);
        set
    }
}

/// Asks the kernel for SIGUSR2 when the thread that started the helper
/// ends, and keeps it (and SIGCHLD) pending for [`wait_or_hermes_gone`].
fn on_hermes_gone() {
    let set = waited_signals();
    // SAFETY: sigprocmask with a set we made; prctl with integers.
    unsafe {
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGUSR2, 0, 0, 0);
    }
}

/// Whether hermes itself is gone (not just the thread that started us:
/// the signal comes then too, and the process goes on).
fn hermes_gone() -> bool {
    let h = HERMES.load(Ordering::Relaxed);
    // SAFETY: getppid cannot fail.
    h != 0 && unsafe { libc::getppid() } != h
}

/// The command's wait status — and when hermes dies meanwhile, the command
/// and every process it left are ended and the helper goes too: nothing a
/// command started outlives a SIGKILLed hermes.
fn wait_or_hermes_gone(pid: libc::pid_t) -> libc::c_int {
    let set = waited_signals();
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status into a local.
        let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if rc == pid {
            return status;
        }
        if rc < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 0;
        }
        if hermes_gone() {
            // SAFETY: kill and waitpid on our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            sweep();
            std::process::exit(137);
        }
        // The next SIGCHLD or SIGUSR2, or a second: a look either way.
        let second = libc::timespec {
            tv_sec: 1,
            tv_nsec: 0,
        };
        // SAFETY: a set we made, no info wanted, a timeout.
        unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &second) };
    }
}

/// The command's wait status.
fn wait(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status into a local.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            return status;
        }
        if rc < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 0;
        }
    }
}

/// Without a PID namespace: ends what the command left behind that came
/// back to the helper (a daemon that left the command's process group),
/// until none is left.
fn sweep() {
    // SAFETY: getpid cannot fail.
    let me = unsafe { libc::getpid() };
    for _ in 0..100 {
        let children = children_of(me);
        if children.is_empty() {
            return;
        }
        for pid in children {
            // SAFETY: kill and a non-blocking waitpid on our own children.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

fn children_of(parent: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    let after = s.rsplit_once(") ")?.1;
                    after.split(' ').nth(1)?.parse::<libc::pid_t>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// Ends as the command ended: its exit code, or its signal.
fn mirror(status: libc::c_int) -> ExitCode {
    if libc::WIFEXITED(status) {
        return ExitCode::from(libc::WEXITSTATUS(status) as u8);
    }
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // SAFETY: the default disposition, then the same signal to itself.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, sig);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::kill(libc::getpid(), sig);
        }
        return ExitCode::from(128u8.wrapping_add(sig as u8));
    }
    ExitCode::from(1)
}

/// One line on stderr, and the setup's exit code.
fn fail(why: &str) -> ! {
    let line = format!("{FAILED}{why}\n");
    // SAFETY: write of a buffer that lives across the call.
    unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
    // SAFETY: _exit ends the process without running anything of the parent's.
    unsafe { libc::_exit(SETUP_EXIT) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_go_there_and_back() {
        let a = Args {
            namespaces: true,
            network: true,
            join: true,
            proxy: Some(41234),
            cwd: "/w".into(),
            writable: vec!["/w".into(), "/tmp".into()],
            overlays: vec![("/w".into(), "/s/0/u".into(), "/s/0/w".into())],
            protected: vec!["/w/.git/config".into()],
            hidden: vec!["/h/.ssh".into()],
            max_processes: 512,
            max_memory_mb: 4096,
            program: vec!["/bin/bash".into(), "-c".into(), "echo --ro x".into()],
        };
        assert_eq!(Args::parse(a.to_args().into_iter()).unwrap(), a);
        assert!(Args::parse(["--ns".into()].into_iter()).is_err());
    }
}
