//! `--worktree NAME` and `hermes worktree` (issue 72): a session works in
//! a git worktree of its own on `hermes/NAME` — its writes, its commands
//! and its commits land there, the main checkout untouched — and fails
//! closed: outside a repository nothing is asked of the model and nothing
//! is written. The worktree is found again by a retried job, and merged
//! (a conflict reported and taken back) or removed.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::calls::{contents, reply_calls, ALL_BUILTINS};
use crate::support::fake_provider::Recorded;
use crate::support::users;
use crate::support::{Reply, TestEnv};

/// `git ARGS` in `dir` as the person would run it (their identity from
/// the test home's `.gitconfig`): its stdout.
fn git(env: &TestEnv, dir: &Path, args: &[&str]) -> String {
    let out = env
        .command("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A home offering every built-in, run as `user`, and a repository in
/// its working folder with one commit: `a.txt`.
fn repo_env(user: users::User) -> TestEnv {
    let env = TestEnv::new().run_as(user);
    env.write_config(&format!("[tools]\nbuiltin = {ALL_BUILTINS}\n"));
    std::fs::write(
        env.home.path().join(".gitconfig"),
        "[user]\n\tname = Pat Doe\n\temail = pat@example.org\n[init]\n\tdefaultBranch = main\n",
    )
    .unwrap();
    let cwd = env.cwd.path();
    std::fs::write(cwd.join("a.txt"), "one\n").unwrap();
    git(&env, cwd, &["init", "-q"]);
    git(&env, cwd, &["add", "a.txt"]);
    git(&env, cwd, &["commit", "-qm", "first"]);
    env
}

/// A reply that writes `content` to `path` with `write_file`.
fn writes(path: &str, content: &str) -> Reply {
    reply_calls(&[(
        "w1",
        "write_file",
        json!({"path": path, "content": content}),
    )])
}

/// The worktree the run summary names.
fn worktree_of(run: &crate::support::Run) -> (PathBuf, String) {
    let summary = run.events().last().cloned().unwrap();
    assert_eq!(summary["type"], "run_summary", "{summary}");
    crate::support::event_fits_schema(&summary).unwrap();
    let w = &summary["worktree"];
    (
        PathBuf::from(w["path"].as_str().unwrap()),
        w["branch"].as_str().unwrap().to_string(),
    )
}

#[test]
fn a_worktree_run_writes_runs_and_commits_in_its_worktree_and_the_main_checkout_stays_as_it_was() {
    for user in users::each() {
        let env = repo_env(user);
        let cwd = env.cwd.path();
        let head = git(&env, cwd, &["rev-parse", "HEAD"]);
        let main = cwd.display();
        let sneak = format!(
            "echo bad > {main}/a.txt; echo bad > {main}/new.txt; git branch -f main HEAD; echo z > MAIN_A"
        );
        env.fake.push(reply_calls(&[
            ("w1", "write_file", json!({"path": "b.txt", "content": "from the model\n"})),
            (
                "s1",
                "shell",
                json!({"command": "echo made > c.txt && echo two >> a.txt && git add -A && git commit -qm 'the agent' && git branch --show-current && pwd"}),
            ),
            ("s2", "shell", json!({"command": sneak})),
        ]));
        env.fake.push(Reply::text("done"));
        let run = env.run(&["--worktree", "fix-login", "--json", "-q", "go"]);
        run.ok();
        let (path, branch) = worktree_of(&run);
        assert_eq!(branch, "hermes/fix-login");
        assert!(!path.starts_with(cwd), "kept outside the working tree");

        let results = contents(&env.tool_results(1));
        assert!(!results[1].contains("held back"), "{}", results[1]);
        assert!(results[1].contains("hermes/fix-login"), "{}", results[1]);
        assert!(
            results[1].contains(&path.display().to_string()),
            "the command ran in the worktree: {}",
            results[1]
        );
        // The branch holds the commit the command made, with both files.
        let log = git(&env, cwd, &["log", "--format=%s", "hermes/fix-login"]);
        assert_eq!(log.lines().collect::<Vec<_>>(), ["the agent", "first"]);
        let files = git(&env, cwd, &["ls-tree", "--name-only", "hermes/fix-login"]);
        assert_eq!(
            files.lines().collect::<Vec<_>>(),
            ["a.txt", "b.txt", "c.txt"]
        );
        assert_eq!(std::fs::read_to_string(path.join("MAIN_A")).unwrap(), "z\n");

        // The main checkout: its files, its branch, its HEAD, as they were.
        assert_eq!(std::fs::read_to_string(cwd.join("a.txt")).unwrap(), "one\n");
        for f in ["b.txt", "c.txt", "MAIN_A", "new.txt"] {
            assert!(!cwd.join(f).exists(), "{f} reached the main checkout");
        }
        assert_eq!(git(&env, cwd, &["status", "--porcelain"]), "");
        assert_eq!(git(&env, cwd, &["rev-parse", "HEAD"]), head);
        assert_eq!(git(&env, cwd, &["branch", "--show-current"]).trim(), "main");

        // The session file says where it ran.
        let records = crate::support::records(&env.only_session());
        assert_eq!(records[0]["cwd"], path.display().to_string());
        let w = records
            .iter()
            .find(|r| r["type"] == "event" && r["event"] == "worktree")
            .unwrap_or_else(|| panic!("no worktree record: {records:?}"));
        assert_eq!(w["branch"], "hermes/fix-login");
        assert_eq!(
            w["repo"],
            std::fs::canonicalize(cwd).unwrap().display().to_string()
        );
    }
}

#[test]
fn worktree_outside_a_repository_or_on_a_detached_head_exits_2_and_nothing_is_asked_or_written() {
    let env = TestEnv::new();
    env.write_config(&format!("[tools]\nbuiltin = {ALL_BUILTINS}\n"));
    env.fake.push(Reply::text("never"));
    let run = env.run(&["--worktree", "x", "-q", "go"]);
    run.code(2);
    assert!(
        run.stderr.contains("not in a git repository"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("hint:"), "{}", run.stderr);
    assert!(env.fake.requests().is_empty());
    assert!(env.sessions().is_empty());
    assert!(!env.home.path().join("worktrees").exists());

    let env = repo_env(users::User::current());
    git(&env, env.cwd.path(), &["checkout", "-q", "--detach"]);
    env.fake.push(Reply::text("never"));
    let run = env.run(&["--worktree", "x", "-q", "go"]);
    run.code(2);
    assert!(run.stderr.contains("HEAD is detached"), "{}", run.stderr);
    assert!(run.stderr.contains("--worktree-base"), "{}", run.stderr);
    assert!(env.fake.requests().is_empty());
    assert!(env.sessions().is_empty());
    assert_eq!(
        git(&env, env.cwd.path(), &["worktree", "list"])
            .lines()
            .count(),
        1
    );
    // A bad name, and a base that names nothing: the same.
    for args in [
        &["--worktree", "../up", "-q", "go"][..],
        &[
            "--worktree",
            "y",
            "--worktree-base",
            "no-such-ref",
            "-q",
            "go",
        ],
    ] {
        let run = env.run(args);
        run.code(2);
        assert!(env.fake.requests().is_empty(), "{args:?}");
    }
    // With a base, the detached checkout may branch.
    let run = env.run(&["--worktree", "x", "--worktree-base", "HEAD", "-q", "go"]);
    run.ok();
    assert!(git(&env, env.cwd.path(), &["branch", "--list", "hermes/x"]).contains("hermes/x"));
}

#[test]
fn a_retried_job_continues_its_session_in_the_same_worktree() {
    let env = repo_env(users::User::current());
    env.fake.push(writes("notes.txt", "first attempt\n"));
    env.fake.push(Reply::text("stopped half way"));
    let args = [
        "--worktree",
        "job-7",
        "--session-id",
        "job-7",
        "--json",
        "-q",
    ];
    let first = env.run(&[&args[..], &["start"]].concat());
    first.ok();
    env.fake.push(reply_calls(&[(
        "s1",
        "shell",
        json!({"command": "cat notes.txt; pwd"}),
    )]));
    env.fake.push(Reply::text("done"));
    let second = env.run(&[&args[..], &["go on"]].concat());
    second.ok();
    let (p1, _) = worktree_of(&first);
    let (p2, _) = worktree_of(&second);
    assert_eq!(p1, p2);
    // One session, continued: the second run's first request carries the
    // first run's whole conversation.
    assert_eq!(env.sessions().len(), 1);
    let requests = env.fake.requests();
    let before = requests[1].json()["messages"].as_array().unwrap().clone();
    let after = requests[2].json()["messages"].as_array().unwrap().clone();
    assert_eq!(after[..before.len()], before[..]);
    assert_eq!(after[before.len()]["content"], "stopped half way");
    let out = contents(&env.tool_results(3));
    let cat = out.last().unwrap();
    assert!(cat.contains("first attempt"), "{cat}");
    assert!(cat.contains(&p1.display().to_string()), "{cat}");
    let worktrees = git(&env, env.cwd.path(), &["worktree", "list"]);
    assert_eq!(worktrees.lines().count(), 2, "{worktrees}");

    // Its folder deleted by hand: made again on its branch, which kept
    // nothing uncommitted — the session goes on.
    std::fs::remove_dir_all(&p1).unwrap();
    env.fake.push(Reply::text("again"));
    let third = env.run(&[&args[..], &["once more"]].concat());
    third.ok();
    assert_eq!(worktree_of(&third).0, p1);
    assert!(p1.is_dir());
    assert_eq!(env.sessions().len(), 1);
}

#[test]
fn worktree_merge_reports_a_conflict_and_takes_it_back_and_merges_and_removes_what_does_not_conflict(
) {
    let env = repo_env(users::User::current());
    let cwd = env.cwd.path();
    env.fake.push(writes("a.txt", "the model's one\n"));
    env.fake.push(Reply::text("done"));
    let run = env.run(&["--worktree", "clash", "--json", "-q", "change a"]);
    run.ok();
    let (path, _) = worktree_of(&run);
    // The person changes the same line on main meanwhile.
    std::fs::write(cwd.join("a.txt"), "the person's one\n").unwrap();
    git(&env, cwd, &["commit", "-qam", "by hand"]);
    let head = git(&env, cwd, &["rev-parse", "HEAD"]);

    let list = env.run(&["worktree", "list"]);
    list.ok();
    assert!(
        list.stdout.contains("clash  hermes/clash"),
        "{}",
        list.stdout
    );
    assert!(list.stdout.contains("1 not committed"), "{}", list.stdout);
    let stat = env.run(&["worktree", "diff", "clash", "--stat"]);
    stat.ok();
    assert!(stat.stdout.contains("a.txt"), "{}", stat.stdout);

    let removed = env.run(&["worktree", "remove", "clash"]);
    removed.code(1);
    assert!(
        removed.stderr.contains("not committed"),
        "{}",
        removed.stderr
    );
    assert!(path.exists());

    let merge = env.run(&["worktree", "merge", "clash"]);
    merge.code(1);
    assert!(
        merge.stderr.contains("conflicts in a.txt"),
        "{}",
        merge.stderr
    );
    assert!(
        merge.stderr.contains("nothing was merged"),
        "{}",
        merge.stderr
    );
    assert_eq!(
        std::fs::read_to_string(cwd.join("a.txt")).unwrap(),
        "the person's one\n"
    );
    assert_eq!(git(&env, cwd, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&env, cwd, &["status", "--porcelain"]), "");
    assert!(!cwd.join(".git/MERGE_HEAD").exists());

    // Another worktree whose change does not conflict merges, then goes.
    env.fake.push(writes("new.txt", "new\n"));
    env.fake.push(Reply::text("done"));
    env.run(&["--worktree", "calm", "-q", "add a file"]).ok();
    let merge = env.run(&["worktree", "merge", "calm"]);
    merge.ok();
    assert_eq!(
        std::fs::read_to_string(cwd.join("new.txt")).unwrap(),
        "new\n"
    );
    let log = git(&env, cwd, &["log", "--format=%s", "-3"]);
    assert!(log.contains("hermes: the work of worktree calm"), "{log}");
    let removed = env.run(&["worktree", "remove", "calm"]);
    removed.ok();
    assert!(!git(&env, cwd, &["branch", "--list"]).contains("hermes/calm"));
    let forced = env.run(&["worktree", "remove", "clash", "--force"]);
    forced.ok();
    assert!(!path.exists());
    assert_eq!(git(&env, cwd, &["worktree", "list"]).lines().count(), 1);
    let none = env.run(&["worktree", "merge", "clash"]);
    none.code(2);
    assert!(
        none.stderr.contains("no worktree `clash`"),
        "{}",
        none.stderr
    );
}

/// The fake's model for two subagents that each work in a worktree of
/// their own and write the same file: the parent starts both (one asks
/// for it in the call, one is of a type whose frontmatter does), then
/// quotes their results.
fn isolated_pair(req: &Recorded) -> Reply {
    let body = req.body_str();
    let done = req.tool_results();
    let side =
        if !body.contains("You are a subagent of hermes") && !body.contains("You write one file") {
            "parent"
        } else if body.contains("Task alpha") {
            "alpha"
        } else {
            "beta"
        };
    let reply = match side {
        "parent" if done.is_empty() => reply_calls(&[
            (
                "agentalpha",
                "agent",
                json!({"prompt": "Task alpha: write shared.txt", "description": "alpha writes",
                       "isolation": "worktree"}),
            ),
            (
                "agentbeta",
                "agent",
                json!({"prompt": "Task beta: write shared.txt", "description": "beta writes",
                       "type": "writer"}),
            ),
        ]),
        "parent" => Reply::text(&format!("1: {}\n2: {}", done[0], done[1])),
        side if done.is_empty() => reply_calls(&[(
            &format!("{side}write"),
            "write_file",
            json!({"path": "shared.txt", "content": format!("from {side}\n")}),
        )]),
        side => Reply::text(&format!("{side} wrote it")),
    };
    reply.delayed(std::time::Duration::from_millis(150))
}

/// The linked worktrees `git worktree list --porcelain` gives: each
/// folder and branch.
fn linked(porcelain: &str) -> Vec<(String, String)> {
    porcelain
        .split("\n\n")
        .skip(1)
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let field = |key: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(key))
                    .unwrap_or_default()
                    .to_string()
            };
            (field("worktree "), field("branch refs/heads/"))
        })
        .collect()
}

