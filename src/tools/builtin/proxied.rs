//! The shell's proxy of a session (`[tools.shell] network = "allowed"`):
//! its port on the session's loopback and the task serving it, the rules it
//! applies with the session's answers added, what it refused since a
//! command last read it, and the hosts an "always" allowed for this run.

use std::sync::{Arc, Mutex};

#[derive(Default)]
pub(crate) struct Proxied {
    /// Its port on the loopback and the task serving it.
    proxy: Mutex<Option<(u16, tokio::task::JoinHandle<()>)>>,
    /// What it refused since a command last read it.
    refused: Arc<Mutex<Vec<crate::net::Refused>>>,
    /// The rules it applies (its session's answers added).
    rules: Mutex<Option<crate::net::LiveRules>>,
    /// Hosts an "always" answer allowed this run: each session's proxy
    /// starts with them (the config file has them for the next run).
    always: Mutex<Vec<crate::config::HostRule>>,
}

impl Proxied {
    /// The port of the session's loopback the shell's proxy listens on,
    /// started at the first command that needs it: the keeper makes the
    /// socket in the namespace, hermes serves it from outside under
    /// `network`'s rules. Called in the runtime.
    pub(crate) fn proxy(
        &self,
        net: &crate::sandbox::netns::SessionNet,
        network: &crate::config::NetworkSettings,
    ) -> Result<u16, String> {
        let mut p = self
            .proxy
            .lock()
            .map_err(|_| "the proxy's lock is poisoned".to_string())?;
        if let Some((port, _)) = &*p {
            return Ok(*port);
        }
        let why = |e: std::io::Error| format!("no proxy for the commands' network: {e}");
        let listener = net.listener().map_err(why)?;
        let port = listener.local_addr().map_err(why)?.port();
        listener.set_nonblocking(true).map_err(why)?;
        let listener = tokio::net::TcpListener::from_std(listener).map_err(why)?;
        let refused = self.refused.clone();
        let told: crate::net::RefusedSink = Arc::new(move |r| {
            if let Ok(mut v) = refused.lock() {
                if !v.contains(&r) && v.len() < 64 {
                    v.push(r);
                }
            }
        });
        let mut rules = network.clone();
        if let Ok(a) = self.always.lock() {
            rules.allow.extend(a.iter().cloned());
        }
        let rules: crate::net::LiveRules = Arc::new(std::sync::RwLock::new(rules));
        if let Ok(mut r) = self.rules.lock() {
            *r = Some(rules.clone());
        }
        let task = tokio::spawn(crate::net::serve_proxy(listener, rules, told));
        *p = Some((port, task));
        Ok(port)
    }

    /// Lets this session's commands reach what `rules` name (an answer to
    /// a refusal); with `always`, every later session's of this run too.
    pub(crate) fn allow_reach(&self, rules: &[crate::config::HostRule], always: bool) {
        if always {
            if let Ok(mut a) = self.always.lock() {
                a.extend(rules.iter().cloned());
            }
        }
        if let Ok(r) = self.rules.lock() {
            if let Some(live) = &*r {
                if let Ok(mut live) = live.write() {
                    live.allow.extend(rules.iter().cloned());
                }
            }
        }
    }

    /// What the proxy refused since this was last asked.
    pub(crate) fn take_refused(&self) -> Vec<crate::net::Refused> {
        self.refused
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }

    /// The session ends: its proxy stops, its answers go.
    pub(crate) fn end_session(&self) {
        if let Ok(mut p) = self.proxy.lock() {
            if let Some((_, task)) = p.take() {
                task.abort();
            }
        }
        if let Ok(mut r) = self.rules.lock() {
            *r = None;
        }
    }
}
