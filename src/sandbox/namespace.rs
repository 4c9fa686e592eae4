//! The view of the system a sandboxed command gets, built as bubblewrap and
//! codex's Linux sandbox build theirs: a new user, mount, PID and IPC
//! namespace; the whole system bound read-only (so chmod, chown, utime and
//! xattr changes fail with EROFS wherever Landlock does not reach); the
//! writable folders bound again read-write; the control paths inside them
//! bound read-only once more, and the folders on the way to each pinned
//! (a mount point cannot be renamed away, so `mv .git x` cannot swap the
//! protected config out); a `/dev` of its own with no `tty`; a `/proc` of
//! its own PID namespace, where hermes and its servers do not exist.
//!
//! Every step here runs in the sandbox's first process (PID 1 of the new
//! namespace) before it becomes the command: when it exits, the kernel
//! kills whatever the command left in the namespace.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A failed step: what was done, and the kernel's answer.
#[derive(Debug)]
pub(crate) struct Failed(pub String);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn c(path: &Path) -> Result<CString, Failed> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| Failed(format!("{} holds a NUL byte", path.display())))
}

fn check(rc: libc::c_long, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if rc < 0 {
        let e = std::io::Error::last_os_error();
        return Err(Failed(format!("{}: {e}", what())));
    }
    Ok(())
}

