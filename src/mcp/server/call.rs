//! One tool call on a server: through its gate, started (or connected)
//! on need, sent, and how it ended — a result, a timeout, a crash or a lost
//! connection, an answer too large or under a wrong id, or a request for
//! authorization that a login may satisfy (a bounded number of times).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServiceError;
use tokio_util::sync::CancellationToken;

use super::super::{client, pipes, result};
use super::lifecycle::{stop, Connection, State, MAX_CRASHES};
use super::McpServer;
use crate::call::ToolOutput;
use crate::mcp::ServerError;

/// How a call's send ended.
enum Attempt {
    Done(ToolOutput),
    /// A remote server asked for authorization (its `WWW-Authenticate`).
    Unauthorized(String),
    /// The stored login was refused for good mid-session (a refresh the
    /// authorization server answered `invalid_client`, say).
    Refused(&'static str),
}

/// Logins one request may go through (the first, then a step-up or two).
const MAX_AUTH_ROUNDS: u32 = 3;

/// After a dropped over-long message, how long a call still waits for its
/// own result (the dropped one may have been a notification).
const OVERSIZE_GRACE: Duration = Duration::from_secs(1);
/// After the process ended mid-call, how long its answer may still take to
/// come out of the pipe.
const EXIT_GRACE: Duration = Duration::from_millis(300);

/// Counts a call in flight on a connection while it lives.
struct InFlight<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> InFlight<'a> {
    fn enter(n: &'a std::sync::atomic::AtomicUsize) -> InFlight<'a> {
        n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        InFlight(n)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl McpServer {
    /// One tool call through the gate (FIFO: a serial server takes calls in the
    /// order they arrived). A stop wins over every step before the send
    /// (`biased`): an entry cancelled while it waits for its slot or for the
    /// server to start is never sent. `on_start` is called right before the
    /// request goes out. `call_id`: the tool call it runs (its progress is
    /// reported under it; empty when there is none).
    pub(crate) async fn call(
        self: &Arc<Self>,
        call_id: &str,
        tool: &str,
        args: serde_json::Value,
        cancel: &CancellationToken,
        on_start: &(dyn Fn() + Send + Sync),
    ) -> ToolOutput {
        self.called.store(true, std::sync::atomic::Ordering::SeqCst);
        let not_started = ToolOutput::not_started;
        let permit = tokio::select! {
            biased;
            _ = cancel.cancelled() => return not_started(),
            p = self.gate.clone().acquire_owned() => p,
        };
        let Ok(_permit) = permit else {
            return ToolOutput::error(format!("server `{}` is shutting down", self.name));
        };
        let arguments = match args {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        let mut started = false;
        // A remote server may ask for authorization, or more of it (step-up),
        // mid-session: a login, a new session, the call again — a bounded
        // number of times.
        for round in 0..=MAX_AUTH_ROUNDS {
            let conn = tokio::select! {
                biased;
                _ = cancel.cancelled() => return not_started(),
                c = self.ensure_running() => match c {
                    Ok(c) => c,
                    Err(why) => return ToolOutput::error(why.to_string()),
                },
            };
            if cancel.is_cancelled() {
                return not_started();
            }
            if !std::mem::replace(&mut started, true) {
                on_start();
            }
            match self
                .call_once(conn.clone(), call_id, tool, arguments.clone(), cancel)
                .await
            {
                Attempt::Done(out) => return out,
                Attempt::Unauthorized(challenge) => {
                    if let Err(why) = self
                        .reauthorize(&conn, Some(&challenge), round, cancel)
                        .await
                    {
                        return ToolOutput::error(why);
                    }
                }
                Attempt::Refused(why) => {
                    let forgotten = crate::mcp::oauth::on_refused(
                        &self.name,
                        &self.oauth_store,
                        why,
                        round < MAX_AUTH_ROUNDS,
                    );
                    if let Err(e) = forgotten {
                        return ToolOutput::error(e.to_string());
                    }
                    if let Err(why) = self.reauthorize(&conn, None, round, cancel).await {
                        return ToolOutput::error(why);
                    }
                }
            }
        }
        ToolOutput::error(format!(
            "server `{}` kept asking for authorization",
            self.name
        ))
    }

    /// After a server's 401 or 403 mid-session: a login with its challenge
    /// (the scope it asks for; none after a refused refresh), then a new
    /// session on the next request.
    /// `Err`: why it cannot be done (nobody to ask, too many rounds, the
    /// login failed or was stopped).
    pub(super) async fn reauthorize(
        &self,
        conn: &Arc<Connection>,
        challenge: Option<&str>,
        round: u32,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let Some(remote) = &self.entry.remote else {
            return Err(format!("server `{}` asked for authorization", self.name));
        };
        if let Some(var) = &remote.bearer_token_env {
            return Err(crate::mcp::remote::token_refused(
                &self.name,
                var,
                challenge.unwrap_or_default(),
            ));
        }
        if round >= MAX_AUTH_ROUNDS {
            return Err(format!(
                "server `{}` still refuses after {MAX_AUTH_ROUNDS} authorizations ({}); check the scopes its account may have",
                self.name,
                crate::util::text::excerpt(challenge.unwrap_or_default(), 200)
            ));
        }
        if !crate::mcp::oauth::can_ask() {
            return Err(crate::mcp::oauth::OAuthError::NeedsLogin {
                server: self.name.clone(),
            }
            .to_string());
        }
        crate::mcp::oauth::login(
            &self.name,
            &remote.url,
            &remote.oauth,
            &self.oauth_store,
            challenge,
            cancel,
        )
        .await
        .map_err(|e| e.to_string())?;
        let mut state = self.state.lock().await;
        if matches!(&*state, State::Running(c) if Arc::ptr_eq(c, conn)) {
            stop(&mut state).await;
        }
        Ok(())
    }

    /// One send of a call on `conn`, and how it ended.
    async fn call_once(
        &self,
        conn: Arc<Connection>,
        call_id: &str,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        cancel: &CancellationToken,
    ) -> Attempt {
        let timeout = self.tool_timeout();
        let (dropped_before, stray_before) = (conn.seen.oversize.seen(), conn.seen.stray.seen());
        // A process that has ended but whose pipes a child it forked still
        // holds: what answers is that child, not a crash. One that ends
        // while this call runs is.
        let ran_at_send = !conn.exited.ended_now();
        let exited = conn.exited.clone();
        let calling = conn.clone();
        let _counted = InFlight::enter(&calling.in_flight);
        let call = tokio::time::timeout(
            timeout,
            client::call(
                &calling.service,
                &self.sinks,
                &self.name,
                call_id,
                tool,
                arguments,
            ),
        );
        tokio::pin!(call);
        // The only call in flight, and the only request of ours waiting:
        // what goes astray can only be its answer.
        let alone = || {
            conn.in_flight.load(std::sync::atomic::Ordering::SeqCst) == 1
                && conn.seen.waiting() <= 1
        };
        let outcome = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Attempt::Done(ToolOutput::interrupted(Some("the server was asked to cancel"))),
            r = &mut call => r,
            _ = exited.ended(), if ran_at_send => {
                // Its answer may still be in the pipe.
                match tokio::time::timeout(EXIT_GRACE, &mut call).await {
                    Ok(r) => r,
                    Err(_) => return Attempt::Done(self.crashed(conn.clone(), tool, ServiceError::TransportClosed).await),
                }
            }
            _ = conn.seen.oversize.past(dropped_before), if alone() => {
                // A message too long for the client was dropped while this
                // was the only call in flight: its result, unless it still
                // arrives (it was a notification). With other calls in
                // flight it cannot be told whose it was: each waits on.
                match tokio::time::timeout(OVERSIZE_GRACE, &mut call).await {
                    Ok(r) => r,
                    Err(_) => return Attempt::Done(ToolOutput::error(format!(
                        "the result of `{tool}` from server `{}` was over {} MiB, the most one MCP message may carry, and was dropped; ask for less (a range, a page, a filter)",
                        self.name,
                        pipes::LIMIT / (1024 * 1024)
                    ))),
                }
            }
            _ = conn.seen.stray.past(stray_before), if alone() => {
                // An answer to no request of ours while this was the only
                // one waiting: most likely its own, under a wrong id.
                match tokio::time::timeout(OVERSIZE_GRACE, &mut call).await {
                    Ok(r) => r,
                    Err(_) => {
                        let id = conn.seen.stray_id.lock().map(|s| s.clone()).unwrap_or_default();
                        return Attempt::Done(ToolOutput::error(format!(
                            "server `{}` answered with id {id}, which no request of hermes carries, while `{tool}` was its only call; the call was given up (the server does not follow JSON-RPC ids)",
                            self.name
                        )));
                    }
                }
            }
        };
        Attempt::Done(match outcome {
            Err(_) => ToolOutput::error(format!(
                "`{tool}` on server `{}` timed out after {} ms and was cancelled (tool_timeout_ms)",
                self.name,
                timeout.as_millis()
            )),
            Ok(Ok(r)) => {
                self.note_success().await;
                result::to_output(r, self.entry.limits.tool_output_bytes)
            }
            Ok(Err(ServiceError::McpError(e))) => ToolOutput::error(format!(
                "server `{}` rejected the call: {}",
                self.name, e.message
            )),
            Ok(Err(e)) if self.entry.remote.is_some() => {
                if let Some(c) = e.auth_challenge() {
                    return Attempt::Unauthorized(c.to_string());
                }
                if let Some(why) = crate::mcp::oauth::refused_for_good(&e.to_string()) {
                    return Attempt::Refused(why);
                }
                self.crashed(conn, tool, e).await
            }
            Ok(Err(e)) => self.crashed(conn, tool, e).await,
        })
    }

    /// What happens on the next call after a crash or a lost connection.
    fn again(&self) -> &'static str {
        match self.entry.remote {
            Some(_) => "hermes connects again on the next call",
            None => "it will be restarted on the next call",
        }
    }

    async fn note_success(&self) {
        self.crashes.store(0, std::sync::atomic::Ordering::SeqCst);
    }

    /// A call's connection failed. The first call to report it counts one
    /// crash — however many calls were in flight — reads how the process
    /// ended and ends it; the others report the same end, each naming its
    /// own call.
    async fn crashed(&self, conn: Arc<Connection>, tool: &str, e: ServiceError) -> ToolOutput {
        let mut state = self.state.lock().await;
        let first = matches!(&*state, State::Running(c) if Arc::ptr_eq(c, &conn));
        if !first {
            return match &*state {
                State::Failed(failed) => ToolOutput::error(format!(
                    "server `{}` stopped while `{tool}` was running; {failed}",
                    self.name
                )),
                State::Crashed { what, tail, .. } => ToolOutput::error(format!(
                    "server `{}` {what} while `{tool}` was running{tail}; {}",
                    self.name,
                    self.again()
                )),
                _ => ToolOutput::error(format!(
                    "server `{}` lost its connection ({}) while `{tool}` was running",
                    self.name,
                    crate::util::text::root_cause(&e)
                )),
            };
        }
        let crashes = self
            .crashes
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        let (what, tail) = match &conn.process {
            Some(p) => {
                let mut p = p.lock().await;
                let exit = p.describe_exit(Duration::from_millis(500)).await;
                let tail = p.tail.describe();
                p.terminate(Duration::ZERO).await;
                (exit, tail)
            }
            None => {
                let url = self.entry.remote.as_ref().map_or("", |r| &r.url);
                let url = crate::util::secrets::mask(url);
                let why = crate::util::text::root_cause(&e);
                (
                    format!("at {url} lost the connection ({why})"),
                    String::new(),
                )
            }
        };
        drop(conn);
        let msg = format!(
            "server `{}` {what} during the call to `{tool}`{tail}",
            self.name
        );
        if crashes >= MAX_CRASHES {
            let failed = match &self.entry.remote {
                Some(r) => ServerError::LostTooOften {
                    server: self.name.clone(),
                    times: crashes,
                    url: crate::util::secrets::mask(&r.url).into_owned(),
                },
                None => ServerError::CrashedTooOften {
                    server: self.name.clone(),
                    crashes,
                    log: self.log_path.clone(),
                },
            };
            *state = State::Failed(failed.clone());
            ToolOutput::error(format!("{msg}; {failed}"))
        } else {
            *state = State::Crashed {
                at: Instant::now(),
                what,
                tail,
            };
            ToolOutput::error(format!("{msg}; {}", self.again()))
        }
    }
}
