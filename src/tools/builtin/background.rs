//! A session's background processes: a `shell` command started with
//! `background: true` runs on while the conversation goes on — a dev
//! server, a watcher — in the same sandbox a foreground command gets, in
//! the session's own loopback ([`crate::sandbox::netns`]). Its output goes
//! to a ring of 1 MiB that `shell_output` reads; what it writes lands
//! while it runs, through the same review, once a second; it ends with
//! `shell_kill`, its time bound, or its session — never outliving hermes.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// What a session's background processes do, for its front end (the
/// agent makes each an event: `process_started`, …).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Notice {
    Started {
        id: u32,
        command: String,
    },
    Output {
        id: u32,
        text: String,
        dropped: u64,
    },
    Exited {
        id: u32,
        code: Option<i32>,
        signal: Option<i32>,
        stopped: Option<String>,
        dropped: u64,
    },
    PortOpened {
        port: u16,
        id: Option<u32>,
    },
    PortForwarded {
        port: u16,
        host: u16,
    },
    Warning(String),
    /// `web_fetch` read a page (not a background process's, but told the
    /// same way).
    Fetched {
        url: String,
        domain: String,
        status: u16,
        bytes: u64,
    },
}

/// Where notices go; `false`: nobody took it.
pub(crate) type NoticeSink = Box<dyn Fn(Notice) -> bool + Send + Sync>;
use crate::config::ForwardPorts;
use crate::sandbox::{Changes, Stage};

/// Bytes of output a process keeps for `shell_output`.
const RING: usize = 1 << 20;
/// How often a running process' writes are landed (and ports looked at).
const LOOK_EVERY: Duration = Duration::from_secs(1);
/// After the process exits, how long output may still come from what it
/// left holding the pipe.
const AFTER_EXIT: Duration = Duration::from_millis(200);

/// How a background process ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ended {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// hermes ended it: `shell_kill`, its time bound, its session.
    pub stopped: Option<String>,
    pub ran: Duration,
}

impl Ended {
    pub(crate) fn describe(&self) -> String {
        ended_how(self.code, self.signal, self.stopped.as_deref())
    }
}

/// How a process ended, as every front end says it: `exited with code
/// 3`, `killed by signal 9`, `stopped (shell_kill)`.
pub(crate) fn ended_how(code: Option<i32>, signal: Option<i32>, stopped: Option<&str>) -> String {
    match (stopped, code, signal) {
        (Some(why), ..) => format!("stopped ({why})"),
        (None, Some(c), _) => format!("exited with code {c}"),
        (None, None, Some(s)) => format!("killed by signal {s}"),
        _ => "ended".into(),
    }
}

/// The last `RING` bytes a process wrote, and how far `shell_output` read.
#[derive(Default)]
struct Ring {
    bytes: VecDeque<u8>,
    /// Bytes ever written.
    total: u64,
    /// Where the last read ended.
    read: u64,
}

impl Ring {
    fn push(&mut self, b: &[u8]) {
        self.bytes.extend(b);
        self.total += b.len() as u64;
        let over = self.bytes.len().saturating_sub(RING);
        self.bytes.drain(..over);
    }

    fn start(&self) -> u64 {
        self.total - self.bytes.len() as u64
    }

    /// What was written since the last read, and how many bytes of it
    /// the ring no longer holds; without moving the mark.
    fn unread(&self) -> (String, u64) {
        let from = self.read.max(self.start());
        let skip = (from - self.start()) as usize;
        let (a, b) = self.bytes.as_slices();
        let mut v = Vec::with_capacity(self.bytes.len() - skip);
        if skip < a.len() {
            v.extend_from_slice(&a[skip..]);
            v.extend_from_slice(b);
        } else {
            v.extend_from_slice(&b[skip - a.len()..]);
        }
        (
            String::from_utf8_lossy(&v).into_owned(),
            from.saturating_sub(self.read),
        )
    }

    fn mark_read(&mut self) {
        self.read = self.total;
    }

    fn last_line(&self) -> String {
        let tail: Vec<u8> = self.bytes.iter().rev().take(4096).rev().copied().collect();
        let text = String::from_utf8_lossy(&tail);
        text.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string()
    }
}

