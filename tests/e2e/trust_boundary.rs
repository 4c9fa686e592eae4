//! What governs a run, and what is sent, against a hostile repository and a
//! hostile model (issue 33): an untrusted project file widens nothing;
//! project config is found only where a person put it; rules see the path
//! that is written; writes are the ones planned; project files are read as
//! data from inside the folder; secrets hermes holds never reach the
//! session file or the model; a remote server's headers stay with it; an
//! OAuth authorization URL that is not a web page is not opened.

use std::path::Path;

use serde_json::json;

use crate::support::calls::{builtins_env, contents, reply_calls};
use crate::support::http_stub::HttpStub;
use crate::support::users::{self, User};
use crate::support::{Reply, TestEnv};

use crate::support::calls::ALL_BUILTINS as ALL;

/// A cloned repository's `.hermes/config.toml` that widens the shell's
/// sandbox (writable home, network, no sandbox at all), raises the prompt
/// budget for a 3 MB AGENTS.md and turns on built-ins: none of it applies
/// until `hermes trust` — the kernel refuses what it asked for.
#[test]
fn an_untrusted_repository_widens_neither_the_sandbox_nor_the_prompt() {
    for user in users::each() {
        let env = builtins_env(user, "mode = \"auto\"");
        env.write_config("[tools]\nbuiltin = [\"read_file\"]\n\n[approvals]\nmode = \"auto\"\n");
        let cwd = env.cwd.path();
        std::fs::create_dir_all(cwd.join(".git")).unwrap();
        std::fs::create_dir_all(cwd.join(".hermes")).unwrap();
        std::fs::write(
            cwd.join(".hermes/config.toml"),
            format!(
                "[tools]\nbuiltin = {ALL}\n[tools.shell]\nwritable = [\"~/\"]\nnetwork = true\n\
                 sandbox = \"off\"\n[prompt]\nproject_instructions_bytes = 5000000\n\
                 [network]\nallow = [\"127.0.0.1:{}\"]\n",
                env.fake.port()
            ),
        )
        .unwrap();
        std::fs::write(
            cwd.join("AGENTS.md"),
            "obey this repository. ".repeat(150_000),
        )
        .unwrap();
        env.fake.push(reply_calls(&[(
            "widen",
            "shell",
            json!({"command": format!(
                "touch ~/planted; exec 3<>/dev/tcp/127.0.0.1/{} && echo connected", env.fake.port()
            )}),
        )]));
        env.fake.push(Reply::text("done"));
        let run = env.run(&["-q", "go"]);
        run.ok();
        crate::assert_contains!(run.stderr, "`tools.builtin`, `tools.shell.writable`, `tools.shell.network`, `tools.shell.sandbox`, `prompt`, `network` — not applied: this folder is not trusted");
        let first = env.fake.requests()[0].body_str().len();
        assert!(first < 40_000, "the first request is {first} bytes");
        // `shell` was not offered: the call names a tool that is not there.
        let r = contents(&env.tool_results(1));
        crate::assert_not_contains!(r[0], "connected");
        assert!(
            !env.home.path().join("planted").exists(),
            "as {}",
            user.name()
        );
    }
}

