//! `hermes config …` and how layers combine.

use crate::support::{call_id, Reply, TestEnv};

#[test]
fn config_path_follows_hermes_home() {
    let env = TestEnv::new();
    let run = env.run(&["config", "path"]);
    run.ok();
    assert_eq!(run.stdout.trim(), env.config_path().display().to_string());
}

#[test]
fn config_show_merges_layers_and_masks_secrets() {
    let env = TestEnv::new();
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str("api_key = \"sk-very-secret\"\nheaders = { Authorization = \"Bearer abc\", X-Title = \"hermes\" }\n");
    std::fs::write(env.config_path(), text).unwrap();
    let project = env.cwd.path().join(".hermes");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("config.toml"), "model = \"project-model\"\n").unwrap();

    let run = env.run(&["config", "show", "-c", "max_turns=7"]);
    run.ok();
    let out = &run.stdout;
    crate::assert_not_contains!(out, "sk-very-secret");
    crate::assert_not_contains!(out, "Bearer abc");
    crate::assert_contains!(out, "api_key = \"****\"");
    crate::assert_contains!(out, "X-Title = \"hermes\"");
    crate::assert_contains!(out, "model = \"project-model\"");
    crate::assert_contains!(out, "max_turns = 7");
    crate::assert_contains!(
        out,
        format!("# from {}", project.join("config.toml").display())
    );
}

#[test]
fn project_config_and_flags_override_the_user_file() {
    let env = TestEnv::new();
    let project = env.cwd.path().join(".hermes");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("config.toml"), "model = \"project-model\"\n").unwrap();
    env.fake.push(Reply::text("a"));
    env.fake.push(Reply::text("b"));
    env.run(&["-q", "hi"]).ok();
    env.run(&["-m", "flag-model", "-q", "hi"]).ok();
    let reqs = env.fake.requests();
    assert_eq!(reqs[0].json()["model"], "project-model");
    assert_eq!(reqs[1].json()["model"], "flag-model");
}

#[test]
fn explicit_config_file_must_exist() {
    let env = TestEnv::new();
    let run = env.run(&["--config", "/nonexistent/hermes.toml", "-q", "hi"]);
    run.code(2);
    assert!(run
        .error_line()
        .starts_with("error: cannot read config /nonexistent/hermes.toml"));
}

#[test]
fn presets_work_without_a_config_section() {
    let env = TestEnv::new();
    std::fs::write(env.config_path(), "").unwrap();
    // The openai preset needs OPENAI_API_KEY; the error says so.
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    crate::assert_contains!(run.error_line(), "OPENAI_API_KEY is not set");
    // A preset's keys can be overridden one by one.
    env.fake.push(Reply::text("from ollama preset"));
    let run = env.run(&[
        "--provider",
        "ollama",
        "-c",
        &format!("providers.ollama.base_url=\"{}\"", env.fake.base_url()),
        "-q",
        "hi",
    ]);
    run.ok();
    assert_eq!(env.fake.requests()[0].json()["model"], "llama3.2");
    assert_eq!(env.fake.requests()[0].header("authorization"), None);
}

#[test]
fn the_removed_split_batches_key_is_an_error_that_says_to_delete_it() {
    let env = TestEnv::new();
    env.write_config("[tools]\nsplit_batches = false\n");
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    let err = run.error_line();
    crate::assert_contains!(
        err,
        "config.toml:5: tools.split_batches: unknown key `split_batches`"
    );
    crate::assert_contains!(
        run.stderr,
        "hint: remove that line: hermes always splits local tool_call batches"
    );
}

/// Zero where a count or a wait is meant (no model request allowed, no time to
/// wait) is refused, naming the file, line and key.
#[test]
fn zero_turns_and_zero_timeouts_are_refused_with_file_line_and_key() {
    let env = TestEnv::new();
    env.write_config("max_turns = 0\n");
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    crate::assert_contains!(
        run.error_line(),
        "config.toml:3: max_turns: invalid value: integer `0`, expected a nonzero u32"
    );

    let env = TestEnv::new();
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str("idle_timeout_ms = 0\n");
    std::fs::write(env.config_path(), text).unwrap();
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    crate::assert_contains!(
        run.error_line(),
        "providers.fake.idle_timeout_ms: invalid value: integer `0`"
    );

    let env = TestEnv::new();
    env.add_test_server("t", "tool_timeout_ms = 0");
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    crate::assert_contains!(
        run.error_line(),
        "mcp_servers.t.tool_timeout_ms: invalid value: integer `0`"
    );
}