/// What a process' landings did since its changes were last reported.
#[derive(Default)]
struct Report {
    landed: Changes,
    /// What its layer holds that the review holds back: path → why.
    held: BTreeMap<std::path::PathBuf, String>,
    /// After it ended: its layer, while something in it is held back,
    /// and the changes of its last landing — for the person to be asked.
    last: Option<(Changes, Stage)>,
    /// After it ended, where it ran without overlays (Landlock only): what
    /// changed in the writable folders while it ran, landed as made.
    unreviewed: Option<Changes>,
}

/// One background process.
pub(crate) struct Proc {
    pub(crate) id: u32,
    pub(crate) command: String,
    started: Instant,
    /// The helper's pid: the leader of its group, the root of its tree.
    pid: u32,
    out: Mutex<Ring>,
    written: watch::Sender<u64>,
    end: watch::Sender<Option<Ended>>,
    stop: CancellationToken,
    /// Why hermes stopped it, once it did.
    stop_why: Mutex<Option<String>>,
    report: Mutex<Report>,
}

impl Proc {
    pub(crate) fn ended(&self) -> Option<Ended> {
        self.end.borrow().clone()
    }

    pub(crate) fn running_for(&self) -> Duration {
        match self.ended() {
            Some(e) => e.ran,
            None => self.started.elapsed(),
        }
    }

    pub(crate) fn last_line(&self) -> String {
        self.out.lock().map(|o| o.last_line()).unwrap_or_default()
    }

    /// Its output since the last read (marked read), and the bytes of it
    /// that were dropped.
    pub(crate) fn take_output(&self) -> (String, u64) {
        let Ok(mut o) = self.out.lock() else {
            return (String::new(), 0);
        };
        let got = o.unread();
        o.mark_read();
        got
    }

    fn unread_text(&self) -> String {
        self.out.lock().map(|o| o.unread().0).unwrap_or_default()
    }

    /// Asks it to end: its whole tree is killed, then what it wrote last
    /// is landed.
    pub(crate) fn kill(&self, why: &str) {
        if let Ok(mut w) = self.stop_why.lock() {
            w.get_or_insert_with(|| why.to_string());
        }
        self.stop.cancel();
    }

    /// Waits until it has ended (after [`Proc::kill`]), at most `within`.
    pub(crate) async fn wait_ended(&self, within: Duration) -> Option<Ended> {
        let mut rx = self.end.subscribe();
        let _ = tokio::time::timeout(within, rx.wait_for(|e| e.is_some())).await;
        self.ended()
    }

    /// What its landings did since the last call: the changes that landed,
    /// what is held, and — once it ended — its layer if something there
    /// waits for the person.
    pub(crate) fn take_report(&self) -> Taken {
        let Ok(mut r) = self.report.lock() else {
            return Taken::default();
        };
        Taken {
            landed: std::mem::take(&mut r.landed),
            held: r.held.iter().map(|(p, w)| (p.clone(), w.clone())).collect(),
            last: r.last.take(),
            unreviewed: r.unreviewed.take(),
        }
    }
}

/// What a process' landings did since it was last asked.
#[derive(Default)]
pub(crate) struct Taken {
    /// What landed.
    pub landed: Changes,
    /// What its layer holds that is held back, with why.
    pub held: Vec<(std::path::PathBuf, String)>,
    /// Once it ended with something held: the held changes and its layer.
    pub last: Option<(Changes, Stage)>,
    /// Once it ended, run without overlays: what changed, unreviewed.
    pub unreviewed: Option<Changes>,
}

/// How a process' writes are seen: through its overlay while it runs, or
/// (Landlock only) by the writable folders' metadata before and after.
pub(super) enum Seeing {
    Nothing,
    Staged(Stage),
    Snapshot(crate::sandbox::Snapshot),
}

/// What a process waits for before `shell` or `shell_output` answers.
pub(crate) enum Until {
    /// Nothing: answer at once.
    Now,
    /// Its end, within the timeout.
    End,
    Port(u16),
    Output(regex::Regex),
}

