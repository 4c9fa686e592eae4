//! Without a PID namespace (`sandbox = "landlock"`), a command that leaves
//! its session (`setsid daemon &`) is ended by the helper when the command
//! ends — but not when hermes is killed first. So every sandboxed command
//! carries a mark naming the hermes that ran it (its pid and start time),
//! and each hermes, as it starts, ends the marked processes whose hermes is
//! gone. A process can drop the mark only by starting a program with an
//! environment it built by hand; the PID namespace has no such gap.

/// The variable that marks a sandboxed command's processes.
pub(crate) const MARK: &str = "HERMES_SANDBOX_OF";

/// `PID:START` for process `pid` (start time in clock ticks since boot).
pub(crate) fn mark_of(pid: libc::pid_t) -> Option<String> {
    Some(format!("{pid}:{}", start_time(pid)?))
}

fn start_time(pid: libc::pid_t) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which may hold spaces: state is 3rd,
    // start time the 22nd.
    stat.rsplit_once(") ")?.1.split(' ').nth(19)?.parse().ok()
}

/// Ends every process of this user marked by a hermes that is no longer
/// running; how many.
pub(crate) fn sweep() -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut ended = 0;
    for pid in dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok()) {
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        let Some(mark) = environ
            .split(|b| *b == 0)
            .find_map(|v| v.strip_prefix(format!("{MARK}=").as_bytes()))
        else {
            continue;
        };
        let Some((owner, start)) = std::str::from_utf8(mark)
            .ok()
            .and_then(|m| m.split_once(':'))
        else {
            continue;
        };
        let Ok(owner) = owner.parse::<libc::pid_t>() else {
            continue;
        };
        let alive = start_time(owner).is_some_and(|s| s.to_string() == start);
        if !alive {
            // SAFETY: kill with integers.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            ended += 1;
        }
    }
    ended
}
