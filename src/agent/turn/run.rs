//! The turn loop: the user's message persisted, then model request → tool
//! round → model request … until the model answers without tool calls; each
//! request built by `Agent::request`, each answer recorded whole.

use tokio_util::sync::CancellationToken;

use super::super::core::Agent;
use super::super::protocol::{Event, TurnStop};
use super::super::tool_round;
use super::super::window::request_bytes;
use super::error::AgentError;
use crate::model::{Message, NativeBlocks, ToolCall};
use crate::provider::{
    foreign_messages, ChatRequest, Completion, Finish, ProviderError, ProviderEvent,
};
use crate::session::{Record, SessionError, SessionEvent};
use crate::util::time::Utc;

use super::super::protocol::CompactionReason as Reason;
use crate::session::Unanswered;

#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    pub text: String,
    pub model_requests: u32,
    /// The answer as the JSON value `--output-schema` asked for.
    pub output: Option<serde_json::Value>,
}

impl Agent {
    pub async fn run_turn(
        &mut self,
        user_text: &str,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome, AgentError> {
        self.run_turn_with(user_text, Vec::new(), cancel).await
    }

    /// A turn whose message carries `images` the person attached.
    pub async fn run_turn_with(
        &mut self,
        user_text: &str,
        images: Vec<crate::model::Image>,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome, AgentError> {
        // The user's own words, not hermes' note about an unfinished turn.
        self.tools.warm_for_words(user_text);
        // A subagent's changes are its parent's turn's.
        if self.state.handle.agent().is_none() {
            crate::tools::new_turn();
        }
        let mut text = match self.state.unfinished.take() {
            Some(how) => format!(
                "[hermes: the previous request was {how} before you answered it.]\n\n{user_text}"
            ),
            None => user_text.to_string(),
        };
        if let Some(note) = self.tool_changes().await {
            text = format!("{note}\n\n{text}");
        }
        if let Some(note) = self.mode_note() {
            text = format!("{note}\n\n{text}");
        }
        if let Some(note) = self.state.folder_note(self.tools.cwd()) {
            text = format!("{note}\n\n{text}");
        }
        // A blocked prompt is not sent and not recorded: nothing happened.
        let text = self.prompt_hooks(text, user_text, cancel).await?;
        let result = self.turn_inner(&text, images, cancel).await;
        if let Err(e) = &result {
            let how = match e {
                AgentError::Cancelled => {
                    self.state.stopped = true;
                    Unanswered::Stopped
                }
                e => Unanswered::Failed(e.to_string()),
            };
            // Not after the session file itself failed: nothing more is
            // written to it then.
            if !matches!(e, AgentError::Session(_)) {
                let _ = self
                    .record_event(SessionEvent::TurnEnded { how: how.clone() })
                    .await;
            }
            self.state.unfinished = Some(how);
        }
        // Flush to disk at the end of every turn, whatever happened in it.
        let synced = self.state.handle.sync().await;
        let outcome = result?;
        synced?;
        Ok(outcome)
    }

    async fn turn_inner(
        &mut self,
        user_text: &str,
        images: Vec<crate::model::Image>,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome, AgentError> {
        self.push(Message::User {
            content: user_text.to_string(),
            images,
        })
        .await?;
        let mut calls_made: usize = 0;
        let mut stop_hook_active = false;
        let mut corrected = false;
        for request in 1..=self.bounds.max_turns {
            if let Some(b) = &self.family.budget {
                // Others may have spent the run's tokens since the last.
                b.check(self.state.usage.prompt_tokens + self.state.usage.completion_tokens)
                    .map_err(AgentError::OverBudget)?;
            }
            let completion = self.request(request, cancel).await?;
            self.note_completion(&completion).await?;
            if let Some(b) = &self.family.budget {
                let spent = completion
                    .usage
                    .as_ref()
                    .map_or(0, |u| u.prompt_tokens + u.completion_tokens);
                b.spend(
                    spent,
                    self.state.usage.prompt_tokens + self.state.usage.completion_tokens,
                )
                .map_err(AgentError::OverBudget)?;
            }
            let message = self.message_as_it_will_run(
                completion.content.clone(),
                completion.tool_calls,
                completion.native,
                &completion.unparsed_inputs,
            );
            let calls = match &message {
                Message::Assistant { tool_calls, .. } => tool_calls.clone(),
                _ => Vec::new(),
            };
            self.push(message).await?;
            if calls.is_empty() && completion.finish == Finish::Pause {
                // A paused turn goes back as it is, and the model goes on.
                continue;
            }
            if calls.is_empty() {
                // A Stop hook that blocks sends the model on, with its reason.
                if let Some(why) = self.stop_hooks(stop_hook_active, cancel).await {
                    stop_hook_active = true;
                    self.push(Message::user(super::hooked::hook_notes(&[why])))
                        .await?;
                    continue;
                }
                let output = match self
                    .bounds
                    .answer_schema
                    .as_deref()
                    .map(|s| s.check(&completion.content))
                {
                    None => None,
                    Some(Ok(value)) => Some(value),
                    // Told what failed, the model answers once more.
                    Some(Err(why)) if !corrected => {
                        corrected = true;
                        self.emit(Event::Warning {
                            message: format!("{why}; the model is asked once more"),
                        });
                        let note = super::super::AnswerSchema::correction(&why);
                        self.push(Message::user(note)).await?;
                        continue;
                    }
                    Some(Err(why)) => return Err(AgentError::OutputInvalid(why)),
                };
                self.emit(Event::TurnDone {
                    text: completion.content.clone(),
                    model_requests: request,
                    stop: match completion.finish {
                        Finish::Length => TurnStop::MaxTokens,
                        Finish::Refusal | Finish::Guardrail => TurnStop::Refusal,
                        Finish::Done | Finish::Pause => TurnStop::EndTurn,
                    },
                });
                return Ok(TurnOutcome {
                    text: completion.content,
                    model_requests: request,
                    output,
                });
            }
            let cap = self.policy.max_tool_calls_per_turn() as usize;
            let round = tool_round::Round {
                tools: &self.tools,
                policy: &self.policy,
                session: Some(&self.state.handle),
                events: &self.events,
                cancel,
                allowed: cap.saturating_sub(calls_made),
                hook_ctx: self.hook_ctx(),
                gate: crate::policy::Gate::new(calls.len()),
                subagents: self.family.spawner.as_deref().map(|spawner| {
                    super::super::tool_round::Spawn {
                        spawner,
                        provider: &self.provider,
                        model: &self.model,
                        run_budget: self.bounds.run_budget.as_ref(),
                    }
                }),
                open_question: std::sync::Mutex::new(None),
                earlier: Default::default(),
                first_command: std::sync::atomic::AtomicUsize::new(usize::MAX),
                given: Default::default(),
            };
            let ran = round.run(&calls).await;
            calls_made += ran.admitted;
            self.state
                .messages
                .extend(ran.results.into_iter().map(Message::Tool));
            if let Some(e) = ran.failed {
                return Err(e.into());
            }
            if cancel.is_cancelled() {
                return Err(AgentError::Cancelled);
            }
        }
        match self.family.budget {
            // A subagent's requests are `[agents] max_turns`.
            Some(_) => Err(AgentError::OverBudget(format!(
                "no final answer after {} model requests ([agents] max_turns)",
                self.bounds.max_turns
            ))),
            None => Err(AgentError::MaxTurns(self.bounds.max_turns)),
        }
    }

    /// One model request over the history so far, its text streamed out as
    /// events; the whole assistant message once it is complete.
    async fn request(
        &mut self,
        request: u32,
        cancel: &CancellationToken,
    ) -> Result<Completion, AgentError> {
        // Fixed for the session: the bridge, or the tools offered directly
        // as its first request took them.
        let specs = self.tools.specs();
        if cancel.is_cancelled() {
            return Err(AgentError::Cancelled);
        }
        self.record_deferral().await?;
        self.note_foreign_blocks().await?;
        self.compact_if_full(&specs, cancel).await?;
        if let Some(b) = &self.bounds.run_budget {
            let input = self
                .meter
                .estimate(request_bytes(&self.state.messages, &specs));
            b.check(input).map_err(AgentError::RunBudget)?;
        }
        self.emit(Event::ModelRequest { request });
        let events = self.events.clone();
        let on_event = move |e: ProviderEvent| {
            let _ = events.send(match e {
                ProviderEvent::TextDelta(text) => Event::TextDelta { text },
                ProviderEvent::ThinkingDelta(text) => Event::ThinkingDelta { text },
                ProviderEvent::Retrying {
                    attempt,
                    delay,
                    reason,
                } => Event::Retrying {
                    attempt,
                    delay_ms: delay.as_millis() as u64,
                    reason,
                },
            });
        };
        let mut refused = false;
        loop {
            self.meter.sent(request_bytes(&self.state.messages, &specs));
            let req = ChatRequest {
                model: &self.model,
                messages: &self.state.messages,
                tools: &specs,
                output: self.bounds.answer_schema.as_deref().map(|s| &s.format),
            };
            let e = match self.provider.complete(req, &on_event, cancel).await {
                Ok(c) => return Ok(c),
                Err(ProviderError::Cancelled) => return Err(AgentError::Cancelled),
                Err(e) => e,
            };
            // Refused as too long for the window: compact, and try once more.
            match e.context_overflow() {
                Some(said) if !refused => {
                    refused = true;
                    self.meter.refused(&self.model, said);
                    if !self.compact(Reason::Refused, None, &specs, cancel).await? {
                        return Err(AgentError::Provider(e));
                    }
                }
                _ => return Err(AgentError::Provider(e)),
            }
        }
    }

    /// Token counts (an event and a session record) and an answer cut at the
    /// output limit (a warning).
    pub(in crate::agent) async fn note_completion(
        &mut self,
        completion: &Completion,
    ) -> Result<(), SessionError> {
        self.state.usage.requests += 1;
        if let Some(u) = &completion.usage {
            if let Some(b) = &self.bounds.run_budget {
                b.spend(u.prompt_tokens + u.completion_tokens);
            }
            self.state.usage.prompt_tokens += u.prompt_tokens;
            self.state.usage.completion_tokens += u.completion_tokens;
            self.state.usage.cache_read_tokens += u.cache_read_tokens;
            self.state.usage.cache_write_tokens += u.cache_write_tokens;
            self.meter.counted(u.prompt_tokens);
            let in_use = u.prompt_tokens + u.completion_tokens;
            self.meter.last_tokens = Some(in_use);
            let window = self.meter.window(&self.model);
            self.emit(Event::Usage {
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
                total_tokens: u.total_tokens,
                cache_read_tokens: u.cache_read_tokens,
                cache_write_tokens: u.cache_write_tokens,
                context_tokens: window.map(|_| in_use),
                context_window: window,
            });
            self.warn_if_filling(in_use);
            self.record_event(SessionEvent::Usage {
                cache_read_tokens: u.cache_read_tokens,
                cache_write_tokens: u.cache_write_tokens,
                completion_tokens: u.completion_tokens,
                prompt_tokens: u.prompt_tokens,
                total_tokens: u.total_tokens,
            })
            .await?;
        }
        let warning = match completion.finish {
            Finish::Length => {
                "the model stopped at its output limit; its answer may be cut short \
                               (raise max_tokens for this provider)"
            }
            Finish::Refusal => "the model declined to answer (stop reason: refusal)",
            Finish::Guardrail => "a guardrail stopped the model's answer",
            // Nothing at all: say so, rather than end with nothing shown.
            Finish::Done
                if completion.content.trim().is_empty() && completion.tool_calls.is_empty() =>
            {
                "the model's answer was empty (no text and no tool call); \
                 ask again, or try another model"
            }
            Finish::Done | Finish::Pause => return Ok(()),
        };
        self.emit(Event::Warning {
            message: warning.into(),
        });
        Ok(())
    }

    /// Once per run: assistant messages whose native blocks this provider
    /// cannot replay are sent as their text and tool calls; the session
    /// file and the user hear of it.
    async fn note_foreign_blocks(&mut self) -> Result<(), SessionError> {
        if self.state.foreign_noted {
            return Ok(());
        }
        self.state.foreign_noted = true;
        let n = foreign_messages(&self.state.messages, self.provider.blocks());
        if n == 0 {
            return Ok(());
        }
        let provider = self
            .provider
            .blocks()
            .map_or("openai", |b| b.name())
            .to_string();
        self.emit(Event::Warning {
            message: format!(
                "{n} earlier assistant message(s) came from another provider; {provider} gets \
                 their text and tool calls, without that provider's own blocks (thinking)"
            ),
        });
        self.record_event(SessionEvent::NativeBlocksDropped {
            messages: n as u64,
            provider,
        })
        .await
    }

    /// The received message as the session file will record it and the
    /// round will run its calls: ids given to calls without one, local
    /// `tool_call` batches split — in the native block list when there is
    /// one (the neutral calls are then read from it), before it is persisted.
    fn message_as_it_will_run(
        &self,
        content: String,
        mut calls: Vec<ToolCall>,
        native: Option<NativeBlocks>,
        unparsed_inputs: &[(String, String)],
    ) -> Message {
        let mut taken = self.call_ids();
        let arrived: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
        super::super::tool_call_batches::assign_ids(
            &mut calls,
            self.state.messages.len(),
            &mut taken,
        );
        // The inputs that did not parse, by the ids their calls have now:
        // each is the first call that arrived with its id.
        let mut claimed = vec![false; calls.len()];
        let unparsed: Vec<(&str, &String)> = unparsed_inputs
            .iter()
            .filter_map(|(id, raw)| {
                let k = (0..calls.len()).find(|&k| !claimed[k] && arrived[k] == *id)?;
                claimed[k] = true;
                Some((calls[k].id.as_str(), raw))
            })
            .collect();
        let native = native.map(|mut n| {
            n.set_tool_use_ids(&calls);
            super::super::tool_call_batches::split_block_list(&mut n);
            n
        });
        let tool_calls = match &native {
            Some(n) => {
                let mut calls = n.tool_calls();
                for c in &mut calls {
                    if let Some((_, raw)) = unparsed.iter().find(|(id, _)| *id == c.id) {
                        c.arguments = (*raw).clone();
                    }
                }
                calls
            }
            None => {
                super::super::tool_call_batches::split_local_tool_batches(&mut calls);
                calls
            }
        };
        Message::Assistant {
            content,
            tool_calls,
            native,
        }
    }

    /// Writes the deferral decision once per session, at its first request.
    async fn record_deferral(&mut self) -> Result<(), SessionError> {
        if self.state.deferral_recorded || !self.tools.has_deferrable_sources() {
            return Ok(());
        }
        self.record_event(SessionEvent::Tools {
            deferred: self.tools.deferred(),
            offered: self.tools.offered_record(),
        })
        .await?;
        self.state.deferral_recorded = true;
        Ok(())
    }

    async fn record_event(&self, event: SessionEvent) -> Result<(), SessionError> {
        self.state
            .handle
            .append(&Record::Event {
                ts: Utc::now().rfc3339(),
                event,
            })
            .await
    }

    /// Every tool-call id of the session so far.
    fn call_ids(&self) -> std::collections::HashSet<String> {
        self.state
            .messages
            .iter()
            .flat_map(|m| match m {
                Message::Assistant { tool_calls, .. } => tool_calls.as_slice(),
                _ => &[],
            })
            .map(|c| c.id.clone())
            .collect()
    }

    async fn push(&mut self, message: Message) -> Result<(), SessionError> {
        self.state
            .handle
            .append(&Record::Message {
                ts: Utc::now().rfc3339(),
                message: message.clone(),
            })
            .await?;
        self.state.messages.push(message);
        Ok(())
    }
}
