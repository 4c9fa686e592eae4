//! A command's changes, reviewed before they land. The command wrote into
//! the upper layer of an overlay of each writable root; here that layer is
//! read as overlayfs left it — a file or link: made or changed; a
//! character device 0/0: deleted; a folder marked opaque: emptied and made
//! again — each change judged ([`super::held`]), and what may land moved
//! into the real folder file by file (a rename on the same filesystem, a
//! copy beside and a rename otherwise: each file whole or not at all).
//! What is held stays out, and is named.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::held::{Judge, Shape};
use super::kept::{Before, Keep, KeptFolder, Stamp};
use crate::util::path::is_under;

/// One file a command created, changed or deleted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: PathBuf,
    pub kind: ChangeKind,
    /// Its size after (made, changed) or before (deleted); none for links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Why it did not land, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<String>,
    /// What stood at the path before (the checkpoint `hermes rewind` puts
    /// back); none where no copy could be kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Before>,
    /// What the change left there, to tell a later hand edit by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Stamp>,
    /// What was taken off the file before it landed (a set-user-ID bit,
    /// file capabilities): nothing that runs with more than its caller's
    /// rights lands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripped: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Created,
    Modified,
    Deleted,
}

/// What one command did to the writable roots.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Changes {
    /// Every change, landed or held, in path order per root.
    pub files: Vec<FileChange>,
    /// Changes that could not be landed (the file system refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// Folders the change made where nothing was, outermost first: a
    /// rewind removes them once it has emptied them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub made_folders: Vec<PathBuf>,
    /// Folders that stood before and that the change removed or gave
    /// another mode, innermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_folders: Vec<KeptFolder>,
}

impl Changes {
    pub fn held(&self) -> impl Iterator<Item = &FileChange> {
        self.files.iter().filter(|f| f.held.is_some())
    }

    pub fn landed(&self) -> impl Iterator<Item = &FileChange> {
        self.files.iter().filter(|f| f.held.is_none())
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.failed.is_empty()
    }
}

/// Files whose content is compared to tell a touch from a change.
const COMPARE_UP_TO: u64 = 1 << 20;

/// Lands `upper` (the command's layer over `root`) into `root`, holding
/// back what `judge` holds; `skip`: folders never landed into (hermes'
/// stage, other roots reviewed on their own).
/// `keep`: where what a change replaces or removes is kept first.
/// `seen`: the command still runs, its overlay mounted over `upper` —
/// what it wrote is copied out, never moved (a file moved out of the
/// layer would still be the command's to write, unreviewed), and what
/// `seen` holds as it is now is not landed again.
pub(crate) fn land(
    root: &Path,
    upper: &Path,
    judge: &mut Judge<'_>,
    skip: &[PathBuf],
    keep: Option<&Keep>,
    seen: Option<&mut Seen>,
    out: &mut Changes,
) {
    let mut l = Lander {
        root,
        upper,
        judge,
        skip,
        keep,
        seen,
        out,
    };
    l.folder(Path::new(""), false);
}

/// What a running command's earlier landings took from its layer, by the
/// layer's path: each entry as it was then (inode, size, modification and
/// change time). An entry seen as it is now has landed (or was the same
/// as the folder's); one the person or another command has changed in the
/// folder since is not overwritten with it again.
#[derive(Debug, Default)]
pub(crate) struct Seen(std::collections::HashMap<PathBuf, [i64; 4]>);

impl Seen {
    fn stamp(m: &std::fs::Metadata) -> [i64; 4] {
        [
            m.ino() as i64,
            m.len() as i64,
            m.mtime() * 1_000_000_000 + m.mtime_nsec(),
            m.ctime() * 1_000_000_000 + m.ctime_nsec(),
        ]
    }

    fn has(&self, upper: &Path, m: &std::fs::Metadata) -> bool {
        self.0.get(upper) == Some(&Seen::stamp(m))
    }

