//! `hermes update` against a local bare repository as origin (no network):
//! a tiny crate named `hermes` stands in for the project, so every case runs
//! real git and a real `cargo install` in seconds.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{Run, TestEnv};

struct Repo {
    _dir: tempfile::TempDir,
    work: PathBuf,
    checkout: PathBuf,
    root: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn write_main(dir: &Path, body: &str) {
    std::fs::write(dir.join("src/main.rs"), body).unwrap();
}

fn commit(dir: &Path, marker: &str, message: &str) {
    write_main(dir, &format!("fn main() {{ println!(\"{marker}\"); }}\n"));
    git(dir, &["commit", "-qam", message]);
}

fn cargo_env(c: &mut Command) -> &mut Command {
    let home = std::env::var("HOME").unwrap_or_default();
    c.env(
        "CARGO_HOME",
        std::env::var("CARGO_HOME").unwrap_or(format!("{home}/.cargo")),
    )
    .env(
        "RUSTUP_HOME",
        std::env::var("RUSTUP_HOME").unwrap_or(format!("{home}/.rustup")),
    )
}

fn setup(env: &TestEnv) -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::write(
        work.join("Cargo.toml"),
        "[package]\nname = \"hermes\"\nversion = \"0.0.1\"\nedition = \"2021\"\n\n[dependencies]\n",
    )
    .unwrap();
    std::fs::write(
        work.join("Cargo.lock"),
        "version = 4\n\n[[package]]\nname = \"hermes\"\nversion = \"0.0.1\"\n",
    )
    .unwrap();
    write_main(&work, "fn main() { println!(\"marker-1\"); }\n");
    git(&work, &["init", "-q", "-b", "main"]);
    git(&work, &["add", "."]);
    git(&work, &["commit", "-qm", "first"]);
    let origin = dir.path().join("origin.git");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            origin.to_str().unwrap(),
        ],
    );
    git(
        &work,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    git(&work, &["fetch", "-q", "origin"]);
    let checkout = dir.path().join("checkout");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            checkout.to_str().unwrap(),
        ],
    );
    let root = dir.path().join("root");
    let ok = cargo_env(&mut Command::new("cargo"))
        .args([
            "install", "--quiet", "--locked", "--bin", "hermes", "--path",
        ])
        .arg(&checkout)
        .arg("--root")
        .arg(&root)
        .status()
        .unwrap();
    assert!(ok.success());
    std::fs::write(
        env.home.path().join("install.json"),
        serde_json::json!({"checkout": checkout, "root": root}).to_string(),
    )
    .unwrap();
    Repo {
        _dir: dir,
        work,
        checkout,
        root,
    }
}

fn push(repo: &Repo, marker: &str, message: &str) {
    commit(&repo.work, marker, message);
    git(&repo.work, &["push", "-q", "origin", "main"]);
}

fn update(env: &TestEnv, args: &[&str]) -> Run {
    let mut c = env.cmd();
    cargo_env(&mut c);
    Run::from(c.arg("update").args(args).output().unwrap())
}