fn mount(
    src: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> Result<(), Failed> {
    let src_c = src.map(c).transpose()?;
    let target_c = c(target)?;
    let fstype_c = fstype.map(|f| CString::new(f).unwrap_or_default());
    let data_c = data.map(|d| CString::new(d).unwrap_or_default());
    let ptr = |o: &Option<CString>| o.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: every pointer is null or a NUL-terminated string that lives
    // across the call.
    let rc = unsafe {
        libc::mount(
            ptr(&src_c),
            target_c.as_ptr(),
            ptr(&fstype_c),
            flags,
            ptr(&data_c).cast(),
        )
    };
    check(rc as libc::c_long, || {
        format!(
            "mount {}{}",
            src.map(|s| format!("{} on ", s.display()))
                .unwrap_or_default(),
            target.display()
        )
    })
}

fn bind(src: &Path, target: &Path) -> Result<(), Failed> {
    mount(Some(src), target, None, libc::MS_BIND | libc::MS_REC, None)
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Sets `attrs` on the mount at `target` and every mount beneath it.
fn set_attrs(target: &Path, attrs: u64) -> Result<(), Failed> {
    let t = c(target)?;
    let attr = MountAttr {
        attr_set: attrs,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: a path string and a struct that live across the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            t.as_ptr(),
            libc::AT_RECURSIVE as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    check(rc, || format!("make {} read-only", target.display()))
}

fn read_only(target: &Path) -> Result<(), Failed> {
    set_attrs(target, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID)
}

fn mkdir(path: &Path, mode: libc::mode_t) -> Result<(), Failed> {
    let p = c(path)?;
    // SAFETY: a NUL-terminated path.
    let rc = unsafe { libc::mkdir(p.as_ptr(), mode) };
    if rc < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST) {
        return check(-1, || format!("mkdir {}", path.display()));
    }
    Ok(())
}

fn chdir(path: &Path) -> Result<(), Failed> {
    let p = c(path)?;
    // SAFETY: a NUL-terminated path.
    check(unsafe { libc::chdir(p.as_ptr()) } as libc::c_long, || {
        format!("chdir {}", path.display())
    })
}

fn pivot_root(new: &Path, old: &Path) -> Result<(), Failed> {
    let (n, o) = (c(new)?, c(old)?);
    // SAFETY: two NUL-terminated paths.
    let rc = unsafe { libc::syscall(libc::SYS_pivot_root, n.as_ptr(), o.as_ptr()) };
    check(rc, || format!("pivot_root {}", new.display()))
}

fn umount_detach(path: &Path) -> Result<(), Failed> {
    let p = c(path)?;
    // SAFETY: a NUL-terminated path.
    let rc = unsafe { libc::umount2(p.as_ptr(), libc::MNT_DETACH) };
    check(rc as libc::c_long, || format!("umount {}", path.display()))
}

/// `path` under `root` (`/newroot` + `/home/me/proj`).
fn under(root: &str, path: &Path) -> PathBuf {
    let rel = path.strip_prefix("/").unwrap_or(path);
    Path::new(root).join(rel)
}

/// Enters new user, mount, PID and IPC namespaces, as the same user and
/// group inside as outside. Only the children of the caller are in the new
/// PID namespace.
pub(crate) fn unshare() -> std::io::Result<()> {
    // SAFETY: getuid/getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWIPC;
    // SAFETY: unshare takes flags; the helper has one thread.
    if unsafe { libc::unshare(flags) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let map = |path: &str, text: String| {
        std::fs::write(path, text)
            .map_err(|e| std::io::Error::new(e.kind(), format!("write {path}: {e}")))
    };
    // Not there before Linux 3.19; nothing to deny then.
    if let Err(e) = std::fs::write("/proc/self/setgroups", "deny") {
        if e.kind() != std::io::ErrorKind::NotFound {
            return Err(e);
        }
    }
    map("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    map("/proc/self/gid_map", format!("{gid} {gid} 1\n"))?;
    Ok(())
}

/// What the new root holds.
pub(crate) struct View<'a> {
    /// Bound read-write (real paths, outermost first).
    pub writable: &'a [PathBuf],
    /// Those of them seen through an overlay: (root, upper, work).
    pub overlays: &'a [(PathBuf, PathBuf, PathBuf)],
    /// Bound read-only inside them (real paths that exist).
    pub protected: &'a [PathBuf],
    /// Covered by an empty folder or file (real paths that exist).
    pub hidden: &'a [PathBuf],
    /// The size of `/dev/shm` in MiB (0: the kernel's default).
    pub shm_mb: u64,
    /// The PID namespace's `pid_max` (0: as the kernel sets it).
    pub max_pids: u64,
}

/// Device nodes a command gets in its `/dev` (bound from the system's).
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// Builds the new root and moves into it, in `cwd`. For PID 1 of the new
/// PID namespace, which mounts the new `/proc`.
pub(crate) fn enter(view: &View<'_>, cwd: &Path) -> Result<(), Failed> {
    // Nothing mounted here reaches the system's namespace, nor the other way.
    mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )?;
    // A scratch root to stand on while the new one is built from the old.
    let base = ["/tmp", "/run", "/mnt", "/var/tmp"]
        .iter()
        .map(Path::new)
        .find(|p| {
            std::fs::symlink_metadata(p)
                .map(|m| m.is_dir())
                .unwrap_or(false)
        })
        .ok_or_else(|| Failed("no folder to build the sandbox's root on".into()))?;
    mount(
        Some(Path::new("tmpfs")),
        base,
        Some("tmpfs"),
        libc::MS_NODEV | libc::MS_NOSUID,
        Some("mode=0755,size=64k"),
    )?;
    chdir(base)?;
    mkdir(Path::new("newroot"), 0o755)?;
    bind(Path::new("newroot"), Path::new("newroot"))?;
    mkdir(Path::new("oldroot"), 0o755)?;
    pivot_root(Path::new("."), Path::new("oldroot"))?;
    chdir(Path::new("/"))?;

    // The whole system, read-only.
    let new = Path::new("/newroot");
    bind(Path::new("/oldroot"), new)?;
    read_only(new)?;
    // `/dev` first: a writable folder in `/dev/shm` (a project kept in
    // memory) is mounted over the sandbox's own, not hidden by it.
    devices(view.shm_mb)?;
    // The writable folders: each seen through an overlay whose upper layer
    // hermes reviews before anything lands, or (a file) as it is.
    for w in view.writable {
        let Ok(m) = std::fs::symlink_metadata(under("/oldroot", w)) else {
            continue;
        };
        mount_point(&under("/newroot", w), m.is_dir())?;
        match view.overlays.iter().find(|(root, ..)| root == w) {
            Some((root, upper, work)) => overlay(
                &under("/oldroot", root),
                &under("/oldroot", upper),
                &under("/oldroot", work),
                &under("/newroot", root),
            )?,
            None => bind(&under("/oldroot", w), &under("/newroot", w))?,
        }
        set_attrs(&under("/newroot", w), MOUNT_ATTR_NOSUID)?;
    }
    // The folders on the way from a writable folder to a protected path:
    // each its own mount point, which rename and rmdir refuse to move.
    for pin in pins(view) {
        let p = under("/newroot", &pin);
        bind(&p, &p)?;
    }
    for p in view.protected {
        let p = under("/newroot", p);
        bind(&p, &p)?;
        read_only(&p)?;
    }
    for h in view.hidden {
        hide(&under("/newroot", h))?;
    }
    proc_of_its_own(view.max_pids)?;

    // Leave the old root behind, then stand in the new one.
    mount(
        None,
        Path::new("/oldroot"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )?;
    umount_detach(Path::new("/oldroot"))?;
    chdir(new)?;
    pivot_root(Path::new("."), Path::new("."))?;
    umount_detach(Path::new("."))?;
    chdir(Path::new("/"))?;
    chdir(cwd)
}

/// Where a writable folder or file will be mounted, made in the sandbox's
/// own `/dev/shm` if it lies there (elsewhere it is the system's, and
/// there already).
fn mount_point(target: &Path, folder: bool) -> Result<(), Failed> {
    if std::fs::symlink_metadata(target).is_ok() || !target.starts_with("/newroot/dev/shm") {
        return Ok(());
    }
    let made = if folder {
        std::fs::create_dir_all(target)
    } else {
        target
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::File::create(target).map(drop))
    };
    made.map_err(|e| Failed(format!("make {}: {e}", target.display())))
}

/// `target` covered: a folder by an empty read-only one, a file by an
/// empty read-only file.
fn hide(target: &Path) -> Result<(), Failed> {
    let Ok(meta) = std::fs::symlink_metadata(target) else {
        return Ok(());
    };
    if meta.is_dir() {
        mount(
            Some(Path::new("tmpfs")),
            target,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_RDONLY,
            Some("size=4k,mode=0700"),
        )
    } else {
        bind(Path::new("/oldroot/dev/null"), target)?;
        read_only(target)
    }
}

/// An overlay at `target`: reads from `lower`, writes into `upper` (with
/// `work` beside it, on the same filesystem). `userxattr`: the kind an
/// unprivileged user namespace may mount; `volatile`: no syncs, as the
/// upper layer is hermes' scratch until it lands.
fn overlay(lower: &Path, upper: &Path, work: &Path, target: &Path) -> Result<(), Failed> {
    use std::os::fd::{FromRawFd, OwnedFd};
    const SET_FLAG: libc::c_uint = 0;
    const SET_STRING: libc::c_uint = 1;
    const CMD_CREATE: libc::c_uint = 6;
    const FSMOUNT_CLOEXEC: libc::c_uint = 1;
    const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
    let what = || format!("mount an overlay on {}", target.display());
    let name = CString::new("overlay").unwrap_or_default();
    // SAFETY: a NUL-terminated name; the descriptor returned is owned here.
    let fs = unsafe { libc::syscall(libc::SYS_fsopen, name.as_ptr(), 1 as libc::c_uint) };
    check(fs, what)?;
    // SAFETY: a fresh descriptor owned by nothing else.
    let fs = unsafe { OwnedFd::from_raw_fd(fs as i32) };
    let raw = std::os::fd::AsRawFd::as_raw_fd(&fs);
    let config = |cmd: libc::c_uint, key: Option<&str>, value: Option<&CString>| {
        let key = key.map(|k| CString::new(k).unwrap_or_default());
        // SAFETY: NUL-terminated strings (or null) that live across the call.
        unsafe {
            libc::syscall(
                libc::SYS_fsconfig,
                raw,
                cmd,
                key.as_ref().map_or(std::ptr::null(), |k| k.as_ptr()),
                value.map_or(std::ptr::null(), |v| v.as_ptr()),
                0 as libc::c_int,
            )
        }
    };
    // `lowerdir+` (Linux 6.8) takes a path as it is; before it, the
    // list form, with its separators escaped.
    if config(SET_STRING, Some("lowerdir+"), Some(&c(lower)?)) < 0 {
        let escaped = lower
            .as_os_str()
            .as_bytes()
            .iter()
            .flat_map(|b| match b {
                b'\\' | b':' | b',' => vec![b'\\', *b],
                b => vec![*b],
            })
            .collect::<Vec<u8>>();
        let list = CString::new(escaped).map_err(|_| Failed(what()))?;
        check(config(SET_STRING, Some("lowerdir"), Some(&list)), || {
            format!("{}: lower folder", what())
        })?;
    }
    check(
        config(SET_STRING, Some("upperdir"), Some(&c(upper)?)),
        || format!("{}: upper folder", what()),
    )?;
    check(config(SET_STRING, Some("workdir"), Some(&c(work)?)), || {
        format!("{}: work folder", what())
    })?;
    check(config(SET_FLAG, Some("userxattr"), None), || {
        format!("{}: userxattr", what())
    })?;
    // Older kernels lack it; the overlay works the same without.
    let _ = config(SET_FLAG, Some("volatile"), None);
    check(config(CMD_CREATE, None, None), what)?;
    // SAFETY: a configured filesystem descriptor.
    let mnt = unsafe { libc::syscall(libc::SYS_fsmount, raw, FSMOUNT_CLOEXEC, 0 as libc::c_uint) };
    check(mnt, what)?;
    // SAFETY: as above.
    let mnt = unsafe { OwnedFd::from_raw_fd(mnt as i32) };
    let empty = CString::default();
    let t = c(target)?;
    // SAFETY: a mount descriptor, an empty path and a NUL-terminated target.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            std::os::fd::AsRawFd::as_raw_fd(&mnt),
            empty.as_ptr(),
            libc::AT_FDCWD,
            t.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    };
    check(rc, what)
}

/// Every folder strictly between a writable folder and a protected path
/// under it, outermost first, once each.
fn pins(view: &View<'_>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in view.protected {
        let Some(root) = view
            .writable
            .iter()
            .filter(|w| p.starts_with(w))
            .max_by_key(|w| w.components().count())
        else {
            continue;
        };
        let mut dir = p.parent();
        let mut chain = Vec::new();
        while let Some(d) = dir {
            if d == root.as_path() || !d.starts_with(root) {
                break;
            }
            chain.push(d.to_path_buf());
            dir = d.parent();
        }
        for d in chain.into_iter().rev() {
            if !out.contains(&d) && !view.protected.contains(&d) {
                out.push(d);
            }
        }
    }
    out.sort_by_key(|d| d.components().count());
    out
}