/// How a wait ended.
#[derive(Debug, PartialEq)]
pub(crate) enum Waited {
    Met,
    Ended,
    TimedOut,
    Stopped,
}

/// The rooms a process' landings need: the rules' inputs and the store.
#[derive(Clone)]
pub(super) struct Landing {
    pub control: super::control::ControlPaths,
    pub project: std::path::PathBuf,
    pub keep: Option<crate::sandbox::kept::Keep>,
}

/// The loopback of the session, once asked for.
enum Net {
    NotYet,
    Up(Arc<crate::sandbox::netns::SessionNet>),
    Failed(String),
}

/// A port of the session's loopback reached from this machine's.
struct Forward {
    host: u16,
    task: tokio::task::JoinHandle<()>,
}

/// A session's background processes, its loopback and its forwards.
pub(crate) struct Background {
    procs: Mutex<(u32, BTreeMap<u32, Arc<Proc>>)>,
    events: Mutex<Option<NoticeSink>>,
    /// A front end waiting at its prompt, between turns: notices go there,
    /// to be shown at once rather than at the next turn.
    idle: Mutex<Option<NoticeSink>>,
    net: Mutex<Net>,
    forwards: Mutex<BTreeMap<u16, Forward>>,
    /// Ports already seen listening (offered, forwarded or left).
    ports_seen: Mutex<BTreeSet<u16>>,
    forward: Mutex<ForwardPorts>,
    /// A task looks at the ports while processes run.
    watching: std::sync::atomic::AtomicBool,
    /// The shell's proxy on that loopback, and what it refused.
    pub(crate) proxied: super::proxied::Proxied,
}

impl Default for Background {
    fn default() -> Background {
        Background {
            procs: Mutex::new((1, BTreeMap::new())),
            events: Mutex::new(None),
            idle: Mutex::new(None),
            net: Mutex::new(Net::NotYet),
            proxied: Default::default(),
            forwards: Mutex::new(BTreeMap::new()),
            ports_seen: Mutex::new(BTreeSet::new()),
            forward: Mutex::new(ForwardPorts::Ask),
            watching: Default::default(),
        }
    }
}

impl Background {
    /// Where its notices go (the first agent's: the run's front end).
    pub(crate) fn set_events(&self, sink: NoticeSink) {
        if let Ok(mut e) = self.events.lock() {
            e.get_or_insert(sink);
        }
    }

    /// How ports are forwarded; `Ask` becomes `Never` where nobody answers.
    pub(crate) fn set_forwarding(&self, f: ForwardPorts) {
        if let Ok(mut g) = self.forward.lock() {
            *g = f;
        }
    }

    /// Tells the front end what `shell_output` read (`process_output`).
    pub(crate) fn say_output(&self, id: u32, text: &str, dropped: u64) {
        if !text.is_empty() || dropped > 0 {
            self.emit(Notice::Output {
                id,
                text: text.to_string(),
                dropped,
            });
        }
    }

    /// Where notices go while no turn runs (`None`: a turn runs, and they
    /// go with its events again).
    pub(crate) fn listen_idle(&self, sink: Option<NoticeSink>) {
        if let Ok(mut i) = self.idle.lock() {
            *i = sink;
        }
    }

    pub(crate) fn notify(&self, n: Notice) {
        self.emit(n)
    }

    fn emit(&self, n: Notice) {
        if let Ok(idle) = self.idle.lock() {
            if idle.as_ref().is_some_and(|s| s(n.clone())) {
                return;
            }
        }
        if let Ok(e) = self.events.lock() {
            if let Some(sink) = e.as_ref() {
                sink(n);
            }
        }
    }

    /// The session's loopback: made at the first command that joins it.
    /// `Err`: why there is none (said once by the caller).
    pub(crate) fn loopback(&self) -> Result<Arc<crate::sandbox::netns::SessionNet>, String> {
        let Ok(mut n) = self.net.lock() else {
            return Err("the loopback's lock is poisoned".into());
        };
        if let Net::NotYet = *n {
            *n = match crate::sandbox::helper_exe()
                .ok_or_else(|| "no hermes binary to start its keeper from".to_string())
                .and_then(|exe| crate::sandbox::netns::SessionNet::start(&exe))
            {
                Ok(s) => Net::Up(Arc::new(s)),
                Err(e) => Net::Failed(e),
            };
        }
        match &*n {
            Net::Up(s) => Ok(s.clone()),
            Net::Failed(e) => Err(e.clone()),
            Net::NotYet => Err("not made".into()),
        }
    }