    fn mark(&mut self, upper: &Path, m: &std::fs::Metadata) {
        self.0.insert(upper.to_path_buf(), Seen::stamp(m));
    }
}

struct Lander<'a, 'b> {
    root: &'a Path,
    upper: &'a Path,
    judge: &'a mut Judge<'b>,
    skip: &'a [PathBuf],
    keep: Option<&'a Keep>,
    seen: Option<&'a mut Seen>,
    out: &'a mut Changes,
}

/// What stands at `path` kept by `keep`, if it can be.
fn kept(keep: Option<&Keep>, path: &Path, m: &std::fs::Metadata) -> Option<Before> {
    keep?.path(path, m).ok()
}

fn shape_of(m: &std::fs::Metadata) -> Shape {
    let t = m.file_type();
    if t.is_dir() {
        Shape::Folder
    } else if t.is_symlink() {
        Shape::Link
    } else if t.is_file() {
        Shape::File {
            executable: m.permissions().mode() & 0o111 != 0,
        }
    } else {
        Shape::Other
    }
}

fn is_whiteout(m: &std::fs::Metadata) -> bool {
    m.file_type().is_char_device() && m.rdev() == 0
}

/// overlayfs' mark on a folder that replaced the lower one whole.
fn is_opaque(p: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    let name = c"user.overlay.opaque";
    let mut buf = [0u8; 4];
    // SAFETY: a NUL-terminated path and name, and a buffer of its length.
    let n = unsafe { libc::lgetxattr(c.as_ptr(), name.as_ptr(), buf.as_mut_ptr().cast(), 4) };
    n > 0 && buf[0] == b'y'
}

fn names_in(dir: &Path) -> BTreeSet<OsString> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

impl Lander<'_, '_> {
    fn folder(&mut self, rel: &Path, opaque: bool) {
        let up = self.upper.join(rel);
        let names = names_in(&up);
        // A folder the running command replaced whole empties the real
        // one once, not again after others have written there.
        let opaque = opaque && !self.seen_now(&up);
        if opaque {
            // What the lower folder held and the command's does not: gone.
            for n in names_in(&self.root.join(rel)) {
                if !names.contains(&n) {
                    self.delete(&rel.join(&n));
                }
            }
        }
        for n in names {
            let r = rel.join(&n);
            let target = self.root.join(&r);
            if self.skip.iter().any(|s| is_under(&target, s)) {
                continue;
            }
            let Ok(um) = std::fs::symlink_metadata(self.upper.join(&r)) else {
                continue;
            };
            if is_whiteout(&um) {
                if !self.seen_now(&self.upper.join(&r)) {
                    self.delete(&r);
                }
                continue;
            }
            let was = std::fs::symlink_metadata(&target).ok();
            let shape = shape_of(&um);
            if shape == Shape::Folder {
                self.enter(&r, &um, was.as_ref());
            } else {
                self.file(&r, &um, shape, was.as_ref());
            }
        }
    }

    fn enter(&mut self, rel: &Path, um: &std::fs::Metadata, was: Option<&std::fs::Metadata>) {
        let target = self.root.join(rel);
        let was_shape = was.map(shape_of);
        if let Some(why) = self
            .judge
            .why(self.root, self.upper, &target, Shape::Folder, was_shape)
        {
            self.hold_tree(rel, why);
            return;
        }
        match was_shape {
            Some(Shape::Folder) => {}
            Some(_) => {
                self.delete(rel);
                if let Err(e) = std::fs::create_dir(&target) {
                    return self.failed(&target, e);
                }
            }
            None => {
                if self.seen.is_none() && self.whole(rel) {
                    return;
                }
                if let Err(e) = std::fs::create_dir(&target) {
                    return self.failed(&target, e);
                }
                self.out.made_folders.push(target.clone());
            }
        }
        self.folder(rel, is_opaque(&self.upper.join(rel)));
        if let Some(w) = was.filter(|w| w.is_dir() && w.mode() != um.mode()) {
            self.out.kept_folders.push(KeptFolder::of(&target, w));
        }
        let _ = std::fs::set_permissions(&target, um.permissions());
    }

