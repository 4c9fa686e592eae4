use super::*;

/// A real folder and a command's layer over it, both empty.
struct Two {
    _dir: tempfile::TempDir,
    root: PathBuf,
    upper: PathBuf,
}

impl Two {
    fn new() -> Two {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("w");
        let upper = root.with_file_name("u");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&upper).unwrap();
        Two {
            _dir: dir,
            root,
            upper,
        }
    }

    fn real(&self, rel: &str, text: &str) {
        put(&self.root.join(rel), text);
    }

    fn layer(&self, rel: &str, text: &str) {
        put(&self.upper.join(rel), text);
    }

    fn why(&self, rel: &str) -> Option<&'static str> {
        let layers = Layers {
            root: &self.root,
            upper: &self.upper,
        };
        GitView::default().why(&layers, None, &self.root.join(rel))
    }
}

fn put(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    if text.ends_with('/') {
        std::fs::create_dir_all(p).unwrap();
    } else {
        std::fs::write(p, text).unwrap();
    }
}

#[test]
fn in_a_git_directory_only_data_lands() {
    let t = Two::new();
    t.real("r/.git/HEAD", "ref: refs/heads/main\n");
    t.real("r/.git/objects/", "/");
    for rel in [
        "r/.git/objects/ab/cdef",
        "r/.git/refs/heads/main",
        "r/.git/logs/HEAD",
        "r/.git/index",
        "r/.git/ORIG_HEAD",
        "r/.git/CHERRY_PICK_HEAD",
        "r/.git/COMMIT_EDITMSG",
        "r/.git/packed-refs",
        "r/.git/index.lock",
    ] {
        assert_eq!(t.why(rel), None, "{rel}");
    }
    for rel in [
        "r/.git/config",
        "r/.git/config.worktree",
        "r/.git/hooks/pre-commit",
        "r/.git/info/exclude",
        "r/.git/commondir",
        "r/.git/rebase-merge/git-rebase-todo",
        "r/.git/sequencer/todo",
        "r/.git/modules/m/config",
        "r/.git/modules/m/objects/x",
        "r/.git/worktrees/w/HEAD",
        "r/.git/objects/info/alternates",
        "r/.git/config.lock",
        "r/.git/fsmonitor-daemon",
    ] {
        assert_eq!(t.why(rel), Some(GIT), "{rel}");
    }
}

/// The working folder itself made a git directory in one command: its
/// config is held, and so are the markers, since other files stand there.
#[test]
fn the_working_folder_made_a_git_directory_is_seen() {
    let t = Two::new();
    t.real("README.md", "hi");
    t.layer("HEAD", "ref: refs/heads/main\n");
    t.layer("objects/", "/");
    t.layer("refs/", "/");
    t.layer(
        "config",
        "[core]\n\tworktree = .\n\tfsmonitor = touch /tmp/x\n",
    );
    assert_eq!(t.why("config"), Some(GIT));
    assert_eq!(t.why("HEAD"), Some(BECOMING));
    assert_eq!(t.why("src/new.rs"), Some(GIT));
}

/// Shaped over two commands: objects and refs landed first (no HEAD, no
/// git directory then), HEAD and config come later — or config first.
#[test]
fn a_git_directory_shaped_over_two_commands_is_seen() {
    let t = Two::new();
    t.real("d/objects/", "/");
    t.real("d/refs/", "/");
    t.layer("d/HEAD", "ref: refs/heads/main\n");
    t.layer("d/config", "[core]\n\tfsmonitor = x\n");
    assert_eq!(t.why("d/config"), Some(GIT));
    assert_eq!(
        t.why("d/HEAD"),
        None,
        "an empty store may become a repository"
    );

    let t = Two::new();
    t.real("d/objects/", "/");
    t.real("d/config", "[core]\n\tfsmonitor = x\n");
    t.layer("d/HEAD", "ref: refs/heads/main\n");
    t.layer("d/refs/", "/");
    assert_eq!(t.why("d/HEAD"), Some(BECOMING));
    assert_eq!(t.why("d/refs/heads/main"), Some(BECOMING));
    // Without HEAD nothing makes it git's: an ordinary folder.
    let t = Two::new();
    t.layer("game/objects/tree.png", "x");
    t.layer("game/config", "x");
    assert_eq!(t.why("game/config"), None);
}

