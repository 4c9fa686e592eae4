//! The MCP session with one server, over its stdio pipes or HTTP:
//! handshake, paginated `tools/list` (with `prompts/list` and
//! `resources/list` where the server offers them), `tools/call`, the
//! `list_changed` notifications, progress, and the server's requests for
//! input from the user (elicitation).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion, Tool,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};

use super::catalog_cache::{CachedPrompt, CachedResource, CachedTool, Listed, PromptArgument};

/// Called with the server's new listing after it announced a change.
pub(super) type OnListChanged = Arc<dyn Fn(Listed) + Send + Sync>;

/// A progress report from a server about one of its running calls.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Progress {
    pub server: String,
    /// The call it is about (its tool-call id), when the server named the
    /// progress token that call was sent with.
    pub call_id: Option<String>,
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

pub(super) type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;
/// Where progress goes; set once the front end exists, shared by every server.
pub(super) type ProgressSink = Arc<std::sync::Mutex<Option<ProgressFn>>>;

/// What reaches the front end from every server's session: progress, and
/// the forms servers ask the user to fill.
#[derive(Clone, Default)]
pub(super) struct Sinks {
    pub(super) progress: ProgressSink,
    pub(super) forms: super::elicit::FormSink,
    /// The calls in flight by (server, progress token): a progress
    /// notification names only the token its request was sent with.
    pub(super) calls: Arc<std::sync::Mutex<std::collections::HashMap<(String, String), String>>>,
}

pub(super) struct Handler {
    server: String,
    on_list: Option<OnListChanged>,
    sinks: Sinks,
    /// How the server's `elicitation/create` requests are answered.
    elicitation: crate::config::Elicitation,
    /// The protocol version offered: local servers stay on 2025-06-18 (on
    /// which they send list_changed as plain notifications); remote ones
    /// are offered 2025-11-25 and may answer with an older version.
    version: ProtocolVersion,
    /// Coalesces the `list_changed` notifications (tools, prompts and
    /// resources alike: each lists all three again): a server may announce
    /// a change any number of times, but at most one listing runs and one
    /// waits.
    listing: std::sync::Mutex<Listing>,
}

#[derive(Default)]
struct Listing {
    running: bool,
    /// A change was announced while a listing ran: list once more after it.
    again: bool,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // Elicitation is declared only when it can be answered.
        let mut caps = ClientCapabilities::default();
        if super::elicit::answerable(self.elicitation, &self.sinks.forms) {
            caps.elicitation = Some(Default::default());
        }
        ClientConfig::new(
            caps,
            Implementation::new("hermes", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _cx: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        Ok(
            super::elicit::answer(self.elicitation, &self.server, &request, &self.sinks.forms)
                .await,
        )
    }

    async fn on_progress(
        &self,
        p: rmcp::model::ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let sink = self.sinks.progress.lock().ok().and_then(|s| s.clone());
        if let Some(f) = sink {
            let key = (self.server.clone(), p.progress_token.0.to_string());
            let call_id = self
                .sinks
                .calls
                .lock()
                .ok()
                .and_then(|c| c.get(&key).cloned());
            f(Progress {
                server: self.server.clone(),
                call_id,
                progress: p.progress,
                total: p.total,
                message: p.message,
            });
        }
    }

    async fn on_tool_list_changed(&self, cx: NotificationContext<RoleClient>) {
        self.list_again(&cx.peer).await;
    }

    async fn on_prompt_list_changed(&self, cx: NotificationContext<RoleClient>) {
        self.list_again(&cx.peer).await;
    }

    async fn on_resource_list_changed(&self, cx: NotificationContext<RoleClient>) {
        self.list_again(&cx.peer).await;
    }
}

impl Handler {
    /// Lists the server again after it announced a change, coalesced (see
    /// `listing`).
    async fn list_again(&self, peer: &rmcp::Peer<RoleClient>) {
        let Some(cb) = &self.on_list else { return };
        if !self.listing(|l| {
            !std::mem::replace(&mut l.running, true) || {
                l.again = true;
                false
            }
        }) {
            return;
        }
        // However this listing ends (dropped with its connection, say), the
        // next announcement may list again.
        struct Running<'a>(&'a Handler);
        impl Drop for Running<'_> {
            fn drop(&mut self) {
                self.0.listing(|l| {
                    l.running = false;
                    false
                });
            }
        }
        let _running = Running(self);
        loop {
            if let Ok(Ok(listed)) = tokio::time::timeout(Duration::from_secs(30), list(peer)).await
            {
                cb(listed);
            }
            // Checked and given up in one step: an announcement either sees
            // this listing running and asks for another, or starts its own.
            if !self.listing(|l| {
                l.running = std::mem::take(&mut l.again);
                l.running
            }) {
                std::mem::forget(_running);
                return;
            }
        }
    }

    /// Whether a `list_changed` listing is running now.
    pub(super) fn listing_now(&self) -> bool {
        self.listing.lock().map(|l| l.running).unwrap_or(false)
    }

    /// `f` on the listing state; false if the lock is poisoned.
    fn listing(&self, f: impl FnOnce(&mut Listing) -> bool) -> bool {
        self.listing.lock().map(|mut l| f(&mut l)).unwrap_or(false)
    }
}