/// A `/dev` of the sandbox's own: the harmless nodes bound from the
/// system's, a private `/dev/shm`, a new `devpts` instance (its ptys reach
/// nothing outside), the usual links — and no `tty`.
fn devices(shm_mb: u64) -> Result<(), Failed> {
    let dev = Path::new("/newroot/dev");
    mount(
        Some(Path::new("tmpfs")),
        dev,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("mode=0755,size=64k"),
    )?;
    for name in DEVICES {
        let target = dev.join(name);
        std::fs::File::create(&target)
            .map_err(|e| Failed(format!("create {}: {e}", target.display())))?;
        bind(&Path::new("/oldroot/dev").join(name), &target)?;
    }
    for (link, to) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
        ("ptmx", "pts/ptmx"),
    ] {
        std::os::unix::fs::symlink(to, dev.join(link))
            .map_err(|e| Failed(format!("link /dev/{link}: {e}")))?;
    }
    let shm = dev.join("shm");
    mkdir(&shm, 0o1777)?;
    let size = match shm_mb {
        0 => String::new(),
        n => format!(",size={n}m"),
    };
    mount(
        Some(Path::new("tmpfs")),
        &shm,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&format!("mode=1777{size}")),
    )?;
    let pts = dev.join("pts");
    mkdir(&pts, 0o755)?;
    // Without it a command cannot open a pty; everything else still works.
    let _ = mount(
        Some(Path::new("devpts")),
        &pts,
        Some("devpts"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("newinstance,ptmxmode=0666,mode=620"),
    );
    Ok(())
}