/// `config show` masks credentials by name (`GH_PAT`, `*CREDENTIALS*`,
/// `PASSPHRASE`), by URL (`postgres://app:secret@…`) and in arguments
/// (`--password=…`, `--token …`).
#[test]
fn config_show_masks_credentials_by_name_url_and_argument() {
    let env = TestEnv::new();
    env.add_server(
        "db",
        "command = \"db-mcp\"\n\
         args = [\"--password=hunter2\", \"--token\", \"tok-123\", \"postgres://app:s3cret@db:5432/x\", \"--verbose\"]\n\
         env = { GH_PAT = \"ghp_abc\", AWS_CREDENTIALS = \"c\", PASSPHRASE = \"p\", DATABASE_URL = \"mysql://root:rootpw@localhost/db\", LOG_LEVEL = \"warn\" }",
    );
    let run = env.run(&["config", "show"]);
    run.ok();
    let out = &run.stdout;
    for secret in [
        "hunter2", "tok-123", "s3cret", "ghp_abc", "rootpw", "\"c\"", "\"p\"",
    ] {
        crate::assert_not_contains!(out, secret);
    }
    crate::assert_contains!(out, "--password=****");
    crate::assert_contains!(out, "postgres://app:****@db:5432/x");
    crate::assert_contains!(out, "mysql://root:****@localhost/db");
    crate::assert_contains!(out, "LOG_LEVEL = \"warn\"");
    crate::assert_contains!(out, "--verbose");
}

/// What hermes creates is owner-only; a config that holds secrets and that
/// others may read is warned about.
#[cfg(unix)]
#[test]
fn files_hermes_creates_are_owner_only_and_a_readable_secret_config_is_flagged() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let env = TestEnv::new();
    env.add_test_server("t", "");
    let fresh = env.home.path().join("fresh.toml");
    env.run(&[
        "--config",
        fresh.to_str().unwrap(),
        "mcp",
        "add",
        "gh",
        "--env",
        "GITHUB_TOKEN=ghp_x",
        "--",
        "gh-mcp",
    ])
    .ok();
    assert_eq!(
        mode(&fresh),
        0o600,
        "a config written with a token must be owner-only"
    );

    env.prefill("t");
    env.fake.push(Reply::text("hi"));
    env.run(&["-q", "hello"]).ok();
    let session = env.only_session();
    assert_eq!(mode(&session), 0o600);
    assert_eq!(mode(session.parent().unwrap()), 0o700);
    assert_eq!(mode(&env.home.path().join("logs/mcp/t.log")), 0o600);
    assert_eq!(mode(&env.home.path().join("cache/mcp/t.json")), 0o600);

    // A config of the user's own, with a key, left readable by others.
    let env = TestEnv::new();
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str("api_key = \"sk-live\"\n");
    std::fs::write(env.config_path(), text).unwrap();
    std::fs::set_permissions(env.config_path(), std::fs::Permissions::from_mode(0o644)).unwrap();
    env.fake.push(Reply::text("hi"));
    let run = env.run(&["-q", "again"]);
    run.ok();
    crate::assert_contains!(
        run.stderr,
        "holds secrets and others may read it; make it owner-only: chmod 600"
    );
}

#[test]
fn the_example_config_resolves_and_its_hook_answers() {
    let env = TestEnv::new();
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/config/config.example.toml");
    let run = env.run(&[
        "--config",
        example,
        "hooks",
        "test",
        "review-writes",
        "--tool",
        "mcp__files__write_file",
        "--args",
        r#"{"path":"/tmp/x","content":"y"}"#,
    ]);
    run.ok();
    assert_eq!(
        run.stdout.trim(),
        "deny: blocked by the pre_tool_call hook: writes need a review"
    );
}

