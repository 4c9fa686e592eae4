//! All configured MCP servers of a run. Built from config and the on-disk
//! catalogs only — nothing is started here, so start-up costs the same with
//! any number of servers. Missing or stale catalogs are filled in the
//! background; a server's process otherwise starts on its first call.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::catalog_cache::CachedTool;
use super::naming;
use super::server::McpServer;
use super::{McpError, ServerError};
use crate::call::ToolOutput;
use crate::config::{McpServerSettings, Paths};
use crate::util::glob::glob_match;

/// One exposed tool: its model-facing name, its server and its catalog entry.
#[derive(Debug, Clone)]
pub struct IndexedTool {
    pub name: String,
    pub server: usize,
    pub tool: CachedTool,
}

#[derive(Debug, Default)]
pub struct Index {
    pub tools: Vec<IndexedTool>,
}

impl Index {
    pub(crate) fn get(&self, name: &str) -> Option<&IndexedTool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// How long after start-up the background catalog fill begins.
pub(crate) const FILL_DELAY: std::time::Duration = std::time::Duration::from_millis(25);

pub struct McpRegistry {
    servers: Vec<Arc<McpServer>>,
    generation: Arc<AtomicU64>,
    index: RwLock<(u64, Arc<Index>)>,
    background: Mutex<Vec<JoinHandle<()>>>,
    pending_fills: tokio::sync::watch::Sender<usize>,
    sinks: super::client::Sinks,
    notices: super::notices::Notices,
    /// Servers started ahead of a call, at most this many at once
    /// (`[limits] servers_started_at_once`).
    warm_slots: Arc<tokio::sync::Semaphore>,
    /// Set by [`McpRegistry::shutdown`]: nothing is started after it.
    closed: Arc<std::sync::atomic::AtomicBool>,
}

/// Server names become part of tool names: keep them to what survives as-is.
pub(crate) fn check_name(name: &str) -> Result<(), McpError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.contains("__");
    if ok {
        Ok(())
    } else {
        Err(McpError::BadName(name.to_string()))
    }
}

impl McpRegistry {
    pub fn new(
        entries: &BTreeMap<String, McpServerSettings>,
        paths: &Paths,
    ) -> Result<McpRegistry, McpError> {
        let generation = Arc::new(AtomicU64::new(1));
        let sinks = super::client::Sinks::default();
        let notices = super::notices::Notices::default();
        let shared = super::server::Shared {
            generation: generation.clone(),
            sinks: sinks.clone(),
            notices: notices.clone(),
        };
        let mut servers = Vec::new();
        for (name, entry) in entries {
            check_name(name)?;
            if !entry.enabled {
                continue;
            }
            servers.push(Arc::new(McpServer::new(
                name.clone(),
                entry.clone(),
                paths,
                &shared,
            )));
        }
        let width = slots_width(&servers);
        Ok(McpRegistry {
            warm_slots: Arc::new(tokio::sync::Semaphore::new(width)),
            closed: Arc::default(),
            servers,
            generation,
            index: RwLock::new((0, Arc::new(Index::default()))),
            background: Mutex::new(Vec::new()),
            pending_fills: tokio::sync::watch::Sender::new(0),
            sinks,
            notices,
        })
    }

    /// Where non-fatal trouble of the servers goes from now on (warnings).
    pub(crate) fn on_notice(&self, f: super::NoticeFn) {
        self.notices.set(f);
    }

    /// Where servers' progress notifications go from now on.
    pub(crate) fn on_progress(&self, f: super::client::ProgressFn) {
        if let Ok(mut slot) = self.sinks.progress.lock() {
            *slot = Some(f);
        }
    }

    /// Someone will answer the forms servers ask for (`elicitation =
    /// "ask"`): servers connected from now on declare elicitation, and a
    /// form that comes before [`McpRegistry::on_form`] says how is declined.
    pub(crate) fn expect_forms(&self) {
        if let Ok(mut slot) = self.sinks.forms.lock() {
            slot.expected = true;
        }
    }

    /// How the forms servers ask for are put from now on.
    pub(crate) fn on_form(&self, asker: super::Asker) {
        if let Ok(mut slot) = self.sinks.forms.lock() {
            slot.expected = true;
            slot.asker = Some(asker);
        }
    }

    pub(crate) fn servers(&self) -> &[Arc<McpServer>] {
        &self.servers
    }

