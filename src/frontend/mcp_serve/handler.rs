//! The server `hermes mcp serve` is: what it tells a client it offers, and
//! each `tools/call` sent down the same path a session's calls take —
//! scope, schema, hooks, approval, the sandbox and the review — with the
//! question, when there is one, put to the client (`asking`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};

use crate::agent::Event;
use crate::mcp::McpRegistry;
use crate::model::ToolCall;
use crate::policy::{Answers, Policy};
use crate::tools::Registry;

/// What a client tells hermes it offers.
const INSTRUCTIONS: &str = "hermes: many MCP servers behind three tools — tool_search finds a \
tool by what it does, tool_describe gives its full schema, tool_call runs it (several in one \
call) — and file and shell tools on the folder hermes serves, in an OS sandbox. A call that \
needs a person's approval is asked through elicitation where the client takes forms; \
elsewhere it is refused with the reason unless hermes was started with --approve.";

/// hermes as an MCP server: the tools of the folder it serves, the
/// servers it reaches, and who answers its questions. A clone is the same
/// server (each HTTP session gets one).
#[derive(Clone)]
pub(crate) struct Served {
    pub tools: Registry,
    /// The policy of a client that takes forms: its questions go to it.
    pub asking: Arc<Policy>,
    /// The policy of one that does not: a question is a refusal.
    pub refusing: Arc<Policy>,
    pub answers: Answers,
    pub cwd: PathBuf,
    pub mcp: Arc<McpRegistry>,
    /// `agent`: a hermes task run for the client, when offered.
    pub task: Option<TaskRunner>,
    /// `--expose-all`: every server's tools listed too, by their `mcp__`
    /// names.
    pub expose_all: bool,
    calls: Arc<AtomicU64>,
}

/// What runs a hermes task for the client: the prompt, a session to go on
/// with (its id), the answers its questions get (a client that takes
/// forms), where its events go, and its stop; the answer and the
/// session's id, or why it failed.
pub(crate) type TaskRunner = Arc<
    dyn Fn(
            String,
            Option<String>,
            Option<Answers>,
            tokio::sync::mpsc::UnboundedSender<Event>,
            tokio_util::sync::CancellationToken,
        ) -> futures_util::future::BoxFuture<'static, Result<(String, String), String>>
        + Send
        + Sync,
>;

/// The `agent` tool's definition.
fn task_spec() -> crate::model::ToolSpec {
    crate::model::ToolSpec {
        name: "agent".into(),
        description: "Hand hermes a task: it works on it in the folder it serves with its own \
            model and tools (the same sandbox and approvals), then answers. Progress comes as \
            MCP progress notifications; the result is the final answer and the hermes session \
            id, which `session_id` continues."
            .into(),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {
                "prompt": {"type": "string", "description": "The task, complete in itself"},
                "session_id": {"type": "string", "description": "A hermes session to continue"}
            },
            "required": ["prompt"],
            "additionalProperties": false
        }),
    }
}

impl Served {
    pub(crate) fn new(
        tools: Registry,
        (asking, refusing): (Policy, Policy),
        answers: Answers,
        cwd: PathBuf,
        mcp: Arc<McpRegistry>,
        task: Option<TaskRunner>,
    ) -> Served {
        Served {
            tools,
            asking: Arc::new(asking),
            refusing: Arc::new(refusing),
            answers,
            cwd,
            mcp,
            task,
            expose_all: false,
            calls: Arc::default(),
        }
    }
}