    /// A folder the command made where nothing was, landed with one
    /// rename when nothing in it is held: each file in it judged and
    /// recorded, none moved on its own. `false`: land it file by file.
    fn whole(&mut self, rel: &Path) -> bool {
        let mut entries = Vec::new();
        let mut folders = Vec::new();
        if !self.walk(rel, &mut entries, &mut folders) {
            return false;
        }
        if std::fs::rename(self.upper.join(rel), self.root.join(rel)).is_err() {
            return false;
        }
        self.out.made_folders.extend(folders);
        for (r, bytes, after) in entries {
            self.record(&r, ChangeKind::Created, bytes, None);
            self.checkpoint(Some(Before::Absent), after);
        }
        true
    }

    /// Every file and link beneath `rel` in the upper layer with its size,
    /// if none of them — nor any folder — is held, or odd.
    fn walk(
        &mut self,
        rel: &Path,
        out: &mut Vec<(PathBuf, Option<u64>, Stamp)>,
        folders: &mut Vec<PathBuf>,
    ) -> bool {
        let target = self.root.join(rel);
        folders.push(target.clone());
        if self
            .skip
            .iter()
            .any(|s| is_under(&target, s) || is_under(s, &target))
        {
            return false;
        }
        if self
            .judge
            .why(self.root, self.upper, &target, Shape::Folder, None)
            .is_some()
            || is_opaque(&self.upper.join(rel))
        {
            return false;
        }
        for n in names_in(&self.upper.join(rel)) {
            let r = rel.join(&n);
            let Ok(m) = std::fs::symlink_metadata(self.upper.join(&r)) else {
                return false;
            };
            let shape = shape_of(&m);
            let fine = match shape {
                Shape::Folder => self.walk(&r, out, folders),
                Shape::Other => false,
                _ if runs_as_other(&self.upper.join(&r), &m) => false,
                _ => {
                    let bytes = (shape != Shape::Link).then_some(m.len());
                    out.push((r.clone(), bytes, Stamp::of_meta(&m)));
                    self.judge
                        .why(self.root, self.upper, &self.root.join(&r), shape, None)
                        .is_none()
                }
            };
            if !fine {
                return false;
            }
        }
        true
    }

    fn file(
        &mut self,
        rel: &Path,
        um: &std::fs::Metadata,
        shape: Shape,
        was: Option<&std::fs::Metadata>,
    ) {
        let target = self.root.join(rel);
        let kind = if was.is_some() {
            ChangeKind::Modified
        } else {
            ChangeKind::Created
        };
        let bytes = (shape != Shape::Link).then_some(um.len());
        let source = self.upper.join(rel);
        if self.seen.as_ref().is_some_and(|s| s.has(&source, um)) {
            return;
        }
        if let Some(why) = self
            .judge
            .why(self.root, self.upper, &target, shape, was.map(shape_of))
        {
            self.record(rel, kind, bytes, Some(why));
            return;
        }
        let stripped = strip(&source, um);
        let unchanged = stripped.is_none() && was.is_some_and(|w| same(&source, um, &target, w));
        let before = match was {
            Some(w) if w.is_dir() => {
                self.delete(rel);
                Some(Before::Absent)
            }
            Some(w) if !unchanged => kept(self.keep, &target, w),
            Some(_) => None,
            None => Some(Before::Absent),
        };
        // Its mode as it lands: read again only where bits were taken off.
        let landed = match (stripped.is_some(), self.seen.is_some()) {
            (_, true) if unchanged => Ok(()),
            (_, true) => copy_still(&source, &target, um),
            (true, false) => {
                std::fs::symlink_metadata(&source).and_then(|m| put(&source, &target, &m))
            }
            (false, false) => put(&source, &target, um),
        };
        match landed {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(e) => return self.failed(&target, e),
            Ok(()) => {}
        }
        if let Some(s) = self.seen.as_deref_mut() {
            s.mark(&source, um);
        }
        if !unchanged {
            self.record(rel, kind, bytes, None);
            self.checkpoint(before, Stamp::of(&target));
            if let Some(f) = self.out.files.last_mut() {
                f.stripped = stripped;
            }
        }
    }

