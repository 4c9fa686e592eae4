//! The environment hermes gives the processes it starts (MCP servers,
//! hooks): a few harmless variables of its own, never its secrets — an API
//! key in hermes' environment is not a hook's or a server's business.

/// Variables a child inherits from hermes' environment; everything else it
/// gets must be named (a server's `env`, a hook's `HERMES_*`).
pub(crate) const SAFE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TMPDIR",
    "TZ",
    "SYSTEMROOT",
];

/// `cmd` with a cleared environment but for [`SAFE_ENV`], which ends when
/// hermes does (see [`die_with_hermes`]).
pub(crate) fn scrubbed(cmd: &mut tokio::process::Command) -> &mut tokio::process::Command {
    cmd.env_clear();
    for key in SAFE_ENV {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    die_with_hermes(cmd)
}

/// The child is killed by the kernel when hermes dies, however it dies:
/// an orderly exit stops servers and hooks itself, but after a SIGKILL (the
/// OOM killer) no code of hermes runs, and a server that ignores SIGTERM
/// and stdin's end would live on. `PR_SET_PDEATHSIG` follows the thread
/// that started the child; hermes starts children from its one runtime
/// thread, which lives as long as the process.
pub(crate) fn die_with_hermes(cmd: &mut tokio::process::Command) -> &mut tokio::process::Command {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid has no preconditions.
        let hermes = unsafe { libc::getpid() };
        // SAFETY: between fork and exec only async-signal-safe calls are
        // made (prctl, getppid, raise, signal).
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // hermes died before the line above: nobody will send it.
                if libc::getppid() != hermes {
                    libc::raise(libc::SIGKILL);
                }
                // hermes ignores SIGXFSZ for itself; the child gets the
                // default back (an ignored signal survives exec).
                libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
                Ok(())
            });
        }
    }
    cmd
}