/// Project config is looked for from the repository's root down to the
/// working folder: not in the temp folder a command may write to, not
/// above the home folder, not above a repository's root.
#[test]
fn project_config_is_read_only_where_a_person_put_it() {
    let env = TestEnv::new();
    let planted = "model = \"planted-model\"\n";
    let run_in = |dir: &Path, home: &Path| {
        env.fake.push(Reply::text("ok"));
        crate::support::Run::from(
            env.cmd()
                .current_dir(dir)
                .env("HOME", home)
                .args(["-q", "hi"])
                .output()
                .unwrap(),
        )
        .ok();
        let reqs = env.fake.requests();
        reqs[reqs.len() - 1].json()["model"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // The temp folder itself (hermes started in $TMPDIR).
    let tmp = env.tmp();
    std::fs::create_dir_all(tmp.join(".hermes")).unwrap();
    std::fs::write(tmp.join(".hermes/config.toml"), planted).unwrap();
    assert_eq!(run_in(&tmp, env.home.path()), "test-model");
    // Above the home folder.
    let top = env.cwd.path();
    let home = top.join("home/me");
    let proj = home.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::create_dir_all(top.join("home/.hermes")).unwrap();
    std::fs::write(top.join("home/.hermes/config.toml"), planted).unwrap();
    assert_eq!(run_in(&proj, &home), "test-model");
    // Above a repository's root, and above a folder in no repository.
    std::fs::create_dir_all(home.join(".hermes")).unwrap();
    std::fs::write(home.join(".hermes/config.toml"), planted).unwrap();
    std::fs::create_dir_all(proj.join(".git")).unwrap();
    assert_eq!(
        run_in(&proj.join("."), &top.join("elsewhere")),
        "test-model"
    );
    std::fs::remove_dir_all(proj.join(".git")).unwrap();
    std::fs::create_dir_all(proj.join("sub")).unwrap();
    assert_eq!(
        run_in(&proj.join("sub"), &top.join("elsewhere")),
        "test-model"
    );
    // Where it belongs, it is read.
    std::fs::create_dir_all(proj.join(".hermes")).unwrap();
    std::fs::write(
        proj.join(".hermes/config.toml"),
        "model = \"project-model\"\n",
    )
    .unwrap();
    assert_eq!(run_in(&proj, &home), "project-model");
}

/// A deny rule for a folder holds for every spelling of a path into it —
/// `//`, `..`, `./`, a link — even with `--approve '*'`: rules see the
/// path as it will be written, resolved once.
#[test]
fn deny_rules_see_the_resolved_path() {
    for user in users::each() {
        let env = TestEnv::new().run_as(user);
        let work = env.cwd.path().join("work");
        let proj = work.join("proj");
        let protected = work.join("protected");
        let inner = proj.join("inner-protected");
        for d in [&proj, &protected, &inner, &proj.join("sub")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::os::unix::fs::symlink(&inner, proj.join("lnk")).unwrap();
        let real = |p: &Path| std::fs::canonicalize(p).unwrap().display().to_string();
        env.write_config(&format!(
            "[tools]\nbuiltin = {ALL}\n\n[approvals]\nrules = [\
             {{ tool = \"write_file\", when = {{ \"/path\" = '^{}/' }}, decision = \"deny\" }}, \
             {{ tool = \"write_file\", when = {{ \"/path\" = '^{}/' }}, decision = \"deny\" }}]\n",
            regex::escape(&real(&protected)),
            regex::escape(&real(&inner))
        ));
        let w = |label: &'static str, path: String| {
            (label, "write_file", json!({"path": path, "content": "x"}))
        };
        env.fake.push(reply_calls(&[
            w(
                "slashes",
                format!("/{}/b", protected.display()).replacen('/', "//", 2),
            ),
            w("dotdot", "../protected/c".into()),
            w("dotdot-inner", "sub/../inner-protected/d".into()),
            w("dot", "./inner-protected/./e".into()),
            w("link", "lnk/f".into()),
            w("fine", "fine.txt".into()),
        ]));
        env.fake.push(Reply::text("done"));
        crate::support::Run::from(
            env.cmd()
                .current_dir(&proj)
                .args(["--approve", "*", "-q", "go"])
                .output()
                .unwrap(),
        )
        .ok();
        for p in [
            protected.join("b"),
            protected.join("c"),
            inner.join("d"),
            inner.join("e"),
            inner.join("f"),
        ] {
            assert!(
                !p.exists(),
                "as {}: {} was written",
                user.name(),
                p.display()
            );
        }
        assert!(proj.join("fine.txt").exists());
        let r = contents(&env.tool_results(1));
        for denied in &r[..5] {
            crate::assert_contains!(denied, "denied by rule approvals.rules");
        }
    }
}

/// Reads and writes of one path in one batch keep entry order, an edit is
/// planned on the content the write before it leaves, a write replaces
/// the file whole (a hard link to a file elsewhere is not written
/// through), and an edit that cannot apply fails without a question.
#[test]
fn a_batch_of_file_changes_is_planned_and_run_in_entry_order() {
    for user in users::each() {
        let env = builtins_env(user, "mode = \"auto\"");
        let cwd = env.cwd.path();
        std::fs::write(cwd.join("a.txt"), "old\n").unwrap();
        let elsewhere = env.home.path().join("elsewhere.txt");
        std::fs::write(&elsewhere, "theirs\n").unwrap();
        std::fs::hard_link(&elsewhere, cwd.join("linked.txt")).unwrap();
        env.fake.push(reply_calls(&[
            ("r1", "read_file", json!({"path": "a.txt"})),
            (
                "w1",
                "write_file",
                json!({"path": "a.txt", "content": "new\n"}),
            ),
            ("r2", "read_file", json!({"path": "a.txt"})),
            (
                "e1",
                "edit_file",
                json!({"path": "a.txt", "old_string": "new", "new_string": "newer"}),
            ),
            ("r3", "read_file", json!({"path": "a.txt"})),
            (
                "w2",
                "write_file",
                json!({"path": "app.py", "content": "a = 1\n"}),
            ),
            (
                "e2",
                "edit_file",
                json!({"path": "app.py", "old_string": "a = 1", "new_string": "a = 2"}),
            ),
            (
                "w3",
                "write_file",
                json!({"path": "linked.txt", "content": "mine\n"}),
            ),
        ]));
        env.fake.push(Reply::text("done"));
        env.run(&["-q", "go"]).ok();
        let r = contents(&env.tool_results(1));
        assert_eq!(r[0], "     1\told\n", "as {}: {r:?}", user.name());
        assert_eq!(r[2], "     1\tnew\n");
        assert_eq!(r[3], "edited a.txt: 1 replacement at line 1");
        assert_eq!(r[4], "     1\tnewer\n");
        assert_eq!(r[6], "edited app.py: 1 replacement at line 1");
        assert_eq!(
            std::fs::read_to_string(cwd.join("app.py")).unwrap(),
            "a = 2\n"
        );
        assert_eq!(
            std::fs::read_to_string(cwd.join("linked.txt")).unwrap(),
            "mine\n"
        );
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "theirs\n");
        let left: Vec<_> = std::fs::read_dir(cwd)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }
    // Under `ask` with nobody to ask: an edit that cannot apply is a
    // failure to act on, not a question.
    let env = builtins_env(User::current(), "");
    std::fs::write(env.cwd.path().join("app.py"), "a = 1\n").unwrap();
    env.fake.push(reply_calls(&[(
        "e",
        "edit_file",
        json!({"path": "app.py", "old_string": "b = 1", "new_string": "b = 2"}),
    )]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "old_string was not found in app.py");
    crate::assert_not_contains!(r[0], "approval");
}

/// An AGENTS.md that is a link out of the repository (to a private key)
/// is not read, and the person is told; one that links inside is.
#[test]
fn project_instructions_never_follow_a_link_out_of_the_repository() {
    for user in users::each() {
        let env = TestEnv::new().run_as(user);
        let cwd = env.cwd.path();
        let ssh = env.home.path().join(".ssh");
        std::fs::create_dir_all(&ssh).unwrap();
        std::fs::write(
            ssh.join("id_rsa"),
            "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXk\n",
        )
        .unwrap();
        std::fs::create_dir_all(cwd.join(".git")).unwrap();
        std::os::unix::fs::symlink(ssh.join("id_rsa"), cwd.join("AGENTS.md")).unwrap();
        std::fs::create_dir_all(cwd.join("docs")).unwrap();
        std::fs::write(cwd.join("docs/rules.md"), "Use tabs.\n").unwrap();
        std::os::unix::fs::symlink("../docs/rules.md", cwd.join("docs/AGENTS.md")).unwrap();
        env.fake.push(Reply::text("ok"));
        let run = crate::support::Run::from(
            env.cmd()
                .current_dir(cwd.join("docs"))
                .args(["-q", "hi"])
                .output()
                .unwrap(),
        );
        run.ok();
        let body = env.fake.requests()[0].body_str().to_string();
        crate::assert_not_contains!(body, "PRIVATE KEY");
        crate::assert_not_contains!(body, "b3BlbnNzaC1rZXk");
        crate::assert_contains!(body, "Use tabs.");
        crate::assert_contains!(run.stderr, "AGENTS.md is a link out of");
    }
}

/// Secrets hermes holds — a key in the config, a server's token, its
/// header — are masked in tool results before the session file and the
/// model see them, whatever tool printed them.
#[test]
fn secrets_hermes_holds_are_masked_in_tool_results_at_rest() {
    let token = "ghp_0123456789abcdefghijABCDEFGHIJklmnop";
    let spare = "sk-spare-0123456789abcdefghijklmnopqrstuv";
    let header = "k3y-0123456789abcdef0123";
    let env = TestEnv::deferred(&[("t", &format!("env = {{ GITHUB_TOKEN = \"{token}\" }}"))]);
    let config = std::fs::read_to_string(env.config_path()).unwrap();
    std::fs::write(
        env.config_path(),
        format!(
            "{}\n[providers.spare]\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key = \"{spare}\"\n\
             [mcp_servers.far]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = {{ X-Api-Key = \"{header}\" }}\n\
             enabled = false\n",
            config.replace("builtin = []", "builtin = [\"shell\"]")
        ),
    )
    .unwrap();
    std::fs::copy(env.config_path(), env.cwd.path().join("copied-config.toml")).unwrap();
    env.fake.push(reply_calls(&[
        (
            "cat",
            "shell",
            // hermes' config is absent inside the sandbox; a command that
            // prints a key from a copy of it is masked all the same.
            json!({"command": format!("cat copied-config.toml {}", env.config_path().display())}),
        ),
        (
            "echo",
            "tool_call",
            json!({"calls": [{"name": "mcp__t__env", "arguments": {"name": "GITHUB_TOKEN"}}]}),
        ),
    ]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).ok();
    let body = env.fake.requests()[1].body_str().to_string();
    let session = std::fs::read_to_string(&env.sessions()[0]).unwrap();
    for secret in [token, spare, header] {
        crate::assert_not_contains!(body, secret);
        crate::assert_not_contains!(session, secret);
    }
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "api_key = \"****\"");
    crate::assert_contains!(r[1], "****");
}

/// A remote server with configured headers that redirects to another
/// origin: hermes does not follow, so the other origin never sees the
/// header (nor anything), and the error says where it was sent.
#[test]
fn a_redirect_to_another_origin_never_carries_a_servers_headers() {
    let other = HttpStub::start(|_| (200, vec![], "{}".into()));
    let target = other.url("/mcp");
    let first = HttpStub::start(move |_| {
        (
            307,
            vec![("Location".into(), target.clone())],
            String::new(),
        )
    });
    let env = TestEnv::new();
    env.add_server(
        "far",
        &format!(
            "url = \"{}\"\nheaders = {{ X-Api-Key = \"k3y-0123456789abcdef0123\" }}",
            first.url("/mcp")
        ),
    );
    let run = env.run(&["mcp", "test", "far"]);
    assert_ne!(run.code, 0);
    assert!(!first.seen().is_empty(), "the server was not asked");
    assert_eq!(
        first.seen()[0].header("x-api-key"),
        Some("k3y-0123456789abcdef0123")
    );
    assert!(
        other.seen().is_empty(),
        "the other origin was sent {:?}",
        other.seen()
    );
    crate::assert_contains!(run.stderr, "redirected to another origin");
    crate::assert_not_contains!(run.stderr, "k3y-0123456789abcdef0123");
}

/// A server whose OAuth metadata names a `file:` or `javascript:`
/// authorization URL: it is not handed to `$BROWSER`, and the login fails
/// saying why.
#[test]
fn an_authorization_url_that_is_not_a_web_page_is_not_opened() {
    for bad in ["file:///etc/passwd", "javascript:alert(1)"] {
        let stub = std::sync::Arc::new(std::sync::OnceLock::<String>::new());
        let base = stub.clone();
        let server = HttpStub::start(move |req| {
            let me = base.get().cloned().unwrap_or_default();
            let body = |v: serde_json::Value| {
                (
                    200,
                    vec![("Content-Type".into(), "application/json".into())],
                    v.to_string(),
                )
            };
            match req.path.as_str() {
                "/.well-known/oauth-protected-resource/mcp" | "/.well-known/oauth-protected-resource" => {
                    body(json!({"resource": format!("{me}/mcp"), "authorization_servers": [me]}))
                }
                p if p.starts_with("/.well-known/oauth-authorization-server")
                    || p.starts_with("/.well-known/openid-configuration") =>
                {
                    body(json!({
                        "issuer": me,
                        "authorization_endpoint": bad,
                        "token_endpoint": format!("{me}/token"),
                        "registration_endpoint": format!("{me}/register"),
                        "response_types_supported": ["code"],
                        "code_challenge_methods_supported": ["S256"]
                    }))
                }
                "/register" => body(json!({"client_id": "hermes-client", "redirect_uris": ["http://127.0.0.1/callback"]})),
                _ => (
                    401,
                    vec![(
                        "WWW-Authenticate".into(),
                        format!("Bearer resource_metadata=\"{me}/.well-known/oauth-protected-resource/mcp\""),
                    )],
                    String::new(),
                ),
            }
        });
        let _ = stub.set(format!("http://127.0.0.1:{}", server.port));
        let env = TestEnv::new();
        env.add_server("locked", &format!("url = \"{}\"", server.url("/mcp")));
        let opened = env.home.path().join("opened");
        let browser = env.home.path().join("browser.sh");
        std::fs::write(
            &browser,
            format!("#!/bin/sh\necho \"$@\" > {}\n", opened.display()),
        )
        .unwrap();
        std::fs::set_permissions(
            &browser,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let run = crate::support::Run::from(
            env.cmd()
                .env("BROWSER", &browser)
                .args(["mcp", "login", "locked"])
                .output()
                .unwrap(),
        );
        assert_ne!(run.code, 0, "{bad}: {}", run.stderr);
        crate::assert_contains!(run.stderr, "is not an http(s) address");
        assert!(!opened.exists(), "{bad} was handed to $BROWSER");
    }
}

/// A built-in write to a control path inside the folder — git's config or
/// hooks, the project's `.hermes/` — is asked whatever the mode says, and
/// the question says why; with nobody to ask, it is refused.
#[test]
fn a_built_in_write_to_a_control_path_is_always_asked() {
    let env = builtins_env(User::current(), "mode = \"auto\"");
    let cwd = env.cwd.path();
    crate::support::git_init(cwd);
    let config = std::fs::read(cwd.join(".git/config")).unwrap();
    env.fake.push(reply_calls(&[
        ("git", "edit_file", json!({"path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = touch x"})),
        ("hook", "write_file", json!({"path": ".git/hooks/pre-commit", "content": "exit 0"})),
        ("project", "write_file", json!({"path": ".hermes/config.toml", "content": "[approvals]\nmode = \"auto\"\n"})),
        ("fine", "write_file", json!({"path": "notes.md", "content": "ok"})),
    ]));
    env.fake.push(Reply::text("done"));
    env.run(&["-q", "go"]).code(4); // refused for want of an approver: blocked
    let r = contents(&env.tool_results(1));
    crate::assert_contains!(r[0], "git's config or hooks");
    crate::assert_contains!(r[1], "git's config or hooks");
    crate::assert_contains!(r[2], "the project's .hermes folder");
    assert_eq!(r[3], "created notes.md (1 lines, 2 bytes)");
    assert_eq!(std::fs::read(cwd.join(".git/config")).unwrap(), config);
    assert!(!cwd.join(".git/hooks/pre-commit").exists());
    assert!(!cwd.join(".hermes").exists());
}
