//! Where one command's changes wait: an upper and a work folder per
//! writable root, under a stage folder that lies outside every root (an
//! overlay's upper layer may not lie inside its lower one, and the
//! command must not reach it). The stage is hermes' data folder when it
//! can be — on the same filesystem as the project, so landing is a rename
//! — else a private folder in `/var/tmp` or `/dev/shm`.
//!
//! Making and removing a stage's folders is a dozen directory operations
//! a command would wait on (and, on ext4, inodes made and freed that slow
//! every later create near them); so a used stage the command left empty
//! is made ready again in the background, as the next command's spare,
//! and one that is not is removed there and a fresh spare made. A hermes
//! leaves its spare behind when it ends; what an ended or killed one left
//! goes once the next one's first command is done.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};

use super::held::{Held, Judge};
use super::kept::Keep;
use super::review::{self, Changes};

/// One command's staged roots; removed (in the background) when dropped.
#[derive(Debug)]
pub(crate) struct Stage {
    base: PathBuf,
    dir: PathBuf,
    /// (root, upper, work), real paths.
    pub(crate) overlays: Vec<(PathBuf, PathBuf, PathBuf)>,
}

/// Landings run one at a time: two commands' changes to one folder land
/// whole, one after the other.
static LANDING: Mutex<()> = Mutex::new(());

/// A stage made ready before it is needed: its base, folder, and how many
/// (upper, work) pairs it holds.
static SPARE: Mutex<Option<(PathBuf, PathBuf, usize)>> = Mutex::new(None);

fn overlaps(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// This process' stage folders are named `PID-START-N`: a later hermes
/// tells whose are left over by whether that process still runs.
fn owner() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| {
        super::orphans::mark_of(std::process::id() as libc::pid_t)
            .unwrap_or_else(|| format!("{}:0", std::process::id()))
            .replace(':', "-")
    })
}

fn pair(dir: &Path, i: usize) -> (PathBuf, PathBuf) {
    (dir.join(format!("u{i}")), dir.join(format!("w{i}")))
}

/// A fresh stage folder in `base` with `pairs` (upper, work) pairs.
fn make(base: &Path, pairs: usize) -> Option<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = base.join(format!(
        "{}-{}",
        owner(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = remove(&dir);
    let mk = |p: &Path| {
        let mut b = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(p)
    };
    mk(&dir).ok()?;
    for i in 0..pairs {
        let (u, w) = pair(&dir, i);
        mk(&u).ok()?;
        mk(&w).ok()?;
    }
    Some(dir)
}

/// Removes a stage folder; overlayfs leaves its work folder's inner
/// folders mode 000.
fn remove(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let work = e.path().join("work");
            if work.is_dir() {
                let open = std::fs::Permissions::from_mode(0o700);
                let _ = std::fs::set_permissions(&work, open.clone());
                for inner in ["incompat", "incompat/volatile", "index"] {
                    let _ = std::fs::set_permissions(work.join(inner), open.clone());
                }
            }
        }
    }
    std::fs::remove_dir_all(dir)
}

/// A used stage: its base, folder and (upper, work) pairs. Kept as the
/// spare when the command left nothing in it (so no folder is made or
/// removed for the next), else removed and a fresh spare made.
struct Done(PathBuf, PathBuf, usize);

/// A used stage made ready again, if its upper layers are empty: the
/// marker a `volatile` overlay leaves (which would refuse the next mount)
/// removed; overlayfs empties its own `work` folder as it mounts.
fn reuse(dir: &Path, pairs: usize) -> bool {
    use std::os::unix::fs::PermissionsExt;
    (0..pairs).all(|i| {
        let (u, w) = pair(dir, i);
        if !std::fs::read_dir(&u).is_ok_and(|mut d| d.next().is_none()) {
            return false;
        }
        // Opened first: a folder of mode 000 hides what is in it from
        // its owner (not from root).
        let open = std::fs::Permissions::from_mode(0o700);
        for p in ["work", "work/incompat", "work/incompat/volatile"] {
            let _ = std::fs::set_permissions(w.join(p), open.clone());
        }
        let volatile = w.join("work/incompat/volatile");
        match std::fs::remove_dir_all(&volatile) {
            Ok(()) => true,
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        }
    })
}