    fn net(&self) -> Option<Arc<crate::sandbox::netns::SessionNet>> {
        match &*self.net.lock().ok()? {
            Net::Up(s) => Some(s.clone()),
            _ => None,
        }
    }

    /// The processes, in order.
    pub(crate) fn list(&self) -> Vec<Arc<Proc>> {
        self.procs
            .lock()
            .map(|p| p.1.values().cloned().collect())
            .unwrap_or_default()
    }

    pub(crate) fn running(&self) -> usize {
        self.list().iter().filter(|p| p.ended().is_none()).count()
    }

    pub(crate) fn get(&self, id: u32) -> Option<Arc<Proc>> {
        self.procs.lock().ok()?.1.get(&id).cloned()
    }

    /// The ports forwarded: (port in the sandbox, port on this machine).
    pub(crate) fn forwarded(&self) -> Vec<(u16, u16)> {
        self.forwards
            .lock()
            .map(|f| f.iter().map(|(p, f)| (*p, f.host)).collect())
            .unwrap_or_default()
    }

    /// Stops every running process and waits (at most `within` each) until
    /// each has ended and said so: a one-shot run's `process_exited`
    /// events come before its summary.
    pub(crate) async fn stop_all(&self, why: &str, within: Duration) {
        let running: Vec<Arc<Proc>> = self
            .list()
            .into_iter()
            .filter(|p| p.ended().is_none())
            .collect();
        for p in &running {
            p.kill(why);
        }
        for p in &running {
            p.wait_ended(within).await;
        }
    }

    /// The session ends (`/new`, `/resume`, the end of the run): every
    /// process is killed with its tree, every forward closed, the loopback
    /// let go (the next session gets its own).
    pub(crate) fn end_session(&self) {
        let procs = match self.procs.lock() {
            Ok(mut p) => std::mem::take(&mut p.1),
            Err(_) => BTreeMap::new(),
        };
        for p in procs.values() {
            p.kill("its session ended");
            crate::util::groups::kill_now(p.pid);
        }
        if let Ok(mut f) = self.forwards.lock() {
            for (_, fw) in std::mem::take(&mut *f) {
                fw.task.abort();
            }
        }
        if let Ok(mut s) = self.ports_seen.lock() {
            s.clear();
        }
        self.proxied.end_session();
        if let Ok(mut n) = self.net.lock() {
            *n = Net::NotYet;
        }
    }

    /// Starts `cmd` (the sandboxed command, or the plain one with the
    /// sandbox off) as process N.
    pub(super) fn start(
        self: &Arc<Self>,
        command: &str,
        cmd: tokio::process::Command,
        dir: &std::path::Path,
        seeing: Seeing,
        landing: Landing,
        max: Duration,
    ) -> Result<Arc<Proc>, String> {
        let limit = crate::config::defaults::BACKGROUND_MAX;
        if self.running() >= limit {
            return Err(format!(
                "{limit} background processes are running in this session, the most it may \
                 have; stop one with shell_kill (its id from the list /ps shows) first"
            ));
        }
        let running = super::process::start(cmd, dir, super::process::shell_path())?;
        let (child, reader, group) = running.into_parts();
        let pid = child.id().unwrap_or(0);
        let p = {
            let Ok(mut procs) = self.procs.lock() else {
                return Err("the process list's lock is poisoned".into());
            };
            let id = procs.0;
            procs.0 += 1;
            let p = Arc::new(Proc {
                id,
                command: command.to_string(),
                started: Instant::now(),
                pid,
                out: Mutex::new(Ring::default()),
                written: watch::channel(0).0,
                end: watch::channel(None).0,
                stop: CancellationToken::new(),
                stop_why: Mutex::new(None),
                report: Mutex::new(Report::default()),
            });
            procs.1.insert(id, p.clone());
            p
        };
        self.emit(Notice::Started {
            id: p.id,
            command: command.to_string(),
        });
        tokio::spawn(drive(
            Arc::downgrade(self),
            p.clone(),
            child,
            reader,
            group,
            seeing,
            landing,
            max,
        ));
        self.watch_ports();
        Ok(p)
    }

