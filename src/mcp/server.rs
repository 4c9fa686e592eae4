//! One configured server: its catalog, its process (started on first need,
//! restarted after a crash with backoff, given up on after repeated crashes),
//! and its concurrency gate. Every failure of a call becomes a tool result.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use rmcp::ServiceError;
use tokio::sync::{Mutex, Semaphore};
use tokio_util::sync::CancellationToken;

use super::catalog_cache::{self, CachedTool, Catalog};
use super::client::{self, ConnectError, Service};
use super::error::ServerError;
use super::pipes;
use super::process::{self, ServerProcess};
use super::result;
use crate::call::ToolOutput;
use crate::config::{Concurrency, McpServerSettings};

/// How a call's send ended.
enum Attempt {
    Done(ToolOutput),
    /// A remote server asked for authorization (its `WWW-Authenticate`).
    Unauthorized(String),
}

/// Logins one request may go through (the first, then a step-up or two).
const MAX_AUTH_ROUNDS: u32 = 3;

/// Consecutive crashes after which a server is marked failed for this run.
pub(super) const MAX_CRASHES: u32 = 3;
const GRACE: Duration = Duration::from_secs(2);
/// After a dropped over-long message, how long a call still waits for its
/// own result (the dropped one may have been a notification).
const OVERSIZE_GRACE: Duration = Duration::from_secs(1);
/// After the process ended mid-call, how long its answer may still take to
/// come out of the pipe.
const EXIT_GRACE: Duration = Duration::from_millis(300);

/// Takes a running server out of `state` (leaving it idle) and ends it:
/// stdin closed, then the process group terminated. If a call still holds
/// the connection, dropping ours leaves the process to its `Drop` backstop
/// (SIGKILL to the group).
async fn stop(state: &mut State) {
    if let State::Running(c) = std::mem::replace(state, State::Idle) {
        if let Ok(Connection {
            service, process, ..
        }) = Arc::try_unwrap(c)
        {
            match process {
                Some(p) => {
                    drop(service);
                    p.into_inner().terminate(GRACE).await;
                }
                // A remote session ends with its DELETE, bounded.
                None => {
                    let _ = tokio::time::timeout(GRACE, service.cancel()).await;
                }
            }
        }
    }
}

