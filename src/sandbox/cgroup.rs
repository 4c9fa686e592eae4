//! The process bound where `RLIMIT_NPROC` does not reach: the kernel
//! exempts root (its real user is the initial one, whatever namespace it
//! enters), so the helper puts itself — and so the command — in a pids
//! cgroup of its own when it may make one: cgroup v1's pids hierarchy, or
//! a v2 tree delegated to this user. Otherwise the rlimit alone holds,
//! which it does for every other user.

use std::path::{Path, PathBuf};

/// A cgroup the helper moved itself into; left (and removed) on drop.
pub(crate) struct PidsGroup {
    dir: PathBuf,
    parent: PathBuf,
}

impl PidsGroup {
    /// Joins a new pids cgroup bounded at `max` tasks, where one can be
    /// made.
    pub(crate) fn join(max: u64) -> Option<PidsGroup> {
        let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        // SAFETY: getpid cannot fail.
        let pid = unsafe { libc::getpid() };
        for line in own.lines() {
            let mut parts = line.splitn(3, ':');
            let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            let base = if controllers.split(',').any(|c| c == "pids") {
                Path::new("/sys/fs/cgroup/pids")
            } else if id == "0" && Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
                Path::new("/sys/fs/cgroup")
            } else {
                continue;
            };
            let parent = base.join(path.trim_start_matches('/'));
            sweep(&parent);
            let dir = parent.join(format!("hermes-sandbox-{pid}"));
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            let joined = std::fs::write(dir.join("pids.max"), max.to_string())
                .and_then(|()| std::fs::write(dir.join("cgroup.procs"), pid.to_string()));
            if joined.is_ok() {
                return Some(PidsGroup { dir, parent });
            }
            let _ = std::fs::remove_dir(&dir);
        }
        None
    }
}

/// The groups earlier helpers left: removed once empty (a group is busy
/// for a moment after its last process is reaped, and no command should
/// wait for that), and — where the helper that made one is gone (a
/// SIGKILLed hermes took it) — what still runs in it ended first.
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("hermes-sandbox-"))
            .and_then(|p| p.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        let dir = e.path();
        if std::fs::remove_dir(&dir).is_ok() {
            continue;
        }
        // SAFETY: kill with signal 0 only asks whether the process exists.
        let helper_alive = unsafe { libc::kill(pid, 0) } == 0;
        if helper_alive {
            continue;
        }
        if let Ok(procs) = std::fs::read_to_string(dir.join("cgroup.procs")) {
            for p in procs
                .lines()
                .filter_map(|l| l.trim().parse::<libc::pid_t>().ok())
            {
                // SAFETY: kill with integers.
                unsafe { libc::kill(p, libc::SIGKILL) };
            }
        }
    }
}

impl Drop for PidsGroup {
    fn drop(&mut self) {
        // SAFETY: getpid cannot fail.
        let pid = unsafe { libc::getpid() };
        let _ = std::fs::write(self.parent.join("cgroup.procs"), pid.to_string());
        // Often still busy: the next helper's sweep removes it then.
        let _ = std::fs::remove_dir(&self.dir);
    }
}