/// The background thread that readies used stages again or removes them;
/// the first time it sees a base, it removes what hermes processes that
/// are gone left there.
fn janitor() -> Option<&'static Mutex<mpsc::Sender<Done>>> {
    static TX: OnceLock<Option<Mutex<mpsc::Sender<Done>>>> = OnceLock::new();
    TX.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Done>();
        std::thread::Builder::new()
            .name("hermes-stage".into())
            .spawn(move || {
                let mut swept: Vec<PathBuf> = Vec::new();
                for Done(base, dir, pairs) in rx {
                    if !swept.contains(&base) {
                        sweep(&base);
                        swept.push(base.clone());
                    }
                    // The spare is made or kept outside its lock: a command
                    // starting meanwhile makes its own rather than wait.
                    let fits = SPARE
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .as_ref()
                        .is_some_and(|(b, _, n)| *b == base && *n >= pairs);
                    let spare = if fits {
                        let _ = remove(&dir);
                        None
                    } else if reuse(&dir, pairs) {
                        Some(dir)
                    } else {
                        let _ = remove(&dir);
                        make(&base, pairs)
                    };
                    if let Some(d) = spare {
                        let old = SPARE
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .replace((base, d, pairs));
                        if let Some((_, old, _)) = old {
                            let _ = remove(&old);
                        }
                    }
                }
            })
            .ok()?;
        Some(Mutex::new(tx))
    })
    .as_ref()
}

fn send(done: Done) -> Result<(), Done> {
    match janitor() {
        Some(tx) => tx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(done)
            .map_err(|e| e.0),
        None => Err(done),
    }
}

/// Removes the stage folders in `base` whose hermes no longer runs.
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    let mine = owner();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let mut parts = name.split('-');
        let (Some(pid), Some(start)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(pid) = pid.parse::<libc::pid_t>() else {
            continue;
        };
        if name.starts_with(&format!("{mine}-")) {
            continue;
        }
        let alive = super::orphans::mark_of(pid)
            .is_some_and(|m| m.replace(':', "-") == format!("{pid}-{start}"));
        if !alive {
            let _ = remove(&e.path());
        }
    }
}

/// Marks `base` as a top of folder trees (ext4's `chattr +T`), once: each
/// stage made in it then starts in a block group of its own with inodes
/// to spare, rather than all in one — where files a command made, landed
/// and later deleted (a `target` folder cleaned) would make every create
/// after them skip over the freed inodes, slowly, for minutes.
fn spread(base: &Path) {
    static DONE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if done.iter().any(|d| d == base) {
        return;
    }
    done.push(base.to_path_buf());
    const TOPDIR: libc::c_int = 0x0002_0000;
    let Ok(dir) = std::fs::File::open(base) else {
        return;
    };
    use std::os::fd::AsRawFd;
    let mut flags: libc::c_int = 0;
    // SAFETY: the flags ioctls read and write one int.
    unsafe {
        if libc::ioctl(dir.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) == 0
            && flags & TOPDIR == 0
        {
            flags |= TOPDIR;
            libc::ioctl(dir.as_raw_fd(), libc::FS_IOC_SETFLAGS, &flags);
        }
    }
}

/// Where `base` is or would be once made (its nearest existing folder's
/// real path, the rest as named), and that folder's filesystem.
fn would_be(base: &Path) -> Option<(PathBuf, Option<u64>)> {
    use std::os::unix::fs::MetadataExt;
    let mut at = base;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            let on = std::fs::metadata(&real).ok().map(|m| m.dev());
            return Some((rest.iter().rev().fold(real, |p, n| p.join(n)), on));
        }
        rest.push(at.file_name()?);
        at = at.parent()?;
    }
}