    /// Deletes what stands at `rel`, every file beneath a folder recorded.
    /// A deletion is held only at hermes' control paths: what is gone
    /// runs nothing.
    fn delete(&mut self, rel: &Path) {
        let target = self.root.join(rel);
        let Ok(m) = std::fs::symlink_metadata(&target) else {
            return;
        };
        let held = self.judge.why_removed(self.root, &target);
        if let Some(why) = held {
            self.record(rel, ChangeKind::Deleted, Some(m.len()), Some(why));
            return;
        }
        if m.is_dir() {
            for n in names_in(&target) {
                self.delete(&rel.join(n));
            }
            match std::fs::remove_dir(&target) {
                Ok(()) => self.out.kept_folders.push(KeptFolder::of(&target, &m)),
                // Something beneath was held back: the folder stays.
                Err(e) => {
                    if std::fs::read_dir(&target)
                        .map(|mut d| d.next().is_none())
                        .unwrap_or(false)
                    {
                        self.failed(&target, e);
                    }
                }
            }
            return;
        }
        let before = kept(self.keep, &target, &m);
        match std::fs::remove_file(&target) {
            Ok(()) => {
                self.record(
                    rel,
                    ChangeKind::Deleted,
                    (!m.file_type().is_symlink()).then_some(m.len()),
                    None,
                );
                self.checkpoint(before, Stamp::Absent);
            }
            Err(e) => self.failed(&target, e),
        }
    }

    fn hold_tree(&mut self, rel: &Path, why: &'static str) {
        let up = self.upper.join(rel);
        let mut files = Vec::new();
        collect(&up, rel, &mut files);
        if files.is_empty() {
            files.push(rel.to_path_buf());
        }
        for f in files {
            let kind = if self.root.join(&f).exists() {
                ChangeKind::Modified
            } else {
                ChangeKind::Created
            };
            let bytes = std::fs::symlink_metadata(self.upper.join(&f))
                .ok()
                .map(|m| m.len());
            self.record(&f, kind, bytes, Some(why));
        }
    }

    fn record(&mut self, rel: &Path, kind: ChangeKind, bytes: Option<u64>, held: Option<&str>) {
        self.out.files.push(FileChange {
            path: self.root.join(rel),
            kind,
            bytes,
            held: held.map(str::to_string),
            before: None,
            after: None,
            stripped: None,
        });
    }

    /// The last change recorded: what was there, what it left.
    fn checkpoint(&mut self, before: Option<Before>, after: Stamp) {
        if let Some(f) = self.out.files.last_mut() {
            f.before = before;
            f.after = Some(after);
        }
    }

    /// Whether a running command's layer holds `up` as an earlier landing
    /// saw it — marked seen from now on either way.
    fn seen_now(&mut self, up: &Path) -> bool {
        let (Some(seen), Ok(m)) = (self.seen.as_deref_mut(), std::fs::symlink_metadata(up)) else {
            return false;
        };
        let was = seen.has(up, &m);
        seen.mark(up, &m);
        was
    }

    fn failed(&mut self, target: &Path, e: std::io::Error) {
        self.out.failed.push(format!("{}: {e}", target.display()));
    }
}