    /// Waits for `until` on `p`, at most `within`, or until `cancel`.
    pub(crate) async fn wait(
        &self,
        p: &Proc,
        until: &Until,
        within: Duration,
        cancel: &CancellationToken,
    ) -> Waited {
        let deadline = tokio::time::Instant::now() + within;
        let mut written = p.written.subscribe();
        let mut end = p.end.subscribe();
        loop {
            let met = match until {
                Until::Now => true,
                Until::End => false,
                Until::Output(re) => re.is_match(&p.unread_text()),
                Until::Port(port) => self.port_open(*port).await,
            };
            if met {
                return Waited::Met;
            }
            if p.ended().is_some() {
                return Waited::Ended;
            }
            let poll = match until {
                Until::Port(_) => Duration::from_millis(50),
                _ => Duration::from_secs(3600),
            };
            tokio::select! {
                biased;
                _ = cancel.cancelled() => return Waited::Stopped,
                _ = tokio::time::sleep_until(deadline) => return Waited::TimedOut,
                _ = end.changed() => {}
                _ = written.changed() => {}
                _ = tokio::time::sleep(poll) => {}
            }
        }
    }

    /// Whether `port` accepts connections where the session's commands
    /// listen: its loopback, or the host's when commands have the network.
    async fn port_open(&self, port: u16) -> bool {
        match self.net() {
            Some(net) => tokio::task::spawn_blocking(move || net.connect(port).is_ok())
                .await
                .unwrap_or(false),
            None => tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok(),
        }
    }

    /// The ports the session's loopback listens on, each with the process
    /// whose tree holds its socket (when one can be told).
    pub(crate) async fn ports(&self) -> Vec<(u16, Option<u32>)> {
        let Some(net) = self.net() else {
            return Vec::new();
        };
        let procs = self.list();
        tokio::task::spawn_blocking(move || {
            let listening = net.listening().unwrap_or_default();
            let owners: Vec<(u32, BTreeSet<u64>)> = procs
                .iter()
                .filter(|p| p.ended().is_none())
                .map(|p| (p.id, sockets_of_tree(p.pid)))
                .collect();
            listening
                .into_iter()
                .map(|l| {
                    let who = owners
                        .iter()
                        .find(|(_, s)| s.contains(&l.inode))
                        .map(|(id, _)| *id);
                    (l.port, who)
                })
                .collect()
        })
        .await
        .unwrap_or_default()
    }

