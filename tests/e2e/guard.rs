//! What a sandboxed command writes never runs outside the sandbox (issue
//! 48): each attack as a hostile model sends it, each refusal proven by a
//! file that must not appear or a hook that must not run when the
//! person's own git runs afterwards — as root and as a normal user.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::e2e::sandbox::{env_for, outside, shells, shells_in, shells_with};
use crate::support::users;

pub(crate) fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(["-c", "safe.directory=*"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap()
}

pub(crate) fn git_init(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    assert!(git(dir, &["init", "-q"]).status.success());
}

/// The person commits a new file in `dir` with their own git: its hooks run.
pub(crate) fn commit(dir: &Path) {
    std::fs::write(dir.join("a.txt"), "a").unwrap();
    git(dir, &["add", "a.txt"]);
    git(
        dir,
        &[
            "-c",
            "user.name=p",
            "-c",
            "user.email=p@example.org",
            "commit",
            "-qm",
            "mine",
        ],
    );
}

pub(crate) fn fsmonitor(mark: &Path) -> String {
    format!(
        "printf '[core]\\n\\tfsmonitor = \"touch {}\"\\n'",
        mark.display()
    )
}

pub(crate) fn hook(mark: &Path) -> String {
    format!("printf '#!/bin/sh\\ntouch {}\\n'", mark.display())
}

/// Every way into git's config and hooks the last round found open: a
/// `commondir` pointing at a config the command wrote, a nested
/// repository, a repository with no hooks folder yet, a `.git` link
/// replaced by a folder, a repository the command creates — none lands,
/// each is named, and the person's git runs none of it afterwards.
#[test]
fn nothing_the_command_writes_for_git_lands() {
    for user in users::each() {
        let env = env_for(user, "");
        let cwd = env.cwd.path();
        let marks = outside(&env);
        git_init(cwd);
        std::fs::remove_dir_all(cwd.join(".git/hooks")).unwrap();
        git_init(&cwd.join("nested"));
        git_init(&cwd.join("real"));
        std::fs::rename(cwd.join("real/.git"), cwd.join("real.git")).unwrap();
        std::os::unix::fs::symlink("../real.git", cwd.join("real/.git")).unwrap();
        let nested_config = std::fs::read(cwd.join("nested/.git/config")).unwrap();
        let r = shells(
            &env,
            &[
                format!(
                    "mkdir -p evil/objects evil/refs && {} > evil/config && echo ../evil > .git/commondir; echo rc=$?",
                    fsmonitor(&marks.join("commondir"))
                ),
                format!(
                    "{} >> nested/.git/config; echo rc=$?",
                    fsmonitor(&marks.join("nested"))
                ),
                format!(
                    "mkdir -p .git/hooks && {} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit; echo rc=$?",
                    hook(&marks.join("pre-commit"))
                ),
                format!(
                    "rm real/.git && mkdir real/.git && cp -r real.git/HEAD real.git/objects real.git/refs real/.git/ && {} > real/.git/config; echo rc=$?",
                    fsmonitor(&marks.join("linked"))
                ),
                format!(
                    "git init -q fresh && {} >> fresh/.git/config && {} > fresh/.git/hooks/post-checkout && chmod +x fresh/.git/hooks/post-checkout; echo rc=$?",
                    fsmonitor(&marks.join("fresh")),
                    hook(&marks.join("fresh-hook"))
                ),
            ],
        );
        // Each command ran (its writes went to its overlay) ...
        for out in &r {
            crate::assert_contains!(out, "rc=0");
        }
        // ... and what git would run was held back, and named.
        for (out, named) in r.iter().zip([
            ".git/commondir — ",
            "nested/.git/config — ",
            ".git/hooks/pre-commit — ",
            "real/.git/config — ",
            "fresh/.git/config — ",
        ]) {
            crate::assert_contains!(out, "[held back, not written: ");
            crate::assert_contains!(out, named);
        }
        crate::assert_contains!(r[4], "fresh/.git/hooks/post-checkout — ");
        // The kernel's view of it: none of it is on disk.
        assert!(!cwd.join(".git/commondir").exists(), "{}", user.name());
        assert_eq!(
            std::fs::read(cwd.join("nested/.git/config")).unwrap(),
            nested_config
        );
        assert!(!cwd.join(".git/hooks/pre-commit").exists());
        assert!(std::fs::symlink_metadata(cwd.join("real/.git"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(!cwd.join("fresh/.git/hooks/post-checkout").exists());
        let fresh_config =
            std::fs::read_to_string(cwd.join("fresh/.git/config")).unwrap_or_default();
        assert!(!fresh_config.contains("fsmonitor"), "{fresh_config}");
        // What the command made that git runs nothing from landed: the
        // new repository is there, its objects and HEAD with it.
        assert!(cwd.join("fresh/.git/HEAD").exists());
        assert!(cwd.join("evil/config").exists());
        // The person's git, afterwards, runs none of it.
        for dir in [
            cwd.to_path_buf(),
            cwd.join("nested"),
            cwd.join("real"),
            cwd.join("fresh"),
        ] {
            git(&dir, &["status", "--short"]);
        }
        commit(cwd);
        git(&cwd.join("fresh"), &["checkout", "-q", "-b", "other"]);
        let ran: Vec<String> = std::fs::read_dir(&marks)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(ran.is_empty(), "as {}, git ran: {ran:?}", user.name());
    }
}

/// hermes' own folder a dot-folder of the home, as it is by default (the
/// test home is hermes' folder too, which would make every file in it one
/// of hermes' own): `HERMES_HOME` for a run, with the test's config.
pub(crate) fn own_folder(env: &crate::support::TestEnv) -> std::path::PathBuf {
    let own = env.home.path().join(".local/share/hermes");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::copy(env.home.path().join("config.toml"), own.join("config.toml")).unwrap();
    own
}

/// hermes started in the home folder: the start-up files git and the
/// shell read, and a `git` early on the PATH, never appear; an ordinary
/// file does, and the result says so.
#[test]
fn started_in_home_no_start_up_file_appears() {
    for user in users::each() {
        let env = env_for(user, "");
        let home = env.home.path();
        let own = own_folder(&env);
        let mark = outside(&env).join("ran");
        let path = format!(
            "{}:{}",
            home.join(".local/bin").display(),
            std::env::var("PATH").unwrap()
        );
        let mut cmd = env.cmd();
        cmd.current_dir(home)
            .env("HERMES_HOME", &own)
            .env("PATH", &path);
        let r = shells_with(
            &env,
            cmd,
            &[
                format!(
                    "mkdir -p ~/.config/git && {} > ~/.config/git/config; echo rc=$?",
                    fsmonitor(&mark)
                ),
                format!(
                    "mkdir -p ~/.local/bin && {} > ~/.local/bin/git && chmod +x ~/.local/bin/git; echo rc=$?",
                    hook(&mark)
                ),
                format!("echo 'touch {}' >> ~/.profile; echo rc=$?", mark.display()),
                "echo kept > notes.txt".into(),
            ],
        );
        for f in [".config/git/config", ".local/bin/git", ".profile"] {
            assert!(
                !home.join(f).exists(),
                "as {}: {f} appeared: {r:?}",
                user.name()
            );
        }
        crate::assert_contains!(r[0], "held back");
        crate::assert_contains!(r[1], ".local/bin/git — ");
        crate::assert_contains!(r[2], ".profile — ");
        crate::assert_contains!(r[3], "[files changed: created notes.txt (5 B)]");
        assert_eq!(
            std::fs::read_to_string(home.join("notes.txt")).unwrap(),
            "kept\n"
        );
    }
}

/// With the documented `writable = ["~/.cargo"]`, hermes' own binary
/// there stays as it is: its folder is read-only inside.
#[test]
fn a_writable_cargo_folder_does_not_reach_hermes_itself() {
    for user in users::each() {
        let env = env_for(user, "[tools.shell]\nwritable = [\"~/.cargo\"]");
        let bin = env.home.path().join(".cargo/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let hermes = bin.join("hermes");
        std::fs::copy(crate::support::bin("hermes"), &hermes).unwrap();
        // Another test's fork may hold the copy open for writing a moment
        // (until its exec): wait until it runs.
        crate::support::wait_for("the copy to run", || {
            Command::new(&hermes).arg("--version").output().is_ok()
        });
        let before = std::fs::metadata(&hermes).unwrap().len();
        let own = own_folder(&env);
        let mut cmd = env.command(hermes.to_str().unwrap());
        cmd.current_dir(env.cwd.path()).env("HERMES_HOME", &own);
        let r = shells_with(
            &env,
            cmd,
            &[
                format!("echo pwned > {}", hermes.display()),
                format!("cp /bin/true {}.new && mv {0}.new {0}", hermes.display()),
                "mkdir -p ~/.cargo/registry/x && echo ok > ~/.cargo/registry/x/f && cat ~/.cargo/registry/x/f".into(),
            ],
        );
        crate::support::assert_write_refused(&r[0]);
        crate::support::assert_write_refused(&r[1]);
        assert_eq!(std::fs::metadata(&hermes).unwrap().len(), before, "{r:?}");
        // The rest of ~/.cargo is still the command's to write.
        crate::assert_contains!(r[2], "ok");
        assert!(
            env.home.path().join(".cargo/registry/x/f").exists(),
            "{}",
            r[2]
        );
    }
}

/// A descriptor hermes inherited from whatever started it (not
/// close-on-exec) does not reach the command: writing to it fails, and
/// the file it was open on stays empty.
#[test]
fn descriptors_hermes_inherited_do_not_cross_in() {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    for user in users::each() {
        let env = env_for(user, "");
        let leak = outside(&env).join("leak.txt");
        let file = std::fs::File::create(&leak).unwrap();
        std::fs::set_permissions(&leak, std::fs::Permissions::from_mode(0o666)).unwrap();
        let raw = file.as_raw_fd();
        let mut cmd = env.cmd();
        // SAFETY: dup2 in the child before exec; the copy at 7 is not
        // close-on-exec, as a careless parent's would be.
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(raw, 7) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let r = shells_with(
            &env,
            cmd,
            &["echo leaked >&7; echo rc=$?; ls /proc/self/fd".into()],
        );
        drop(file);
        crate::assert_contains!(r[0], "Bad file descriptor");
        assert_eq!(
            std::fs::read_to_string(&leak).unwrap(),
            "",
            "as {}",
            user.name()
        );
    }
}

/// hermes' own state — OAuth tokens, sessions, the config that holds
/// keys — and the usual secret folders are absent inside.
#[test]
fn hermes_state_and_secret_folders_are_absent_inside() {
    for user in users::each() {
        let env = env_for(user, "");
        let home = env.home.path();
        let files = [
            (".ssh/id_ed25519", "SSH-PRIVATE-7f3a"),
            (".aws/credentials", "AWS-SECRET-9c1e"),
            (".config/gh/hosts.yml", "GH-TOKEN-4b2d"),
            (".netrc", "NETRC-PASSWORD-11aa"),
            ("oauth/tracker.json", "OAUTH-REFRESH-5e6f"),
        ];
        for (f, secret) in files {
            let p = home.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, secret).unwrap();
        }
        std::fs::create_dir_all(home.join("sessions")).unwrap();
        std::fs::write(home.join("sessions/old.jsonl"), "SESSION-TEXT-8d8d").unwrap();
        let cats: Vec<String> = files
            .iter()
            .map(|(f, _)| format!("cat {}; echo", home.join(f).display()))
            .chain([
                format!(
                    "cat {}/sessions/*; ls -A {0}/sessions | wc -l",
                    home.display()
                ),
                format!("grep -c base_url {}/config.toml; true", home.display()),
            ])
            .collect();
        let r = shells(&env, &cats);
        for ((_, secret), out) in files.iter().zip(&r) {
            crate::assert_not_contains!(out, secret);
        }
        crate::assert_not_contains!(r[5], "SESSION-TEXT");
        assert!(
            r[5].starts_with("cat: ") || r[5].contains("\n0\n"),
            "{}",
            r[5]
        );
        assert!(
            r[6].starts_with("0\n"),
            "config.toml readable inside: {}",
            r[6]
        );
        let _ = user;
    }
}

/// A command is bounded by the kernel: processes, each process's memory,
/// and `/dev/shm`.
#[test]
fn a_command_is_bounded_in_processes_and_memory() {
    for user in users::each() {
        let env = env_for(
            user,
            "[tools.shell]\nmax_processes = 400\nmax_memory_mb = 256",
        );
        let r = shells(
            &env,
            &[
                "python3 -c \"\nimport os, time\nn = 0\ntry:\n    for i in range(900):\n        if os.fork() == 0:\n            time.sleep(3); os._exit(0)\n        n += 1\n    print('forked', n)\nexcept OSError as e:\n    print('refused after', n, e.strerror)\"".into(),
                "python3 -c \"b = bytearray(600 << 20); print('allocated')\" 2>&1 | tail -1".into(),
                "dd if=/dev/zero of=/dev/shm/fill bs=1M count=200 2>&1 | head -1".into(),
            ],
        );
        crate::assert_contains!(r[0], "refused after");
        let n: u32 = r[0]
            .split("refused after ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(n < 400, "as {}: {}", user.name(), r[0]);
        crate::assert_contains!(r[1], "MemoryError");
        crate::assert_contains!(r[2], "No space left on device");
    }
}

/// What the command changed, in the result and in the session file: made,
/// changed and deleted files with their sizes, for checkpoints and
/// summaries to read.
#[test]
fn the_result_and_the_session_say_which_files_changed() {
    let env = env_for(users::User::current(), "");
    let cwd = env.cwd.path();
    std::fs::write(cwd.join("keep.txt"), "old\n").unwrap();
    std::fs::write(cwd.join("gone.txt"), "bye\n").unwrap();
    std::fs::write(cwd.join("same.txt"), "same\n").unwrap();
    std::fs::create_dir_all(cwd.join("old/deep")).unwrap();
    std::fs::write(cwd.join("old/deep/x"), "x").unwrap();
    let r = shells_in(
        &env,
        cwd,
        &["echo new >> keep.txt && rm gone.txt && mkdir -p src && printf 'fn main() {}\\n' > src/main.rs && touch same.txt && mv old renamed".into()],
    );
    crate::assert_contains!(r[0], "[files changed: ");
    for part in [
        "modified keep.txt (8 B)",
        "deleted gone.txt (4 B)",
        "created src/main.rs (13 B)",
        "created renamed/deep/x (1 B)",
        "deleted old/deep/x (1 B)",
    ] {
        crate::assert_contains!(r[0], part);
    }
    crate::assert_not_contains!(r[0], "same.txt");
    assert_eq!(
        std::fs::read_to_string(cwd.join("keep.txt")).unwrap(),
        "old\nnew\n"
    );
    assert!(!cwd.join("gone.txt").exists() && !cwd.join("old").exists());
    assert_eq!(
        std::fs::read_to_string(cwd.join("renamed/deep/x")).unwrap(),
        "x"
    );
    let records = crate::support::records(&env.only_session());
    let changed: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["event"] == "files_changed")
        .collect();
    assert_eq!(changed.len(), 1, "{records:?}");
    let files = changed[0]["files"].as_array().unwrap();
    let main_rs = files
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("src/main.rs"))
        .unwrap();
    assert_eq!(main_rs["kind"], "created");
    assert_eq!(main_rs["bytes"], 13);
    // Written just before the result it belongs to.
    let i = records
        .iter()
        .position(|r| r["event"] == "files_changed")
        .unwrap();
    assert_eq!(records[i + 1]["type"], "tool_result");
    assert_eq!(records[i + 1]["tool_call_id"], changed[0]["tool_call_id"]);
}

/// Trusted hooks that run the project's code — `make`, `npm run`,
/// `python -m`, an interpreter found on a PATH entry inside the folder —
/// run it in the sandbox: what a command rewrote there cannot write
/// outside, while what it writes in the folder still lands.
#[test]
fn hooks_that_run_the_projects_code_run_in_the_sandbox() {
    for user in users::each() {
        let env = env_for(
            user,
            r#"
[[hooks.post_tool_call]]
match = "shell"
command = "make -s lint"
[[hooks.post_tool_call]]
match = "shell"
command = "npm run -s lint"
[[hooks.post_tool_call]]
match = "shell"
command = "python3 -m scripts.check"
[[hooks.post_tool_call]]
match = "shell"
command = "tool-in-venv"
"#,
        );
        let cwd = env.cwd.path();
        let marks = outside(&env);
        let path = format!(
            "{}:{}",
            cwd.join(".venv/bin").display(),
            std::env::var("PATH").unwrap()
        );
        let m = |n: &str| marks.join(n).display().to_string();
        let write = format!(
            "printf 'lint:\\n\\techo ran > make-ran.txt\\n\\ttouch {make}\\n' > Makefile && \
             printf '{{\"name\":\"p\",\"version\":\"1.0.0\",\"scripts\":{{\"lint\":\"echo ran > npm-ran.txt; touch {npm}\"}}}}' > package.json && \
             mkdir -p scripts .venv/bin && touch scripts/__init__.py && \
             printf 'open(\"py-ran.txt\", \"w\").write(\"ran\")\\nopen(\"{py}\", \"w\")\\n' > scripts/check.py && \
             printf '#!/bin/sh\\necho ran > venv-ran.txt\\ntouch {venv}\\n' > .venv/bin/tool-in-venv && chmod +x .venv/bin/tool-in-venv; echo rc=$?",
            make = m("make"),
            npm = m("npm"),
            py = m("py"),
            venv = m("venv")
        );
        let mut cmd = env.cmd();
        cmd.current_dir(cwd).env("PATH", &path);
        let r = shells_with(&env, cmd, &[write]);
        crate::assert_contains!(r[0], "rc=0");
        // Each hook ran: what it wrote in the folder landed ...
        for f in ["make-ran.txt", "npm-ran.txt", "py-ran.txt", "venv-ran.txt"] {
            assert!(
                cwd.join(f).exists(),
                "as {}: {f} missing: {r:?}",
                user.name()
            );
        }
        // ... and what it tried outside did not happen.
        let ran: Vec<String> = std::fs::read_dir(&marks)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            ran.is_empty(),
            "as {}, hooks wrote outside: {ran:?}",
            user.name()
        );
    }
}

/// A custom command's `` !`cmd` `` in the REPL, under the default `ask`:
/// its question comes up and is answered, its output goes into the prompt;
/// a slow one is stopped with Esc, and nothing is sent.
#[test]
fn a_custom_commands_shell_line_is_asked_and_esc_stops_it() {
    let env = crate::support::TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"shell\"]\n[approvals]\nmode = \"ask\"\n");
    super::repl_lines::with_commands(
        &env,
        &[
            (
                "st",
                "Say where we are",
                "Where we are:\n\n!`echo from-the-command`",
            ),
            ("slow", "A slow look", "Slow:\n\n!`sleep 30; echo late`"),
        ],
    );
    env.fake.push(crate::support::Reply::text("answered"));
    let term = crate::support::tmux::Tmux::start(&env, &[]);
    term.type_line("/st");
    term.wait_for("the command's question", |s| s.contains("wants to run"));
    term.type_line("y");
    term.wait_for("the answer", |s| s.contains("answered"));
    // The call's line says it ran, with its output.
    crate::assert_contains!(
        term.screen(),
        "✓ shell $ echo from-the-command — from-the-command"
    );
    term.type_line("/slow");
    term.wait_for("the slow command's question", |s| {
        s.matches("wants to run").count() >= 2
    });
    term.type_line("y");
    std::thread::sleep(std::time::Duration::from_millis(500));
    term.press("Escape");
    term.wait_for("the stop", |s| s.contains("nothing was sent"));
    term.type_line("/quit");
    let reqs = env.fake.requests();
    assert_eq!(reqs.len(), 1, "only /st was sent");
    let prompt = reqs[0].json()["messages"][1]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    // The output as Claude Code gives it: no note of the result's.
    crate::assert_contains!(prompt, "Where we are:\n\nfrom-the-command");
    crate::assert_not_contains!(prompt, "[exit code");
}

/// The processes whose command line is `sleep TAG`.
pub(crate) fn sleeping(tag: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c == format!("sleep\0{tag}\0").as_bytes())
        })
        .collect()
}