#[test]
fn two_subagents_in_worktrees_write_the_same_file_each_on_its_own_branch_and_main_stays_untouched()
{
    for user in users::each() {
        let env = repo_env(user);
        env.write_config(
            "[tools]\nbuiltin = [\"agent\", \"write_file\", \"read_file\", \"shell\"]\n",
        );
        let agents = env.home.path().join("agents");
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::write(
            agents.join("writer.md"),
            "---\nname: writer\ndescription: Writes one file.\nisolation: worktree\n---\nYou write one file.\n",
        )
        .unwrap();
        env.fake.respond_with(isolated_pair);
        let cwd = env.cwd.path();
        let run = env.run(&["--json", "-q", "have two subagents write shared.txt"]);
        run.ok();
        let events = run.events();
        let answer = events
            .iter()
            .find(|e| e["type"] == "turn_done")
            .and_then(|e| e["text"].as_str())
            .unwrap()
            .to_string();

        assert!(
            !cwd.join("shared.txt").exists(),
            "a subagent wrote the main checkout"
        );
        assert_eq!(git(&env, cwd, &["status", "--porcelain"]), "");
        // Each subagent's worktree holds its own version, on its own branch.
        let all = linked(&git(&env, cwd, &["worktree", "list", "--porcelain"]));
        let mut seen = Vec::new();
        for (path, branch) in &all {
            let (path, branch) = (path.as_str(), branch.as_str());
            assert!(branch.starts_with("hermes/agent-"), "{branch}");
            assert!(
                answer.contains(branch),
                "the result names {branch}: {answer}"
            );
            assert!(answer.contains(path), "the result names {path}: {answer}");
            seen.push(std::fs::read_to_string(Path::new(path).join("shared.txt")).unwrap());
        }
        seen.sort();
        assert_eq!(seen, ["from alpha\n", "from beta\n"]);

        // Both subagents' writes are the turn's checkpoints: a rewind of
        // the turn takes them back out of the worktrees.
        let list = env.run(&["rewind", "--list"]);
        list.ok();
        assert_eq!(
            list.stdout.matches("/shared.txt").count(),
            2,
            "{}",
            list.stdout
        );
        env.run(&["rewind", "1", "--code-only", "-y"]).ok();
        for (path, _) in &all {
            assert!(!Path::new(path).join("shared.txt").exists(), "{path}");
        }
    }
}