    /// Forwards `port` of the session's loopback to this machine's (the
    /// same number when it is free, else one the system picks): the port
    /// on this machine.
    pub(crate) async fn forward(self: &Arc<Self>, port: u16) -> Result<u16, String> {
        if let Some(host) = self.forwarded().iter().find(|f| f.0 == port).map(|f| f.1) {
            return Ok(host);
        }
        let net = self.net().ok_or_else(|| {
            "the sandbox has no loopback of its own in this session (its commands use this \
             machine's network, or none has run)"
                .to_string()
        })?;
        let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => l,
            Err(_) => tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .map_err(|e| format!("cannot listen on this machine's loopback: {e}"))?,
        };
        let host = listener
            .local_addr()
            .map_err(|e| format!("cannot listen: {e}"))?
            .port();
        let task = tokio::spawn(async move {
            while let Ok((mut outside, _)) = listener.accept().await {
                let net = net.clone();
                tokio::spawn(async move {
                    let Ok(Ok(inside)) =
                        tokio::task::spawn_blocking(move || net.connect(port)).await
                    else {
                        return;
                    };
                    if inside.set_nonblocking(true).is_err() {
                        return;
                    }
                    let Ok(mut inside) = tokio::net::TcpStream::from_std(inside) else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut outside, &mut inside).await;
                });
            }
        });
        if let Ok(mut f) = self.forwards.lock() {
            f.insert(port, Forward { host, task });
        }
        self.emit(Notice::PortForwarded { port, host });
        Ok(host)
    }

    /// While processes run, looks once a second for ports newly listened
    /// on: forwarded (`always`) or offered (`ask`).
    fn watch_ports(self: &Arc<Self>) {
        use std::sync::atomic::Ordering;
        if self.watching.swap(true, Ordering::SeqCst) {
            return;
        }
        let bg = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(LOOK_EVERY).await;
                let Some(bg) = bg.upgrade() else { return };
                if bg.running() == 0 {
                    bg.watching.store(false, Ordering::SeqCst);
                    return;
                }
                let how = bg.forward.lock().map(|f| *f).unwrap_or(ForwardPorts::Never);
                if how == ForwardPorts::Never || bg.net().is_none() {
                    continue;
                }
                for (port, id) in bg.ports().await {
                    let new = bg.ports_seen.lock().is_ok_and(|mut s| s.insert(port));
                    if !new {
                        continue;
                    }
                    match how {
                        ForwardPorts::Always => {
                            if let Err(e) = bg.forward(port).await {
                                bg.emit(Notice::Warning(format!(
                                    "cannot forward port {port}: {e}"
                                )));
                            }
                        }
                        _ => bg.emit(Notice::PortOpened { port, id }),
                    }
                }
            }
        });
    }
}

/// Drives one process: its output into the ring, its writes landed once a
/// second, its end — however it comes — recorded, its last writes landed.
#[allow(clippy::too_many_arguments)]
async fn drive(
    bg: Weak<Background>,
    p: Arc<Proc>,
    mut child: tokio::process::Child,
    mut reader: tokio::net::unix::pipe::Receiver,
    group: crate::util::groups::Owned,
    seeing: Seeing,
    landing: Landing,
    max: Duration,
) {
    let (stage, snapshot) = match seeing {
        Seeing::Staged(s) => (Some(Arc::new(s)), None),
        Seeing::Snapshot(s) => (None, Some(s)),
        Seeing::Nothing => (None, None),
    };
    let seen = Arc::new(Mutex::new(crate::sandbox::Seen::default()));
    let mut look = tokio::time::interval(LOOK_EVERY);
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    look.tick().await;
    let deadline = tokio::time::sleep(max);
    tokio::pin!(deadline);
    let after_exit = tokio::time::sleep(Duration::from_secs(3600));
    tokio::pin!(after_exit);
    let mut buf = vec![0u8; 16 * 1024];
    let (mut eof, mut status) = (false, None);
    loop {
        if eof && status.is_some() {
            break;
        }
        tokio::select! {
            biased;
            _ = p.stop.cancelled() => break,
            _ = &mut deadline => {
                p.kill(&format!(
                    "it ran for [tools.shell] background_max_s, {} s",
                    max.as_secs()
                ));
                break;
            }
            r = reader.read(&mut buf), if !eof => match r {
                Ok(0) | Err(_) => eof = true,
                Ok(n) => {
                    if let Ok(mut o) = p.out.lock() {
                        o.push(&buf[..n]);
                        p.written.send_replace(o.total);
                    }
                }
            },
            s = child.wait(), if status.is_none() => {
                status = Some(s.ok());
                after_exit.as_mut().reset(tokio::time::Instant::now() + AFTER_EXIT);
            }
            _ = &mut after_exit, if status.is_some() && !eof => eof = true,
            _ = look.tick(), if stage.is_some() => {
                if let Some(stage) = &stage {
                    land(&p, stage.clone(), seen.clone(), &landing, false).await;
                }
            }
        }
    }
    drop(group);
    let status = match status {
        Some(s) => s,
        None => child.wait().await.ok(),
    };
    let stopped = p.stop_why.lock().ok().and_then(|w| w.clone());
    let ended = Ended {
        code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)),
        stopped,
        ran: p.started.elapsed(),
    };
    if let Some(stage) = stage {
        land(&p, stage.clone(), seen, &landing, true).await;
        // The layer waits for the person only while something there is held.
        drop(stage);
    }
    if let Some(snap) = snapshot {
        let l = landing.clone();
        let seen = tokio::task::spawn_blocking(move || {
            let control = l.control.clone();
            let why = move |path: &std::path::Path| control.why(path);
            let rules = crate::sandbox::held::Held::for_this_process(&why, &l.project);
            snap.changes(&rules)
        })
        .await;
        if let (Ok(changes), Ok(mut r)) = (seen, p.report.lock()) {
            r.unreviewed = Some(changes);
        }
    }
    let dropped = p.out.lock().map(|o| o.start()).unwrap_or(0);
    p.end.send_replace(Some(ended.clone()));
    if let Some(bg) = bg.upgrade() {
        bg.emit(Notice::Exited {
            id: p.id,
            code: ended.code,
            signal: ended.signal,
            stopped: ended.stopped.clone(),
            dropped,
        });
    }
}

