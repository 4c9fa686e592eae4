//! Shared test harness, a crate of its own that the end-to-end tests and
//! the benchmarks depend on: a clean `HERMES_HOME` per test, the strict
//! fake providers, test servers and proxies, and helpers to run the real
//! `hermes` binary and read what it wrote.

pub mod acp;
pub mod actions;
pub mod calls;
pub mod everything;
pub mod fake_anthropic;
pub mod fake_bedrock;
pub mod fake_gateway;
pub mod fake_gemini;
pub mod fake_provider;
pub mod fake_responses;
pub mod fault_proxy;
pub mod http_stub;
pub mod model_servers;
pub mod recall;
pub mod schema_rules;
pub mod tls_proxy;
pub mod tmux;
pub mod users;
pub mod wire;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub use fake_provider::{call_id, wire_id, Api, Block, FakeProvider, Reply, Stop, Turn, TurnUsage};

pub const KEY_ENV: &str = "HERMES_TEST_KEY";

/// The `[approvals]` table every test home starts with.
const TEST_APPROVALS: &str = "[approvals]\nmode = \"auto\"\n\n";

pub struct TestEnv {
    pub home: tempfile::TempDir,
    pub cwd: tempfile::TempDir,
    pub fake: FakeProvider,
    /// The protocol hermes is configured to speak to the fake.
    pub api: Api,
    /// Whom hermes (and everything the test starts through
    /// [`TestEnv::command`]) runs as: `None`, the test's own user.
    pub user: Option<users::User>,
}

impl Default for TestEnv {
    fn default() -> TestEnv {
        TestEnv::new()
    }
}

impl TestEnv {
    /// A home whose config points at a fresh fake provider over Chat
    /// Completions, with no retries (tests that exercise retries set their
    /// own).
    pub fn new() -> TestEnv {
        TestEnv::with_api(Api::OpenAi)
    }

    /// As [`TestEnv::new`], with hermes speaking `api` to the fake.
    pub fn with_api(api: Api) -> TestEnv {
        let fake = FakeProvider::start();
        let env = TestEnv {
            home: tempfile::tempdir().unwrap(),
            cwd: tempfile::tempdir().unwrap(),
            fake,
            api,
            user: None,
        };
        env.write_config("");
        env
    }

    /// Writes config.toml: the fake provider section for this env's API plus
    /// `extra` at the top level.
    pub fn write_config(&self, extra: &str) {
        let provider = self.provider_keys(self.api);
        // Tests that call tools run them without asking, as they did before
        // `ask` became the default — unless the test sets [approvals] itself.
        let approvals = if extra.contains("[approvals]") {
            ""
        } else {
            TEST_APPROVALS
        };
        // Tests offer no built-in tools unless they ask for some: the
        // requests they pin were written before hermes had its own.
        let extra = if extra.contains("builtin =") {
            extra.to_string()
        } else if extra.contains("[tools]\n") {
            extra.replacen("[tools]\n", "[tools]\nbuiltin = []\n", 1)
        } else {
            format!("{extra}\n[tools]\nbuiltin = []\n")
        };
        let text = format!(
            "provider = \"fake\"\nmodel = \"{}\"\n{extra}\n{approvals}[providers.fake]\n\
             {provider}max_retries = 0\nretry_base_ms = 10\n",
            self.model()
        );
        std::fs::write(self.config_path(), text).unwrap();
    }

    /// The keys of a `[providers.NAME]` table that reaches this env's fake
    /// as `api` speaks it (every API is served by the one fake).
    pub fn provider_keys(&self, api: Api) -> String {
        match api {
            Api::OpenAi => format!(
                "base_url = \"{}\"\napi_key_env = \"{KEY_ENV}\"\n",
                self.fake.base_url()
            ),
            Api::Anthropic => format!(
                "kind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"{KEY_ENV}\"\n",
                self.fake.root_url()
            ),
            Api::Bedrock => format!(
                "kind = \"bedrock\"\nbase_url = \"{}\"\nregion = \"{}\"\n",
                self.fake.root_url(),
                fake_bedrock::REGION
            ),
            Api::Gemini => format!(
                "kind = \"gemini\"\nbase_url = \"{}/v1beta\"\napi_key_env = \"{KEY_ENV}\"\n",
                self.fake.root_url()
            ),
            Api::Responses => format!(
                "kind = \"openai-responses\"\nbase_url = \"{}\"\napi_key_env = \"{KEY_ENV}\"\n",
                self.fake.base_url()
            ),
        }
    }

