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
/// servers it reaches, and who answers its questions.
pub(crate) struct Served {
    pub tools: Registry,
    /// The policy of a client that takes forms: its questions go to it.
    pub asking: Arc<Policy>,
    /// The policy of one that does not: a question is a refusal.
    pub refusing: Arc<Policy>,
    pub answers: Answers,
    pub cwd: PathBuf,
    pub mcp: Arc<McpRegistry>,
    calls: AtomicU64,
}

impl Served {
    pub(crate) fn new(
        tools: Registry,
        (asking, refusing): (Policy, Policy),
        answers: Answers,
        cwd: PathBuf,
        mcp: Arc<McpRegistry>,
    ) -> Served {
        Served {
            tools,
            asking: Arc::new(asking),
            refusing: Arc::new(refusing),
            answers,
            cwd,
            mcp,
            calls: AtomicU64::new(0),
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
        let tools = self
            .tools
            .specs()
            .into_iter()
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
        if crate::call::names::is_bridge(&request.name) {
            self.mcp.load_unlisted_catalogs().await;
        }
        let forms = context
            .peer
            .peer_info()
            .is_some_and(|i| i.capabilities.elicitation.is_some());
        let policy = if forms { &self.asking } else { &self.refusing };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
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