/// A hermes of `env` whose command starts a daemon in a session of its own
/// (`sleep TAG`), SIGKILLed once the daemon runs.
pub(crate) fn killed_beside_a_daemon(env: &crate::support::TestEnv, tag: &str) {
    env.fake.push(crate::support::Reply::tool_calls(&[(
        &crate::support::call_id("daemon"),
        "shell",
        &serde_json::json!({
            "command": format!("setsid sh -c 'exec sleep {tag}' </dev/null >/dev/null 2>&1 & sleep 60")
        })
        .to_string(),
    )]));
    let mut child = env.cmd().args(["-q", "go"]).spawn().unwrap();
    crate::support::wait_for("the daemon", || !sleeping(tag).is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
}

/// With `sandbox = "landlock"` (no PID namespace), a daemon a command
/// started in a session of its own, left behind by a SIGKILLed hermes, is
/// ended by the next hermes that starts at the latest.
#[test]
fn in_landlock_mode_nothing_outlives_a_killed_hermes() {
    for (i, user) in users::each().into_iter().enumerate() {
        let env = env_for(user, "[tools.shell]\nsandbox = \"landlock\"");
        let tag = format!("600.{}{i}", std::process::id());
        killed_beside_a_daemon(&env, &tag);
        env.fake.push(crate::support::Reply::text("hello"));
        env.run(&["-q", "hi"]).ok();
        crate::support::wait_for("the daemon to be ended", || sleeping(&tag).is_empty());
        let _ = user;
    }
}

/// With `sandbox = "landlock"` nothing can be held back — a write lands as
/// it is made — but the same review runs on the roots' metadata: the
/// result records what changed, names what should never have changed
/// unseen, and fails.
#[test]
fn in_landlock_mode_the_review_still_names_what_changed() {
    let env = env_for(
        users::User::current(),
        "[tools.shell]\nsandbox = \"landlock\"",
    );
    let cwd = env.cwd.path();
    git_init(cwd);
    let r = shells(
        &env,
        &[
            "echo kept > notes.txt".into(),
            "mkdir -p nested/.git/hooks && echo 'touch x' > nested/.git/hooks/pre-commit; echo rc=$?".into(),
        ],
    );
    crate::assert_contains!(r[0], "[files changed: created notes.txt (5 B)]");
    crate::assert_contains!(r[1], "[changed without review (the sandbox is Landlock and seccomp only here): nested/.git/hooks/pre-commit — ");
    let results = env.tool_results(1);
    assert_eq!(results.len(), 2);
    let records = crate::support::records(&env.only_session());
    let held: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["event"] == "files_changed")
        .flat_map(|r| r["files"].as_array().unwrap())
        .filter(|f| f["held"].is_string())
        .collect();
    assert_eq!(held.len(), 1, "{records:?}");
}
