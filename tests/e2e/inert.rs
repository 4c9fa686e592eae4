//! Where things run by themselves, only what is known to be inert lands
//! (issue 65): git as git itself finds and reads it (a hooks folder its
//! config names, a config it includes, a git directory made of the working
//! folder or shaped over two commands, a rebase's todo), the targets of
//! start-up links, a tool's home, a set-user-ID bit, and a hook's
//! interpreter loading modules from the project. Each proven by a mark that
//! must not appear when the person's own tools run afterwards, as root and
//! as a normal user.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::e2e::guard::{commit, fsmonitor, git, git_init, hook, own_folder};
use crate::e2e::sandbox::{env_for, outside, shells, shells_with};
use crate::support::users;

fn marks_left(marks: &Path) -> Vec<String> {
    std::fs::read_dir(marks)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn git_runs_nothing_the_command_wrote_wherever_git_looks() {
    for user in users::each() {
        let env = env_for(user, "");
        let cwd = env.cwd.path();
        let marks = outside(&env);
        let m = |n: &str| marks.join(n);
        std::fs::write(cwd.join("README.md"), "a project\n").unwrap();
        // husky's and lefthook's way: the hooks in a folder the config names.
        let husky = cwd.join("husky");
        git_init(&husky);
        git(&husky, &["config", "core.hooksPath", ".githooks"]);
        std::fs::create_dir_all(husky.join(".githooks")).unwrap();
        let pre = husky.join(".githooks/pre-commit");
        std::fs::write(&pre, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&pre, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A config file the repository's config includes.
        let inc = cwd.join("inc");
        git_init(&inc);
        git(&inc, &["config", "include.path", "../shared.gitconfig"]);
        // A repository in the middle of a rebase.
        let rb = cwd.join("rb");
        git_init(&rb);
        let r = shells(
            &env,
            &[
                format!("{} > husky/.githooks/pre-commit; echo rc=$?", hook(&m("hooks-path"))),
                format!("{} > inc/shared.gitconfig; echo rc=$?", fsmonitor(&m("include"))),
                "mkdir -p two/objects two/refs/heads; echo rc=$?".into(),
                format!(
                    "echo 'ref: refs/heads/main' > two/HEAD && {} > two/config; echo rc=$?",
                    fsmonitor(&m("two-commands"))
                ),
                format!(
                    "mkdir -p objects refs && echo 'ref: refs/heads/main' > HEAD && \
                     {{ {}; printf '\\tworktree = .\\n'; }} > config; echo rc=$?",
                    fsmonitor(&m("working-folder"))
                ),
                format!(
                    "mkdir -p rb/.git/rebase-merge && echo 'exec touch {}' > rb/.git/rebase-merge/git-rebase-todo; echo rc=$?",
                    m("rebase").display()
                ),
            ],
        );
        for out in &r {
            crate::assert_contains!(out, "rc=0");
        }
        for (i, named) in [
            (0, "husky/.githooks/pre-commit — "),
            (1, "inc/shared.gitconfig — "),
            (3, "two/config — "),
            (4, "config — "),
            (4, "HEAD — "),
            (5, "rb/.git/rebase-merge/git-rebase-todo — "),
        ] {
            crate::assert_contains!(r[i], "[held back, not written: ");
            crate::assert_contains!(r[i], named);
        }
        // The store made first landed: nothing in it runs.
        assert!(cwd.join("two/objects").is_dir(), "{}", r[2]);
        // None of what git would read or run is on disk.
        assert_eq!(
            std::fs::read_to_string(&pre).unwrap(),
            "#!/bin/sh\nexit 0\n"
        );
        for gone in [
            "inc/shared.gitconfig",
            "two/config",
            "config",
            "HEAD",
            "rb/.git/rebase-merge",
        ] {
            assert!(
                !cwd.join(gone).exists(),
                "as {}: {gone} landed: {r:?}",
                user.name()
            );
        }
        // The person's git, afterwards, runs none of it.
        commit(&husky);
        git(&inc, &["status", "--short"]);
        git(&cwd.join("two"), &["status", "--short"]);
        git(cwd, &["status", "--short"]);
        git(&rb, &["status", "--short"]);
        let ran = marks_left(&marks);
        assert!(ran.is_empty(), "as {}, git ran: {ran:?}", user.name());
    }
}

/// hermes started in the home folder: the home made a git directory (its
/// config with an fsmonitor) does not land; the person's next `git status`
/// there runs nothing.
#[test]
fn the_home_made_a_git_directory_does_not_land() {
    for user in users::each() {
        let env = env_for(user, "");
        let home = env.home.path();
        let own = own_folder(&env);
        let mark = outside(&env).join("ran");
        let mut cmd = env.cmd();
        cmd.current_dir(home).env("HERMES_HOME", &own);
        let r = shells_with(
            &env,
            cmd,
            &[format!(
                "mkdir -p objects refs && echo 'ref: refs/heads/main' > HEAD && \
                 {{ {}; printf '\\tworktree = .\\n'; }} > config; echo rc=$?",
                fsmonitor(&mark)
            )],
        );
        crate::assert_contains!(r[0], "rc=0");
        crate::assert_contains!(r[0], "[held back, not written: ");
        assert!(!home.join("config").exists(), "{r:?}");
        assert!(!home.join("HEAD").exists(), "{r:?}");
        git(home, &["status", "--short"]);
        assert!(!mark.exists(), "as {}: git ran it", user.name());
    }
}

/// A set-user-ID copy of a shell lands without the bit (another local
/// user would get the person's identity, root's when hermes runs as root);
/// the result says what was taken off.
#[test]
fn a_set_user_id_bit_never_lands() {
    for user in users::each() {
        let env = env_for(user, "");
        let r = shells(
            &env,
            &["cp /bin/sh ./mysh && chmod 6755 ./mysh && stat -c %a ./mysh".into()],
        );
        crate::assert_contains!(r[0], "6755");
        let mode = std::fs::metadata(env.cwd.path().join("mysh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o7777, 0o755, "as {}: {r:?}", user.name());
        crate::assert_contains!(r[0], "mysh (set-user-ID and set-group-ID taken off)");
    }
}

/// `~/.vimrc` linked into a dotfiles repository in the working folder:
/// the command's change to its target is held (the next `vim` would run
/// it); another file of the same folder lands.
#[test]
fn a_start_up_link_makes_its_target_held() {
    for user in users::each() {
        let env = env_for(user, "");
        let cwd = env.cwd.path();
        let dots = cwd.join("dotfiles");
        std::fs::create_dir_all(dots.join("nvim")).unwrap();
        std::fs::write(dots.join("vimrc"), "set number\n").unwrap();
        std::fs::write(dots.join("nvim/init.lua"), "-- mine\n").unwrap();
        std::os::unix::fs::symlink(dots.join("vimrc"), env.home.path().join(".vimrc")).unwrap();
        std::fs::create_dir_all(env.home.path().join(".config")).unwrap();
        std::os::unix::fs::symlink(dots.join("nvim"), env.home.path().join(".config/nvim"))
            .unwrap();
        let r = shells(
            &env,
            &[
                "echo '!touch /tmp/x' >> dotfiles/vimrc; echo 'os.execute(\"x\")' >> dotfiles/nvim/init.lua; echo notes > dotfiles/README; echo rc=$?".into(),
            ],
        );
        crate::assert_contains!(r[0], "rc=0");
        crate::assert_contains!(r[0], "dotfiles/vimrc — ");
        crate::assert_contains!(r[0], "dotfiles/nvim/init.lua — ");
        assert_eq!(
            std::fs::read_to_string(dots.join("vimrc")).unwrap(),
            "set number\n"
        );
        assert_eq!(
            std::fs::read_to_string(dots.join("nvim/init.lua")).unwrap(),
            "-- mine\n"
        );
        assert!(dots.join("README").exists(), "as {}: {r:?}", user.name());
    }
}

/// With `writable = ["~/.cargo"]`: a downloaded crate lands, an extracted
/// crate's `build.rs` rewritten (the next offline build of any project
/// runs it) and `~/.cargo/env` appended to (the next login shell) do not.
#[test]
fn a_tool_home_takes_new_files_only() {
    for user in users::each() {
        let env = env_for(user, "[tools.shell]\nwritable = [\"~/.cargo\"]");
        let cargo = env.home.path().join(".cargo");
        let krate = cargo.join("registry/src/index-1/serde-1.0.0");
        std::fs::create_dir_all(&krate).unwrap();
        std::fs::write(krate.join("build.rs"), "fn main() {}\n").unwrap();
        std::fs::write(
            cargo.join("env"),
            "export PATH=\"$HOME/.cargo/bin:$PATH\"\n",
        )
        .unwrap();
        let own = own_folder(&env);
        let mut cmd = env.cmd();
        cmd.current_dir(env.cwd.path()).env("HERMES_HOME", &own);
        let r = shells_with(
            &env,
            cmd,
            &[
                "echo 'fn main() { std::process::Command::new(\"x\"); }' > ~/.cargo/registry/src/index-1/serde-1.0.0/build.rs; echo rc=$?".into(),
                "echo 'touch /tmp/x' >> ~/.cargo/env; echo rc=$?".into(),
                "mkdir -p ~/.cargo/registry/cache/index-1 && echo crate > ~/.cargo/registry/cache/index-1/anyhow-1.0.0.crate; echo rc=$?".into(),
            ],
        );
        for out in &r {
            crate::assert_contains!(out, "rc=0");
        }
        crate::assert_contains!(r[0], "build.rs — ");
        crate::assert_contains!(r[1], "env — ");
        assert_eq!(
            std::fs::read_to_string(krate.join("build.rs")).unwrap(),
            "fn main() {}\n"
        );
        assert!(!std::fs::read_to_string(cargo.join("env"))
            .unwrap()
            .contains("touch"));
        assert!(
            cargo
                .join("registry/cache/index-1/anyhow-1.0.0.crate")
                .exists(),
            "as {}: {r:?}",
            user.name()
        );
    }
}

/// A trusted hook `python3 -c "import json…"` runs outside the sandbox in
/// the project folder; a `json.py` a command wrote there is not what it
/// imports.
#[test]
fn a_hooks_interpreter_loads_nothing_from_the_project() {
    for user in users::each() {
        let env = env_for(
            user,
            r#"
[[hooks.post_tool_call]]
match = "shell"
command = "python3 -c \"import json; json.dumps(1)\""
"#,
        );
        let mark = outside(&env).join("imported");
        let r = shells(
            &env,
            &[format!(
                "printf 'open(\"{}\", \"w\")\\ndef dumps(x): return 1\\n' > json.py; echo rc=$?",
                mark.display()
            )],
        );
        crate::assert_contains!(r[0], "rc=0");
        assert!(env.cwd.path().join("json.py").exists(), "{r:?}");
        assert!(
            !mark.exists(),
            "as {}: the hook imported the project's json.py",
            user.name()
        );
    }
}

/// `-o FILE` after a turn whose command planted a link at FILE to a
/// start-up file: refused with the reason, the start-up file untouched.
#[test]
fn the_answer_file_is_not_written_through_a_link_the_turn_planted() {
    let env = env_for(crate::support::users::User::current(), "");
    let bashrc = env.home.path().join(".bashrc");
    std::fs::write(&bashrc, "# mine\n").unwrap();
    let calls = [(
        crate::support::call_id("plant"),
        "shell".to_string(),
        serde_json::json!({ "command": format!("ln -s {} answer.txt", bashrc.display()) })
            .to_string(),
    )];
    let borrowed: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    env.fake.push(crate::support::Reply::tool_calls(&borrowed));
    env.fake.push(crate::support::Reply::text("the answer"));
    let out = env.run(&["-o", "answer.txt", "-q", "go"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    crate::assert_contains!(out.stderr, "-o answer.txt: a link stands there");
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "# mine\n");
}

/// `hermes rewind --force` after the turn's folder was swapped for a link
/// to a folder outside: the kept file is not written there.
#[test]
fn a_rewind_does_not_write_through_a_folder_swapped_for_a_link() {
    let env = env_for(crate::support::users::User::current(), "");
    let cwd = env.cwd.path();
    std::fs::create_dir_all(cwd.join("src")).unwrap();
    std::fs::write(cwd.join("src/a.txt"), "old\n").unwrap();
    let r = shells(&env, &["echo new > src/a.txt; echo rc=$?".into()]);
    crate::assert_contains!(r[0], "rc=0");
    assert_eq!(
        std::fs::read_to_string(cwd.join("src/a.txt")).unwrap(),
        "new\n"
    );
    let away = outside(&env);
    std::fs::rename(cwd.join("src"), cwd.join("src.moved")).unwrap();
    std::os::unix::fs::symlink(&away, cwd.join("src")).unwrap();
    let done = env.run(&["rewind", "1", "--yes", "--force"]);
    assert!(
        !away.join("a.txt").exists(),
        "rewind wrote outside the folder: {}{}",
        done.stdout,
        done.stderr
    );
    crate::assert_contains!(
        format!("{}{}", done.stdout, done.stderr),
        "a link stands on the way to it now"
    );
}

/// Plan mode with the project under the temp folder (a clone in /tmp):
/// the project is still read-only to commands; the rest of the temp
/// folder stays theirs.
#[test]
fn in_plan_mode_a_project_under_the_temp_folder_is_read_only() {
    for user in users::each() {
        let env = env_for(user, "");
        let clone = env.tmp().join("clone");
        std::fs::create_dir_all(&clone).unwrap();
        std::fs::write(clone.join("main.py"), "print('mine')\n").unwrap();
        user.own(&env.tmp());
        let mut cmd = env.cmd();
        cmd.current_dir(&clone).args(["--mode", "plan", "--yolo"]);
        let r = shells_with(
            &env,
            cmd,
            &[
                "echo 'import os' > main.py; echo rc=$?".into(),
                "echo scratch > ../scratch.txt; echo rc=$?".into(),
            ],
        );
        assert_eq!(
            std::fs::read_to_string(clone.join("main.py")).unwrap(),
            "print('mine')\n",
            "as {}: {r:?}",
            user.name()
        );
        crate::assert_contains!(r[0], "Read-only file system");
        crate::assert_contains!(r[1], "rc=0");
    }
}

/// With `sandbox = "landlock"` (no PID namespace), a daemon a command
/// started in a session of its own dies with a SIGKILLed hermes — every
/// time, with no later hermes to sweep it (20 runs as each user).
#[test]
fn in_landlock_mode_a_killed_hermes_takes_its_commands_with_it() {
    for (u, user) in users::each().into_iter().enumerate() {
        let env = env_for(user, "[tools.shell]\nsandbox = \"landlock\"");
        for i in 0..20 {
            let tag = format!("700.{}{u}{i:02}", std::process::id());
            crate::e2e::guard::killed_beside_a_daemon(&env, &tag);
            crate::support::wait_for(
                &format!("run {i} as {}: the daemon to end", user.name()),
                || crate::e2e::guard::sleeping(&tag).is_empty(),
            );
            env.fake.clear_requests();
        }
    }
}

/// A held file whose name holds a newline and an escape shows as one
/// escaped name in the result, so it cannot forge a line.
#[test]
fn a_held_name_cannot_forge_a_line() {
    let env = env_for(users::User::current(), "");
    let r = shells(
        &env,
        &[
            "git init -q n && printf x > $'n/.git/hooks/a\\nlanded fine.txt\\e[2J'; echo rc=$?"
                .into(),
        ],
    );
    crate::assert_contains!(r[0], "rc=0");
    crate::assert_contains!(r[0], "n/.git/hooks/a\\nlanded fine.txt\\u{1b}[2J — ");
    assert!(!r[0].contains("\nlanded fine.txt"), "{}", r[0]);
}