#[test]
fn leaving_a_worktree_repl_prints_what_changed_and_the_commands_to_look_merge_or_remove() {
    let env = repo_env(users::User::current());
    env.fake.push(writes("notes/plan.md", "one\ntwo\nthree\n"));
    env.fake.push(Reply::text("wrote the plan"));
    let term = crate::support::tmux::Tmux::start(&env, &["--worktree", "by-hand"]);
    term.type_line("write the plan");
    term.wait_for("the answer", |s| s.contains("wrote the plan"));
    term.type_line("/quit");
    term.wait_for("the leaving lines", |s| {
        s.contains("hermes worktree remove by-hand")
    });
    let screen = term.scrollback();
    for line in [
        "worktree by-hand (hermes/by-hand,",
        "notes/plan.md | 3 +++",
        "1 file changed, 3 insertions(+)",
        "look:   hermes worktree diff by-hand",
        "merge:  hermes worktree merge by-hand",
    ] {
        assert!(screen.contains(line), "{line:?} not in:\n{screen}");
    }
    assert!(!env.cwd.path().join("notes").exists());
}

#[test]
fn slash_worktree_continues_the_session_in_the_worktree_and_tells_the_model_where_it_works_now() {
    let env = repo_env(users::User::current());
    env.fake.push(Reply::text("first answer"));
    env.fake.push(reply_calls(&[(
        "s1",
        "shell",
        json!({"command": "pwd; git branch --show-current"}),
    )]));
    env.fake.push(Reply::text("second answer"));
    let term = crate::support::tmux::Tmux::start(&env, &[]);
    term.type_line("hello");
    term.wait_for("the answer", |s| s.contains("first answer"));
    term.type_line("/worktree ../bad");
    term.wait_for("the refusal", |s| s.contains("worktree name `../bad`"));
    term.type_line("/worktree moved");
    term.wait_for("the new REPL", |s| {
        s.contains("continuing in worktree moved") && s.matches("/help for commands").count() >= 1
    });
    term.type_line("where are you");
    term.wait_for("the answer", |s| s.contains("second answer"));
    term.type_line("/quit");

    let requests = env.fake.requests();
    let first = requests[0].json()["messages"].as_array().unwrap().clone();
    let second = requests[1].json()["messages"].as_array().unwrap().clone();
    // The same session, extended byte for byte.
    assert_eq!(second[..first.len()], first[..]);
    assert_eq!(second[first.len()]["content"], "first answer");
    let said = second[first.len() + 1]["content"].as_str().unwrap();
    let wt = git(&env, env.cwd.path(), &["worktree", "list", "--porcelain"]);
    let (path, _) = linked(&wt).remove(0);
    assert!(
        said.starts_with(&format!(
            "[hermes: this session now works in {path} — no longer in"
        )),
        "{said}"
    );
    assert!(said.ends_with("where are you"), "{said}");
    let out = contents(&env.tool_results(2));
    assert!(
        out[0].contains(&path) && out[0].contains("hermes/moved"),
        "{}",
        out[0]
    );
    assert_eq!(env.sessions().len(), 1);
}

