//! The one way hermes opens a file a model or a repository names: the file
//! a call was approved for, a project's AGENTS.md, an `@path` attachment,
//! and no other. The path is resolved once (symlinks and all: a built-in's
//! by `tools::builtin::workspace`, an instructions file or an attachment
//! by `util::inside`) before anyone decides on it; here it is opened one
//! component at a time from `/` without following a link (`O_NOFOLLOW` on
//! each), so a component swapped for a symlink since — while a question was
//! open, by a command running beside the call — is refused, not followed out
//! of the folder. A write goes to a temporary file in the same folder, renamed over
//! the target: a reader sees the old file or the new one, never half of
//! either, and a hard link to a file elsewhere is replaced, not written
//! through.

use std::ffi::{CString, OsStr};
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

fn cstr(name: &OsStr) -> std::io::Result<CString> {
    CString::new(name.as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in a path"))
}

fn last_error() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// The refusal a followed link gets.
pub(crate) fn is_link_error(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::ENOTDIR))
}

/// `at`/`name`, opened with `flags`, never through a link.
fn open_at(
    at: &OwnedFd,
    name: &OsStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> std::io::Result<OwnedFd> {
    let c = cstr(name)?;
    // SAFETY: a NUL-terminated name relative to a descriptor we own.
    let fd = unsafe {
        libc::openat(
            at.as_raw_fd(),
            c.as_ptr(),
            flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(last_error());
    }
    // SAFETY: a fresh descriptor nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The folder `dir` (absolute), opened component by component without
/// following a link; with `create`, the missing ones are made (0755, as
/// `mkdir -p` would).
pub(crate) fn open_dir(dir: &Path, create: bool) -> std::io::Result<OwnedFd> {
    let root = CString::new("/").unwrap_or_default();
    // SAFETY: a NUL-terminated path.
    let fd = unsafe {
        libc::open(
            root.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(last_error());
    }
    // SAFETY: a fresh descriptor.
    let mut cur = unsafe { OwnedFd::from_raw_fd(fd) };
    for c in dir.components() {
        let Component::Normal(name) = c else {
            continue;
        };
        let flags = libc::O_RDONLY | libc::O_DIRECTORY;
        cur = match open_at(&cur, name, flags, 0) {
            Ok(next) => next,
            Err(e) if create && e.raw_os_error() == Some(libc::ENOENT) => {
                let n = cstr(name)?;
                // SAFETY: a NUL-terminated name relative to our descriptor.
                if unsafe { libc::mkdirat(cur.as_raw_fd(), n.as_ptr(), 0o755) } < 0
                    && last_error().raw_os_error() != Some(libc::EEXIST)
                {
                    return Err(last_error());
                }
                open_at(&cur, name, flags, 0)?
            }
            Err(e) => return Err(e),
        };
    }
    Ok(cur)
}

/// The parent folder and the name of `path`.
fn split(path: &Path) -> std::io::Result<(&Path, &OsStr)> {
    match (path.parent(), path.file_name()) {
        (Some(p), Some(n)) => Ok((p, n)),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a file's path",
        )),
    }
}

/// The file at `path`, opened for reading without following a link
/// anywhere on the way.
pub(crate) fn open_file(path: &Path) -> std::io::Result<std::fs::File> {
    let (dir, name) = split(path)?;
    let d = open_dir(dir, false)?;
    let fd = open_at(&d, name, libc::O_RDONLY, 0)?;
    Ok(std::fs::File::from(fd))
}

/// The content of `path` now: `None` when there is no file; an error for
/// a link, a folder, or what cannot be read.
pub(crate) fn read(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match open_file(path) {
        Ok(mut f) => {
            if f.metadata()?.is_dir() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::IsADirectory,
                    "is a folder",
                ));
            }
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes)?;
            Ok(Some(bytes))
        }
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Replaces (or creates) the file at `path` with `bytes`: written beside
/// it and renamed over it, keeping its permissions.
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_from(path, &mut &bytes[..], None)
}

