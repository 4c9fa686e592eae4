//! A composite GitHub Action's steps run as the runner runs them, for the
//! test of `action.yml`: inputs with their defaults, `${{ … }}` expressions
//! (the `inputs`, `github`, `runner` and `steps.ID.outputs` contexts), each
//! `run:` step as `bash --noprofile --norc -eo pipefail FILE` with its `env`
//! and `working-directory`, a fresh `GITHUB_OUTPUT` file per step read back
//! into that step's outputs (`key=value` and `key<<DELIMITER` blocks), and
//! `GITHUB_PATH` lines put before `PATH` for the steps after. `uses:` steps
//! are not run (they are other actions); their `with:` is recorded,
//! expressions resolved. `if:` takes what the action uses: `always()`,
//! `==`, `!=` and `&&`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

/// One step as the runner saw it.
#[derive(Debug, Clone)]
pub struct StepRun {
    pub name: String,
    /// Whether its `if:` let it run.
    pub ran: bool,
    /// `uses:`, for a step that is another action.
    pub uses: Option<String>,
    /// Its `with:`, expressions resolved.
    pub with: BTreeMap<String, String>,
    pub outputs: BTreeMap<String, String>,
    pub code: i32,
    pub log: String,
}

/// What the action did: each step, and the action's own outputs.
#[derive(Debug)]
pub struct ActionRun {
    pub steps: Vec<StepRun>,
    pub outputs: BTreeMap<String, String>,
    /// Whether a step failed (the job would be red).
    pub failed: bool,
}

/// The runner's side: where the action's files are, and the environment
/// every step starts from (a test's clean one).
pub struct Runner {
    pub action_path: PathBuf,
    pub workspace: PathBuf,
    pub temp: PathBuf,
    pub tool_cache: PathBuf,
    pub action_ref: String,
    pub env: Vec<(String, String)>,
    pub path: String,
}