    /// The model the test home's config names: `test-model`, and over
    /// Responses a reasoning model's name (hermes asks only those for
    /// their encrypted reasoning).
    pub fn model(&self) -> &'static str {
        match self.api {
            Api::Responses => "gpt-5-test",
            _ => "test-model",
        }
    }

    /// The id the fake's provider sends for the scripted `call_id`.
    pub fn wire_id(&self, call_id: &str) -> String {
        wire_id(self.api, call_id)
    }

    /// Replaces the tests' default `[approvals]` table with `body` (lines
    /// of that table; empty: hermes' own defaults).
    pub fn set_approvals(&self, body: &str) {
        let text = std::fs::read_to_string(self.config_path()).unwrap();
        assert!(
            text.contains(TEST_APPROVALS),
            "no default [approvals] to replace"
        );
        let table = if body.is_empty() {
            String::new()
        } else {
            format!("[approvals]\n{body}\n\n")
        };
        std::fs::write(self.config_path(), text.replace(TEST_APPROVALS, &table)).unwrap();
    }

    pub fn config_path(&self) -> PathBuf {
        self.home.path().join("config.toml")
    }

    /// This test's temp folder (`TMPDIR` of everything it runs).
    pub fn tmp(&self) -> PathBuf {
        let dir = self.home.path().join("tmp");
        let _ = std::fs::create_dir_all(&dir);
        dir
    }

    pub fn cmd(&self) -> Command {
        self.command(&bin("hermes"))
    }

    /// The same test home, with hermes run as `user` (a normal user when
    /// the suite runs as root): the home and working folders become theirs.
    pub fn run_as(mut self, user: users::User) -> TestEnv {
        self.user = Some(user).filter(|u| !u.is_current());
        self
    }

    /// `program` with this test's clean environment and working directory,
    /// as the env's user.
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        if let Some(u) = &self.user {
            u.own(self.home.path());
            u.own(self.cwd.path());
            std::os::unix::process::CommandExt::uid(&mut c, u.uid);
            std::os::unix::process::CommandExt::gid(&mut c, u.gid);
        }
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("HERMES_HOME", self.home.path())
            // A temp folder of the test's own: the shell sandbox lets
            // commands write to the temp folder, and a checkout that
            // happens to live under /tmp must still be "outside".
            .env("TMPDIR", self.tmp())
            .env(KEY_ENV, "test-key")
            .env("AWS_ACCESS_KEY_ID", fake_bedrock::ACCESS_KEY)
            .env("AWS_SECRET_ACCESS_KEY", fake_bedrock::SECRET_KEY)
            .current_dir(self.cwd.path())
            .stdin(Stdio::null());
        c
    }

    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.cmd().args(args).output().unwrap())
    }

    /// Starts hermes with `args`, stdout and stderr captured, without waiting.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.cmd()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// [`TestEnv::spawn`], with a pipe to its stdin (for a script's answers).
    pub fn spawn_with_stdin(&self, args: &[&str]) -> std::process::Child {
        self.cmd()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs hermes with `args` and these exact bytes (text or not) on stdin.
    pub fn run_with_stdin(&self, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
        let mut child = self
            .cmd()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_ref())
            .unwrap();
        Run::from(child.wait_with_output().unwrap())
    }

    /// The newest user message of model request `n` (0-based), as sent.
    pub fn last_user_text(&self, n: usize) -> String {
        let body = self.fake.requests()[n].json();
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap()
            .to_string()
    }

    pub fn sessions(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        collect(&self.home.path().join("sessions"), &mut out);
        out.sort();
        out
    }

    pub fn only_session(&self) -> PathBuf {
        let s = self.sessions();
        assert_eq!(s.len(), 1, "expected one session file, found {s:?}");
        s.into_iter().next().unwrap()
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// Session file records, parsed.
pub fn records(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Run {
    #[track_caller]
    pub fn ok(&self) -> &Run {
        assert_eq!(
            self.code, 0,
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }

    /// The `error:` line; asserts there is exactly one.
    #[track_caller]
    pub fn error_line(&self) -> String {
        let errs: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .collect();
        assert_eq!(
            errs.len(),
            1,
            "expected one error line in:\n{}",
            self.stderr
        );
        errs[0].to_string()
    }

    /// The `--json` events, each checked against docs/events.schema.json.
    #[track_caller]
    pub fn events(&self) -> Vec<serde_json::Value> {
        let events: Vec<serde_json::Value> = self
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad event {l:?}: {e}")))
            .collect();
        for e in &events {
            if let Err(why) = event_fits_schema(e) {
                panic!("an event does not fit docs/events.schema.json: {why}\n{e}");
            }
        }
        events
    }
}

/// Whether `event` is valid against docs/events.schema.json (`Err`: each
/// failure with where it is).
pub fn event_fits_schema(event: &serde_json::Value) -> Result<(), String> {
    static SCHEMA: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    let v = SCHEMA.get_or_init(|| {
        let text = std::fs::read_to_string(repo_root().join("docs/events.schema.json")).unwrap();
        let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
        jsonschema::validator_for(&schema).unwrap()
    });
    let errors: Vec<String> = v
        .iter_errors(event)
        .map(|e| {
            format!(
                "{} at {} (schema {})",
                e,
                e.instance_path(),
                e.schema_path()
            )
        })
        .collect();
    match errors.is_empty() {
        true => Ok(()),
        false => Err(errors.join("; ")),
    }
}

/// Our own MCP test server (built with the tests).
/// `git init` in `dir`, as a person starting a repository would.
pub fn git_init(dir: &Path) {
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git init in {}", dir.display());
}

/// The repository's root: fixtures, scripts and `.test-servers/` are
/// found from it.
pub fn repo_root() -> &'static Path {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = here.parent().and_then(Path::parent).unwrap_or(here);
        std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
    })
}

