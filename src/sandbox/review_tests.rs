//! The review's tests: upper layers as overlayfs leaves them, landed and held.

use super::*;
use crate::sandbox::held::Held;

fn no_control(_: &Path) -> Option<&'static str> {
    None
}

/// An overlayfs whiteout (a 0/0 character device); only root may make
/// one outside a user namespace.
fn whiteout(p: &Path) -> bool {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, 0) == 0 }
}

fn opaque(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: NUL-terminated strings and a buffer of its length.
    let rc = unsafe {
        libc::setxattr(
            c.as_ptr(),
            c"user.overlay.opaque".as_ptr(),
            b"y".as_ptr().cast(),
            1,
            0,
        )
    };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
}

#[test]
fn an_upper_layer_lands_as_overlayfs_left_it() {
    let dir = tempfile::tempdir().unwrap();
    let (root, upper) = (dir.path().join("root"), dir.path().join("upper"));
    let w = |base: &Path, p: &str, text: &str| {
        let p = base.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    // As it was.
    w(&root, "kept.txt", "old");
    w(&root, "same.txt", "same");
    w(&root, "gone.txt", "bye");
    w(&root, "emptied/a", "a");
    w(&root, "emptied/b", "b");
    w(&root, "was_file", "f");
    w(&root, "was_dir/x", "x");
    std::fs::create_dir_all(root.join("repo/.git")).unwrap();
    // As the command left it.
    w(&upper, "kept.txt", "new!");
    w(&upper, "same.txt", "same");
    w(&upper, "made/deep/n.txt", "n");
    w(&upper, "emptied/c", "c");
    opaque(&upper.join("emptied"));
    w(&upper, "was_file/inside", "i");
    opaque(&upper.join("was_file"));
    w(&upper, "was_dir", "now a file");
    w(&upper, "repo/.git/config", "[core]\n\tfsmonitor = x\n");
    w(&upper, "repo/.git/objects/ab/cd", "obj");
    w(&upper, "fresh/.git/HEAD", "ref: refs/heads/main\n");
    w(&upper, "fresh/.git/hooks/pre-commit", "#!/bin/sh\n");
    std::os::unix::fs::symlink("kept.txt", upper.join("link")).unwrap();
    let root_whiteouts = whiteout(&upper.join("gone.txt"));

    let rules = Held {
        control: &no_control,
        home: None,
        path_dirs: Vec::new(),
        install: None,
    };
    let mut judge = Judge::new(&rules);
    let mut out = Changes::default();
    let keep = Keep::new(dir.path().join("blobs"), 0);
    land(&root, &upper, &mut judge, &[], Some(&keep), None, &mut out);
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    assert_eq!(read("kept.txt"), "new!");
    assert_eq!(read("made/deep/n.txt"), "n");
    assert_eq!(read("emptied/c"), "c");
    assert!(!root.join("emptied/a").exists() && !root.join("emptied/b").exists());
    assert_eq!(read("was_file/inside"), "i");
    assert_eq!(read("was_dir"), "now a file");
    assert_eq!(
        std::fs::read_link(root.join("link")).unwrap(),
        Path::new("kept.txt")
    );
    assert_eq!(read("repo/.git/objects/ab/cd"), "obj");
    assert!(!root.join("repo/.git/config").exists(), "held back");
    if root_whiteouts {
        assert!(!root.join("gone.txt").exists());
    }
    let kinds: Vec<(String, ChangeKind, bool)> = out
        .files
        .iter()
        .map(|f| {
            (
                f.path.strip_prefix(&root).unwrap().display().to_string(),
                f.kind,
                f.held.is_some(),
            )
        })
        .collect();
    for expected in [
        ("kept.txt".to_string(), ChangeKind::Modified, false),
        ("made/deep/n.txt".into(), ChangeKind::Created, false),
        ("emptied/a".into(), ChangeKind::Deleted, false),
        ("was_dir/x".into(), ChangeKind::Deleted, false),
        ("was_dir".into(), ChangeKind::Modified, false),
        ("repo/.git/config".into(), ChangeKind::Created, true),
    ] {
        assert!(kinds.contains(&expected), "{expected:?} not in {kinds:?}");
    }
    assert!(
        !kinds.iter().any(|(p, ..)| p == "same.txt"),
        "a file rewritten as it was is no change: {kinds:?}"
    );
    if root_whiteouts {
        assert!(kinds.contains(&("gone.txt".into(), ChangeKind::Deleted, false)));
    }
    assert!(out.failed.is_empty(), "{:?}", out.failed);
    // A new folder with nothing held moved whole; one with something
    // held, file by file around it.
    assert!(!upper.join("made").exists(), "renamed whole");
    for made in ["made", "made/deep", "fresh", "fresh/.git"] {
        assert!(
            out.made_folders.contains(&root.join(made)),
            "{made} not in {:?}",
            out.made_folders
        );
    }
    assert!(!out.made_folders.contains(&root.join("emptied")));
    assert_eq!(read("fresh/.git/HEAD"), "ref: refs/heads/main\n");
    assert!(!root.join("fresh/.git/hooks/pre-commit").exists());
    assert!(kinds.contains(&(
        "fresh/.git/hooks/pre-commit".into(),
        ChangeKind::Created,
        true
    )));

    // The person said yes: what was held lands, as the command left it.
    let overlays = [(root.clone(), upper.clone(), dir.path().join("work"))];
    land_held(&overlays, Some(&keep), &mut out);
    assert!(out.failed.is_empty(), "{:?}", out.failed);
    assert_eq!(read("repo/.git/config"), "[core]\n\tfsmonitor = x\n");
    assert_eq!(read("fresh/.git/hooks/pre-commit"), "#!/bin/sh\n");
    assert_eq!(out.held().count(), 0);

    // What each change replaced was kept first, and what it left stamped.
    let before = |p: &str| {
        let f = out.files.iter().find(|f| f.path == root.join(p)).unwrap();
        assert!(f.after.is_some(), "{p}: {f:?}");
        match f.before.clone().unwrap() {
            Before::File { data, .. } => String::from_utf8(keep.bytes_of(&data).unwrap()).unwrap(),
            Before::Absent => "(absent)".into(),
            Before::Link { target } => format!("-> {}", target.display()),
        }
    };
    assert_eq!(before("kept.txt"), "old");
    assert_eq!(before("emptied/a"), "a");
    assert_eq!(before("was_file"), "f");
    assert_eq!(before("was_dir/x"), "x");
    assert_eq!(before("was_dir"), "(absent)");
    assert_eq!(before("made/deep/n.txt"), "(absent)");
    assert_eq!(before("link"), "(absent)");
    assert_eq!(before("repo/.git/config"), "(absent)");
    if root_whiteouts {
        assert_eq!(before("gone.txt"), "bye");
    }
}

/// Landing what was held never writes through a link the real folder
/// has where the command made a folder: the link is replaced.
#[test]
fn held_changes_land_through_no_link() {
    let dir = tempfile::tempdir().unwrap();
    let (root, upper, elsewhere) = (
        dir.path().join("root"),
        dir.path().join("upper"),
        dir.path().join("elsewhere"),
    );
    for d in [&root, &upper, &elsewhere] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::os::unix::fs::symlink(&elsewhere, root.join("sub")).unwrap();
    std::fs::create_dir_all(upper.join("sub")).unwrap();
    std::fs::write(upper.join("sub/config"), "x").unwrap();
    let mut out = Changes {
        files: vec![FileChange {
            path: root.join("sub/config"),
            kind: ChangeKind::Created,
            bytes: Some(1),
            held: Some("why".into()),
            before: None,
            after: None,
            stripped: None,
        }],
        failed: Vec::new(),
        made_folders: Vec::new(),
        kept_folders: Vec::new(),
    };
    land_held(
        &[(root.clone(), upper.clone(), dir.path().join("w"))],
        None,
        &mut out,
    );
    assert!(out.failed.is_empty(), "{:?}", out.failed);
    assert!(
        !elsewhere.join("config").exists(),
        "written through the link"
    );
    assert!(std::fs::symlink_metadata(root.join("sub"))
        .unwrap()
        .is_dir());
    assert_eq!(
        std::fs::read_to_string(root.join("sub/config")).unwrap(),
        "x"
    );
}

/// While the command runs, its layer is copied out, not moved; what landed
/// does not land again, and a file someone changed in the folder since is
/// not overwritten by the command's older copy; a deletion and a folder
/// replaced whole are applied once.
#[test]
fn a_running_commands_layer_is_copied_out_once_and_later_edits_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (root, upper) = (dir.path().join("root"), dir.path().join("upper"));
    for p in [&root, &upper] {
        std::fs::create_dir_all(p).unwrap();
    }
    std::fs::write(root.join("gone.txt"), "bye").unwrap();
    std::fs::create_dir_all(root.join("emptied")).unwrap();
    std::fs::write(root.join("emptied/a"), "a").unwrap();
    std::fs::write(upper.join("dist.js"), "build 1").unwrap();
    std::fs::create_dir_all(upper.join("emptied")).unwrap();
    opaque(&upper.join("emptied"));
    let whiteouts = whiteout(&upper.join("gone.txt"));
    let rules = Held {
        control: &no_control,
        home: None,
        path_dirs: Vec::new(),
        install: None,
    };
    let mut seen = Seen::default();
    let look = |seen: &mut Seen| {
        let mut judge = Judge::new(&rules);
        let mut out = Changes::default();
        land(&root, &upper, &mut judge, &[], None, Some(seen), &mut out);
        out.landed().map(|f| f.path.clone()).collect::<Vec<_>>()
    };
    let first = look(&mut seen);
    assert!(first.contains(&root.join("dist.js")), "{first:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("dist.js")).unwrap(),
        "build 1"
    );
    assert!(upper.join("dist.js").exists(), "copied, not moved");
    assert!(!root.join("emptied/a").exists());
    if whiteouts {
        assert!(!root.join("gone.txt").exists());
    }
    // Nothing new: nothing lands.
    assert_eq!(look(&mut seen), Vec::<PathBuf>::new());
    // The person edits the landed file, recreates what was deleted and
    // adds to the emptied folder: the next look leaves all of it.
    std::fs::write(root.join("dist.js"), "mine").unwrap();
    std::fs::write(root.join("gone.txt"), "back").unwrap();
    std::fs::write(root.join("emptied/new"), "n").unwrap();
    assert_eq!(look(&mut seen), Vec::<PathBuf>::new());
    assert_eq!(
        std::fs::read_to_string(root.join("dist.js")).unwrap(),
        "mine"
    );
    assert!(root.join("gone.txt").exists() && root.join("emptied/new").exists());
    // The command writes again: that lands.
    std::thread::sleep(std::time::Duration::from_millis(10));
    std::fs::write(upper.join("dist.js"), "build 2").unwrap();
    assert_eq!(look(&mut seen), vec![root.join("dist.js")]);
    assert_eq!(
        std::fs::read_to_string(root.join("dist.js")).unwrap(),
        "build 2"
    );
}