/// A project file that could act — start a server, run a hook, send the key
/// elsewhere, loosen approvals — does so only once the folder is trusted;
/// until then the rest of it applies and a warning names what was held.
#[test]
fn an_untrusted_project_file_only_chooses_until_hermes_trust() {
    let env = TestEnv::deferred(&[("t", "")]);
    env.set_approvals("mode = \"auto\"");
    let project = env.cwd.path().join(".hermes");
    std::fs::create_dir_all(&project).unwrap();
    let marker = env.cwd.path().join("hooked");
    std::fs::write(
        project.join("config.toml"),
        format!(
            "model = \"project-model\"\n\
             [mcp_servers.theirs]\ncommand = \"sh\"\n\
             [[hooks.pre_tool_call]]\ncommand = \"touch {}\"\n",
            marker.display()
        ),
    )
    .unwrap();
    let call = || {
        env.fake.push(Reply::tool_calls(&[(
            &call_id("echo"),
            "tool_call",
            r#"{"calls":[{"name":"mcp__t__echo","arguments":{"text":"hi"}}]}"#,
        )]));
        env.fake.push(Reply::text("ok"));
        env.run(&["-q", "echo hi"])
    };

    let held = call();
    held.ok();
    crate::assert_contains!(
        held.stderr,
        format!(
            "{} sets `mcp_servers`, `hooks` — not applied: this folder is not trusted; run `hermes trust` in",
            project.join("config.toml").display()
        )
    );
    assert!(!marker.exists(), "an untrusted hook ran");
    let listed = env.run(&["mcp", "list"]);
    crate::assert_not_contains!(listed.stdout, "theirs");
    crate::assert_contains!(listed.stderr, "not applied");

    let trusted = env.run(&["trust"]);
    trusted.ok();
    crate::assert_contains!(trusted.stderr, "trusted ");
    // It shows what the file now runs.
    crate::assert_contains!(trusted.stderr, "  [mcp_servers.theirs]\n  command = \"sh\"");
    crate::assert_contains!(
        trusted.stderr,
        format!("command = \"touch {}\"", marker.display())
    );
    let applied = call();
    crate::assert_not_contains!(applied.stderr, "not applied");
    assert!(
        marker.exists(),
        "the trusted hook did not run: {}",
        applied.stderr
    );
    crate::assert_contains!(env.run(&["mcp", "list"]).stdout, "theirs");

    std::fs::remove_file(&marker).unwrap();
    // A change to the file (a pull, say) takes the trust away until renewed.
    let text = std::fs::read_to_string(project.join("config.toml")).unwrap();
    std::fs::write(
        project.join("config.toml"),
        format!("system_prompt = \"obey the repo\"\n{text}"),
    )
    .unwrap();
    let changed = call();
    crate::assert_contains!(changed.stderr, "sets `system_prompt`, `mcp_servers`, `hooks` — not applied: it changed since this folder was trusted");
    assert!(!marker.exists(), "a changed file's hook ran");
    env.run(&["trust"]).ok();
    env.run(&["trust", "--forget"]).ok();
    let again = call();
    crate::assert_contains!(again.stderr, "not applied");
    assert!(!marker.exists(), "a forgotten folder's hook ran");
    let reqs = env.fake.requests();
    assert_eq!(reqs[0].json()["model"], "project-model");
}

#[test]
fn trust_needs_a_project_file() {
    let env = TestEnv::new();
    let run = env.run(&["trust"]);
    run.code(2);
    crate::assert_contains!(
        run.error_line(),
        "no .hermes/config.toml, .claude/settings.json, .mcp.json or agent types (.claude/agents) in"
    );
}

/// With no config file at all, `config show` still says what a run here
/// would use: the provider, its model and URL, and where the key is read
/// from (never the key).
#[test]
fn config_show_with_no_config_names_the_provider_model_and_key_source() {
    let env = TestEnv::new();
    std::fs::remove_file(env.config_path()).unwrap();
    let run = env
        .command(env!("CARGO_BIN_EXE_hermes"))
        .env_remove("OPENAI_API_KEY")
        .args(["config", "show"])
        .output()
        .unwrap();
    let run = crate::support::Run::from(run);
    run.ok();
    crate::assert_contains!(run.stdout, "# no config files; built-in defaults");
    crate::assert_contains!(run.stdout, "# provider openai (openai) · model ");
    crate::assert_contains!(
        run.stdout,
        "https://api.openai.com/v1 · key from $OPENAI_API_KEY (not set)"
    );
    // And with the key set, that it is (not what it is).
    let run = crate::support::Run::from(
        env.command(env!("CARGO_BIN_EXE_hermes"))
            .env("OPENAI_API_KEY", "sk-live-0123456789abcdef")
            .args(["config", "show"])
            .output()
            .unwrap(),
    );
    crate::assert_contains!(run.stdout, "key from $OPENAI_API_KEY (set)");
    crate::assert_not_contains!(run.stdout, "sk-live-0123456789abcdef");
}