/// A binary of hermes' package, as cargo builds it beside the test or
/// benchmark running (`target/<profile>/deps/NAME-HASH` runs, the
/// binaries are in `target/<profile>/`): cargo's `CARGO_BIN_EXE_*` is
/// given only to the package's own tests, not to a crate they use.
pub fn bin(name: &str) -> String {
    let exe = std::env::current_exe().expect("the running test's own path");
    let dir = exe
        .parent()
        .filter(|d| d.ends_with("deps"))
        .and_then(Path::parent)
        .unwrap_or_else(|| exe.parent().expect("a folder"));
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is not built; cargo builds it for hermes' own tests and benches",
        path.display()
    );
    path.display().to_string()
}

/// Where the test servers are installed (`scripts/install-test-servers`).
pub fn test_servers() -> PathBuf {
    std::env::var("HERMES_TEST_SERVERS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join(".test-servers"))
}

pub fn test_server() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| bin("hermes-test-mcp-server"))
}

/// A third-party MCP server installed by `scripts/install-test-servers`.
/// Missing servers fail the test: CI must run these, not skip them.
pub fn real_server(bin: &str) -> String {
    let root = test_servers();
    for sub in ["npm/node_modules/.bin", "py/bin"] {
        let p = root.join(sub).join(bin);
        if p.exists() {
            return p.display().to_string();
        }
    }
    panic!(
        "MCP server `{bin}` is not installed under {}: run ./scripts/install-test-servers (./scripts/test does)",
        root.display()
    );
}

impl TestEnv {
    /// Appends `[mcp_servers.NAME]` with `body` to config.toml.
    pub fn add_server(&self, name: &str, body: &str) {
        let mut text = std::fs::read_to_string(self.config_path()).unwrap();
        text.push_str(&format!("\n[mcp_servers.{name}]\n{body}\n"));
        std::fs::write(self.config_path(), text).unwrap();
    }

    /// A home with tools deferred (`defer = "always"`) and our test server
    /// configured under each name with its extra config lines, catalogs filled.
    pub fn deferred(servers: &[(&str, &str)]) -> TestEnv {
        let env = TestEnv::new();
        env.write_config("[tools]\ndefer = \"always\"\n");
        for (name, extra) in servers {
            env.add_test_server(name, extra);
            env.prefill(name);
        }
        env
    }

