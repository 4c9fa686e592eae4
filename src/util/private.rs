//! Files and folders only their owner can read. hermes' files hold what a
//! user would not show others — API keys in config.toml, whole
//! conversations, server logs with tokens in them — so everything it
//! creates is 0600 (files) or 0700 (folders).

use std::io::Write;
use std::path::Path;

/// `create_dir_all`, with each folder it creates owner-only.
pub(crate) fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// Options that create a file owner-only.
pub(crate) fn options() -> std::fs::OpenOptions {
    let mut o = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o
}

/// Writes `bytes` to `path` (replacing it), the folder created if need be.
/// A new file is owner-only; one that exists keeps the permissions its owner
/// gave it (hermes warns when such a config holds secrets).
pub(crate) fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        create_dir_all(dir)?;
    }
    options()
        .create(true)
        .write(true)
        .truncate(true)
        .open(path)?
        .write_all(bytes)
}

/// Whether others than the owner may read `path`.
pub(crate) fn readable_by_others(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o044 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}
