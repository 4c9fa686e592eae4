//! Where one command's changes wait: an upper and a work folder per
//! writable root, under a stage folder that lies outside every root (an
//! overlay's upper layer may not lie inside its lower one, and the
//! command must not reach it). The stage is hermes' data folder when it
//! can be — on the same filesystem as the project, so landing is a rename
//! — else a private folder in `/var/tmp` or `/dev/shm`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::held::{Held, Judge};
use super::review::{self, Changes};

/// One command's staged roots; removed when dropped.
#[derive(Debug)]
pub(crate) struct Stage {
    dir: PathBuf,
    /// (root, upper, work), real paths.
    pub(crate) overlays: Vec<(PathBuf, PathBuf, PathBuf)>,
}

/// Landings run one at a time: two commands' changes to one folder land
/// whole, one after the other.
static LANDING: Mutex<()> = Mutex::new(());

fn overlaps(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

impl Stage {
    /// A stage for `roots` (real paths; folders get an overlay, files do
    /// not), in the first of `bases` that lies outside all of them. `None`
    /// when none does.
    pub(crate) fn new(bases: &[PathBuf], roots: &[PathBuf]) -> Option<Stage> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = bases.iter().find_map(|b| {
            crate::util::private::create_dir_all(b).ok()?;
            let real = std::fs::canonicalize(b).ok()?;
            (!roots.iter().any(|r| overlaps(&real, r))).then_some(real)
        })?;
        let dir = base.join(format!(
            "{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mut overlays = Vec::new();
        for (i, root) in roots.iter().enumerate() {
            if !root.is_dir() {
                continue;
            }
            let (upper, work) = (dir.join(format!("{i}/u")), dir.join(format!("{i}/w")));
            crate::util::private::create_dir_all(&upper).ok()?;
            crate::util::private::create_dir_all(&work).ok()?;
            overlays.push((root.clone(), upper, work));
        }
        Some(Stage { dir, overlays })
    }

    /// The stage folder (hidden from the command).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Lands what the command left in each root, holding back what
    /// `rules` hold; the record of it all.
    pub(crate) fn land(&self, rules: &Held<'_>) -> Changes {
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
                .chain(std::iter::once(self.dir.clone()))
                .collect();
            review::land(root, upper, &mut judge, &skip, &mut out);
        }
        out
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        // overlayfs leaves its work folder's inner folder mode 000.
        for (_, _, work) in &self.overlays {
            let inner = work.join("work");
            if inner.exists() {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o700));
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
