//! When and how the agent compacts: stubs first, then the older turns
//! summarised in a request of their own, one `compaction` record.

use tokio_util::sync::CancellationToken;

use super::super::core::Agent;
use super::super::turn::AgentError;
use super::super::window::{message_bytes, request_bytes, Meter};
use super::super::Event;

use crate::model::Message;
use crate::model::ToolSpec;
use crate::provider::{ChatRequest, ProviderError, ProviderEvent};
use crate::session::Record;
use crate::util::time::Utc;

/// After a compaction the request should fill at most this share of the
/// window, so that several turns pass before the next one.
const TARGET: f64 = 0.5;
/// The newest turns kept word for word, as a share of the window (when
/// the window fills; `/compact` keeps the newest exchange only).
const KEEP: f64 = 0.3;
/// What one summary request may carry, as a share of the window: the rest
/// is room for the summary.
const SUMMARY_INPUT: f64 = 0.85;
/// Summary requests of one compaction, at most (a history many windows
/// long is summarised a window at a time).
const MAX_SUMMARIES: usize = 8;

pub(crate) use crate::agent::protocol::CompactionReason as Reason;

impl Agent {
    /// The conversation's size after the last request and the model's
    /// window, for `/usage` and the REPL's status line.
    pub(crate) fn context_status(&self) -> (Option<u64>, Option<u64>) {
        (self.meter.last_tokens, self.meter.window(&self.model))
    }

    /// `/context`: what the next request carries, by part — hermes' own
    /// prompt, what it says of servers and the project, tool definitions,
    /// the conversation — in bytes and estimated tokens.
    pub(crate) fn context_parts(&self) -> Vec<(String, u64, u64)> {
        let specs = self.tools.specs();
        let (system, rest) = match self.state.messages.split_first() {
            Some((first @ Message::System { content }, rest)) => {
                (Some((first, content.as_str())), rest)
            }
            _ => (None, self.state.messages.as_slice()),
        };
        let mut parts = Vec::new();
        if let Some((first, text)) = system {
            let total = message_bytes(first);
            let mut cuts: Vec<(usize, &str)> = [
                (
                    "\n\nMCP servers you can reach",
                    "MCP servers and their instructions",
                ),
                (
                    "\n\nProject instructions",
                    "project instructions (AGENTS.md)",
                ),
            ]
            .iter()
            .filter_map(|(marker, name)| text.find(marker).map(|at| (at, *name)))
            .collect();
            cuts.sort();
            let own = cuts.first().map_or(text.len(), |(at, _)| *at);
            parts.push((
                "system prompt".to_string(),
                total - (text.len() - own) as u64,
            ));
            for (k, (at, name)) in cuts.iter().enumerate() {
                let end = cuts.get(k + 1).map_or(text.len(), |(next, _)| *next);
                parts.push((name.to_string(), (end - at) as u64));
            }
        }
        parts.push((
            format!("tool definitions ({})", specs.len()),
            request_bytes(&[], &specs),
        ));
        parts.push((
            format!("conversation ({} messages)", rest.len()),
            request_bytes(rest, &[]),
        ));
        parts
            .into_iter()
            .map(|(name, bytes)| (name, bytes, self.meter.estimate(bytes)))
            .collect()
    }

