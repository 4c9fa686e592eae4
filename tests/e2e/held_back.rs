//! What the sandbox held back of a command's changes is put to the person
//! once, listed, and lands only when they say so (issue 48): the REPL's
//! question as a `--json-answers` script answers it, one command's held
//! files allowed, another's denied; the kernel's view proves each.

use serde_json::{json, Value};

use crate::e2e::sandbox::env_for;
use crate::support::fake_provider::{call_id, Reply};
use crate::support::users;

/// As root and as a normal user: a new repository's `pre-push` allowed,
/// another's `info/exclude` denied.
#[test]
fn held_back_changes_land_only_when_the_person_says_so() {
    use std::io::{BufRead, Write};
    for user in users::each() {
        let env = env_for(user, "");
        let cwd = env.cwd.path();
        let (allowed, denied) = (call_id("land-it"), call_id("keep-it-out"));
        let calls = [
            (
                allowed.clone(),
                "git init -q sub && printf '#!/bin/sh\\nexit 0\\n' > sub/.git/hooks/pre-push && chmod +x sub/.git/hooks/pre-push && echo one > plain.txt",
            ),
            (
                denied.clone(),
                "git init -q other && echo '*.log' >> other/.git/info/exclude && echo two > other.txt",
            ),
        ];
        let args: Vec<(String, String)> = calls
            .iter()
            .map(|(id, c)| (id.clone(), json!({ "command": c }).to_string()))
            .collect();
        let borrowed: Vec<(&str, &str, &str)> = args
            .iter()
            .map(|(id, a)| (id.as_str(), "shell", a.as_str()))
            .collect();
        env.fake.push(Reply::tool_calls(&borrowed));
        env.fake.push(Reply::text("done"));
        let mut child = env.spawn_with_stdin(&["--json", "--json-answers", "-q", "go"]);
        let mut stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut asked: Vec<Value> = Vec::new();
        for line in stdout.lines() {
            let ev: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if ev["type"] == "approval_asked" {
                let id = ev["id"].as_str().unwrap().to_string();
                let answer = if id == allowed { "once" } else { "deny" };
                writeln!(stdin, r#"{{"id":"{id}","answer":"{answer}"}}"#).unwrap();
                asked.push(ev);
            }
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Asked once a command, after it ran, listing what was held and why;
        // "once" is the only answer offered.
        assert_eq!(asked.len(), 2, "{asked:?}");
        assert_eq!(asked[0]["id"], allowed.as_str());
        crate::assert_contains!(
            asked[0]["preview"].as_str().unwrap(),
            "sub/.git/hooks/pre-push — "
        );
        crate::assert_contains!(
            asked[1]["preview"].as_str().unwrap(),
            "other/.git/info/exclude — "
        );
        assert!(asked[0]["grants"].is_null(), "{}", asked[0]);
        // The kernel's view: allowed, it landed as the command left it;
        // denied, it did not. What was never held landed either way.
        let hook = cwd.join("sub/.git/hooks/pre-push");
        assert_eq!(
            std::fs::read_to_string(&hook).unwrap(),
            "#!/bin/sh\nexit 0\n"
        );
        use std::os::unix::fs::PermissionsExt;
        assert_ne!(
            std::fs::metadata(&hook).unwrap().permissions().mode() & 0o111,
            0
        );
        assert!(!cwd.join("other/.git/info/exclude").exists());
        assert!(cwd.join("other/.git/HEAD").exists());
        assert!(cwd.join("plain.txt").exists() && cwd.join("other.txt").exists());
        // The model reads what happened to each.
        let results = crate::support::calls::contents(&env.tool_results(1));
        crate::assert_contains!(results[0], "created sub/.git/hooks/pre-push");
        crate::assert_not_contains!(results[0], "held back");
        crate::assert_contains!(results[1], "[held back, not written: other/.git/");
        // The session file says so too: the decision, and the record of
        // changes as they finally stood.
        let records = crate::support::records(&env.only_session());
        let changed = |id: &str| -> Value {
            records
                .iter()
                .find(|r| r["event"] == "files_changed" && r["tool_call_id"] == id)
                .cloned()
                .unwrap_or_else(|| panic!("no files_changed for {id}: {records:?}"))
        };
        let held_of = |v: &Value, end: &str| {
            v["files"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["path"].as_str().unwrap().ends_with(end))
                .map(|f| f["held"].clone())
                .unwrap()
        };
        assert!(held_of(&changed(&allowed), "sub/.git/hooks/pre-push").is_null());
        assert!(held_of(&changed(&denied), "other/.git/info/exclude").is_string());
        let decisions: Vec<(String, String)> = records
            .iter()
            .filter(|r| r["event"] == "approval")
            .map(|r| {
                (
                    r["call_id"].as_str().unwrap().to_string(),
                    r["decision"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert!(
            decisions.contains(&(allowed.clone(), "allow".into())),
            "{decisions:?}"
        );
        assert!(
            decisions.contains(&(denied.clone(), "deny".into())),
            "{decisions:?}"
        );
    }
}

/// Where the kernel will not stack an overlay on the stage — here hermes'
/// folder, `/var/tmp` and `/dev/shm` are each on an overlayfs, which cannot
/// be an upper layer — the
/// command runs again, reviewed by snapshot, and says so: its plain file
/// lands, a hook it wrote is named as changed unreviewed, and the call
/// fails so the model and the person look.
#[test]
fn where_no_overlay_mounts_the_command_runs_again_reviewed_by_snapshot() {
    let env = env_for(users::User::current(), "");
    let cwd = env.cwd.path();
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(cwd)
        .status()
        .unwrap();
    assert!(init.success());
    let layers = tempfile::tempdir().unwrap();
    let (upper, work) = (layers.path().join("u"), layers.path().join("w"));
    std::fs::create_dir_all(&upper).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let home = env.home.path().display().to_string();
    // hermes' folder (the test's home) seen through an overlay, in a mount
    // namespace of the run's own — and the other folders a stage may be
    // made in too, so that none can hold an upper layer.
    let mut script = String::new();
    for (i, dir) in [home.as_str(), "/var/tmp", "/dev/shm"].iter().enumerate() {
        let (u, w) = (upper.join(i.to_string()), work.join(i.to_string()));
        std::fs::create_dir_all(&u).unwrap();
        std::fs::create_dir_all(&w).unwrap();
        script.push_str(&format!(
            "mount -t overlay stage-{i} -o lowerdir={dir},upperdir={},workdir={},userxattr {dir} && ",
            u.display(),
            w.display()
        ));
    }
    script.push_str("exec \"$@\"");
    let inner = env.cmd();
    let mut cmd = std::process::Command::new("unshare");
    cmd.args(["-Urm", "sh", "-c", &script, "sh"])
        .arg(inner.get_program())
        .args(inner.get_args());
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.current_dir(cwd);
    let r = crate::e2e::sandbox::shells_with(
        &env,
        cmd,
        &["echo hi > plain.txt && echo '*.log' >> .git/info/exclude".into()],
    );
    crate::assert_contains!(r[0], "[sandbox: no overlay could be mounted here");
    crate::assert_contains!(r[0], "created plain.txt");
    crate::assert_contains!(r[0], "[changed without review");
    crate::assert_contains!(r[0], ".git/info/exclude — ");
    assert!(r[0].starts_with("Error:"), "{}", r[0]);
    // It ran once, not twice: the file holds one line.
    assert_eq!(
        std::fs::read_to_string(cwd.join("plain.txt")).unwrap(),
        "hi\n"
    );
}
