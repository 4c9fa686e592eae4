//! Whom a test runs hermes as. The sandbox must hold for root and for a
//! normal user alike — root's capabilities open doors a user's never had
//! (DAC override, ptrace, chown) — so the kernel-proof tests run once as
//! each when the suite runs as root, and as the one user it is otherwise.

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct User {
    pub uid: u32,
    pub gid: u32,
}

/// `nobody`: a normal user every Linux system has.
pub const NOBODY: User = User {
    uid: 65534,
    gid: 65534,
};

impl User {
    pub fn current() -> User {
        // SAFETY: getuid/getgid cannot fail.
        unsafe {
            User {
                uid: libc::getuid(),
                gid: libc::getgid(),
            }
        }
    }

    pub fn is_current(&self) -> bool {
        *self == User::current()
    }

    pub fn is_root(&self) -> bool {
        self.uid == 0
    }

    pub fn name(&self) -> &'static str {
        if self.is_root() {
            "root"
        } else {
            "a normal user"
        }
    }

    /// Makes everything under `dir` this user's (links themselves, not
    /// what they point to).
    pub fn own(&self, dir: &Path) {
        fn walk(p: &Path, u: &User) {
            let _ = std::os::unix::fs::lchown(p, Some(u.uid), Some(u.gid));
            let Ok(meta) = std::fs::symlink_metadata(p) else {
                return;
            };
            if meta.is_dir() {
                for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
                    walk(&e.path(), u);
                }
            }
        }
        walk(dir, self);
    }
}

/// The users a kernel-proof test runs as: root and a normal user when the
/// suite runs as root; the suite's own user otherwise (a line says root's
/// run was left out).
pub fn each() -> Vec<User> {
    let me = User::current();
    if me.is_root() {
        vec![me, NOBODY]
    } else {
        eprintln!("note: not root, so this test runs as a normal user only");
        vec![me]
    }
}