/// Counts a call in flight on a connection while it lives.
struct InFlight<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> InFlight<'a> {
    fn enter(n: &'a std::sync::atomic::AtomicUsize) -> InFlight<'a> {
        n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        InFlight(n)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

struct Connection {
    service: Service,
    /// A local server's process (a remote one has none). Locked only to
    /// read its exit or end it: the calls in flight share the connection,
    /// and the first of them to see it fail does both.
    process: Option<Mutex<ServerProcess>>,
    /// Messages the client drops (too long, or answering no request).
    seen: Arc<pipes::Seen>,
    /// When the process ends, pipes open or not.
    exited: super::process::ExitWatch,
    /// Calls sent on this connection and not yet answered.
    in_flight: std::sync::atomic::AtomicUsize,
}

impl Connection {
    /// Whether the server can still be talked to: rmcp marks its own service
    /// closed only when it is asked to stop, so a transport that ended (the
    /// server exited between calls) is checked as well.
    fn alive(&self) -> bool {
        !self.service.is_closed() && !self.service.peer().is_transport_closed()
    }
}

enum State {
    Idle,
    Running(Arc<Connection>),
    /// `what` says how it ended ("exited with code 3" and its last stderr),
    /// for the other calls that were running when it did.
    Crashed {
        at: Instant,
        what: String,
        tail: String,
    },
    Failed(ServerError),
}

pub struct McpServer {
    pub name: String,
    pub entry: McpServerSettings,
    pub fingerprint: String,
    cache_dir: PathBuf,
    log_path: PathBuf,
    gate: Arc<Semaphore>,
    /// The gate's size: all free means no call is running or waiting.
    permits: usize,
    state: Mutex<State>,
    /// Crashes since the last successful call.
    crashes: std::sync::atomic::AtomicU32,
    /// `None` until first needed: the disk cache is read lazily, so start-up
    /// costs nothing per server until a catalog is actually asked for.
    catalog: RwLock<Option<Option<Catalog>>>,
    /// Set when the server was started ahead of a call (see [`warm`]), and
    /// when a call reached it: together, whether a warm-up was wasted.
    ///
    /// [`warm`]: McpServer::warm
    warmed: std::sync::atomic::AtomicBool,
    called: std::sync::atomic::AtomicBool,
    /// Bumped whenever any catalog changes, so the registry can rebuild names.
    generation: Arc<std::sync::atomic::AtomicU64>,
    sinks: client::Sinks,
    notices: super::notices::Notices,
    /// Where a remote server's OAuth tokens are kept.
    oauth_store: PathBuf,
}

/// What every server of a registry shares with it.
pub(super) struct Shared {
    /// Bumped whenever any catalog changes.
    pub(super) generation: Arc<std::sync::atomic::AtomicU64>,
    pub(super) sinks: client::Sinks,
    pub(super) notices: super::notices::Notices,
}

/// Timing of a start, for `hermes mcp test`.
#[derive(Debug, Clone)]
pub struct StartReport {
    pub spawn_and_handshake: Duration,
    pub list: Duration,
    pub tools: usize,
    pub server_info: String,
}

impl McpServer {
    pub(super) fn new(
        name: String,
        entry: McpServerSettings,
        paths: &crate::config::Paths,
        shared: &Shared,
    ) -> McpServer {
        let cache_dir = paths.cache_dir.clone();
        let log_dir = super::registry::log_dir(paths);
        let oauth_store = super::oauth::store_path(paths, &name);
        let fingerprint = catalog_cache::fingerprint(&entry);
        let permits = match entry.concurrency {
            Concurrency::Serial => 1,
            Concurrency::Parallel => Semaphore::MAX_PERMITS,
            Concurrency::Limit(n) => n as usize,
        };
        McpServer {
            log_path: log_dir.join(format!("{}.log", super::naming::sanitize(&name))),
            name,
            entry,
            fingerprint,
            cache_dir,
            gate: Arc::new(Semaphore::new(permits)),
            permits,
            state: Mutex::new(State::Idle),
            crashes: std::sync::atomic::AtomicU32::new(0),
            catalog: RwLock::new(None),
            warmed: Default::default(),
            called: Default::default(),
            generation: shared.generation.clone(),
            sinks: shared.sinks.clone(),
            notices: shared.notices.clone(),
            oauth_store,
        }
    }

    pub fn catalog(&self) -> Option<Catalog> {
        if let Some(loaded) = self.catalog.read().ok()?.as_ref() {
            return loaded.clone();
        }
        let mut slot = self.catalog.write().ok()?;
        let loaded = slot.get_or_insert_with(|| {
            catalog_cache::load(&self.cache_dir, &self.name, &self.fingerprint)
        });
        loaded.clone()
    }

    pub fn cache_dir(&self) -> &std::path::Path {
        &self.cache_dir
    }

    pub fn log_path(&self) -> &std::path::Path {
        &self.log_path
    }

    pub fn tool_timeout(&self) -> Duration {
        self.entry.tool_timeout
    }

    fn startup_timeout(&self) -> Duration {
        self.entry.startup_timeout
    }

    fn set_catalog(&self, tools: Vec<CachedTool>) {
        let cat = Catalog::new(self.fingerprint.clone(), tools);
        let changed = self.catalog().map(|c| c.tools) != Some(cat.tools.clone());
        // A cache that cannot be written only costs a start next time; the
        // user hears of it once (a full disk is worth knowing about).
        if let Err(e) = catalog_cache::store(&self.cache_dir, &self.name, &cat) {
            self.notices.once(format!(
                "cannot write the tool catalog of server `{}` to {}: {e}; it is listed again when it next starts",
                self.name,
                self.cache_dir.join("mcp").display()
            ));
        }
        if let Ok(mut c) = self.catalog.write() {
            *c = Some(Some(cat));
        }
        if changed {
            self.generation
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Starts the server if it is not running and refreshes its catalog.
    pub async fn refresh(self: &Arc<Self>) -> Result<StartReport, ServerError> {
        let t0 = Instant::now();
        let mut round = 0;
        let (conn, spawn_and_handshake, t1, tools) = loop {
            let conn = self.ensure_running().await?;
            let spawn_and_handshake = t0.elapsed();
            let t1 = Instant::now();
            let listed =
                tokio::time::timeout(self.startup_timeout(), client::list_tools(&conn.service))
                    .await
                    .map_err(|_| ServerError::ListTimeout {
                        server: self.name.clone(),
                        ms: self.startup_timeout().as_millis(),
                    })?;
            match listed {
                Ok(tools) => break (conn, spawn_and_handshake, t1, tools),
                // Authorization asked for mid-session (a server that lets
                // the handshake through unauthenticated).
                Err(e) if self.entry.remote.is_some() && e.auth_challenge().is_some() => {
                    let challenge = e.auth_challenge().unwrap_or_default().to_string();
                    self.reauthorize(&conn, &challenge, round, &CancellationToken::new())
                        .await
                        .map_err(ServerError::Auth)?;
                    round += 1;
                }
                Err(e) => {
                    return Err(ServerError::List {
                        server: self.name.clone(),
                        detail: e.to_string(),
                    })
                }
            }
        };
        let report = StartReport {
            spawn_and_handshake,
            list: t1.elapsed(),
            tools: tools.len(),
            server_info: conn
                .service
                .peer_info()
                .and_then(|i| i.server_info.clone())
                .map(|i| format!("{} {}", i.name, i.version))
                .unwrap_or_default(),
        };
        self.set_catalog(tools);
        Ok(report)
    }

    async fn ensure_running(self: &Arc<Self>) -> Result<Arc<Connection>, ServerError> {
        let mut state = self.state.lock().await;
        match &*state {
            State::Running(c) if c.alive() => return Ok(c.clone()),
            State::Failed(why) => return Err(why.clone()),
            State::Crashed { at, .. } => {
                // Back off before a restart: 0.5 s, 1 s, 2 s …
                let crashes = self.crashes.load(std::sync::atomic::Ordering::SeqCst);
                let wait = Duration::from_millis(500 << crashes.saturating_sub(1).min(5));
                let since = at.elapsed();
                if since < wait {
                    tokio::time::sleep(wait - since).await;
                }
            }
            _ => {}
        }
        let weak = Arc::downgrade(self);
        let on_tools: client::OnToolsChanged = Arc::new(move |tools| {
            if let Some(s) = weak.upgrade() {
                s.set_catalog(tools);
            }
        });
        let handler = || {
            client::Handler::new(
                &self.name,
                Some(on_tools.clone()),
                self.sinks.clone(),
                self.entry.elicitation,
                self.entry.remote.is_some(),
            )
        };
        if let Some(remote) = &self.entry.remote {
            let connected = super::remote::connect(
                &self.name,
                remote,
                &self.oauth_store,
                handler,
                self.startup_timeout(),
                &CancellationToken::new(),
            )
            .await;
            return match connected {
                Ok(service) => {
                    let conn = Arc::new(Connection {
                        service,
                        process: None,
                        seen: Arc::default(),
                        exited: process::ExitWatch::never(),
                        in_flight: Default::default(),
                    });
                    *state = State::Running(conn.clone());
                    Ok(conn)
                }
                Err(e) => {
                    let why =
                        super::remote::error(&self.name, &remote.url, e, self.startup_timeout());
                    *state = State::Failed(why.clone());
                    Err(why)
                }
            };
        }
        let spawned = process::spawn(&self.name, &self.entry, &self.log_path)
            .map_err(|e| ServerError::Spawn(e.to_string()))?;
        let mut proc_ = spawned.process;
        let seen = Arc::new(pipes::Seen::default());
        let connected = client::serve(
            handler(),
            (
                pipes::Watched::new(spawned.stdout, seen.clone()),
                pipes::Noted::new(spawned.stdin, seen.clone()),
            ),
            self.startup_timeout(),
        )
        .await;
        match connected {
            Ok(service) => {
                let conn = Arc::new(Connection {
                    service,
                    exited: proc_.exit_watch(),
                    process: Some(Mutex::new(proc_)),
                    seen,
                    in_flight: Default::default(),
                });
                *state = State::Running(conn.clone());
                Ok(conn)
            }
            Err(e) => {
                let server = self.name.clone();
                let why = match e {
                    ConnectError::Timeout => ServerError::HandshakeTimeout {
                        server,
                        ms: self.startup_timeout().as_millis(),
                        tail: proc_.tail.describe(),
                    },
                    ConnectError::Failed(detail) => {
                        let detail = detail.to_string();
                        match proc_.exit_status(Duration::from_millis(500)).await {
                            Some(_) => ServerError::ExitedBeforeHandshake {
                                server,
                                command: self.entry.command.clone(),
                                exit: proc_.describe_exit(Duration::ZERO).await,
                                tail: proc_.tail.describe(),
                            },
                            None => ServerError::Handshake {
                                server,
                                detail,
                                tail: proc_.tail.describe(),
                            },
                        }
                    }
                };
                proc_.terminate(Duration::ZERO).await;
                *state = State::Failed(why.clone());
                Err(why)
            }
        }
    }

    /// One tool call through the gate (FIFO: a serial server takes calls in the
    /// order they arrived). A stop wins over every step before the send
    /// (`biased`): an entry cancelled while it waits for its slot or for the
    /// server to start is never sent. `on_start` is called right before the
    /// request goes out.
    pub async fn call(
        self: &Arc<Self>,
        tool: &str,
        args: serde_json::Value,
        cancel: &CancellationToken,
        on_start: &(dyn Fn() + Send + Sync),
    ) -> ToolOutput {
        self.called.store(true, std::sync::atomic::Ordering::SeqCst);
        let not_started = || ToolOutput::error("cancelled before it started");
        let permit = tokio::select! {
            biased;
            _ = cancel.cancelled() => return not_started(),
            p = self.gate.clone().acquire_owned() => p,
        };
        let Ok(_permit) = permit else {
            return ToolOutput::error(format!("server `{}` is shutting down", self.name));
        };
        let arguments = match args {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        let mut started = false;
        // A remote server may ask for authorization, or more of it (step-up),
        // mid-session: a login, a new session, the call again — a bounded
        // number of times.
        for round in 0..=MAX_AUTH_ROUNDS {
            let conn = tokio::select! {
                biased;
                _ = cancel.cancelled() => return not_started(),
                c = self.ensure_running() => match c {
                    Ok(c) => c,
                    Err(why) => return ToolOutput::error(why.to_string()),
                },
            };
            if cancel.is_cancelled() {
                return not_started();
            }
            if !std::mem::replace(&mut started, true) {
                on_start();
            }
            match self
                .call_once(conn.clone(), tool, arguments.clone(), cancel)
                .await
            {
                Attempt::Done(out) => return out,
                Attempt::Unauthorized(challenge) => {
                    if let Err(why) = self.reauthorize(&conn, &challenge, round, cancel).await {
                        return ToolOutput::error(why);
                    }
                }
            }
        }
        ToolOutput::error(format!(
            "server `{}` kept asking for authorization",
            self.name
        ))
    }

    /// After a server's 401 or 403 mid-session: a login with its challenge
    /// (the scope it asks for), then a new session on the next request.
    /// `Err`: why it cannot be done (nobody to ask, too many rounds, the
    /// login failed or was stopped).
    async fn reauthorize(
        &self,
        conn: &Arc<Connection>,
        challenge: &str,
        round: u32,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let Some(remote) = &self.entry.remote else {
            return Err(format!("server `{}` asked for authorization", self.name));
        };
        if let Some(var) = &remote.bearer_token_env {
            return Err(super::remote::token_refused(&self.name, var, challenge));
        }
        if round >= MAX_AUTH_ROUNDS {
            return Err(format!(
                "server `{}` still refuses after {MAX_AUTH_ROUNDS} authorizations ({}); check the scopes its account may have",
                self.name,
                crate::util::text::excerpt(challenge, 200)
            ));
        }
        if !super::oauth::can_ask() {
            return Err(super::oauth::OAuthError::NeedsLogin {
                server: self.name.clone(),
            }
            .to_string());
        }
        super::oauth::login(
            &self.name,
            &remote.url,
            &remote.oauth,
            &self.oauth_store,
            Some(challenge),
            cancel,
        )
        .await
        .map_err(|e| e.to_string())?;
        let mut state = self.state.lock().await;
        if matches!(&*state, State::Running(c) if Arc::ptr_eq(c, conn)) {
            stop(&mut state).await;
        }
        Ok(())
    }

    /// One send of a call on `conn`, and how it ended.
    async fn call_once(
        &self,
        conn: Arc<Connection>,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        cancel: &CancellationToken,
    ) -> Attempt {
        let timeout = self.tool_timeout();
        let (dropped_before, stray_before) = (conn.seen.oversize.seen(), conn.seen.stray.seen());
        // A process that has ended but whose pipes a child it forked still
        // holds: what answers is that child, not a crash. One that ends
        // while this call runs is.
        let ran_at_send = !conn.exited.ended_now();
        let exited = conn.exited.clone();
        let calling = conn.clone();
        let _counted = InFlight::enter(&calling.in_flight);
        let call = tokio::time::timeout(timeout, client::call(&calling.service, tool, arguments));
        tokio::pin!(call);
        // The only call in flight, and the only request of ours waiting:
        // what goes astray can only be its answer.
        let alone = || {
            conn.in_flight.load(std::sync::atomic::Ordering::SeqCst) == 1
                && conn.seen.waiting() <= 1
        };
        let outcome = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Attempt::Done(ToolOutput::error("interrupted by the user while running; the server was asked to cancel")),
            r = &mut call => r,
            _ = exited.ended(), if ran_at_send => {
                // Its answer may still be in the pipe.
                match tokio::time::timeout(EXIT_GRACE, &mut call).await {
                    Ok(r) => r,
                    Err(_) => return Attempt::Done(self.crashed(conn.clone(), tool, ServiceError::TransportClosed).await),
                }
            }
            _ = conn.seen.oversize.past(dropped_before), if alone() => {
                // A message too long for the client was dropped while this
                // was the only call in flight: its result, unless it still
                // arrives (it was a notification). With other calls in
                // flight it cannot be told whose it was: each waits on.
                match tokio::time::timeout(OVERSIZE_GRACE, &mut call).await {
                    Ok(r) => r,
                    Err(_) => return Attempt::Done(ToolOutput::error(format!(
                        "the result of `{tool}` from server `{}` was over {} MiB, the most one MCP message may carry, and was dropped; ask for less (a range, a page, a filter)",
                        self.name,
                        pipes::LIMIT / (1024 * 1024)
                    ))),
                }
            }
            _ = conn.seen.stray.past(stray_before), if alone() => {
                // An answer to no request of ours while this was the only
                // one waiting: most likely its own, under a wrong id.
                match tokio::time::timeout(OVERSIZE_GRACE, &mut call).await {
                    Ok(r) => r,
                    Err(_) => {
                        let id = conn.seen.stray_id.lock().map(|s| s.clone()).unwrap_or_default();
                        return Attempt::Done(ToolOutput::error(format!(
                            "server `{}` answered with id {id}, which no request of hermes carries, while `{tool}` was its only call; the call was given up (the server does not follow JSON-RPC ids)",
                            self.name
                        )));
                    }
                }
            }
        };
        Attempt::Done(match outcome {
            Err(_) => ToolOutput::error(format!(
                "`{tool}` on server `{}` timed out after {} ms and was cancelled (tool_timeout_ms)",
                self.name,
                timeout.as_millis()
            )),
            Ok(Ok(r)) => {
                self.note_success().await;
                result::to_output(r, self.entry.limits.tool_output_bytes)
            }
            Ok(Err(ServiceError::McpError(e))) => ToolOutput::error(format!(
                "server `{}` rejected the call: {}",
                self.name, e.message
            )),
            Ok(Err(e)) => match e.auth_challenge() {
                Some(c) if self.entry.remote.is_some() => {
                    return Attempt::Unauthorized(c.to_string())
                }
                _ => self.crashed(conn, tool, e).await,
            },
        })
    }

    /// What happens on the next call after a crash or a lost connection.
    fn again(&self) -> &'static str {
        match self.entry.remote {
            Some(_) => "hermes connects again on the next call",
            None => "it will be restarted on the next call",
        }
    }

    async fn note_success(&self) {
        self.crashes.store(0, std::sync::atomic::Ordering::SeqCst);
    }

    /// A call's connection failed. The first call to report it counts one
    /// crash — however many calls were in flight — reads how the process
    /// ended and ends it; the others report the same end, each naming its
    /// own call.
    async fn crashed(&self, conn: Arc<Connection>, tool: &str, e: ServiceError) -> ToolOutput {
        let mut state = self.state.lock().await;
        let first = matches!(&*state, State::Running(c) if Arc::ptr_eq(c, &conn));
        if !first {
            return match &*state {
                State::Failed(failed) => ToolOutput::error(format!(
                    "server `{}` stopped while `{tool}` was running; {failed}",
                    self.name
                )),
                State::Crashed { what, tail, .. } => ToolOutput::error(format!(
                    "server `{}` {what} while `{tool}` was running{tail}; {}",
                    self.name,
                    self.again()
                )),
                _ => ToolOutput::error(format!(
                    "server `{}` lost its connection ({e}) while `{tool}` was running",
                    self.name
                )),
            };
        }
        let crashes = self
            .crashes
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        let (what, tail) = match &conn.process {
            Some(p) => {
                let mut p = p.lock().await;
                let exit = p.describe_exit(Duration::from_millis(500)).await;
                let tail = p.tail.describe();
                p.terminate(Duration::ZERO).await;
                (exit, tail)
            }
            None => {
                let url = self.entry.remote.as_ref().map_or("", |r| &r.url);
                let url = crate::util::secrets::mask(url);
                let why = super::remote::root(&e);
                (
                    format!("at {url} lost the connection ({why})"),
                    String::new(),
                )
            }
        };
        drop(conn);
        let msg = format!(
            "server `{}` {what} during the call to `{tool}`{tail}",
            self.name
        );
        if crashes >= MAX_CRASHES {
            let failed = match &self.entry.remote {
                Some(r) => ServerError::LostTooOften {
                    server: self.name.clone(),
                    times: crashes,
                    url: crate::util::secrets::mask(&r.url).into_owned(),
                },
                None => ServerError::CrashedTooOften {
                    server: self.name.clone(),
                    crashes,
                    log: self.log_path.clone(),
                },
            };
            *state = State::Failed(failed.clone());
            ToolOutput::error(format!("{msg}; {failed}"))
        } else {
            *state = State::Crashed {
                at: Instant::now(),
                what,
                tail,
            };
            ToolOutput::error(format!("{msg}; {}", self.again()))
        }
    }

    /// Starts the process ahead of a call a model is likely to make, so the
    /// call finds it ready. Only from rest: a running server needs nothing,
    /// and a failed or crashed one is left for a real call to report or
    /// retry. True when this started it.
    pub async fn warm(self: &Arc<Self>) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        if !matches!(*self.state.lock().await, State::Idle) {
            return false;
        }
        // From here, a call counts as one to this start.
        self.called.store(false, SeqCst);
        // A call that arrives meanwhile waits on the same state lock and
        // gets this start's connection.
        match self.ensure_running().await {
            Ok(_) => {
                self.warmed.store(true, SeqCst);
                true
            }
            Err(_) => {
                // A guess that failed must not fail the server for the
                // session: the first real call starts it again and reports.
                let mut state = self.state.lock().await;
                if matches!(*state, State::Failed(_)) {
                    *state = State::Idle;
                }
                false
            }
        }
    }

    /// (started ahead of a call, a call reached it) — for the warm-up count.
    pub fn warm_use(&self) -> (bool, bool) {
        use std::sync::atomic::Ordering::SeqCst;
        (self.warmed.load(SeqCst), self.called.load(SeqCst))
    }

    /// Stops the server if it is up and idle — no call holds its connection
    /// or waits at its gate; a failed or crashed state is left as it is.
    /// For the background fill, which starts servers only to list them.
    pub(super) async fn stop_if_idle(&self) {
        let mut state = self.state.lock().await;
        let idle = matches!(&*state, State::Running(c) if Arc::strong_count(c) == 1)
            && self.gate.available_permits() == self.permits;
        if !idle {
            return;
        }
        stop(&mut state).await;
    }

    /// Whether it is up or being started, without waiting: a start holds
    /// the state for its whole handshake, and a count of busy servers must
    /// not queue behind it.
    pub fn busy_now(&self) -> bool {
        match self.state.try_lock() {
            Ok(state) => matches!(&*state, State::Running(c) if c.alive()),
            Err(_) => true,
        }
    }

    /// Whether its process is up (started and not crashed or stopped).
    pub async fn is_running(&self) -> bool {
        matches!(&*self.state.lock().await, State::Running(c) if c.alive())
    }

    /// Closes stdin, then terminates the process group.
    pub async fn shutdown(&self) {
        let mut state = self.state.lock().await;
        stop(&mut state).await;
    }
}