    pub fn server(&self, name: &str) -> Option<&Arc<McpServer>> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// Starts servers whose catalog is missing or stale, in the background.
    /// The work begins after [`FILL_DELAY`], so that spawning processes and
    /// reading caches never competes with the first model request.
    pub(crate) fn fill_catalogs_in_background(&self) {
        if self.servers.is_empty() {
            return;
        }
        let Ok(mut bg) = self.background.lock() else {
            return;
        };
        let servers = self.servers.clone();
        let pending = self.pending_fills.clone();
        pending.send_modify(|n| *n += 1);
        // One task for all servers: spawning costs a wake-up of the runtime,
        // and start-up must not grow with the number of servers.
        bg.push(tokio::spawn(async move {
            // Counts the fill as done however this task ends (even aborted).
            struct Done(tokio::sync::watch::Sender<usize>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.send_modify(|n| *n = n.saturating_sub(1));
                }
            }
            let _done = Done(pending);
            tokio::time::sleep(FILL_DELAY).await;
            // `[limits] servers_started_at_once`, which every server carries:
            // a config of hundreds of servers must not become hundreds of
            // processes in one go. With more servers than that, one started
            // only to list its tools is stopped again once listed (its first
            // call starts it); with fewer, it stays up, warm for that call.
            let width = slots_width(&servers);
            let slots = Arc::new(tokio::sync::Semaphore::new(width));
            let many = servers.len() > width;
            let fills = servers.iter().map(|s| {
                let slots = slots.clone();
                async move {
                    if s.catalog().is_none_or(|c| c.is_stale()) {
                        let Ok(_slot) = slots.acquire_owned().await else {
                            return;
                        };
                        let was_running = s.is_running().await;
                        let _ = s.refresh().await;
                        if many && !was_running {
                            s.stop_if_idle().await;
                        }
                    }
                }
            });
            futures_util::future::join_all(fills).await;
        }));
    }

    /// Waits, up to `limit`, for background fills still running — for a search
    /// over all tools. Starts nothing itself.
    pub(crate) async fn wait_for_background_fills(&self, limit: std::time::Duration) {
        let mut rx = self.pending_fills.subscribe();
        let _ = tokio::time::timeout(limit, rx.wait_for(|n| *n == 0)).await;
    }

    /// The exposed tools, rebuilt only when a catalog changed.
    pub(crate) fn index(&self) -> Arc<Index> {
        self.index_with_generation().1
    }

    /// The exposed tools and the catalog generation they were built from:
    /// the generation changes whenever any catalog does, so callers that
    /// cache something derived from the index can key it by that number.
    pub(crate) fn index_with_generation(&self) -> (u64, Arc<Index>) {
        let gen = self.generation.load(Ordering::SeqCst);
        if let Ok(idx) = self.index.read() {
            if idx.0 == gen {
                return (gen, idx.1.clone());
            }
        }
        let built = Arc::new(self.build_index());
        if let Ok(mut idx) = self.index.write() {
            *idx = (gen, built.clone());
        }
        (gen, built)
    }

    fn build_index(&self) -> Index {
        let mut entries: Vec<(usize, CachedTool)> = Vec::new();
        for (i, s) in self.servers.iter().enumerate() {
            let Some(cat) = s.catalog() else { continue };
            for t in cat.tools {
                if self.exposes(i, &t.name) {
                    entries.push((i, t));
                }
            }
        }
        let pairs: Vec<(String, String)> = entries
            .iter()
            .map(|(i, t)| (self.servers[*i].name.clone(), t.name.clone()))
            .collect();
        let names = naming::assign(&pairs);
        for line in naming::collisions(&pairs, &names) {
            self.notices.once(line);
        }
        Index {
            tools: entries
                .into_iter()
                .zip(names)
                .map(|((server, tool), name)| IndexedTool { name, server, tool })
                .collect(),
        }
    }

    /// Each server as the system prompt describes it: its name, what it
    /// says of itself, and the names of its exposed tools (`None` before
    /// its first listing). From the summary file alone, as the deferral
    /// decision is: a new session parses no catalog before its first request.
    pub(crate) fn described(&self) -> Vec<(String, super::About, Option<Vec<String>>)> {
        let summaries = self.summaries();
        let mut pairs: Vec<(String, String)> = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        for (i, sum) in summaries.iter().enumerate() {
            let Some(sum) = sum.as_ref().filter(|s| s.names.len() == s.tools) else {
                continue;
            };
            for n in sum.names.iter().filter(|n| self.exposes(i, n)) {
                pairs.push((self.servers[i].name.clone(), n.clone()));
                owners.push(i);
            }
        }
        let names = naming::assign(&pairs);
        self.servers
            .iter()
            .zip(summaries)
            .enumerate()
            .map(
                |(i, (s, sum))| match sum.filter(|s| s.names.len() == s.tools) {
                    Some(sum) => {
                        let tools = owners
                            .iter()
                            .zip(&names)
                            .filter(|(o, _)| **o == i)
                            .map(|(_, n)| n.clone())
                            .collect();
                        (s.name.clone(), sum.about, Some(tools))
                    }
                    None => (s.name.clone(), super::About::default(), None),
                },
            )
            .collect()
    }

    /// What each server offers the user: its prompts and its resources,
    /// from the catalogs as they stand (cached or listed this run); `None`
    /// for a server not listed yet.
    #[allow(clippy::type_complexity)]
    pub(crate) fn offers(
        &self,
    ) -> Vec<(
        String,
        Option<(Vec<super::CachedPrompt>, Vec<super::CachedResource>)>,
    )> {
        self.servers
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    s.catalog().map(|c| (c.prompts, c.resources)),
                )
            })
            .collect()
    }

    /// Waits, up to `bound`, for the listings servers' `list_changed`
    /// started to end, so what is read next is the catalog they announced.
    pub(crate) async fn settle(&self, bound: std::time::Duration) {
        let until = tokio::time::Instant::now() + bound;
        while self.servers.iter().any(|s| s.listing()) && tokio::time::Instant::now() < until {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    /// Whether server `i`'s `include` / `exclude` let its tool `name` through.
    fn exposes(&self, i: usize, name: &str) -> bool {
        let f = &self.servers[i].entry.tools;
        (f.include.is_empty() || f.include.iter().any(|g| glob_match(g, name)))
            && !f.exclude.iter().any(|g| glob_match(g, name))
    }

    /// Each server's catalog size from the summary file, `None` where it has
    /// no catalog for its current launch config. Reads one small file.
    pub(crate) fn summaries(&self) -> Vec<Option<super::catalog_cache::Summary>> {
        let Some(first) = self.servers.first() else {
            return Vec::new();
        };
        let all = super::catalog_cache::load_summaries(first.cache_dir());
        self.servers
            .iter()
            .map(|s| {
                all.get(&s.name)
                    .filter(|sum| sum.fingerprint == s.fingerprint)
                    .cloned()
            })
            .collect()
    }

    /// Calls a tool by its model-facing name; `None` when no server has it.
    pub async fn call(
        &self,
        name: &str,
        args: serde_json::Value,
        cancel: &CancellationToken,
    ) -> Option<ToolOutput> {
        let idx = self.index();
        let t = idx.get(name)?;
        let server = self.servers[t.server].clone();
        Some(server.call("", &t.tool.name, args, cancel, &|| {}).await)
    }

    /// Loads the catalog of the server a model-facing name belongs to, when
    /// it has none yet: the name may be one of its tools. Starts the server if
    /// need be (that is what a call to it would do), bounded by its start-up
    /// timeout. `None` when no server without a catalog could own the name.
    pub(crate) async fn load_catalog_for(&self, name: &str) -> Option<Result<(), ServerError>> {
        let owners: Vec<&Arc<McpServer>> = self
            .servers
            .iter()
            .filter(|s| crate::call::names::is_of_server(name, &s.name) && s.catalog().is_none())
            .collect();
        if owners.is_empty() {
            return None;
        }
        let loads = owners
            .into_iter()
            .map(|s| async move { s.refresh().await.map(|_| ()) });
        let results = futures_util::future::join_all(loads).await;
        Some(results.into_iter().collect())
    }

    /// Lists every server whose catalog is not known yet — for a name no
    /// server's prefix claims (a bare `echo`), which any of them may hold.
    /// A background fill already starting them is waited for first, then the
    /// servers still not listed are started and listed, a few at a time;
    /// each start and listing is bounded by its server's start-up timeout.
    /// Returns the servers that are still not listed.
    pub(crate) async fn load_unlisted_catalogs(&self) -> Vec<String> {
        let unlisted = || -> Vec<&Arc<McpServer>> {
            self.servers
                .iter()
                .filter(|s| s.catalog().is_none())
                .collect()
        };
        let Some(bound) = unlisted().iter().map(|s| s.startup_timeout()).max() else {
            return Vec::new();
        };
        self.wait_for_background_fills(bound).await;
        let slots = tokio::sync::Semaphore::new(slots_width(&self.servers));
        let loads = unlisted().into_iter().map(|s| {
            let slots = &slots;
            async move {
                let Ok(_slot) = slots.acquire().await else {
                    return;
                };
                if s.catalog().is_none() {
                    let _ = s.refresh().await;
                }
            }
        });
        futures_util::future::join_all(loads).await;
        unlisted().into_iter().map(|s| s.name.clone()).collect()
    }

    /// The servers (indices) whose tools these model-facing names are, in
    /// the order first named, each once.
    pub(crate) fn servers_of<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Vec<usize> {
        let idx = self.index();
        let mut out = Vec::new();
        for n in names {
            if let Some(t) = idx.get(n) {
                if !out.contains(&t.server) {
                    out.push(t.server);
                }
            }
        }
        out
    }

    /// Starts these servers in the background if they are at rest, so the
    /// call a model is about to make finds them ready; a few at a time. A
    /// server started this way and never called is stopped at exit like
    /// any other.
    pub(crate) fn warm(&self, servers: &[usize]) {
        let picked: Vec<Arc<McpServer>> = servers
            .iter()
            .filter_map(|i| self.servers.get(*i).cloned())
            .collect();
        if picked.is_empty() {
            return;
        }
        use std::sync::atomic::Ordering::SeqCst;
        if self.closed.load(SeqCst) {
            return;
        }
        let Ok(mut bg) = self.background.lock() else {
            return;
        };
        bg.retain(|h| !h.is_finished());
        let slots = self.warm_slots.clone();
        let closed = self.closed.clone();
        let all = self.servers.clone();
        bg.push(tokio::spawn(async move {
            let starts = picked.into_iter().map(|s| {
                let (slots, closed, all) = (slots.clone(), closed.clone(), all.clone());
                async move {
                    let Ok(_slot) = slots.acquire_owned().await else {
                        return;
                    };
                    // Guesses never keep more servers up than a fill may
                    // start at once: with many servers, they do not pile up.
                    let width = slots_width(&all);
                    let busy = all.iter().filter(|o| o.busy_now()).count();
                    if closed.load(SeqCst) || busy >= width {
                        return;
                    }
                    s.warm().await;
                }
            });
            futures_util::future::join_all(starts).await;
        }));
    }

    /// (servers started ahead of a call, of which never called) this run.
    /// How many tools each server exposes (its index of `servers()`).
    pub(crate) fn exposed_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.servers.len()];
        for t in &self.index().tools {
            if let Some(n) = counts.get_mut(t.server) {
                *n += 1;
            }
        }
        counts
    }

    /// Each server's state as `/mcp` shows it.
    pub(crate) async fn statuses(&self) -> Vec<ServerStatus> {
        let counts = self.exposed_counts();
        let mut out = Vec::with_capacity(self.servers.len());
        for (s, tools) in self.servers.iter().zip(counts) {
            let (warmed, called) = s.warm_use();
            out.push(ServerStatus {
                name: s.name.clone(),
                tools,
                running: s.is_running().await,
                warmed,
                called,
            });
        }
        out
    }

    pub fn warm_stats(&self) -> (usize, usize) {
        let uses: Vec<(bool, bool)> = self.servers.iter().map(|s| s.warm_use()).collect();
        let warmed = uses.iter().filter(|(w, _)| *w).count();
        let unused = uses.iter().filter(|(w, c)| *w && !*c).count();
        (warmed, unused)
    }

    /// Stops background work and every server process.
    pub async fn shutdown(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Ok(mut bg) = self.background.lock() {
            for h in bg.drain(..) {
                h.abort();
            }
        }
        let stops = self.servers.iter().map(|s| s.shutdown());
        futures_util::future::join_all(stops).await;
    }
}

/// A server as `/mcp` shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ServerStatus {
    pub name: String,
    /// The tools it exposes (its include/exclude applied).
    pub tools: usize,
    pub running: bool,
    /// Started ahead of a call (a warm-up), and whether it was called since.
    pub warmed: bool,
    pub called: bool,
}

/// `[limits] servers_started_at_once`, which every server carries.
fn slots_width(servers: &[Arc<McpServer>]) -> usize {
    servers
        .first()
        .map_or(1, |s| s.entry.limits.servers_started_at_once.max(1))
}