impl Stage {
    /// A stage for `roots` (real paths; folders get an overlay, files do
    /// not), in the first of `bases` that lies outside all of them and on
    /// the filesystem of `near` (the folder the command runs in) — landing
    /// there is a rename, elsewhere a copy of each file — else the first
    /// outside all. `None` when none is.
    pub(crate) fn new(bases: &[PathBuf], roots: &[PathBuf], near: &Path) -> Result<Stage, String> {
        use std::os::unix::fs::MetadataExt;
        // Where each base is or would be, and on which filesystem, before
        // any is made: only the one chosen is.
        let mut refused = Vec::new();
        let outside: Vec<(PathBuf, Option<u64>)> = bases
            .iter()
            .filter(|b| {
                // A link where the folder would be is someone's choice of
                // folder, not ours.
                let link = std::fs::symlink_metadata(b).is_ok_and(|m| m.file_type().is_symlink());
                if link {
                    refused.push(format!("{} is not a folder (a link?)", b.display()));
                }
                !link
            })
            .filter_map(|b| {
                let (real, on) = would_be(b)?;
                (!roots.iter().any(|r| overlaps(&real, r))).then_some((real, on))
            })
            .collect();
        let project = std::fs::metadata(near).ok().map(|m| m.dev());
        let same = outside
            .iter()
            .filter(|(_, on)| on.is_some() && *on == project);
        // Private or not at all: a base another user made first (or
        // swapped for a link) is passed over, with why.
        let base = same
            .chain(&outside)
            .find_map(|(real, _)| match crate::util::private::private_dir(real) {
                Ok(()) => std::fs::canonicalize(real).ok(),
                Err(why) => {
                    refused.push(why);
                    None
                }
            })
            .ok_or_else(|| {
                if refused.is_empty() {
                    "every folder it could use lies inside a writable folder".to_string()
                } else {
                    refused.join("; ")
                }
            })?;
        spread(&base);
        let folders: Vec<&PathBuf> = roots.iter().filter(|r| r.is_dir()).collect();
        let spare = {
            let mut s = SPARE.lock().unwrap_or_else(|e| e.into_inner());
            match s.take() {
                Some((b, dir, pairs)) if b == base && pairs >= folders.len() => Some(dir),
                other => {
                    *s = other;
                    None
                }
            }
        };
        // Without a spare (the first command, or one beside another), its
        // own; the spare comes from a used stage, once the command ends.
        let dir = match spare {
            Some(d) => d,
            None => make(&base, folders.len())
                .ok_or_else(|| format!("no folder could be made in {}", base.display()))?,
        };
        let overlays = folders
            .iter()
            .enumerate()
            .map(|(i, root)| {
                let (u, w) = pair(&dir, i);
                ((*root).clone(), u, w)
            })
            .collect();
        Ok(Stage {
            base,
            dir,
            overlays,
        })
    }

    /// The folder every stage lies in (hidden from the command: neither
    /// its own layers nor another command's are its to read).
    pub(crate) fn base(&self) -> &Path {
        &self.base
    }

    /// Lands what the command left in each root, holding back what
    /// `rules` hold, keeping what it replaces in `keep`; the record of it
    /// all.
    pub(crate) fn land(&self, rules: &Held<'_>, keep: Option<&Keep>) -> Changes {
        self.land_with(rules, keep, None)
    }

    /// Lands what a command that still runs has written so far: copied out
    /// of its layer (which stays as it is: the command's overlay is
    /// mounted over it), each file only once it held still while copied,
    /// and only what changed since `seen` last saw it.
    pub(crate) fn land_running(
        &self,
        rules: &Held<'_>,
        keep: Option<&Keep>,
        seen: &mut review::Seen,
    ) -> Changes {
        self.land_with(rules, keep, Some(seen))
    }