    /// `/compact [focus]`: whether anything was compacted.
    pub(crate) async fn compact_now(
        &mut self,
        focus: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<bool, AgentError> {
        let specs = self.tools.specs();
        let done = self.compact(Reason::Requested, focus, &specs, cancel).await;
        let synced = self.state.handle.sync().await;
        let done = done?;
        synced?;
        Ok(done)
    }

    /// Compacts when the next request would pass `compact_at` of a known
    /// window (and `auto_compact` is on).
    pub(in crate::agent) async fn compact_if_full(
        &mut self,
        specs: &[ToolSpec],
        cancel: &CancellationToken,
    ) -> Result<(), AgentError> {
        self.meter.calibrate_resumed(&self.state.messages, specs);
        let next = self
            .meter
            .estimate(request_bytes(&self.state.messages, specs));
        if self.meter.wants_lookup(&self.model, next) {
            let reported = tokio::select! {
                _ = cancel.cancelled() => return Err(AgentError::Cancelled),
                w = self.provider.reported_window(&self.model) => w,
            };
            if let Some(w) = reported {
                self.meter.report(&self.model, w);
            }
        }
        let Some(window) = self.meter.window(&self.model) else {
            return Ok(());
        };
        let settings = self.meter.settings;
        if settings.auto_compact && next as f64 > settings.compact_at * window as f64 {
            self.compact(Reason::Threshold, None, specs, cancel).await?;
        }
        Ok(())
    }

    /// Tells the user, once until the next compaction, that the window is
    /// filling up.
    pub(in crate::agent) fn warn_if_filling(&mut self, in_use: u64) {
        let Some(window) = self.meter.window(&self.model) else {
            return;
        };
        let s = self.meter.settings;
        if self.meter.warned || (in_use as f64) < s.warn_at * window as f64 {
            return;
        }
        self.meter.warned = true;
        let then = if s.auto_compact {
            format!(
                "hermes compacts it before a request would pass {:.0}%",
                s.compact_at * 100.0
            )
        } else {
            "/compact shrinks it (auto_compact is off)".to_string()
        };
        self.emit(Event::Warning {
            message: format!(
                "the conversation fills {:.0}% of the context window of {} ({} of {} tokens); {then}",
                in_use as f64 * 100.0 / window as f64,
                self.model,
                in_use,
                window
            ),
        });
    }

    /// Stubs old tool results, then summarises older turns if that is not
    /// enough (or always, when asked); records and adopts the result.
    /// Whether anything changed.
    pub(in crate::agent) async fn compact(
        &mut self,
        reason: Reason,
        focus: Option<&str>,
        specs: &[ToolSpec],
        cancel: &CancellationToken,
    ) -> Result<bool, AgentError> {
        let trigger = if reason == Reason::Requested {
            "manual"
        } else {
            "auto"
        };
        self.pre_compact_hooks(trigger, cancel).await;
        let tools = request_bytes(&[], specs);
        let size = |m: &[Message]| request_bytes(m, specs);
        let before = self.meter.estimate(size(&self.state.messages));
        // With no window known (`/compact` on an unknown model), the
        // conversation's own size stands in for it.
        let known = before.max(1);
        let model = self.model.clone();
        let window = |m: &Meter| m.window(&model).unwrap_or(known);
        let target = |m: &Meter| (TARGET * window(m) as f64) as u64;
        let keep = |m: &Meter| m.bytes_for((KEEP * window(m) as f64) as u64);
        // With no window known, one summary request carries it all.
        let input = |m: &Meter| match m.window(&model) {
            Some(w) => m
                .bytes_for((SUMMARY_INPUT * w as f64) as u64)
                .saturating_sub(tools),
            None => u64::MAX,
        };

        let mut view = self.state.messages.clone();
        let mut stubbed = 0;
        if let Some(newest) = super::rules::newest_user(&view) {
            if let Some((v, n)) = super::rules::stub_old_results(&view, newest) {
                view = v;
                stubbed = n;
            }
        }
        let mut summarised = 0;
        if reason == Reason::Requested || self.meter.estimate(size(&view)) > target(&self.meter) {
            for _ in 0..MAX_SUMMARIES {
                // Asked for: all but the newest exchange, however small
                // the conversation; else the newest share of the window.
                let cut = match reason {
                    Reason::Requested => super::rules::newest_user(&view)
                        .filter(|&c| c > super::rules::units(&view).0),
                    _ => super::rules::cut_for(&view, keep(&self.meter), message_bytes),
                };
                let Some(cut) = cut else {
                    break;
                };
                let part =
                    super::rules::fitting_prefix(&view, cut, input(&self.meter), message_bytes);
                // The first summary asks over the messages as the last
                // request sent them (old results whole, not stubbed): a
                // prefix of that request, which the prompt cache holds —
                // when they fit as well; stubbing changes no index.
                let as_sent = summarised == 0
                    && stubbed > 0
                    && super::rules::fitting_prefix(
                        &self.state.messages,
                        cut,
                        input(&self.meter),
                        message_bytes,
                    ) == part;
                let ask = match as_sent {
                    true => super::rules::summary_request(&self.state.messages, part, focus),
                    false => super::rules::summary_request(&view, part, focus),
                };
                let w = window(&self.meter);
                // Only a known window can be too small for the request.
                let known_window = self.meter.window(&model).is_some();
                if known_window && self.meter.estimate(size(&ask)) > w {
                    return Err(AgentError::TooLong(format!(
                        "one message of this conversation is too long for the context window of {} ({w} tokens), even alone",
                        self.model
                    )));
                }
                let summary = match self.summarise(&ask, specs, w, cancel).await {
                    Ok(s) => s,
                    // The summary request itself was too long: the window
                    // or the rate was wrong; try again with what it said.
                    Err(AgentError::Provider(e)) if e.context_overflow().is_some() => {
                        if let Some(said) = e.context_overflow() {
                            self.meter.refused(&self.model, said);
                        }
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                let (head, _) = super::rules::units(&view);
                summarised += part - head;
                view = super::rules::compacted(&view, part, &summary);
                if part == cut || self.meter.estimate(size(&view)) <= target(&self.meter) {
                    break;
                }
            }
        }
        if stubbed == 0 && summarised == 0 {
            return Ok(false);
        }
        let after = self.meter.estimate(size(&view));
        self.state
            .handle
            .append(&Record::Compaction {
                ts: Utc::now().rfc3339(),
                reason,
                summarised: summarised as u64,
                stubbed: stubbed as u64,
                messages: view.clone(),
            })
            .await?;
        self.state.messages = view;
        self.meter.warned = false;
        self.meter.last_tokens = Some(after);
        self.emit(Event::Compacted {
            reason,
            before_tokens: before,
            after_tokens: after,
            summarised: summarised as u64,
            stubbed: stubbed as u64,
        });
        Ok(true)
    }

    /// One summary request: the model's text, cut to a tenth of the window.
    async fn summarise(
        &mut self,
        ask: &[Message],
        specs: &[ToolSpec],
        window: u64,
        cancel: &CancellationToken,
    ) -> Result<String, AgentError> {
        let events = self.events.clone();
        // Its text is not shown: only that it is being retried.
        let on_event = move |e: ProviderEvent| {
            if let ProviderEvent::Retrying {
                attempt,
                delay,
                reason,
            } = e
            {
                let _ = events.send(Event::Retrying {
                    attempt,
                    delay_ms: delay.as_millis() as u64,
                    reason,
                });
            }
        };
        self.meter.sent(request_bytes(ask, specs));
        let req = ChatRequest {
            model: &self.model,
            messages: ask,
            tools: specs,
            output: None,
        };
        let completion = self
            .provider
            .complete(req, &on_event, cancel)
            .await
            .map_err(|e| match e {
                ProviderError::Cancelled => AgentError::Cancelled,
                e => AgentError::Provider(e),
            })?;
        self.note_completion(&completion).await?;
        let text = completion.content.trim();
        if text.is_empty() {
            return Err(AgentError::NoSummary);
        }
        let cap = self.meter.bytes_for(window / 10).max(2048) as usize;
        if text.len() <= cap {
            return Ok(text.to_string());
        }
        let mut end = cap;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Ok(format!(
            "{}\n[hermes: the summary was cut at {cap} bytes]",
            &text[..end]
        ))
    }
}
