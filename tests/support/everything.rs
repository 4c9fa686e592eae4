//! The reference MCP server, server-everything (npm, installed by
//! `scripts/install-test-servers`), serving HTTP on a port of its own: for
//! the remote-server tests and benchmarks. Standalone (benches include it
//! by path), killed when dropped.

// Each bench that includes this uses part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Everything {
    child: Child,
    pub port: u16,
}

/// Where server-everything is installed; a missing one fails loudly (CI
/// must run these, not skip them).
pub fn binary() -> PathBuf {
    let root = crate::test_servers();
    let bin = root.join("npm/node_modules/.bin/mcp-server-everything");
    assert!(
        bin.exists(),
        "server-everything is not installed under {}: run ./scripts/install-test-servers",
        root.display()
    );
    bin
}

/// A port free on 127.0.0.1 now, and below the kernel's ephemeral range: a
/// server that takes seconds to start (LiteLLM imports for ten) must not
/// find its port taken by the next outgoing connection of a test running
/// beside it, which `bind(:0)` ports share the range with. Tests picking at
/// once differ by the process id and a counter; a port found taken is
/// skipped.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let low = ephemeral_low().clamp(12_000, 60_000);
    let span = low - 10_000;
    let seed = std::process::id().wrapping_mul(2_654_435_761).wrapping_add(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos()),
    );
    for _ in 0..span {
        let n = NEXT.fetch_add(7_919, Ordering::Relaxed);
        let port = 10_000 + seed.wrapping_add(n) % span;
        if std::net::TcpListener::bind(("127.0.0.1", port as u16)).is_ok() {
            return port as u16;
        }
    }
    panic!("no free port on 127.0.0.1 between 10000 and {low}")
}

/// The first port of the kernel's ephemeral range (32768 when unreadable).
fn ephemeral_low() -> u32 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

impl Everything {
    /// Streamable HTTP at `/mcp`.
    pub fn start() -> Everything {
        Everything::serving("streamableHttp")
    }

    /// In `mode`: `streamableHttp`, or `sse` for the legacy HTTP+SSE
    /// transport of MCP 2024-11-05 (GET /sse, POST /message).
    pub fn serving(mode: &str) -> Everything {
        Everything::on(free_port(), mode)
    }

    /// In `mode` on `port`, once it listens.
    pub fn on(port: u16, mode: &str) -> Everything {
        let mut child = Command::new(binary())
            .arg(mode)
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let up = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            // One that exits (its port taken) must not be taken for up.
            if let Ok(Some(status)) = child.try_wait() {
                panic!("server-everything exited ({status}) before it listened on {port}");
            }
            assert!(
                up.elapsed() < Duration::from_secs(20),
                "server-everything did not listen on {port} within 20 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Everything { child, port }
    }

    /// The server goes away, as a host does.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for Everything {
    fn drop(&mut self) {
        self.kill();
    }
}
