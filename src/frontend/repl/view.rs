//! What the REPL says of the session around the conversation: the
//! status line under the prompt, how full the window is, and how to come
//! back to a session being left.

use crate::agent::{Agent, EndReason};
use crate::frontend::printer::group;
use crate::frontend::status::Status;

/// The end of a session in the REPL (`reason`: why it ends, for its
/// SessionEnd hooks): one the user never wrote in is not kept (so
/// `--continue` finds the last real conversation); any other is named
/// with the command that reopens it.
pub(super) async fn leave(agent: &mut Agent, reason: EndReason) {
    let left = agent.leave(reason).await;
    for w in &left.warnings {
        errln!("warning: {}", crate::util::sanitize::clean(w));
    }
    if left.kept {
        errln!("resume with: hermes --resume {}", agent.session().id());
    } else if left.asked {
        errln!("no answer came in this session; it is not kept");
    }
}

/// The line under the prompt: the model, the mode, how full its window
/// is, the session — fitted to the width where it is drawn.
pub(super) fn status_line(agent: &Agent) -> Status {
    let context = match agent.context_status() {
        (Some(used), Some(window)) => Some(format!(
            "context {:.0}% of {}",
            used as f64 * 100.0 / window as f64,
            group(window)
        )),
        (None, Some(window)) => Some(format!("context 0% of {}", group(window))),
        (Some(used), None) => Some(format!("context {} tokens", group(used))),
        (None, None) => None,
    };
    let mode = match agent.mode() {
        crate::config::ApprovalMode::Ask => None,
        m => Some(m.name().to_string()),
    };
    Status {
        model: crate::util::sanitize::clean(agent.model()),
        mode,
        context,
        session: agent.session().id().to_string(),
        processes: agent.background().running(),
    }
}

pub(super) use crate::frontend::usage_report::context_line;
