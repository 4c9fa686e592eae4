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

impl Drop for PidsGroup {
    fn drop(&mut self) {
        // SAFETY: getpid cannot fail.
        let pid = unsafe { libc::getpid() };
        let _ = std::fs::write(self.parent.join("cgroup.procs"), pid.to_string());
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}