/// Lands what `changes` holds back, from the layers it waited in
/// (`overlays`: root, upper, work): the person saw the list and said yes.
/// The way to each file is made as the command left it, never followed
/// through a link in the real folder; what cannot land goes to `failed`.
pub(crate) fn land_held(
    overlays: &[(PathBuf, PathBuf, PathBuf)],
    keep: Option<&Keep>,
    changes: &mut Changes,
) {
    let mut failed = Vec::new();
    let mut made = Vec::new();
    for f in changes.files.iter_mut().filter(|f| f.held.is_some()) {
        let Some((root, upper)) = overlays
            .iter()
            .filter(|(r, ..)| f.path.starts_with(r))
            .max_by_key(|(r, ..)| r.components().count())
            .map(|(r, u, _)| (r, u))
        else {
            continue;
        };
        let Ok(rel) = f.path.strip_prefix(root) else {
            continue;
        };
        let before = match std::fs::symlink_metadata(&f.path) {
            Ok(m) if m.is_dir() => Some(Before::Absent),
            Ok(m) => kept(keep, &f.path, &m),
            Err(_) => Some(Before::Absent),
        };
        let landed = match f.kind {
            ChangeKind::Deleted => remove_any(&f.path),
            _ => way_to(root, upper, rel, &mut made).and_then(|()| {
                let source = upper.join(rel);
                let m = std::fs::symlink_metadata(&source)?;
                if m.is_dir() {
                    return match std::fs::symlink_metadata(&f.path) {
                        Ok(t) if t.is_dir() => Ok(()),
                        Ok(_) => remove_any(&f.path).and_then(|()| std::fs::create_dir(&f.path)),
                        Err(_) => std::fs::create_dir(&f.path),
                    };
                }
                if std::fs::symlink_metadata(&f.path).is_ok_and(|t| t.is_dir()) {
                    std::fs::remove_dir_all(&f.path)?;
                }
                f.stripped = strip(&source, &m);
                put(&source, &f.path, &std::fs::symlink_metadata(&source)?)
            }),
        };
        match landed {
            Ok(()) => {
                f.held = None;
                f.before = before;
                f.after = Some(Stamp::of(&f.path));
            }
            Err(e) => failed.push(format!("{}: {e}", f.path.display())),
        }
    }
    changes.failed.extend(failed);
    changes.made_folders.extend(made);
}

/// The folders from `root` to `rel`'s parent, made real folders where the
/// command made them: a link or file standing where its layer has a
/// folder is replaced, never written through. Those made where nothing
/// was go to `made`.
fn way_to(root: &Path, upper: &Path, rel: &Path, made: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut at = PathBuf::new();
    let parents: Vec<_> = rel
        .parent()
        .map(|p| p.components().collect())
        .unwrap_or_default();
    for c in parents {
        at.push(c);
        let real = root.join(&at);
        match std::fs::symlink_metadata(&real) {
            Ok(m) if m.is_dir() => continue,
            Ok(_) => {
                let theirs = std::fs::symlink_metadata(upper.join(&at));
                if !theirs.is_ok_and(|t| t.is_dir()) {
                    return Err(std::io::Error::other(format!(
                        "{} is not a folder",
                        real.display()
                    )));
                }
                std::fs::remove_file(&real)?;
                std::fs::create_dir(&real)?;
            }
            Err(_) => {
                std::fs::create_dir(&real)?;
                made.push(real);
            }
        }
    }
    Ok(())
}

fn remove_any(p: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(p),
        Ok(_) => std::fs::remove_file(p),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Every file and link beneath `dir` (relative to the root as `rel`).
fn collect(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    for n in names_in(dir) {
        let p = dir.join(&n);
        let r = rel.join(&n);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => collect(&p, &r, out),
            Ok(_) => out.push(r),
            Err(_) => {}
        }
    }
}

/// The extended attribute that gives a file capabilities when run.
const CAPABILITY: &std::ffi::CStr = c"security.capability";

/// Whether running the file would give its caller other rights: a
/// set-user-ID or set-group-ID bit, or file capabilities.
fn runs_as_other(p: &Path, m: &std::fs::Metadata) -> bool {
    m.is_file() && (m.mode() & 0o6000 != 0 || has_capability(p))
}

fn has_capability(p: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path and name; a size query, no buffer.
    let n = unsafe { libc::lgetxattr(c.as_ptr(), CAPABILITY.as_ptr(), std::ptr::null_mut(), 0) };
    n >= 0
}