impl ServerHandler for Served {
    // Logging (`notifications/message`) is deprecated by the protocol's
    // newest version; clients of the versions before it read it.
    #[allow(deprecated)]
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .build(),
        )
        .with_server_info(Implementation::new("hermes", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // `--expose-all`: the servers' tools too — those not listed yet
        // are listed first (each within its start-up bound).
        let every: Vec<crate::model::ToolSpec> = if self.expose_all {
            self.mcp.load_unlisted_catalogs().await;
            self.tools
                .catalog()
                .tools
                .iter()
                .map(|t| crate::model::ToolSpec {
                    name: t.name.clone(),
                    description: t.description.clone(),
                    parameters: t.schema.clone(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let tools = self
            .tools
            .specs()
            .into_iter()
            .chain(self.task.as_ref().map(|_| task_spec()))
            .chain(every)
            .map(|s| {
                let schema = match s.parameters {
                    serde_json::Value::Object(o) => o,
                    _ => serde_json::Map::new(),
                };
                Tool::new(s.name, s.description, schema)
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let arguments = request
            .arguments
            .map(serde_json::Value::Object)
            .unwrap_or_else(|| serde_json::json!({}));
        let calls = split(n, &request.name, &arguments);
        // Nothing is started before the gateway is used; then the servers
        // with no catalog yet are listed (each within its start-up bound),
        // as a session lists them before its first request.
        if crate::call::names::is_bridge(&request.name)
            || request.name.starts_with(crate::call::names::MCP_PREFIX)
        {
            self.mcp.load_unlisted_catalogs().await;
        }
        let forms = context
            .peer
            .peer_info()
            .is_some_and(|i| i.capabilities.elicitation.is_some());
        let policy = if forms { &self.asking } else { &self.refusing };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        if let (Some(task), "agent") = (&self.task, request.name.as_ref()) {
            return Ok(CallToolResponse::Complete(
                self.run_task(task, &arguments, (tx, rx), forms, &context)
                    .await,
            ));
        }
        let drain = tokio::spawn(super::asking::serve_events(
            rx,
            context.peer.clone(),
            forms.then(|| self.answers.clone()),
            context.meta.get_progress_token(),
        ));
        // A batch's entries each down their own path, at once: their
        // servers' concurrency decides.
        let outs = futures_util::future::join_all(calls.iter().map(|call| {
            crate::agent::serve_call(&self.tools, policy, &tx, &self.cwd, call, &context.ct)
        }))
        .await;
        drop(tx);
        // What it said is said; a sender something still holds does not
        // hold the answer back.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), drain).await;
        let all_failed = outs.iter().all(|o| o.is_error);
        let many = outs.len() > 1;
        let mut content = Vec::new();
        for (i, out) in outs.into_iter().enumerate() {
            content.push(ContentBlock::text(if many {
                format!("[entry {}] {}", i + 1, out.content)
            } else {
                out.content
            }));
            for image in out.images {
                content.push(ContentBlock::image(image.data, image.media_type));
            }
        }
        Ok(CallToolResponse::Complete(if all_failed {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }))
    }
}

impl Served {
    /// `agent`: a hermes task, its events served to the client as a
    /// call's are (its questions, progress) until it answers.
    async fn run_task(
        &self,
        task: &TaskRunner,
        arguments: &serde_json::Value,
        (tx, rx): (
            tokio::sync::mpsc::UnboundedSender<Event>,
            tokio::sync::mpsc::UnboundedReceiver<Event>,
        ),
        forms: bool,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let Some(prompt) = arguments.get("prompt").and_then(|p| p.as_str()) else {
            return CallToolResult::error(vec![ContentBlock::text(
                "agent: `prompt` (the task, as text) is required",
            )]);
        };
        let session = arguments
            .get("session_id")
            .and_then(|s| s.as_str())
            .map(str::to_string);
        let answers = forms.then(|| self.answers.clone());
        let drain = tokio::spawn(super::asking::serve_events(
            rx,
            context.peer.clone(),
            answers.clone(),
            context.meta.get_progress_token(),
        ));
        let ran = task(prompt.to_string(), session, answers, tx, context.ct.clone()).await;
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), drain).await;
        match ran {
            Ok((answer, id)) => CallToolResult::success(vec![
                ContentBlock::text(answer),
                ContentBlock::text(format!(
                    "[hermes session {id}: pass session_id to continue it]"
                )),
            ]),
            Err(why) => CallToolResult::error(vec![ContentBlock::text(format!(
                "the hermes task did not finish: {why}"
            ))]),
        }
    }
}

/// The calls a client's `tools/call` number `n` makes: a `tool_call` of
/// several entries split into one call each (as a session splits its
/// model's), anything else as it is.
fn split(n: u64, name: &str, arguments: &serde_json::Value) -> Vec<ToolCall> {
    let entries = (name == crate::call::names::CALL)
        .then(|| arguments.get("calls").and_then(|c| c.as_array()))
        .flatten()
        .filter(|c| c.len() > 1);
    match entries {
        Some(list) => list
            .iter()
            .enumerate()
            .map(|(i, entry)| ToolCall {
                id: format!("call_serve{n}e{i}"),
                name: name.to_string(),
                arguments: serde_json::json!({ "calls": [entry] }).to_string(),
            })
            .collect(),
        None => vec![ToolCall {
            id: format!("call_serve{n}"),
            name: name.to_string(),
            arguments: arguments.to_string(),
        }],
    }
}

/// Serves one client on stdin and stdout until it goes; then nothing is
/// left running: the servers hermes started, and its background
/// processes, end with it.
pub(crate) async fn serve_stdio(served: Served) -> Result<(), String> {
    let mcp = served.mcp.clone();
    let background = served.tools.background().clone();
    let result = async {
        let running = served
            .serve((tokio::io::stdin(), tokio::io::stdout()))
            .await
            .map_err(|e| format!("the MCP handshake failed: {e}"))?;
        // What goes wrong with a server (it would not start, it crashed)
        // reaches the client as a log message.
        let peer = running.peer().clone();
        mcp.on_notice(Arc::new(move |message| {
            let peer = peer.clone();
            tokio::spawn(async move { super::asking::log(&peer, message).await });
        }));
        running
            .waiting()
            .await
            .map(drop)
            .map_err(|e| format!("serving ended: {e}"))
    }
    .await;
    background.end_session();
    mcp.shutdown().await;
    result
}
