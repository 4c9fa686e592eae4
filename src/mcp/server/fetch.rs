//! What the user takes from a server into a message: a prompt
//! (`prompts/get`) or a resource (`resources/read`), as text. Each goes
//! through the server's gate like a tool call (a serial server is asked one
//! thing at a time), starts it on need, and is bounded by its tool timeout
//! and by the user's stop.

use std::sync::Arc;

use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, Role};
use tokio_util::sync::CancellationToken;

use super::super::result;
use super::McpServer;
use crate::mcp::error::FetchError;

impl McpServer {
    /// The prompt `name` with `arguments`, its messages as one text: the
    /// user's words as they are, the assistant's (a prompt may hold an
    /// example answer) marked as such.
    pub(crate) async fn prompt(
        self: &Arc<Self>,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        cancel: &CancellationToken,
    ) -> Result<String, FetchError> {
        let params = GetPromptRequestParams::new(name).with_arguments(arguments);
        let got = self
            .request("prompts/get", cancel, |peer| async move {
                peer.get_prompt(params).await
            })
            .await?;
        let only_user = got.messages.iter().all(|m| m.role == Role::User);
        let parts: Vec<String> = got
            .messages
            .into_iter()
            .map(|m| {
                let text = result::block_text(m.content);
                match (only_user, m.role) {
                    (true, _) => text,
                    (false, Role::User) => format!("User: {text}"),
                    (false, _) => format!("Assistant: {text}"),
                }
            })
            .collect();
        Ok(parts.join("\n\n"))
    }

    /// The resource at `uri` as text (binary parts as a line saying what
    /// was left out).
    pub(crate) async fn resource(
        self: &Arc<Self>,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<String, FetchError> {
        let params = ReadResourceRequestParams::new(uri);
        let read = self
            .request("resources/read", cancel, |peer| async move {
                peer.read_resource(params).await
            })
            .await?;
        let parts: Vec<String> = read
            .contents
            .into_iter()
            .map(result::resource_text)
            .collect();
        Ok(parts.join("\n"))
    }

    /// One request to the server, through its gate, bounded.
    async fn request<T, F>(
        self: &Arc<Self>,
        method: &'static str,
        cancel: &CancellationToken,
        send: impl FnOnce(rmcp::Peer<rmcp::RoleClient>) -> F,
    ) -> Result<T, FetchError>
    where
        F: std::future::Future<Output = Result<T, rmcp::ServiceError>>,
    {
        let stopped = || FetchError::Cancelled(self.name.clone());
        let _permit = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(stopped()),
            p = self.gate.clone().acquire_owned() => p.map_err(|_| stopped())?,
        };
        let conn = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(stopped()),
            c = self.ensure_running() => c?,
        };
        let timeout = self.tool_timeout();
        let sent = tokio::time::timeout(timeout, send(conn.service.peer().clone()));
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(stopped()),
            r = sent => match r {
                Err(_) => Err(FetchError::Timeout {
                    server: self.name.clone(),
                    method,
                    ms: timeout.as_millis(),
                }),
                Ok(Err(e)) => Err(FetchError::Refused {
                    server: self.name.clone(),
                    method,
                    detail: crate::util::text::excerpt(&e.to_string(), 300),
                }),
                Ok(Ok(v)) => Ok(v),
            },
        }
    }
}