pub(super) type Service = RunningService<RoleClient, Handler>;

#[derive(Debug)]
pub(super) enum ConnectError {
    Timeout,
    Failed(Box<rmcp::service::ClientInitializeError>),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Timeout => f.write_str("no answer to the handshake in time"),
            ConnectError::Failed(e) => {
                f.write_str(&crate::util::text::without_type_names(&e.to_string()))
            }
        }
    }
}

impl Handler {
    pub(super) fn new(
        server: &str,
        on_list: Option<OnListChanged>,
        sinks: Sinks,
        elicitation: crate::config::Elicitation,
        remote: bool,
    ) -> Handler {
        Handler {
            server: server.to_string(),
            on_list,
            sinks,
            elicitation,
            version: if remote {
                ProtocolVersion::V_2025_11_25
            } else {
                ProtocolVersion::V_2025_06_18
            },
            listing: Default::default(),
        }
    }
}

/// The MCP handshake over `transport`, bounded by `timeout`.
pub(super) async fn serve<T, E, A>(
    handler: Handler,
    transport: T,
    timeout: Duration,
) -> Result<Service, ConnectError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match tokio::time::timeout(timeout, handler.serve(transport)).await {
        Err(_) => Err(ConnectError::Timeout),
        Ok(Err(e)) => Err(ConnectError::Failed(Box::new(e))),
        Ok(Ok(s)) => Ok(s),
    }
}

/// The server's tools, and its prompts and resources where its handshake
/// offered them. A server whose prompts or resources fail to list still
/// has its tools: those lists are only the user's conveniences.
pub(super) async fn list(peer: &rmcp::Peer<RoleClient>) -> Result<Listed, ServiceError> {
    let tools = peer
        .list_all_tools()
        .await?
        .into_iter()
        .map(cached)
        .collect();
    let caps = peer.peer_info().map(|i| i.capabilities.clone());
    let offers = |f: fn(&rmcp::model::ServerCapabilities) -> bool| caps.as_ref().is_some_and(f);
    let mut listed = Listed {
        tools,
        ..Listed::default()
    };
    if offers(|c| c.prompts.is_some()) {
        if let Ok(prompts) = peer.list_all_prompts().await {
            listed.prompts = prompts.into_iter().map(prompt).collect();
        }
    }
    if offers(|c| c.resources.is_some()) {
        if let Ok(resources) = peer.list_all_resources().await {
            listed.resources = resources
                .into_iter()
                .map(|r| CachedResource {
                    uri: r.uri.clone(),
                    name: r.name.clone(),
                    description: r.description.clone().unwrap_or_default(),
                    mime_type: r.mime_type.clone(),
                })
                .collect();
        }
    }
    Ok(listed)
}