#[test]
fn an_editor_session_opened_in_a_worktree_says_which_and_its_commands_commit_on_its_branch() {
    let env = repo_env(users::User::current());
    env.fake.push(Reply::text("made"));
    let run = env.run(&["--worktree", "ed", "--json", "-q", "make it"]);
    run.ok();
    let (path, _) = worktree_of(&run);
    let mut editor = crate::support::acp::Editor::start(&env, &[]);
    editor
        .request("initialize", crate::support::acp::initialize())
        .unwrap();
    let opened = editor
        .request("session/new", json!({"cwd": path, "mcpServers": []}))
        .unwrap();
    let w = &opened["_meta"]["hermes"]["worktree"];
    assert_eq!(w["name"], "ed", "{opened}");
    assert_eq!(w["branch"], "hermes/ed");
    assert_eq!(w["path"], path.display().to_string());
    let id = opened["sessionId"].as_str().unwrap().to_string();
    let main = editor
        .request(
            "session/new",
            json!({"cwd": env.cwd.path(), "mcpServers": []}),
        )
        .unwrap();
    assert!(main.get("_meta").is_none(), "{main}");

    env.fake.push(reply_calls(&[(
        "s1",
        "shell",
        json!({"command": "echo x > e.txt && git add e.txt && git commit -qm 'from the editor' && echo ok"}),
    )]));
    env.fake.push(Reply::text("committed"));
    editor
        .request(
            "session/prompt",
            json!({"sessionId": id, "prompt": [{"type": "text", "text": "commit"}]}),
        )
        .unwrap();
    let log = git(
        &env,
        env.cwd.path(),
        &["log", "--format=%s", "-1", "hermes/ed"],
    );
    assert_eq!(log.trim(), "from the editor");
    assert!(!env.cwd.path().join("e.txt").exists());
    let session = env.session_path(&id);
    let records = crate::support::records(&session);
    assert!(
        records
            .iter()
            .any(|r| r["event"] == "worktree" && r["branch"] == "hermes/ed"),
        "{records:?}"
    );
}

