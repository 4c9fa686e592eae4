//! Files hermes reads on the person's behalf from the folder it works in —
//! a project's AGENTS.md, an `@path` attachment — read as data, from inside
//! that folder only: a link that leads out of it (`AGENTS.md ->
//! ~/.ssh/id_rsa` in a cloned repository) is refused, not followed, and no
//! file is read whole past its budget.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a file inside a folder was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refused {
    #[error("{} is a link out of {} (to {}); not read", path.display(), root.display(), real.display())]
    Outside {
        path: PathBuf,
        root: PathBuf,
        real: PathBuf,
    },
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The real path of `path` (symlinks resolved), when it is inside `root`.
pub(crate) fn resolve(root: &Path, path: &Path) -> Result<PathBuf, Refused> {
    let io = |source| Refused::Io {
        path: path.to_path_buf(),
        source,
    };
    let real = std::fs::canonicalize(path).map_err(io)?;
    if !is_inside(&real, [&real_path(root)]) {
        return Err(Refused::Outside {
            path: path.to_path_buf(),
            root: root.to_path_buf(),
            real,
        });
    }
    Ok(real)
}

/// Whether `path`, every link on its way followed (for a path not there
/// yet, its nearest existing ancestor's), is inside one of `roots` (real
/// paths): the one inside-the-folder check — for what the model names to
/// the built-in tools, and for what the person attaches or a project's
/// instructions name.
pub(crate) fn is_inside<'a>(path: &Path, roots: impl IntoIterator<Item = &'a PathBuf>) -> bool {
    let real = real_path(path);
    roots.into_iter().any(|r| real.starts_with(r))
}

/// The real path of `path`: its nearest existing ancestor canonicalized,
/// the rest appended.
pub(crate) fn real_path(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut cur = path.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&cur) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                cur = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// At most `max` bytes of the file at `real` (a resolved path), and the
/// file's whole size: read as far as needed, never all of a large file.
pub(crate) fn read_head(real: &Path, max: usize) -> std::io::Result<(Vec<u8>, u64)> {
    // Every component was resolved already: a link put anywhere on the way
    // since is not followed.
    let file = super::beneath::open_file(real)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let mut bytes = Vec::with_capacity(max.min(meta.len() as usize));
    file.take(max as u64).read_to_end(&mut bytes)?;
    Ok((bytes, meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_out_of_the_folder_is_refused_and_a_big_file_read_only_so_far() {
        let dir = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        std::fs::write(out.path().join("id_rsa"), "PRIVATE KEY").unwrap();
        std::os::unix::fs::symlink(out.path().join("id_rsa"), dir.path().join("AGENTS.md"))
            .unwrap();
        let e = resolve(dir.path(), &dir.path().join("AGENTS.md")).unwrap_err();
        assert!(matches!(e, Refused::Outside { .. }), "{e}");
        assert!(e.to_string().contains("is a link out of"), "{e}");
        std::fs::write(dir.path().join("real.md"), "x".repeat(10_000)).unwrap();
        std::os::unix::fs::symlink("real.md", dir.path().join("inside.md")).unwrap();
        let real = resolve(dir.path(), &dir.path().join("inside.md")).unwrap();
        let (head, size) = read_head(&real, 100).unwrap();
        assert_eq!((head.len(), size), (100, 10_000));
    }

    /// A folder on the way swapped for a link after the path was resolved
    /// (a command running beside, a race) is refused, not followed: the
    /// resolved path is opened one component at a time.
    #[test]
    fn a_folder_swapped_for_a_link_after_resolving_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/AGENTS.md"), "be kind").unwrap();
        std::fs::write(out.path().join("AGENTS.md"), "PRIVATE KEY").unwrap();
        let real = resolve(dir.path(), &dir.path().join("docs/AGENTS.md")).unwrap();
        assert_eq!(read_head(&real, 100).unwrap().0, b"be kind");
        std::fs::remove_dir_all(dir.path().join("docs")).unwrap();
        std::os::unix::fs::symlink(out.path(), dir.path().join("docs")).unwrap();
        let e = read_head(&real, 100).unwrap_err();
        assert!(super::super::beneath::is_link_error(&e), "{e}");
    }
}