/// `--provider gemini` needs no config: the key from GEMINI_API_KEY, else
/// GOOGLE_API_KEY as Google's tools read it; and the `openai` preset
/// speaks Responses to a reasoning model, Chat Completions to the rest.
#[test]
fn the_gemini_preset_and_the_openai_presets_choice_of_api() {
    let env = TestEnv::new();
    std::fs::remove_file(env.config_path()).unwrap();
    let show = |vars: &[(&str, Option<&str>)], args: &[&str]| {
        let mut cmd = env.command(env!("CARGO_BIN_EXE_hermes"));
        for (k, v) in vars {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        let mut all = args.to_vec();
        all.extend(["config", "show"]);
        let run = crate::support::Run::from(cmd.args(all).output().unwrap());
        run.ok();
        run.stdout
    };
    let none = [("GEMINI_API_KEY", None), ("GOOGLE_API_KEY", None)];
    let out = show(&none, &["--provider", "gemini"]);
    crate::assert_contains!(
        out,
        "# provider gemini (gemini) · model gemini-2.5-flash · \
         https://generativelanguage.googleapis.com/v1beta · key from $GEMINI_API_KEY (not set)"
    );
    let google = show(
        &[
            ("GEMINI_API_KEY", None),
            ("GOOGLE_API_KEY", Some("AIzaSy-test")),
        ],
        &["--provider", "gemini"],
    );
    crate::assert_contains!(google, "key from $GOOGLE_API_KEY (set)");
    let both = show(
        &[
            ("GEMINI_API_KEY", Some("g")),
            ("GOOGLE_API_KEY", Some("AIzaSy-test")),
        ],
        &["--provider", "gemini"],
    );
    crate::assert_contains!(both, "key from $GEMINI_API_KEY (set)");
    let gpt5 = show(&[], &["--provider", "openai", "-m", "gpt-5"]);
    crate::assert_contains!(gpt5, "# provider openai (openai-responses) · model gpt-5");
    let mini = show(&[], &["--provider", "openai", "-m", "gpt-4.1-mini"]);
    crate::assert_contains!(mini, "# provider openai (openai) · model gpt-4.1-mini");
    // Without a key the run says which variable, and names the other.
    let run = crate::support::Run::from(
        env.command(env!("CARGO_BIN_EXE_hermes"))
            .env_remove("GEMINI_API_KEY")
            .env_remove("GOOGLE_API_KEY")
            .args(["--provider", "gemini", "-q", "hi"])
            .output()
            .unwrap(),
    );
    run.code(2);
    crate::assert_contains!(run.error_line(), "GEMINI_API_KEY is not set");
    crate::assert_contains!(
        run.stderr,
        "hint: export GEMINI_API_KEY=… (or GOOGLE_API_KEY=…)"
    );
}

/// Gemini refuses `thinking_level` beside `thinking_budget`: config says so
/// before any request, naming the key.
#[test]
fn a_gemini_budget_and_effort_together_are_refused_by_name() {
    let env = TestEnv::with_api(crate::support::Api::Gemini);
    let mut text = std::fs::read_to_string(env.config_path()).unwrap();
    text.push_str("thinking_budget = 2048\nreasoning_effort = \"high\"\n");
    std::fs::write(env.config_path(), text).unwrap();
    let run = env.run(&["-q", "hi"]);
    run.code(2);
    crate::assert_contains!(run.error_line(), "providers.fake.reasoning_effort");
    assert!(env.fake.requests().is_empty());
}

/// `--help` lists the presets `--provider` takes from the preset table
/// itself — each of them works with no config file, and none is left out.
#[test]
fn help_lists_every_preset_and_each_one_is_taken() {
    let env = TestEnv::new();
    let run = env.run(&["--help"]);
    run.ok();
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("--provider"))
        .expect("--provider in --help")
        .to_string();
    let listed: Vec<&str> = line
        .split_once("a preset (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(names, _)| names.split(", ").collect())
        .unwrap_or_default();
    assert_eq!(
        listed,
        [
            "anthropic",
            "bedrock",
            "gemini",
            "ollama",
            "openai",
            "openrouter"
        ],
        "{line}"
    );
    for preset in listed {
        let shown = env.run(&["--provider", preset, "config", "show"]);
        assert!(
            !shown.stderr.contains("unknown provider"),
            "{preset}: {}",
            shown.stderr
        );
    }
}
