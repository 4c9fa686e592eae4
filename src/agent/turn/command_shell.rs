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
            Ok(output_only(&out.content))
        }
    }
}

/// What the command printed, as Claude Code puts it in the prompt: without
/// the `[exit code 0]` and `[files changed: …]` lines a `shell` result ends
/// with for the model, and nothing for no output.
fn output_only(content: &str) -> String {
    let body = match content.rfind("[exit code ") {
        Some(at) if at == 0 || content[..at].ends_with('\n') => &content[..at],
        _ => content,
    };
    if body.trim() == "(no output)" {
        return String::new();
    }
    body.to_string()
}

/// An id for the call, the same for the same command (nothing depends on
/// it but hooks' `tool_use_id`).
fn stable_id(command: &str) -> u128 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    command.hash(&mut h);
    h.finish() as u128
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_commands_output_comes_without_the_results_notes() {
        assert_eq!(
            super::output_only(
                "On branch main\n[exit code 0]\n[files changed: modified .git/index]"
            ),
            "On branch main\n"
        );
        assert_eq!(super::output_only("(no output)\n[exit code 0]"), "");
        assert_eq!(
            super::output_only("a [exit code 3] in the text\n"),
            "a [exit code 3] in the text\n"
        );
    }
}