/// One landing of what `p` wrote, off the runtime. `last`: it has ended —
/// what is held waits in its layer for the person.
async fn land(
    p: &Arc<Proc>,
    stage: Arc<Stage>,
    seen: Arc<Mutex<crate::sandbox::Seen>>,
    landing: &Landing,
    last: bool,
) {
    let landing = landing.clone();
    let done = tokio::task::spawn_blocking(move || {
        let control = landing.control.clone();
        let why = move |path: &std::path::Path| control.why(path);
        let rules = crate::sandbox::held::Held::for_this_process(&why, &landing.project);
        let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
        let changes = stage.land_running(&rules, landing.keep.as_ref(), &mut seen);
        (changes, stage)
    })
    .await;
    let Ok((changes, stage)) = done else { return };
    let Ok(mut r) = p.report.lock() else { return };
    r.held = changes
        .held()
        .map(|f| (f.path.clone(), f.held.clone().unwrap_or_default()))
        .collect();
    r.landed
        .files
        .extend(changes.files.iter().filter(|f| f.held.is_none()).cloned());
    r.landed.failed.extend(changes.failed.iter().cloned());
    r.landed
        .made_folders
        .extend(changes.made_folders.iter().cloned());
    r.landed
        .kept_folders
        .extend(changes.kept_folders.iter().cloned());
    if last && !r.held.is_empty() {
        if let Ok(stage) = Arc::try_unwrap(stage) {
            let mut held = changes;
            held.files.retain(|f| f.held.is_some());
            r.last = Some((held, stage));
        }
    }
}

/// The socket inodes every process of the tree under `root` holds.
fn sockets_of_tree(root: u32) -> BTreeSet<u64> {
    let mut parent: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let ppid = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| s.rsplit_once(") ")?.1.split(' ').nth(1)?.parse().ok());
            if let Some(pp) = ppid {
                parent.push((pid, pp));
            }
        }
    }
    let mut tree = BTreeSet::from([root]);
    loop {
        let n = tree.len();
        for (pid, pp) in &parent {
            if tree.contains(pp) {
                tree.insert(*pid);
            }
        }
        if tree.len() == n {
            break;
        }
    }
    let mut out = BTreeSet::new();
    for pid in tree {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                let l = link.to_string_lossy();
                if let Some(n) = l
                    .strip_prefix("socket:[")
                    .and_then(|r| r.strip_suffix(']'))
                    .and_then(|n| n.parse().ok())
                {
                    out.insert(n);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_last_mebibyte_and_counts_what_a_read_missed() {
        let mut r = Ring::default();
        r.push(b"hello\n");
        assert_eq!(r.unread(), ("hello\n".to_string(), 0));
        r.mark_read();
        assert_eq!(r.unread(), (String::new(), 0));
        r.push(&vec![b'x'; RING]);
        r.push(b"\nlast line\n");
        let (text, dropped) = r.unread();
        assert_eq!(dropped, 11);
        assert!(
            text.ends_with("\nlast line\n"),
            "{}",
            &text[text.len() - 20..]
        );
        assert_eq!(text.len(), RING);
        assert_eq!(r.last_line(), "last line");
    }
}
