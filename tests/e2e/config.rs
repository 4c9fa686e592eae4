//! `hermes config …` and how layers combine.

use crate::support::{Reply, TestEnv};

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
        "config.toml:4: tools.split_batches: unknown key `split_batches`"
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