/// As [`replace`], from what `source` reads (a file is copied by the
/// kernel), the file given `mode` when one is named (a rewind puts back a
/// file's own).
pub(crate) fn replace_from<R: Read>(
    path: &Path,
    source: &mut R,
    mode: Option<u32>,
) -> std::io::Result<()> {
    let wanted = mode;
    let (dir, name) = split(path)?;
    let d = open_dir(dir, true)?;
    // The target's mode, if it is there (a link is refused, not replaced).
    let target = cstr(name)?;
    // SAFETY: fstatat fills a zeroed stat for a name relative to our descriptor.
    let mode = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstatat(
            d.as_raw_fd(),
            target.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        ) == 0
        {
            match st.st_mode & libc::S_IFMT {
                libc::S_IFLNK => return Err(std::io::Error::from_raw_os_error(libc::ELOOP)),
                libc::S_IFDIR => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::IsADirectory,
                        "is a folder",
                    ))
                }
                _ => Some(st.st_mode & 0o7777),
            }
        } else if last_error().raw_os_error() == Some(libc::ENOENT) {
            None
        } else {
            return Err(last_error());
        }
    };
    let mut tmp_name = None;
    let mut file = None;
    for attempt in 0..16u32 {
        let candidate = format!(
            ".{}.hermes-{}-{attempt}.tmp",
            name.to_string_lossy(),
            std::process::id()
        );
        match open_at(
            &d,
            OsStr::new(&candidate),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
            // A new file as a plain create makes it (the umask applies);
            // a replaced one private until it has the old one's mode.
            if mode.is_some() { 0o600 } else { 0o666 },
        ) {
            Ok(f) => {
                tmp_name = Some(candidate);
                file = Some(std::fs::File::from(f));
                break;
            }
            Err(e) if e.raw_os_error() == Some(libc::EEXIST) => continue,
            Err(e) => return Err(e),
        }
    }
    let (Some(tmp_name), Some(mut file)) = (tmp_name, file) else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "no free temporary name beside it",
        ));
    };
    let tmp = cstr(OsStr::new(&tmp_name))?;
    let unlink = || {
        // SAFETY: a NUL-terminated name relative to our descriptor.
        unsafe { libc::unlinkat(d.as_raw_fd(), tmp.as_ptr(), 0) };
    };
    let written = std::io::copy(source, &mut file).and_then(|_| match wanted.or(mode) {
        Some(m) => file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(m)),
        None => Ok(()),
    });
    if let Err(e) = written {
        unlink();
        return Err(e);
    }
    drop(file);
    // SAFETY: two NUL-terminated names relative to our descriptor.
    let rc = unsafe { libc::renameat(d.as_raw_fd(), tmp.as_ptr(), d.as_raw_fd(), target.as_ptr()) };
    if rc < 0 {
        let e = last_error();
        unlink();
        return Err(e);
    }
    Ok(())
}

/// `path` (absolute) with its folder's links resolved now, its last
/// name as given: what a later [`replace`] of it opens beneath, so a link
/// planted on the way or at it afterwards is refused.
pub(crate) fn resolved(path: &Path) -> std::path::PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

/// A new file at `path`, opened for writing; refused when anything stands
/// there (a link included) or a link lies on the way.
pub(crate) fn create_new(path: &Path) -> std::io::Result<std::fs::File> {
    let (dir, name) = split(path)?;
    let d = open_dir(dir, false)?;
    let fd = open_at(
        &d,
        name,
        libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
        0o666,
    )?;
    Ok(std::fs::File::from(fd))
}

/// Writes what `source` reads over the file at `path` in place — its own
/// inode, no new one made and none freed — when it is a regular file with
/// no other name (a hard link elsewhere, a kept blob, would change with
/// it); `Ok(false)`, touching nothing, otherwise. No link followed on the
/// way or at it. Not whole-or-nothing as [`replace_from`] is: for bulk
/// restores, where making and freeing an inode per file costs more than
/// the copy (ext4 skips inodes freed in the last seconds, slowly).
pub(crate) fn overwrite_from<R: Read>(
    path: &Path,
    source: &mut R,
    mode: u32,
) -> std::io::Result<bool> {
    let (dir, name) = split(path)?;
    let d = match open_dir(dir, false) {
        // Its folder is gone too: the caller makes the way.
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(false),
        other => other?,
    };
    let fd = match open_at(&d, name, libc::O_WRONLY, 0) {
        Ok(fd) => fd,
        // Nothing there, a link or a folder: the caller replaces.
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::ENOENT) | Some(libc::ELOOP) | Some(libc::EISDIR) | Some(libc::EACCES)
            ) =>
        {
            return Ok(false)
        }
        Err(e) => return Err(e),
    };
    let mut file = std::fs::File::from(fd);
    let m = file.metadata()?;
    if !m.is_file() || std::os::unix::fs::MetadataExt::nlink(&m) != 1 {
        return Ok(false);
    }
    file.set_len(0)?;
    std::io::copy(source, &mut file)?;
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))?;
    Ok(true)
}