fn prompt(p: rmcp::model::Prompt) -> CachedPrompt {
    CachedPrompt {
        description: p.description.or(p.title).unwrap_or_default(),
        arguments: p
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|a| PromptArgument {
                description: a.description.or(a.title).unwrap_or_default(),
                required: a.required.unwrap_or(false),
                name: a.name,
            })
            .collect(),
        name: p.name,
    }
}

/// One `tools/call` of server `server` for the tool call `call_id`: while
/// it runs, the progress token it was sent with maps to that id, so the
/// server's progress is shown on its own entry. Dropping the returned
/// future mid-flight sends `notifications/cancelled` for it, which is how
/// timeouts and stops cancel.
pub(super) async fn call(
    service: &Service,
    sinks: &Sinks,
    server: &str,
    call_id: &str,
    tool: &str,
    arguments: serde_json::Map<String, serde_json::Value>,
) -> Result<CallToolResult, ServiceError> {
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
    let request =
        rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params));
    let peer = service.peer();
    let handle = peer
        .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
        .await?;
    let _in_flight = InFlightCall::new(peer, sinks, server, call_id, &handle);
    let result = handle.await_response().await;
    _in_flight.answered();
    match result? {
        rmcp::model::ServerResult::CallToolResult(r) => Ok(r),
        rmcp::model::ServerResult::EmptyResult(_) => Ok(CallToolResult::default()),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// A `tools/call` sent and not answered yet: its progress token is known
/// as its call's, and if it is dropped unanswered (a stop, a timeout) the
/// server is told with `notifications/cancelled`.
struct InFlightCall<'a> {
    peer: &'a rmcp::Peer<RoleClient>,
    sinks: &'a Sinks,
    key: (String, String),
    request: std::sync::Mutex<Option<rmcp::model::RequestId>>,
}

impl<'a> InFlightCall<'a> {
    fn new(
        peer: &'a rmcp::Peer<RoleClient>,
        sinks: &'a Sinks,
        server: &str,
        call_id: &str,
        handle: &rmcp::service::RequestHandle<RoleClient>,
    ) -> InFlightCall<'a> {
        let key = (server.to_string(), handle.progress_token.0.to_string());
        if !call_id.is_empty() {
            if let Ok(mut calls) = sinks.calls.lock() {
                calls.insert(key.clone(), call_id.to_string());
            }
        }
        InFlightCall {
            peer,
            sinks,
            key,
            request: std::sync::Mutex::new(Some(handle.id.clone())),
        }
    }

    fn answered(&self) {
        if let Ok(mut r) = self.request.lock() {
            r.take();
        }
    }
}

impl Drop for InFlightCall<'_> {
    fn drop(&mut self) {
        if let Ok(mut calls) = self.sinks.calls.lock() {
            calls.remove(&self.key);
        }
        let abandoned = self.request.lock().ok().and_then(|mut r| r.take());
        if let Some(id) = abandoned {
            let peer = self.peer.clone();
            let note = rmcp::model::CancelledNotificationParam::new(
                Some(id),
                Some("request abandoned by the caller".into()),
            );
            // Dropped inside the runtime (a stop or a timeout of the call).
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let _ = peer.notify_cancelled(note).await;
                });
            }
        }
    }
}

pub(super) fn cached(t: Tool) -> CachedTool {
    CachedTool {
        name: t.name.to_string(),
        title: t
            .title
            .clone()
            .or_else(|| t.annotations.as_ref().and_then(|a| a.title.clone())),
        description: t.description.map(|d| d.to_string()).unwrap_or_default(),
        input_schema: serde_json::Value::Object((*t.input_schema).clone()),
        read_only: t
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false),
        destructive: t
            .annotations
            .as_ref()
            .and_then(|a| a.destructive_hint)
            .unwrap_or(false),
    }
}