#[test]
fn what_config_names_is_held_wherever_it_lies() {
    let t = Two::new();
    t.real("r/.git/HEAD", "ref: refs/heads/main\n");
    t.real("r/.git/objects/", "/");
    t.real(
        "r/.git/config",
        "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../tools/git.inc\n",
    );
    t.real(
        "r/tools/git.inc",
        "[core]\n\tfsmonitor = ./tools/watch\n\tattributesFile = tools/attrs\n",
    );
    assert_eq!(t.why("r/.githooks/pre-commit"), Some(RUNS));
    assert_eq!(t.why("r/tools/git.inc"), Some(RUNS));
    assert_eq!(t.why("r/tools/watch"), Some(RUNS));
    assert_eq!(t.why("r/tools/attrs"), Some(RUNS));
    assert_eq!(t.why("r/src/lib.rs"), None);
    // A husky setup the command writes itself: its config is held, and
    // what it names with it.
    let t = Two::new();
    t.real("p/.git/HEAD", "ref: refs/heads/main\n");
    t.real("p/.git/objects/", "/");
    t.layer("p/.git/config", "[core]\n\thooksPath = .husky/_\n");
    t.layer("p/.husky/_/pre-commit", "#!/bin/sh\n");
    assert_eq!(t.why("p/.husky/_/pre-commit"), Some(RUNS));
}

/// A worktree's `.git` file points at its folder in the main repository;
/// that folder's `commondir` leads to the config that names the hooks.
#[test]
fn a_gitfile_and_commondir_are_followed() {
    let t = Two::new();
    t.real("main/.git/HEAD", "ref: refs/heads/main\n");
    t.real("main/.git/objects/", "/");
    t.real("main/.git/config", "[core]\n\thooksPath = /srv/hooks\n");
    t.real("main/.git/worktrees/wt/HEAD", "ref: refs/heads/b\n");
    t.real("main/.git/worktrees/wt/commondir", "../..\n");
    t.real(
        "wt/.git",
        &format!(
            "gitdir: {}\n",
            t.root.join("main/.git/worktrees/wt").display()
        ),
    );
    let layers = Layers {
        root: &t.root,
        upper: &t.upper,
    };
    let mut v = GitView::default();
    assert_eq!(
        v.why(&layers, None, Path::new("/srv/hooks/post-checkout")),
        None,
        "outside every repository the path is in"
    );
    let repos = v.repos_at(&layers, &t.root.join("wt"));
    assert_eq!(repos.len(), 1, "{repos:?}");
    let named = v.named(&layers, None, &repos[0].0, &repos[0].1);
    assert!(
        named.covers(Path::new("/srv/hooks/post-checkout")),
        "{named:?}"
    );
}

/// A `--worktree` session's commands write its worktree's own git folder
/// (`.git/worktrees/NAME`, the root landed into): its index, HEAD and logs
/// land, what git reads as config or a redirect there does not — and the
/// same files reached from the main repository's git folder are held.
#[test]
fn a_linked_worktrees_own_git_folder_is_judged_as_its_git_directory() {
    let t = Two::new();
    t.real("main/.git/HEAD", "ref: refs/heads/main\n");
    t.real("main/.git/objects/", "/");
    t.real("main/.git/worktrees/wt/HEAD", "ref: refs/heads/hermes/wt\n");
    t.real("main/.git/worktrees/wt/commondir", "../..\n");
    let own = t.root.join("main/.git/worktrees/wt");
    let why = |root: &Path, rel: &str| {
        let layers = Layers {
            root,
            upper: &t.upper,
        };
        GitView::default().why(&layers, None, &t.root.join(rel))
    };
    for rel in ["index", "HEAD", "logs/HEAD", "COMMIT_EDITMSG", "index.lock"] {
        let rel = format!("main/.git/worktrees/wt/{rel}");
        assert_eq!(why(&own, &rel), None, "{rel}");
        assert_eq!(
            why(&t.root, &rel),
            Some(GIT),
            "{rel} from the main checkout"
        );
    }
    for rel in [
        "config.worktree",
        "commondir",
        "gitdir",
        "hooks/pre-commit",
        "info/sparse-checkout",
    ] {
        let rel = format!("main/.git/worktrees/wt/{rel}");
        assert_eq!(why(&own, &rel), Some(GIT), "{rel}");
    }
    // Another worktree's folder is not the one landed into.
    t.real("main/.git/worktrees/other/HEAD", "ref: refs/heads/x\n");
    t.real("main/.git/worktrees/other/commondir", "../..\n");
    assert_eq!(why(&own, "main/.git/worktrees/other/HEAD"), Some(GIT));
}