#[test]
fn a_worktree_of_a_trusted_checkout_keeps_its_trust_while_its_project_files_are_the_same() {
    let env = repo_env(users::User::current());
    let cwd = env.cwd.path();
    std::fs::create_dir_all(cwd.join(".hermes")).unwrap();
    std::fs::write(
        cwd.join(".hermes/config.toml"),
        "system_prompt = \"You are the project's own agent.\"\n",
    )
    .unwrap();
    git(&env, cwd, &["add", ".hermes"]);
    git(&env, cwd, &["commit", "-qm", "project config"]);
    env.run(&["trust"]).ok();
    env.fake.push(Reply::text("one"));
    let run = env.run(&["--worktree", "same", "-q", "hi"]);
    run.ok();
    assert!(!run.stderr.contains("not trusted"), "{}", run.stderr);
    let system = |n: usize| env.fake.requests()[n].json()["messages"][0]["content"].clone();
    assert_eq!(system(0), "You are the project's own agent.");

    // Changed in the worktree: held again, as a changed file always is.
    env.fake.push(Reply::text("between"));
    let changed = env.run(&["--worktree", "same", "--json", "-q", "hi"]);
    changed.ok();
    let (path, _) = worktree_of(&changed);
    std::fs::write(
        path.join(".hermes/config.toml"),
        "system_prompt = \"Something else.\"\n",
    )
    .unwrap();
    env.fake.push(Reply::text("two"));
    let run = env.run(&["--worktree", "same", "-q", "hi"]);
    run.ok();
    assert!(run.stderr.contains("trust"), "{}", run.stderr);
    let last = env.fake.requests().len() - 1;
    assert_ne!(system(last), "Something else.");
}

