//! A session id the server no longer knows, read as one. The spec says a
//! server answers such a request 404, and rmcp then starts a new session
//! and sends the request again; but servers restarted under a client —
//! server-everything among them — answer 400 with a JSON-RPC error that
//! carries no id ("Bad Request: No valid session ID provided"). Nothing
//! waits on a null id, so the call hung until its tool timeout. This HTTP
//! client wraps the real one and turns that answer to a request sent with a
//! session into the 404 case, so the session is renewed and the request,
//! which the server never ran, is sent once more.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

#[derive(Clone)]
pub(super) struct StaleSessionAware<C>(pub(super) C);

/// Whether `answer`, to a request sent with a session id, says the server
/// does not know that session: a JSON-RPC error with no id that names the
/// session.
fn names_a_lost_session(answer: &StreamableHttpPostResponse) -> bool {
    let StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Error(e), _) = answer else {
        return false;
    };
    let id_is_null = serde_json::to_value(&e.id).is_ok_and(|v| v.is_null());
    id_is_null && e.error.message.to_ascii_lowercase().contains("session")
}

fn read<E: std::error::Error + Send + Sync + 'static>(
    got: Result<StreamableHttpPostResponse, StreamableHttpError<E>>,
    with_session: bool,
) -> Result<StreamableHttpPostResponse, StreamableHttpError<E>> {
    match got {
        Ok(answer) if with_session && names_a_lost_session(&answer) => {
            Err(StreamableHttpError::SessionExpired)
        }
        other => other,
    }
}

impl<C> StreamableHttpClient for StaleSessionAware<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let with_session = session_id.is_some();
        let got = self
            .0
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        read(got, with_session)
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let with_session = session_id.is_some();
        let got = self
            .0
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        read(got, with_session)
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let with_session = session_id.is_some();
        let got = self
            .0
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        read(got, with_session)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.0
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, SseError>>,
        StreamableHttpError<Self::Error>,
    > {
        self.0
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, SseError>>,
        StreamableHttpError<Self::Error>,
    > {
        self.0
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_null_id_error_naming_the_session_is_a_lost_session() {
        let lost: ServerJsonRpcMessage = serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0", "id": null,
            "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}
        }))
        .unwrap();
        let other: ServerJsonRpcMessage = serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0", "id": 3,
            "error": {"code": -32602, "message": "Invalid params: session_name is required"}
        }))
        .unwrap();
        assert!(names_a_lost_session(&StreamableHttpPostResponse::Json(
            lost, None
        )));
        assert!(!names_a_lost_session(&StreamableHttpPostResponse::Json(
            other, None
        )));
    }
}
