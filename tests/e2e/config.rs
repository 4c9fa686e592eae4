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
    assert!(!out.contains("sk-very-secret"), "{out}");
    assert!(!out.contains("Bearer abc"), "{out}");
    assert!(out.contains("api_key = \"****\""), "{out}");
    assert!(out.contains("X-Title = \"hermes\""), "{out}");
    assert!(out.contains("model = \"project-model\""), "{out}");
    assert!(out.contains("max_turns = 7"), "{out}");
    assert!(
        out.contains(&format!("# from {}", project.join("config.toml").display())),
        "{out}"
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
    assert!(
        run.error_line().contains("OPENAI_API_KEY is not set"),
        "{}",
        run.stderr
    );
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
    assert!(
        err.contains("config.toml:4: tools.split_batches: unknown key `split_batches`"),
        "{err}"
    );
    assert!(
        run.stderr
            .contains("hint: remove that line: hermes always splits local tool_call batches"),
        "{}",
        run.stderr
    );
}
