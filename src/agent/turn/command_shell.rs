//! The `` !`command` `` of a custom slash command: run before the prompt
//! is sent, as a `shell` call down the ordinary tool path — its hooks, its
//! approval (asked like any call), its sandbox — but recorded nowhere: its
//! output becomes part of the prompt, which the session records.

use tokio_util::sync::CancellationToken;

use super::super::core::Agent;
use crate::model::ToolCall;

impl Agent {
    /// The command's output, or why it did not run.
    pub(crate) async fn run_command_shell(
        &self,
        command: &str,
        cancel: &CancellationToken,
    ) -> Result<String, String> {
        if !self.tools.has_builtin("shell") {
            return Err(
                "the shell tool is off ([tools] builtin), so `!` commands cannot run".into(),
            );
        }
        let call = ToolCall {
            id: format!("call_cmd{:024x}", stable_id(command)),
            name: "shell".into(),
            arguments: serde_json::json!({ "command": command }).to_string(),
        };
        let out = crate::agent::tool_round::run_alone(
            &self.tools,
            &self.policy,
            &self.events,
            self.hook_ctx(),
            &call,
            cancel,
        )
        .await;
        if out.is_error {
            Err(out.content)
        } else {
            Ok(out.content)
        }
    }
}

/// An id for the call, the same for the same command (nothing depends on
/// it but hooks' `tool_use_id`).
fn stable_id(command: &str) -> u128 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    command.hash(&mut h);
    h.finish() as u128
}