fn installed(repo: &Repo) -> String {
    let out = Command::new(repo.root.join("bin/hermes")).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn version_names_the_commit_and_its_date() {
    let env = TestEnv::new();
    let run = env.run(&["--version"]);
    run.ok();
    let head = git(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["rev-parse", "HEAD"],
    );
    let date = git(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["log", "-1", "--format=%cs"],
    );
    assert_eq!(
        run.stdout.trim(),
        format!("hermes {} ({head} {date})", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn up_to_date_then_behind_check_and_update() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let run = update(&env, &[]);
    run.ok();
    assert!(
        run.stdout.starts_with("already up to date at "),
        "{}",
        run.stdout
    );

    let old = git(&repo.checkout, &["rev-parse", "HEAD"]);
    push(&repo, "marker-2", "teach it a new trick");
    let run = update(&env, &["--check"]);
    run.ok();
    crate::assert_contains!(run.stdout, "1 incoming commit(s) on origin/main");
    crate::assert_contains!(run.stdout, "teach it a new trick");
    assert_eq!(
        git(&repo.checkout, &["rev-parse", "HEAD"]),
        old,
        "--check changed the checkout"
    );
    assert_eq!(installed(&repo), "marker-1");

    let run = update(&env, &[]);
    run.ok();
    let new = git(&repo.checkout, &["rev-parse", "HEAD"]);
    crate::assert_contains!(
        run.stdout,
        format!("updated {} → {} (origin/main)", &old[..12], &new[..12])
    );
    assert_eq!(installed(&repo), "marker-2");
}

#[test]
fn a_dirty_checkout_is_refused() {
    let env = TestEnv::new();
    let repo = setup(&env);
    write_main(&repo.checkout, "fn main() {}\n");
    let run = update(&env, &[]);
    run.code(1);
    crate::assert_contains!(run.error_line(), "has local changes");
    crate::assert_contains!(run.stderr, "hint: commit or stash them first");
}

#[test]
fn another_branch_is_refused() {
    let env = TestEnv::new();
    let repo = setup(&env);
    git(&repo.checkout, &["switch", "-q", "-c", "feature"]);
    let run = update(&env, &[]);
    run.code(1);
    crate::assert_contains!(run.error_line(), "is on branch feature, not main");
}

#[test]
fn a_diverged_checkout_is_refused() {
    let env = TestEnv::new();
    let repo = setup(&env);
    commit(&repo.checkout, "local", "a local commit");
    push(&repo, "remote", "a remote commit");
    let run = update(&env, &[]);
    run.code(1);
    crate::assert_contains!(
        run.error_line(),
        "has diverged from origin/main (1 local, 1 incoming commits)"
    );
}

#[test]
fn a_failed_build_keeps_the_old_binary_and_names_the_log() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let old = git(&repo.checkout, &["rev-parse", "HEAD"]);
    write_main(&repo.work, "fn main() { this is not rust }\n");
    git(&repo.work, &["commit", "-qam", "break the build"]);
    git(&repo.work, &["push", "-q", "origin", "main"]);
    let run = update(&env, &[]);
    run.code(1);
    let line = run.error_line();
    crate::assert_contains!(line, "the build failed; the installed hermes is unchanged");
    let log = line.rsplit("build log: ").next().unwrap();
    assert!(
        std::fs::read_to_string(log).unwrap().contains("error"),
        "the log has no build error"
    );
    assert_eq!(installed(&repo), "marker-1");
    assert_eq!(
        git(&repo.checkout, &["rev-parse", "HEAD"]),
        old,
        "the checkout was not put back"
    );
}

#[test]
fn the_stable_channel_follows_the_newest_v_tag() {
    let env = TestEnv::new();
    let repo = setup(&env);
    push(&repo, "marker-2", "release candidate");
    git(&repo.work, &["tag", "v0.2.0"]);
    git(&repo.work, &["push", "-q", "origin", "v0.2.0"]);
    push(&repo, "marker-3", "work in progress");
    let run = update(&env, &["--channel", "stable"]);
    run.ok();
    crate::assert_contains!(run.stdout, "(v0.2.0)");
    assert_eq!(installed(&repo), "marker-2", "stable must stop at the tag");
}

/// A checkout whose config runs an fsmonitor and whose hooks run on merge:
/// `hermes update --check` and `hermes update` run neither.
#[test]
fn update_runs_no_fsmonitor_or_hook_of_the_checkout() {
    let env = TestEnv::new();
    let repo = setup(&env);
    let marks = env.home.path().join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    git(
        &repo.checkout,
        &[
            "config",
            "core.fsmonitor",
            &format!("touch {}", marks.join("fsmonitor").display()),
        ],
    );
    for hook in ["post-merge", "post-checkout", "reference-transaction"] {
        let p = repo.checkout.join(".git/hooks").join(hook);
        std::fs::write(
            &p,
            format!("#!/bin/sh\ntouch {}\n", marks.join(hook).display()),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    // The same config does run them for a git that is not hermes'.
    git(&repo.checkout, &["status", "--short"]);
    assert!(
        marks.join("fsmonitor").exists(),
        "the fixture's fsmonitor runs"
    );
    std::fs::remove_file(marks.join("fsmonitor")).unwrap();
    let _ = std::fs::remove_file(marks.join("reference-transaction"));

    push(&repo, "marker-2", "second");
    update(&env, &["--check"]).ok();
    update(&env, &[]).ok();
    assert_eq!(installed(&repo), "marker-2");
    let ran: Vec<String> = std::fs::read_dir(&marks)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(ran.is_empty(), "hermes update ran: {ran:?}");
}
