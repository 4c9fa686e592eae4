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

/// A folder hermes keeps private things in, made safe to use: one that
/// belongs to another user is refused (`Err`); one of ours that others may
/// read or write is made owner-only, and the repair is described (`Ok(Some)`).
/// A missing folder is fine (it is created owner-only when needed).
pub(crate) fn own_folder(dir: &Path) -> std::io::Result<Option<String>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let meta = match std::fs::metadata(dir) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if meta.uid() != my_uid() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("it belongs to another user (uid {})", meta.uid()),
            ));
        }
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
            return Ok(Some(format!(
                "{} was open to others (mode {mode:o}); it is owner-only now (700)",
                dir.display()
            )));
        }
        Ok(None)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(None)
    }
}

/// A folder at `dir` that only this user can have made and can reach:
/// made with `mkdir` (which fails where anything stands) mode 700, or one
/// that stands there already and is a real folder (not a link) of this
/// user's that nobody else may write to, in a folder nobody else may
/// rename it out of (owned by this user or root, or sticky). Its parents
/// are made as [`create_dir_all`] makes them. Anything else is refused
/// with why: a folder another user made first is never used.
#[cfg(unix)]
pub(crate) fn private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let parent = dir.parent().ok_or("no parent folder")?;
    create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let pm = std::fs::metadata(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let others_write = pm.mode() & 0o022 != 0;
    let sticky = pm.mode() & 0o1000 != 0;
    if others_write && !sticky || (pm.uid() != my_uid() && pm.uid() != 0) {
        return Err(format!(
            "{} may be changed by another user",
            parent.display()
        ));
    }
    let mut b = std::fs::DirBuilder::new();
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    match b.create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    let m = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !m.file_type().is_dir() {
        return Err(format!("{} is not a folder (a link?)", dir.display()));
    }
    if m.uid() != my_uid() {
        return Err(format!(
            "{} belongs to another user (uid {})",
            dir.display(),
            m.uid()
        ));
    }
    let mode = m.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(format!(
            "{} is open to others' writes (mode {mode:o})",
            dir.display()
        ));
    }
    if mode != 0o700 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(())
}

/// Whether `path` is a regular file of this user, not a symlink: a file
/// another user planted (or swapped for a link) is not read or appended to.
pub(crate) fn own_file(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path)
            .is_ok_and(|m| m.file_type().is_file() && m.uid() == my_uid())
    }
    #[cfg(not(unix))]
    {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
    }
}

/// Opens without following a symlink in the last component: the open fails
/// (`ELOOP`) rather than reach another file through a link.
pub(crate) fn no_follow(o: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o
}

#[cfg(unix)]
fn my_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
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

/// Replaces `path` with `bytes` whole or not at all: written owner-only
/// beside it, synced, then renamed over it — a crash leaves the old file
/// or the new one, never a cut one — and a write that fails (a full disk,
/// a file-size limit) leaves no temporary file taking the space.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let written = (|| {
        if let Some(dir) = path.parent() {
            create_dir_all(dir)?;
        }
        let _ = std::fs::remove_file(&tmp);
        let mut f = options().create_new(true).write(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
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

/// Waits for an exclusive advisory lock on `file` (held until it is closed).
pub(crate) fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a descriptor the caller owns and keeps open.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}