#[test]
fn worktree_dir_and_include_put_it_where_config_says_with_the_ignored_files_it_needs() {
    let env = repo_env(users::User::current());
    let cwd = env.cwd.path();
    std::fs::write(cwd.join(".gitignore"), ".env\nlocal/\n").unwrap();
    git(&env, cwd, &["add", ".gitignore"]);
    git(&env, cwd, &["commit", "-qm", "ignore"]);
    std::fs::write(cwd.join(".env"), "TOKEN=dev\n").unwrap();
    std::fs::create_dir_all(cwd.join("local")).unwrap();
    std::fs::write(cwd.join("local/big.bin"), "not wanted\n").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    env.write_config(&format!(
        "[worktree]\ndir = \"{}\"\ninclude = [\".env\"]\n",
        elsewhere.path().display()
    ));
    env.fake.push(Reply::text("ok"));
    let run = env.run(&["--worktree", "with-env", "--json", "-q", "go"]);
    run.ok();
    let (path, _) = worktree_of(&run);
    assert!(
        path.starts_with(std::fs::canonicalize(elsewhere.path()).unwrap()),
        "{}",
        path.display()
    );
    assert_eq!(
        std::fs::read_to_string(path.join(".env")).unwrap(),
        "TOKEN=dev\n"
    );
    assert!(!path.join("local/big.bin").exists());
    assert!(
        run.events().iter().any(|e| e["type"] == "warning"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.contains("1 ignored file copied in"))),
        "{}",
        run.stdout
    );
}
