//! `/ps`, `/kill` and `/forward`: the session's background processes as
//! the person sees them — each with its command, running time, the ports
//! it listens on (and where they are forwarded) and its last line.

use std::collections::BTreeMap;

use crate::agent::Agent;
use crate::util::text::excerpt;

/// `/ps`: one line a process.
pub(super) async fn list(agent: &Agent) {
    let bg = agent.background();
    let procs = bg.list();
    if procs.is_empty() {
        errln!("no background processes in this session (a `shell` call with `background: true` starts one).");
        return;
    }
    let forwarded: BTreeMap<u16, u16> = bg.forwarded().into_iter().collect();
    let mut ports: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (port, id) in bg.ports().await {
        let shown = match forwarded.get(&port) {
            Some(h) => format!("{port}→127.0.0.1:{h}"),
            None => port.to_string(),
        };
        ports.entry(id.unwrap_or(0)).or_default().push(shown);
    }
    for p in procs {
        // A short state, so the columns hold: `running`, `exit 4`,
        // `stopped`, `signal 9`.
        let state = match p.ended() {
            None => "running".to_string(),
            Some(e) => match (&e.stopped, e.code, e.signal) {
                (Some(_), ..) => "stopped".into(),
                (None, Some(c), _) => format!("exit {c}"),
                (None, None, Some(s)) => format!("signal {s}"),
                _ => "ended".into(),
            },
        };
        let secs = p.running_for().as_secs();
        let time = format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
        errln!(
            "{:>3}  {:<9} {time}  {}",
            p.id,
            state,
            excerpt(&p.command, 60)
        );
        if let Some(l) = ports.get(&p.id) {
            errln!("       ports {}", l.join(", "));
        }
        let last = p.last_line();
        if !last.is_empty() {
            errln!("       {}", excerpt(&last, 70));
        }
    }
    if let Some(others) = ports.get(&0) {
        errln!("  also listening: {}", others.join(", "));
    }
}

/// `/kill N`: stops process N and everything it started.
pub(super) async fn kill(agent: &Agent, arg: Option<&str>) {
    let bg = agent.background();
    let Some(id) = arg.and_then(|a| a.parse::<u32>().ok()) else {
        errln!("/kill N: the process' number, as /ps lists it.");
        return;
    };
    let Some(p) = bg.get(id) else {
        errln!("no background process {id} in this session (/ps lists them).");
        return;
    };
    if let Some(e) = p.ended() {
        errln!("process {id} already {}.", e.describe());
        return;
    }
    p.kill("/kill");
    match p.wait_ended(std::time::Duration::from_secs(10)).await {
        Some(_) => errln!("process {id} stopped."),
        None => errln!("process {id} is being stopped."),
    }
}

/// `/forward PORT`: the sandbox's port reached from this machine.
pub(super) async fn forward(agent: &Agent, arg: Option<&str>) {
    let Some(port) = arg.and_then(|a| a.parse::<u16>().ok()).filter(|p| *p > 0) else {
        errln!("/forward PORT: a port from 1 to 65535 that a background process listens on (/ps lists them).");
        return;
    };
    match agent.background().forward(port).await {
        Ok(h) => errln!("port {port} of the sandbox is at http://127.0.0.1:{h} on this machine."),
        Err(e) => errln!("cannot forward port {port}: {e}"),
    }
}