/// The new PID namespace's own `/proc`, its kernel knobs read-only; where
/// the kernel will not mount one (a container that masks parts of its
/// own), an empty one rather than the system's, which would show hermes'
/// servers and their environments.
fn proc_of_its_own(max_pids: u64) -> Result<(), Failed> {
    let proc = Path::new("/newroot/proc");
    let mounted = mount(
        Some(Path::new("proc")),
        proc,
        Some("proc"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        None,
    );
    if mounted.is_err() {
        mount(
            Some(Path::new("tmpfs")),
            proc,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_RDONLY,
            Some("size=4k"),
        )?;
        return Ok(());
    }
    // The PID namespace's own highest PID (Linux 6.14 on): no more tasks
    // than that at once, for root too, at no cost per command.
    if max_pids > 0 {
        let _ = std::fs::write(proc.join("sys/kernel/pid_max"), max_pids.to_string());
    }
    for knob in ["sys", "sysrq-trigger", "irq", "bus"] {
        let p = proc.join(knob);
        if std::fs::symlink_metadata(&p).is_ok() {
            bind(&p, &p)?;
            read_only(&p)?;
        }
    }
    Ok(())
}

/// Write access to these (in the new root) is what Landlock grants besides
/// the writable folders.
pub(crate) fn writable_devices() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = DEVICES.iter().map(|d| Path::new("/dev").join(d)).collect();
    out.extend(["/dev/shm", "/dev/pts"].map(PathBuf::from));
    out
}
