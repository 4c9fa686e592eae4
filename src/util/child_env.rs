//! The environment hermes gives the processes it starts (MCP servers,
//! hooks): a few harmless variables of its own, never its secrets — an API
//! key in hermes' environment is not a hook's or a server's business.

/// Variables a child inherits from hermes' environment; everything else it
/// gets must be named (a server's `env`, a hook's `HERMES_*`).
pub const SAFE_ENV: &[&str] = &[
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

/// `cmd` with a cleared environment but for [`SAFE_ENV`].
pub(crate) fn scrubbed(cmd: &mut tokio::process::Command) -> &mut tokio::process::Command {
    cmd.env_clear();
    for key in SAFE_ENV {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    cmd
}