impl Runner {
    /// Runs `action.yml` of the action path with `inputs`.
    pub fn run(&self, inputs: &[(&str, &str)]) -> ActionRun {
        let text = std::fs::read_to_string(self.action_path.join("action.yml")).unwrap();
        let doc = YamlLoader::load_from_str(&text).unwrap().remove(0);
        assert_eq!(doc["runs"]["using"].as_str(), Some("composite"));
        let mut ctx = Context {
            inputs: BTreeMap::new(),
            steps: BTreeMap::new(),
            github: BTreeMap::from([
                ("action_path".into(), self.action_path.display().to_string()),
                ("action_ref".into(), self.action_ref.clone()),
                ("workspace".into(), self.workspace.display().to_string()),
            ]),
            runner: BTreeMap::from([
                ("temp".into(), self.temp.display().to_string()),
                ("tool_cache".into(), self.tool_cache.display().to_string()),
            ]),
        };
        for (name, spec) in doc["inputs"].as_hash().unwrap() {
            let name = name.as_str().unwrap().to_string();
            let given = inputs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string());
            let value = match given {
                Some(v) => v,
                None if spec["required"].as_bool() == Some(true) => {
                    panic!("the action requires input {name}")
                }
                None => spec["default"].as_str().unwrap_or("").to_string(),
            };
            ctx.inputs.insert(name, value);
        }
        for (name, _) in inputs {
            assert!(
                ctx.inputs.contains_key(*name),
                "the action has no input {name}"
            );
        }
        let mut path = self.path.clone();
        let mut steps = Vec::new();
        let mut failed = false;
        for (k, step) in doc["runs"]["steps"].as_vec().unwrap().iter().enumerate() {
            let name = step["name"].as_str().unwrap_or("step").to_string();
            let condition = step["if"].as_str().unwrap_or("success()");
            let ran = ctx.condition(condition, failed);
            let mut done = StepRun {
                name,
                ran,
                uses: step["uses"].as_str().map(str::to_string),
                with: BTreeMap::new(),
                outputs: BTreeMap::new(),
                code: 0,
                log: String::new(),
            };
            if let Some(with) = step["with"].as_hash() {
                for (key, v) in with {
                    let v = yaml_text(v);
                    done.with
                        .insert(key.as_str().unwrap().into(), ctx.expand(&v));
                }
            }
            if ran {
                if let Some(script) = step["run"].as_str() {
                    assert_eq!(
                        step["shell"].as_str(),
                        Some("bash"),
                        "a composite run step names its shell"
                    );
                    let files = self.temp.join(format!("step-{k}"));
                    std::fs::create_dir_all(&files).unwrap();
                    let (output, github_path) = (files.join("output"), files.join("path"));
                    std::fs::write(&output, "").unwrap();
                    std::fs::write(&github_path, "").unwrap();
                    let body = files.join("script.sh");
                    std::fs::write(&body, ctx.expand(script)).unwrap();
                    let dir = match step["working-directory"].as_str() {
                        Some(d) => self.workspace.join(ctx.expand(d)),
                        None => self.workspace.clone(),
                    };
                    let mut c = Command::new("bash");
                    c.args(["--noprofile", "--norc", "-eo", "pipefail"])
                        .arg(&body)
                        .current_dir(dir)
                        .env_clear()
                        .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                        .env("PATH", &path)
                        .env("GITHUB_ACTIONS", "true")
                        .env("GITHUB_ACTION_PATH", &self.action_path)
                        .env("GITHUB_WORKSPACE", &self.workspace)
                        .env("GITHUB_OUTPUT", &output)
                        .env("GITHUB_PATH", &github_path)
                        .env("RUNNER_TEMP", &self.temp)
                        .env("RUNNER_TOOL_CACHE", &self.tool_cache)
                        .stdin(std::process::Stdio::null());
                    if let Some(env) = step["env"].as_hash() {
                        for (key, v) in env {
                            c.env(key.as_str().unwrap(), ctx.expand(&yaml_text(v)));
                        }
                    }
                    let out = c.output().unwrap();
                    done.code = out.status.code().unwrap_or(-1);
                    done.log = format!(
                        "{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    );
                    done.outputs = read_outputs(&output);
                    for dir in std::fs::read_to_string(&github_path).unwrap().lines() {
                        if !dir.is_empty() {
                            path = format!("{dir}:{path}");
                        }
                    }
                    failed |= done.code != 0;
                }
            }
            if let Some(id) = step["id"].as_str() {
                ctx.steps.insert(id.to_string(), done.outputs.clone());
            }
            steps.push(done);
        }
        let outputs = doc["outputs"]
            .as_hash()
            .map(|h| {
                h.iter()
                    .map(|(k, v)| {
                        (
                            k.as_str().unwrap().to_string(),
                            ctx.expand(v["value"].as_str().unwrap_or("")),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        ActionRun {
            steps,
            outputs,
            failed,
        }
    }
}

fn yaml_text(v: &Yaml) -> String {
    match v {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::Integer(n) => n.to_string(),
        Yaml::Boolean(b) => b.to_string(),
        _ => String::new(),
    }
}

/// `key=value` lines and `key<<DELIMITER` … `DELIMITER` blocks.
fn read_outputs(file: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((key, delimiter)) = line.split_once("<<") {
            let mut value = Vec::new();
            for l in lines.by_ref() {
                if l == delimiter {
                    break;
                }
                value.push(l);
            }
            out.insert(key.to_string(), value.join("\n"));
        } else if let Some((key, value)) = line.split_once('=') {
            out.insert(key.to_string(), value.to_string());
        }
    }
    out
}

struct Context {
    inputs: BTreeMap<String, String>,
    steps: BTreeMap<String, BTreeMap<String, String>>,
    github: BTreeMap<String, String>,
    runner: BTreeMap<String, String>,
}

impl Context {
    /// `text` with each `${{ expression }}` replaced by its value.
    fn expand(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("an expression ends") + start;
            out.push_str(&self.value(rest[start + 3..end].trim()));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// A context property (`inputs.x`, `steps.run.outputs.y`, …), a
    /// quoted literal, or `a || b`.
    fn value(&self, expr: &str) -> String {
        if let Some((a, b)) = expr.split_once("||") {
            let a = self.value(a.trim());
            return if a.is_empty() {
                self.value(b.trim())
            } else {
                a
            };
        }
        if let Some(s) = expr.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
            return s.to_string();
        }
        let parts: Vec<&str> = expr.split('.').collect();
        let get = |m: &BTreeMap<String, String>, k: &str| m.get(k).cloned().unwrap_or_default();
        match parts.as_slice() {
            ["inputs", name] => get(&self.inputs, name),
            ["github", name] => get(&self.github, name),
            ["runner", name] => get(&self.runner, name),
            ["steps", id, "outputs", name] => self
                .steps
                .get(*id)
                .map(|o| get(o, name))
                .unwrap_or_default(),
            _ => panic!("the test runner does not know the expression {expr:?}"),
        }
    }

    /// An `if:` — without `always()` a step runs only while none failed.
    fn condition(&self, text: &str, failed: bool) -> bool {
        let text = text
            .trim()
            .trim_start_matches("${{")
            .trim_end_matches("}}")
            .trim();
        let mut always = false;
        let mut holds = true;
        for term in text.split("&&").map(str::trim) {
            match term {
                "always()" => always = true,
                "success()" => {}
                "failure()" => holds &= failed,
                _ => {
                    let (a, b, equal) = match (term.split_once("!="), term.split_once("==")) {
                        (Some((a, b)), _) => (a, b, false),
                        (None, Some((a, b))) => (a, b, true),
                        _ => panic!("the test runner does not know the condition {term:?}"),
                    };
                    holds &= (self.value(a.trim()) == self.value(b.trim())) == equal;
                }
            }
        }
        holds && (always || !failed)
    }
}
