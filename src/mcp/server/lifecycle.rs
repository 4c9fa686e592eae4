//! One MCP server's life: started lazily, its handshake, its crashes
//! counted and restarted within bounds, stopped with its process group.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, Semaphore};
use tokio_util::sync::CancellationToken;

use super::super::catalog_cache::{self, About, Catalog, Listed};
use super::super::client::{self, ConnectError, Service};
use super::super::error::ServerError;
use super::super::pipes;
use super::super::process::{self, ServerProcess};

use crate::config::{Concurrency, McpServerSettings};

/// Consecutive crashes after which a server is marked failed for this run.
pub(in crate::mcp) const MAX_CRASHES: u32 = 3;
const GRACE: Duration = Duration::from_secs(2);
/// Takes a running server out of `state` (leaving it idle) and ends it:
/// stdin closed, then the process group terminated. If a call still holds
/// the connection, dropping ours leaves the process to its `Drop` backstop
/// (SIGKILL to the group).
pub(super) async fn stop(state: &mut State) {
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

pub(super) struct Connection {
    pub(super) service: Service,
    /// A local server's process (a remote one has none). Locked only to
    /// read its exit or end it: the calls in flight share the connection,
    /// and the first of them to see it fail does both.
    pub(super) process: Option<Mutex<ServerProcess>>,
    /// Messages the client drops (too long, or answering no request).
    pub(super) seen: Arc<pipes::Seen>,
    /// When the process ends, pipes open or not.
    pub(super) exited: super::super::process::ExitWatch,
    /// Calls sent on this connection and not yet answered.
    pub(super) in_flight: std::sync::atomic::AtomicUsize,
}

impl Connection {
    /// Whether the server can still be talked to: rmcp marks its own service
    /// closed only when it is asked to stop, so a transport that ended (the
    /// server exited between calls) is checked as well.
    fn alive(&self) -> bool {
        !self.service.is_closed() && !self.service.peer().is_transport_closed()
    }
}

pub(super) enum State {
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
    pub(super) cache_dir: PathBuf,
    pub(super) log_path: PathBuf,
    pub(super) gate: Arc<Semaphore>,
    /// The gate's size: all free means no call is running or waiting.
    pub(super) permits: usize,
    pub(super) state: Mutex<State>,
    /// Crashes since the last successful call.
    pub(super) crashes: std::sync::atomic::AtomicU32,
    /// `None` until first needed: the disk cache is read lazily, so start-up
    /// costs nothing per server until a catalog is actually asked for.
    pub(super) catalog: RwLock<Option<Option<Catalog>>>,
    /// Set when the server was started ahead of a call (see [`warm`]), and
    /// when a call reached it: together, whether a warm-up was wasted.
    ///
    /// [`warm`]: McpServer::warm
    pub(super) warmed: std::sync::atomic::AtomicBool,
    pub(super) called: std::sync::atomic::AtomicBool,
    /// Bumped whenever any catalog changes, so the registry can rebuild names.
    pub(super) generation: Arc<std::sync::atomic::AtomicU64>,
    pub(super) sinks: client::Sinks,
    pub(super) notices: super::super::notices::Notices,
    /// Where a remote server's OAuth tokens are kept.
    pub(super) oauth_store: PathBuf,
}

/// What every server of a registry shares with it.
pub(in crate::mcp) struct Shared {
    /// Bumped whenever any catalog changes.
    pub(in crate::mcp) generation: Arc<std::sync::atomic::AtomicU64>,
    pub(in crate::mcp) sinks: client::Sinks,
    pub(in crate::mcp) notices: super::super::notices::Notices,
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
    pub(in crate::mcp) fn new(
        name: String,
        entry: McpServerSettings,
        paths: &crate::config::Paths,
        shared: &Shared,
    ) -> McpServer {
        let cache_dir = paths.cache_dir.clone();
        let log_dir = paths.mcp_log_dir();
        let oauth_store = super::super::oauth::store_path(paths, &name);
        let fingerprint = catalog_cache::fingerprint(&entry);
        let permits = match entry.concurrency {
            Concurrency::Serial => 1,
            Concurrency::Parallel => Semaphore::MAX_PERMITS,
            Concurrency::Limit(n) => n as usize,
        };
        McpServer {
            log_path: log_dir.join(format!("{}.log", super::super::naming::sanitize(&name))),
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

    pub(crate) fn catalog(&self) -> Option<Catalog> {
        if let Some(loaded) = self.catalog.read().ok()?.as_ref() {
            return loaded.clone();
        }
        let mut slot = self.catalog.write().ok()?;
        let loaded = slot.get_or_insert_with(|| {
            catalog_cache::load(&self.cache_dir, &self.name, &self.fingerprint)
        });
        loaded.clone()
    }

    pub(crate) fn cache_dir(&self) -> &std::path::Path {
        &self.cache_dir
    }

    pub(crate) fn log_path(&self) -> &std::path::Path {
        &self.log_path
    }

    pub(crate) fn tool_timeout(&self) -> Duration {
        self.entry.tool_timeout
    }

    pub(in crate::mcp) fn startup_timeout(&self) -> Duration {
        self.entry.startup_timeout
    }

    /// A new listing; `about` from a handshake, or `None` (a `list_changed`
    /// on the same connection) to keep what the server said before.
    fn set_catalog(&self, listed: Listed, about: Option<About>) {
        let old = self.catalog();
        let about = about
            .or_else(|| old.as_ref().map(|c| c.about.clone()))
            .unwrap_or_default();
        let cat = Catalog::new(self.fingerprint.clone(), listed, about);
        // Prompts and resources are the user's: a change to them alone
        // leaves the model's tool names as they are.
        let changed =
            old.map(|c| (c.tools, c.about)) != Some((cat.tools.clone(), cat.about.clone()));
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
        let (conn, spawn_and_handshake, t1, listed) = loop {
            let conn = self.ensure_running().await?;
            let spawn_and_handshake = t0.elapsed();
            let t1 = Instant::now();
            let listed =
                tokio::time::timeout(self.startup_timeout(), client::list(conn.service.peer()))
                    .await
                    .map_err(|_| ServerError::ListTimeout {
                        server: self.name.clone(),
                        ms: self.startup_timeout().as_millis(),
                    })?;
            match listed {
                Ok(listed) => break (conn, spawn_and_handshake, t1, listed),
                // Authorization asked for mid-session (a server that lets
                // the handshake through unauthenticated).
                Err(e) if self.entry.remote.is_some() && e.auth_challenge().is_some() => {
                    let challenge = e.auth_challenge().map(str::to_string);
                    self.reauthorize(
                        &conn,
                        challenge.as_deref(),
                        round,
                        &CancellationToken::new(),
                    )
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
        let info = conn.service.peer_info();
        let report = StartReport {
            spawn_and_handshake,
            list: t1.elapsed(),
            tools: listed.tools.len(),
            server_info: info
                .as_ref()
                .and_then(|i| i.server_info.clone())
                .map(|i| format!("{} {}", i.name, i.version))
                .unwrap_or_default(),
        };
        let about = info.map(|i| About {
            title: i.server_info.as_ref().and_then(|s| s.title.clone()),
            description: i.server_info.as_ref().and_then(|s| s.description.clone()),
            instructions: i.instructions.clone(),
        });
        self.set_catalog(listed, about);
        Ok(report)
    }

    pub(super) async fn ensure_running(self: &Arc<Self>) -> Result<Arc<Connection>, ServerError> {
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
        let on_list: client::OnListChanged = Arc::new(move |listed| {
            if let Some(s) = weak.upgrade() {
                s.set_catalog(listed, None);
            }
        });
        let handler = || {
            client::Handler::new(
                &self.name,
                Some(on_list.clone()),
                self.sinks.clone(),
                self.entry.elicitation,
                self.entry.remote.is_some(),
            )
        };
        // A variable it needs is not set: said when it is needed, never
        // sent on as the literal `${VAR}`.
        if let Some(why) = &self.entry.unset {
            let why = ServerError::Spawn(why.clone());
            *state = State::Failed(why.clone());
            return Err(why);
        }
        if let Some(remote) = &self.entry.remote {
            let connected = super::super::remote::connect(
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
                    let why = super::super::remote::error(
                        &self.name,
                        &remote.url,
                        e,
                        self.startup_timeout(),
                    );
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

    /// Starts the process ahead of a call a model is likely to make, so the
    /// call finds it ready. Only from rest: a running server needs nothing,
    /// and a failed or crashed one is left for a real call to report or
    /// retry. True when this started it.
    pub(crate) async fn warm(self: &Arc<Self>) -> bool {
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
    pub(crate) fn warm_use(&self) -> (bool, bool) {
        use std::sync::atomic::Ordering::SeqCst;
        (self.warmed.load(SeqCst), self.called.load(SeqCst))
    }

    /// Stops the server if it is up and idle — no call holds its connection
    /// or waits at its gate; a failed or crashed state is left as it is.
    /// For the background fill, which starts servers only to list them.
    pub(in crate::mcp) async fn stop_if_idle(&self) {
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
    pub(crate) fn busy_now(&self) -> bool {
        match self.state.try_lock() {
            Ok(state) => matches!(&*state, State::Running(c) if c.alive()),
            Err(_) => true,
        }
    }

    /// Whether a listing its `list_changed` asked for is still running
    /// (a server being started or stopped counts as not).
    pub(crate) fn listing(&self) -> bool {
        self.state
            .try_lock()
            .is_ok_and(|s| matches!(&*s, State::Running(c) if c.service.service().listing_now()))
    }

    /// Whether its process is up (started and not crashed or stopped).
    pub(crate) async fn is_running(&self) -> bool {
        matches!(&*self.state.lock().await, State::Running(c) if c.alive())
    }

    /// Closes stdin, then terminates the process group.
    pub(crate) async fn shutdown(&self) {
        let mut state = self.state.lock().await;
        stop(&mut state).await;
    }
}
