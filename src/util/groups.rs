//! Every process group hermes starts — MCP servers, hooks, `shell`
//! commands, each leading its own group — ends when hermes does, however
//! hermes ends. An orderly exit stops them itself; an abrupt one
//! ([`kill_all_now`]) SIGKILLs every group at once. After a SIGKILL of
//! hermes (the OOM killer) no code of hermes runs: the kernel kills its
//! direct children (`PR_SET_PDEATHSIG`), but not what they started — npx's
//! node, a shell's background job. For those, a guard: a second hermes
//! process (`hermes __hermes_guard`, started with the first group) told of
//! each group as it starts and ends through a pipe. When the pipe closes —
//! hermes gone, by any means — the guard SIGKILLs every group still
//! registered, and exits.
//!
//! A group is dropped from the list only once hermes has killed it (or it
//! ended), so the guard never signals a group id the system may have given
//! to someone else since.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The argument that makes a hermes process the guard.
pub(crate) const GUARD_ARG: &str = "__hermes_guard";

struct Groups {
    live: Vec<u32>,
    /// The guard's end of the pipe; `None` until the first group, or if
    /// the guard could not be started (then only the kernel's
    /// `PR_SET_PDEATHSIG` covers a SIGKILL).
    guard: Option<std::process::ChildStdin>,
    tried: bool,
}

static GROUPS: Mutex<Groups> = Mutex::new(Groups {
    live: Vec::new(),
    guard: None,
    tried: false,
});

/// Set by the hermes binary only: the guard re-runs the current
/// executable, which in a test harness or a benchmark is not hermes.
static GUARDED: AtomicBool = AtomicBool::new(false);

/// Lets the first group start the guard from this executable.
pub(crate) fn guard_from_here() {
    GUARDED.store(true, Ordering::Relaxed);
}

/// A group hermes just started (its leader's pid).
pub(crate) fn started(pgid: u32) {
    let Ok(mut g) = GROUPS.lock() else { return };
    g.live.push(pgid);
    if GUARDED.load(Ordering::Relaxed) && !std::mem::replace(&mut g.tried, true) {
        g.guard = spawn_guard();
    }
    tell(&mut g, &format!("+{pgid}\n"));
}

/// A group hermes has killed, or that has ended.
pub(crate) fn ended(pgid: u32) {
    let Ok(mut g) = GROUPS.lock() else { return };
    g.live.retain(|p| *p != pgid);
    tell(&mut g, &format!("-{pgid}\n"));
}

fn tell(g: &mut Groups, line: &str) {
    let failed = g
        .guard
        .as_mut()
        .is_some_and(|w| w.write_all(line.as_bytes()).is_err());
    if failed {
        g.guard = None;
    }
}

/// A process group hermes started (its leader's pid): on the guard's list
/// while this lives, SIGKILLed when it is dropped — unless released.
pub(crate) struct Owned(Option<u32>);

impl Owned {
    pub(crate) fn new(pgid: Option<u32>) -> Owned {
        if let Some(p) = pgid {
            started(p);
        }
        Owned(pgid)
    }

    /// Leaves the group running: off the list, never killed by hermes.
    pub(crate) fn release(&mut self) {
        if let Some(p) = self.0.take() {
            ended(p);
        }
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            kill_group(p);
            ended(p);
        }
    }
}

/// SIGKILLs every live group at once; for `std::process::exit` paths.
pub(crate) fn kill_all_now() {
    if let Ok(g) = GROUPS.lock() {
        for pgid in &g.live {
            kill_group(*pgid);
        }
    }
}

/// SIGKILLs one group now (its guard, dropped later, does it again).
pub(crate) fn kill_now(pgid: u32) {
    if pgid > 1 {
        kill_group(pgid);
    }
}

fn kill_group(pgid: u32) {
    #[cfg(unix)]
    // SAFETY: killpg has no memory preconditions; a group already gone
    // makes it fail with ESRCH, which is ignored.
    unsafe {
        libc::killpg(pgid as libc::pid_t, libc::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = pgid;
}

/// Starts the guard: this same binary, in a process group of its own (a
/// Ctrl-C at the terminal must not end it before hermes), reading the pipe.
fn spawn_guard() -> Option<std::process::ChildStdin> {
    let exe = std::env::current_exe().ok()?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg(GUARD_ARG)
        .env_clear()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().ok()?;
    let stdin = child.stdin.take();
    // Reaped by nobody: it outlives hermes' interest in it, and ends on its
    // own when the pipe closes (a zombie at most until hermes exits).
    std::mem::forget(child);
    stdin
}

/// The guard's whole life: keep the list the pipe describes; when the pipe
/// closes, SIGKILL every group on it. Its exit code is 0.
pub(crate) fn guard_main() -> std::process::ExitCode {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, c"hermes-guard".as_ptr(), 0, 0, 0);
    }
    let mut live: Vec<u32> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (sign, id) = line.split_at(line.len().min(1));
        let Ok(id) = id.parse::<u32>() else { continue };
        match sign {
            "+" if id > 1 => live.push(id),
            "-" => live.retain(|p| *p != id),
            _ => {}
        }
    }
    kill_trees(&live);
    std::process::ExitCode::SUCCESS
}

/// SIGKILLs every process of `groups` and every process they started,
/// whatever group or session it moved to (`setsid daemon &`): each found
/// is stopped first, and the look repeated until it finds no one new, so
/// nothing forks its way out between the look and the kill.
fn kill_trees(groups: &[u32]) {
    #[cfg(target_os = "linux")]
    {
        let mut doomed: std::collections::HashSet<i32> = std::collections::HashSet::new();
        for _ in 0..20 {
            let table = processes();
            let before = doomed.len();
            for &(pid, _, pgid) in &table {
                if groups.iter().any(|g| *g as i32 == pgid) {
                    doomed.insert(pid);
                }
            }
            loop {
                let n = doomed.len();
                for &(pid, ppid, _) in &table {
                    if doomed.contains(&ppid) {
                        doomed.insert(pid);
                    }
                }
                if doomed.len() == n {
                    break;
                }
            }
            for pid in &doomed {
                // SAFETY: kill with integers.
                unsafe { libc::kill(*pid, libc::SIGSTOP) };
            }
            if doomed.len() == before {
                break;
            }
        }
        for pid in &doomed {
            // SAFETY: kill with integers.
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
    }
    for pgid in groups {
        kill_group(*pgid);
    }
}

/// (pid, parent, group) of every process this user can see.
#[cfg(target_os = "linux")]
fn processes() -> Vec<(i32, i32, i32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // After the name (which may hold spaces): state, ppid, pgrp.
        let mut f = stat.rsplit_once(") ")?.1.split(' ');
        let ppid = f.nth(1)?.parse().ok()?;
        let pgid = f.next()?.parse().ok()?;
        Some((pid, ppid, pgid))
    })
    .collect()
}
