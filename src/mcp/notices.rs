//! Where an MCP server's non-fatal trouble goes: a catalog cache that cannot
//! be written, tool names that collide once cleaned. Each is said once a
//! run, to the front end's warnings once there is one (a run), else on
//! stderr (a command such as `hermes mcp test`).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

pub(crate) type NoticeFn = Arc<dyn Fn(String) + Send + Sync>;

#[derive(Clone, Default)]
pub(crate) struct Notices(Arc<Mutex<State>>);

#[derive(Default)]
struct State {
    sink: Option<NoticeFn>,
    said: HashSet<String>,
}

impl Notices {
    pub(crate) fn set(&self, f: NoticeFn) {
        if let Ok(mut s) = self.0.lock() {
            s.sink = Some(f);
        }
    }

    /// Says `message`, unless this run said it already.
    pub(crate) fn once(&self, message: String) {
        let Ok(mut s) = self.0.lock() else { return };
        if !s.said.insert(message.clone()) {
            return;
        }
        match s.sink.clone() {
            Some(f) => {
                drop(s);
                f(message)
            }
            None => {
                drop(s);
                crate::util::stderr::warn(&message)
            }
        }
    }
}