/// Takes what would let the file run with other rights off the command's
/// copy before it lands; what was taken, for the record.
fn strip(p: &Path, m: &std::fs::Metadata) -> Option<String> {
    if !runs_as_other(p, m) {
        return None;
    }
    let mut taken = Vec::new();
    if m.mode() & 0o4000 != 0 {
        taken.push("set-user-ID");
    }
    if m.mode() & 0o2000 != 0 {
        taken.push("set-group-ID");
    }
    let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(m.mode() & 0o1777));
    if has_capability(p) {
        taken.push("file capabilities");
        if let Ok(c) = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()) {
            // SAFETY: a NUL-terminated path and name.
            unsafe { libc::lremovexattr(c.as_ptr(), CAPABILITY.as_ptr()) };
        }
    }
    Some(format!("{} taken off", taken.join(" and ")))
}

/// Whether the command's file is the one that was there (opened for
/// writing, touched, but the same bytes and mode).
fn same(a: &Path, am: &std::fs::Metadata, b: &Path, bm: &std::fs::Metadata) -> bool {
    if !am.is_file() || !bm.is_file() || am.len() != bm.len() || am.len() > COMPARE_UP_TO {
        return false;
    }
    if am.permissions().mode() != bm.permissions().mode() {
        return false;
    }
    matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}

/// Copies a running command's file (or link) to `target`, whole, if it
/// held still while it was copied — tried three times; on the last, a file
/// that only grew (a log appended to) lands as copied, a prefix of what it
/// holds now. Else `WouldBlock`, and the next look lands it. Set-user-ID
/// bits and the like are not copied (the mode is set from `m`, the
/// permission bits only).
fn copy_still(source: &Path, target: &Path, m: &std::fs::Metadata) -> std::io::Result<()> {
    const TRIES: usize = 3;
    let beside = beside(target);
    let mut before = m.clone();
    for attempt in 1..=TRIES {
        let _ = std::fs::remove_file(&beside);
        let copied = if before.file_type().is_symlink() {
            std::fs::read_link(source).and_then(|to| std::os::unix::fs::symlink(to, &beside))
        } else {
            std::fs::copy(source, &beside).and_then(|_| {
                std::fs::set_permissions(
                    &beside,
                    std::fs::Permissions::from_mode(before.permissions().mode() & 0o777),
                )
            })
        };
        let now = copied.and_then(|()| std::fs::symlink_metadata(source));
        let now = match now {
            Ok(n) => n,
            Err(e) => {
                let _ = std::fs::remove_file(&beside);
                return Err(e);
            }
        };
        let still = Seen::stamp(&now) == Seen::stamp(&before);
        let grew = attempt == TRIES
            && now.is_file()
            && now.ino() == before.ino()
            && now.len() >= before.len();
        if still || grew {
            return std::fs::rename(&beside, target).inspect_err(|_| {
                let _ = std::fs::remove_file(&beside);
            });
        }
        before = now;
    }
    let _ = std::fs::remove_file(&beside);
    Err(std::io::ErrorKind::WouldBlock.into())
}

/// Where a file is written before it is renamed over `target`.
fn beside(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.hermes-landing"))
}

/// Moves the command's file (or link) to `target`, whole: renamed over
/// it, or — across filesystems — copied beside it and renamed.
fn put(source: &Path, target: &Path, m: &std::fs::Metadata) -> std::io::Result<()> {
    match std::fs::rename(source, target) {
        Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {}
        other => return other,
    }
    let beside = beside(target);
    let _ = std::fs::remove_file(&beside);
    let copied = if m.file_type().is_symlink() {
        std::fs::read_link(source).and_then(|to| std::os::unix::fs::symlink(to, &beside))
    } else {
        std::fs::copy(source, &beside)
            .and_then(|_| std::fs::set_permissions(&beside, m.permissions()))
    };
    copied
        .and_then(|()| std::fs::rename(&beside, target))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&beside);
        })
}

#[cfg(test)]
#[path = "review_tests.rs"]
mod tests;