    /// The file of the session with this id.
    #[track_caller]
    pub fn session_path(&self, id: &str) -> PathBuf {
        let name = format!("{id}.jsonl");
        self.sessions()
            .into_iter()
            .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy() == name))
            .unwrap_or_else(|| panic!("no session file for {id}"))
    }

    /// Adds our test server under `name` with extra config lines.
    pub fn add_test_server(&self, name: &str, extra: &str) {
        self.add_server(name, &format!("command = {:?}\n{extra}", test_server()));
    }

    /// The four third-party servers — everything, files (serving `docs`),
    /// time, git — configured and their catalogs filled.
    pub fn add_real_servers(&self, docs: &Path) {
        self.add_server(
            "everything",
            &format!("command = {:?}", real_server("mcp-server-everything")),
        );
        self.add_server(
            "files",
            &format!(
                "command = {:?}\nargs = [{:?}]",
                real_server("mcp-server-filesystem"),
                docs.display().to_string()
            ),
        );
        self.add_server(
            "time",
            &format!("command = {:?}", real_server("mcp-server-time")),
        );
        self.add_server(
            "git",
            &format!("command = {:?}", real_server("mcp-server-git")),
        );
        for s in ["everything", "files", "time", "git"] {
            self.prefill(s);
        }
    }

    /// Runs one `--json` turn and returns its session id.
    pub fn run_for_session_id(&self, args: &[&str]) -> String {
        let run = self.run(args);
        run.ok();
        run.events()[0]["id"].as_str().unwrap().to_string()
    }

    /// Fills a server's catalog cache (`hermes mcp test NAME`).
    pub fn prefill(&self, name: &str) {
        self.run(&["mcp", "test", name]).ok();
    }

    pub fn server_log(&self, name: &str) -> String {
        std::fs::read_to_string(
            self.home
                .path()
                .join("logs/mcp")
                .join(format!("{name}.log")),
        )
        .unwrap_or_default()
    }

    /// The `tool` messages of the model request number `n` (0-based), a Chat
    /// Completions request.
    pub fn tool_results(&self, n: usize) -> Vec<serde_json::Value> {
        self.fake.requests()[n].json()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .cloned()
            .collect()
    }

    /// Every tool result in model request number `n` (0-based), in order, in
    /// any of the three protocols (told by the request's path): the id it
    /// answers, its text (parts joined by newlines; JSON parts as JSON) and
    /// whether it is marked an error (never, over Chat Completions).
    pub fn results_of(&self, n: usize) -> Vec<(String, String, bool)> {
        let requests = self.fake.requests();
        let req = &requests[n];
        let body = req.json();
        let empty = Vec::new();
        let messages = match body["messages"].as_array() {
            Some(m) => m,
            None => body["contents"]
                .as_array()
                .or(body["input"].as_array())
                .unwrap_or(&empty),
        };
        let blocks = |m: &serde_json::Value| -> Vec<serde_json::Value> {
            m["content"].as_array().cloned().unwrap_or_default()
        };
        let mut out = Vec::new();
        match fake_provider::api_of(&req.path).unwrap_or(Api::OpenAi) {
            Api::OpenAi => {
                for m in messages.iter().filter(|m| m["role"] == "tool") {
                    let id = m["tool_call_id"].as_str().unwrap_or("").to_string();
                    out.push((id, content_text(&m["content"]), false));
                }
            }
            Api::Anthropic => {
                for b in messages.iter().flat_map(blocks) {
                    if b["type"] == "tool_result" {
                        let id = b["tool_use_id"].as_str().unwrap_or("").to_string();
                        let error = b["is_error"].as_bool().unwrap_or(false);
                        out.push((id, content_text(&b["content"]), error));
                    }
                }
            }
            Api::Bedrock => {
                for b in messages.iter().flat_map(blocks) {
                    let r = &b["toolResult"];
                    if r.is_object() {
                        let id = r["toolUseId"].as_str().unwrap_or("").to_string();
                        let error = r["status"] == "error";
                        out.push((id, content_text(&r["content"]), error));
                    }
                }
            }
            Api::Gemini => {
                let parts =
                    |c: &serde_json::Value| c["parts"].as_array().cloned().unwrap_or_default();
                for p in messages.iter().flat_map(parts) {
                    let r = &p["functionResponse"];
                    if r.is_object() {
                        let id = r["id"].as_str().unwrap_or("").to_string();
                        let (text, error) = match r["response"].get("error") {
                            Some(e) => (e.clone(), true),
                            None => (r["response"]["output"].clone(), false),
                        };
                        out.push((id, content_text(&text), error));
                    }
                }
            }
            Api::Responses => {
                for i in messages
                    .iter()
                    .filter(|i| i["type"] == "function_call_output")
                {
                    let id = i["call_id"].as_str().unwrap_or("").to_string();
                    out.push((id, content_text(&i["output"]), false));
                }
            }
        }
        out
    }

    /// The body of model request number `n` (0-based), as text.
    pub fn request_text(&self, n: usize) -> String {
        String::from_utf8_lossy(&self.fake.requests()[n].body).into_owned()
    }
}

