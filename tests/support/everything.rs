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

/// A port free on 127.0.0.1 now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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
        let child = Command::new(binary())
            .arg(mode)
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let up = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
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