    fn land_with(
        &self,
        rules: &Held<'_>,
        keep: Option<&Keep>,
        mut seen: Option<&mut review::Seen>,
    ) -> Changes {
        let _one = LANDING.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Changes::default();
        let mut judge = Judge::new(rules);
        // A root inside another is landed on its own, from its own layer.
        for (root, upper, _) in &self.overlays {
            let skip: Vec<PathBuf> = self
                .overlays
                .iter()
                .map(|(r, ..)| r)
                .filter(|r| *r != root && r.starts_with(root))
                .cloned()
                .chain(std::iter::once(self.base.clone()))
                .collect();
            review::land(
                root,
                upper,
                &mut judge,
                &skip,
                keep,
                seen.as_deref_mut(),
                &mut out,
            );
        }
        out
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        let done = Done(
            std::mem::take(&mut self.base),
            std::mem::take(&mut self.dir),
            self.overlays.len(),
        );
        if let Err(Done(_, dir, _)) = send(done) {
            let _ = remove(&dir);
        }
    }
}

/// What a command wrote that was held back, still in its stage: the round
/// puts the list to the person once, and lands it if they say so. One
/// pointer wide: it rides in every tool output.
#[derive(Clone)]
pub(crate) struct HeldBack(Arc<Kept>);

struct Kept {
    stage: Stage,
    /// The held changes, one a line with why, for the question.
    preview: String,
    /// The result's text before its list of changes.
    body: String,
    /// How the result lists changes.
    describe: Box<dyn Fn(&Changes) -> String + Send + Sync>,
    /// Where what the landing replaces is kept.
    keep: Option<Keep>,
}

impl HeldBack {
    pub(crate) fn new(
        stage: Stage,
        preview: String,
        body: String,
        describe: Box<dyn Fn(&Changes) -> String + Send + Sync>,
        keep: Option<Keep>,
    ) -> HeldBack {
        HeldBack(Arc::new(Kept {
            stage,
            preview,
            body,
            describe,
            keep,
        }))
    }

    /// The held changes, one a line with why.
    pub(crate) fn preview(&self) -> &str {
        &self.0.preview
    }

    /// Lands what `changes` held back; the result's text as it now is.
    pub(crate) fn land(&self, changes: &mut Changes) -> String {
        let _one = LANDING.lock().unwrap_or_else(|e| e.into_inner());
        review::land_held(&self.0.stage.overlays, self.0.keep.as_ref(), changes);
        format!("{}{}", self.0.body, (self.0.describe)(changes))
    }
}

impl std::fmt::Debug for HeldBack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldBack")
            .field("stage", &self.0.stage.dir)
            .finish()
    }
}