/// The text of a tool result's content in any protocol: a string as it is;
/// an array's parts (`text` members; other parts, e.g. Bedrock's `json`, as
/// JSON) joined by newlines.
fn content_text(content: &serde_json::Value) -> String {
    match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .map(|p| match p["text"].as_str() {
                Some(t) => t.to_string(),
                None if p.get("json").is_some() => p["json"].to_string(),
                None => p.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The names of the tools a Chat Completions request offers, in order.
pub fn tool_names(req: &serde_json::Value) -> Vec<String> {
    req["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Polls `cond` every 20 ms; fails the test after 20 s, naming `what`.
/// Live processes (not zombies) one of whose arguments is `arg`: how a
/// test finds what a sandboxed command started, whose own pids belong to
/// another PID namespace.
pub fn processes_with_arg(arg: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let live = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                s.rsplit_once(") ")
                    .is_some_and(|(_, r)| !r.starts_with('Z'))
            });
            live && std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == arg.as_bytes()))
        })
        .collect()
}

/// The kernel's refusal of a write, as a sandboxed command reports it:
/// a read-only view of the system (namespaces) or Landlock's EACCES.
#[track_caller]
pub fn assert_write_refused(output: &str) {
    assert!(
        output.contains("Read-only file system") || output.contains("Permission denied"),
        "expected the kernel to refuse the write, got:\n{output}"
    );
}

pub fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Asserts `id` is a tool-call id every provider hermes supports takes, shaped
/// like the ones hermes makes from realistic ids: `call_`, at most 40
/// characters, only `[A-Za-z0-9_-]`.
#[track_caller]
pub fn assert_legal_id(id: &str) {
    assert!(
        id.starts_with("call_"),
        "id {id:?} does not start with `call_`"
    );
    assert!(
        id.chars().count() <= 40,
        "id {id:?} is longer than 40 characters"
    );
    assert!(
        id.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
        "id {id:?} has characters outside [A-Za-z0-9_-]"
    );
}

/// Ctrl-C for a running hermes: SIGINT to its process.
#[cfg(unix)]
pub fn interrupt(child: &std::process::Child) {
    // SAFETY: kill(2) with a pid we spawned and a valid signal number.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
}

/// Stops a one-shot run as Ctrl-C does and waits for it: it must exit
/// 130 (its stderr shown when not).
pub fn stopped(child: std::process::Child) -> std::process::Output {
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The ids of the tool calls the `message` records among `records` made,
/// in order.
pub fn tool_call_ids<'a>(records: impl IntoIterator<Item = &'a serde_json::Value>) -> Vec<String> {
    records
        .into_iter()
        .filter(|r| r["type"] == "message")
        .flat_map(|r| {
            r["message"]["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|c| c["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Asserts that `haystack` contains `needle`, and shows both when it does not.
#[macro_export]
macro_rules! assert_contains {
    ($haystack:expr, $needle:expr $(,)?) => {{
        let (haystack, needle) = (&$haystack, &$needle);
        let haystack: &str = ::std::convert::AsRef::<str>::as_ref(haystack);
        let needle: &str = ::std::convert::AsRef::<str>::as_ref(needle);
        assert!(
            haystack.contains(needle),
            "expected to find {needle:?} in:\n{haystack}"
        );
    }};
}

/// Asserts that `haystack` does not contain `needle`, and shows it when it does.
#[macro_export]
macro_rules! assert_not_contains {
    ($haystack:expr, $needle:expr $(,)?) => {{
        let (haystack, needle) = (&$haystack, &$needle);
        let haystack: &str = ::std::convert::AsRef::<str>::as_ref(haystack);
        let needle: &str = ::std::convert::AsRef::<str>::as_ref(needle);
        assert!(
            !haystack.contains(needle),
            "expected no {needle:?} in:\n{haystack}"
        );
    }};
}