/// Removes the file or link at `path` (an empty folder too, with
/// `folder`), never following a link on the way; nothing there is fine.
pub(crate) fn remove(path: &Path, folder: bool) -> std::io::Result<()> {
    let (dir, name) = split(path)?;
    let d = match open_dir(dir, false) {
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(()),
        other => other?,
    };
    let n = cstr(name)?;
    // SAFETY: a NUL-terminated name relative to our descriptor.
    let mut rc = unsafe { libc::unlinkat(d.as_raw_fd(), n.as_ptr(), 0) };
    if rc < 0 && folder && last_error().raw_os_error() == Some(libc::EISDIR) {
        // SAFETY: as above.
        rc = unsafe { libc::unlinkat(d.as_raw_fd(), n.as_ptr(), libc::AT_REMOVEDIR) };
    }
    match rc {
        0 => Ok(()),
        _ if last_error().raw_os_error() == Some(libc::ENOENT) => Ok(()),
        _ => Err(last_error()),
    }
}

/// Makes `path` a link to `target` (what stood there, not a folder,
/// removed first), its folders made, no link followed on the way.
pub(crate) fn symlink(path: &Path, target: &Path) -> std::io::Result<()> {
    let (dir, name) = split(path)?;
    let d = open_dir(dir, true)?;
    let n = cstr(name)?;
    let t = cstr(target.as_os_str())?;
    // SAFETY: NUL-terminated names relative to our descriptor.
    unsafe {
        libc::unlinkat(d.as_raw_fd(), n.as_ptr(), 0);
        if libc::symlinkat(t.as_ptr(), d.as_raw_fd(), n.as_ptr()) < 0 {
            return Err(last_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_anywhere_on_the_way_is_refused_and_a_write_replaces_whole() {
        let dir = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(out.path().join("secret"), "key").unwrap();
        std::os::unix::fs::symlink(out.path(), d.join("link")).unwrap();
        std::os::unix::fs::symlink(out.path().join("secret"), d.join("file")).unwrap();
        for p in [d.join("link/secret"), d.join("file")] {
            let e = read(&p).unwrap_err();
            assert!(is_link_error(&e), "{}: {e}", p.display());
            let e = replace(&p, b"x").unwrap_err();
            assert!(is_link_error(&e), "{}: {e}", p.display());
        }
        assert_eq!(
            std::fs::read_to_string(out.path().join("secret")).unwrap(),
            "key"
        );
        // A hard link to a file elsewhere is replaced, not written through.
        std::fs::write(d.join("a.txt"), "old").unwrap();
        std::fs::set_permissions(
            d.join("a.txt"),
            std::os::unix::fs::PermissionsExt::from_mode(0o640),
        )
        .unwrap();
        std::fs::hard_link(d.join("a.txt"), out.path().join("hard")).unwrap();
        replace(&d.join("a.txt"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(d.join("a.txt")).unwrap(), "new");
        assert_eq!(
            std::fs::read_to_string(out.path().join("hard")).unwrap(),
            "old"
        );
        let mode = std::fs::metadata(d.join("a.txt")).unwrap().permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o640
        );
        replace(&d.join("new/deep/b.txt"), b"b").unwrap();
        assert_eq!(read(&d.join("new/deep/b.txt")).unwrap().unwrap(), b"b");
        assert_eq!(read(&d.join("missing")).unwrap(), None);
        let left: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "a temporary file was left");
    }

    /// In place only where the file has no other name: a hard link (a kept
    /// blob) and a link are left for the caller, untouched.
    #[test]
    fn an_overwrite_in_place_touches_no_other_name() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(d.join("own.txt"), "new").unwrap();
        let ino = std::fs::metadata(d.join("own.txt")).unwrap().ino();
        assert!(overwrite_from(&d.join("own.txt"), &mut &b"old bytes"[..], 0o600).unwrap());
        let m = std::fs::metadata(d.join("own.txt")).unwrap();
        assert_eq!((m.ino(), m.mode() & 0o777), (ino, 0o600));
        assert_eq!(std::fs::read(d.join("own.txt")).unwrap(), b"old bytes");
        std::fs::write(d.join("shared.txt"), "new").unwrap();
        std::fs::hard_link(d.join("shared.txt"), d.join("blob")).unwrap();
        assert!(!overwrite_from(&d.join("shared.txt"), &mut &b"x"[..], 0o644).unwrap());
        assert_eq!(std::fs::read(d.join("blob")).unwrap(), b"new");
        std::os::unix::fs::symlink(d.join("blob"), d.join("link")).unwrap();
        assert!(!overwrite_from(&d.join("link"), &mut &b"x"[..], 0o644).unwrap());
        assert_eq!(std::fs::read(d.join("blob")).unwrap(), b"new");
    }
}