impl PartialEq for HeldBack {
    fn eq(&self, other: &HeldBack) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_stage_is_used_again_and_leftovers_of_dead_processes_go() {
        let base = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let roots = vec![std::fs::canonicalize(root.path()).unwrap()];
        // A stage folder of a hermes long gone (pid 1's start time is not
        // this), with overlayfs' mode-000 work folder in it.
        let gone = base.path().join("1-999999999-0");
        std::fs::create_dir_all(gone.join("w0/work/incompat")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(gone.join("w0/work"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        let stage = Stage::new(&[base.path().to_path_buf()], &roots, &roots[0]).unwrap();
        let (r, u, w) = &stage.overlays[0];
        assert_eq!(r, &roots[0]);
        assert!(u.is_dir() && w.is_dir());
        assert!(!u.starts_with(root.path()));
        let first = stage.dir.clone();
        // Left empty, with the marker a volatile overlay leaves (in
        // folders of mode 000), it is made ready again as the spare; the
        // janitor sweeps the leftover on the way.
        let marker = stage.overlays[0].2.join("work/incompat/volatile");
        std::fs::create_dir_all(&marker).unwrap();
        std::fs::write(marker.join("dirty"), "").unwrap();
        for p in ["work/incompat/volatile", "work/incompat", "work"] {
            let p = stage.overlays[0].2.join(p);
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o000)).unwrap();
        }
        drop(stage);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let spare_is = |d: &Path| {
            SPARE
                .lock()
                .unwrap()
                .as_ref()
                .is_some_and(|(_, s, _)| s == d)
        };
        while (gone.exists() || !spare_is(&first)) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!gone.exists(), "a dead hermes' stage is swept");
        let bases = [base.path().to_path_buf()];
        let second = Stage::new(&bases, &roots, &roots[0]).unwrap();
        assert_eq!(second.dir, first, "an empty stage is used again");
        assert!(!second.overlays[0].2.join("work/incompat/volatile").exists());
        // One the command left something in is removed, and a fresh spare
        // made in its place.
        std::fs::write(second.overlays[0].1.join("left.txt"), "x").unwrap();
        drop(second);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while first.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!first.exists(), "a used stage with changes left is removed");
        let third = Stage::new(&bases, &roots, &roots[0]).unwrap();
        assert_ne!(third.dir, first);
        assert!(third.overlays[0].1.read_dir().unwrap().next().is_none());
    }

    /// A stage folder another user made first, a link where one would
    /// be, or one open to others' writes is passed over; with nothing
    /// else, no stage (and so no command) at all.
    #[test]
    fn a_stage_base_anyone_else_could_touch_is_never_used() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let t = std::fs::canonicalize(tmp.path()).unwrap();
        let root = t.join("project");
        std::fs::create_dir_all(&root).unwrap();
        let roots = [root.clone()];
        std::fs::create_dir_all(t.join("a")).unwrap();
        std::fs::create_dir_all(t.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(t.join("elsewhere"), t.join("a/stage")).unwrap();
        std::fs::create_dir_all(t.join("b/stage")).unwrap();
        std::fs::set_permissions(t.join("b/stage"), std::fs::Permissions::from_mode(0o777))
            .unwrap();
        let mut blocked = vec![t.join("a/stage"), t.join("b/stage")];
        // SAFETY: getuid cannot fail.
        if unsafe { libc::getuid() } == 0 {
            std::fs::create_dir_all(t.join("c/stage")).unwrap();
            std::os::unix::fs::chown(t.join("c/stage"), Some(65534), Some(65534)).unwrap();
            std::fs::set_permissions(t.join("c/stage"), std::fs::Permissions::from_mode(0o700))
                .unwrap();
            blocked.push(t.join("c/stage"));
        }
        let why = Stage::new(&blocked, &roots, &root).unwrap_err();
        assert!(why.contains("is not a folder (a link?)"), "{why}");
        assert!(why.contains("open to others' writes"), "{why}");
        if blocked.len() == 3 {
            assert!(why.contains("belongs to another user"), "{why}");
        }
        assert!(std::fs::read_dir(t.join("elsewhere"))
            .unwrap()
            .next()
            .is_none());
        let mut with_ours = blocked.clone();
        with_ours.push(t.join("d/stage"));
        let stage = Stage::new(&with_ours, &roots, &root).unwrap();
        assert_eq!(stage.base(), t.join("d/stage"));
        let m = std::fs::symlink_metadata(t.join("d/stage")).unwrap();
        assert_eq!(m.permissions().mode() & 0o777, 0o700);
    }

    /// A project on tmpfs gets its stage on tmpfs, one on disk on disk:
    /// landing is then a rename, not a copy of each file — and the base
    /// not chosen is not made.
    #[test]
    fn a_stage_is_made_on_the_filesystem_the_command_runs_in() {
        use std::os::unix::fs::MetadataExt;
        let disk = tempfile::tempdir().unwrap();
        let Ok(memory) = tempfile::tempdir_in("/dev/shm") else {
            return;
        };
        let dev = |p: &Path| std::fs::metadata(p).unwrap().dev();
        if dev(disk.path()) == dev(memory.path()) {
            return;
        }
        let bases = [disk.path().join("a/stage"), memory.path().join("stage")];
        for (at, other) in [(&memory, &disk), (&disk, &memory)] {
            let project = at.path().join("project");
            std::fs::create_dir_all(&project).unwrap();
            let roots = [std::fs::canonicalize(&project).unwrap()];
            let stage = Stage::new(&bases, &roots, &roots[0]).unwrap();
            assert_eq!(dev(stage.base()), dev(at.path()));
            assert!(
                !other.path().join("a").exists() && !other.path().join("stage").exists(),
                "the base not chosen was made"
            );
            let _ = std::fs::remove_dir_all(at.path().join("a"));
            let _ = std::fs::remove_dir_all(at.path().join("stage"));
        }
    }
}
