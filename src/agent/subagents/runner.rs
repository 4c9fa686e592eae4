//! The `agent` tool: what starts a subagent — an `Agent` of its own on the
//! parent's provider, registry, policy and session file — and runs it.

use super::types::Types;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::super::core::{Agent, Parts};
use super::super::protocol::Event;
use super::super::tool_round::{Round, Spawn, Spawner};
use super::super::turn::AgentError;
use super::super::window::Meter;
use super::super::SessionStart;
use crate::call::ToolOutput;
use crate::config::{AgentSettings, ConfiguredWindows, ContextSettings, WorktreeSettings};
use crate::model::{Message, ToolSpec};
use crate::session::{Record, SessionEvent};
use crate::util::time::Utc;

use super::budget::Budget;

/// The tool's name, as the model calls it.
pub(crate) const NAME: &str = "agent";

/// A subagent's system prompt when its type gives none.
const OWN_PROMPT: &str = "You are a subagent of hermes: another agent started you for one task. \
Work on it with your tools, then answer with a complete, concise report of what you found or did \
— your answer is all the other agent sees of your work (not your tool calls). If you cannot \
finish, say what you did and what is left.";

/// The `agent` tool's definition. Fixed: the types it may name are in the
/// system prompt, which a session keeps, so the tool list never changes
/// under the prompt cache.
pub(crate) fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME.into(),
        description: "Start a subagent for a task: a fresh conversation with the same tools (or \
            those its type allows) that works on the task and answers with a report, which \
            becomes this call's result. It sees nothing of this conversation: give it everything \
            it needs in `prompt`. Several agent calls in one reply run at the same time. `type` \
            may name one of the agent types the system prompt lists."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "prompt": {"type": "string", "description": "The task, complete in itself"},
                "description": {"type": "string", "description": "A short label (3-5 words) shown to the person"},
                "type": {"type": "string", "description": "An agent type from the system prompt's list"},
                "isolation": {"type": "string", "enum": ["worktree"], "description": "\"worktree\": it works in a git worktree of its own, on a new branch from this repository's HEAD, so subagents running at the same time never write the same file; its result names the branch and folder its changes are in"}
            },
            "required": ["prompt", "description"],
            "additionalProperties": false
        }),
    }
}

/// What starts the subagents of one agent: `[agents]`, the types, where
/// and when (for their system prompts), the windows their meters know, and
/// the tokens all subagents of the run have spent.
pub(crate) struct Runner {
    settings: AgentSettings,
    types: Types,
    environment: String,
    windows: ConfiguredWindows,
    context: ContextSettings,
    /// Where subagents' worktrees are kept (`isolation: "worktree"`).
    worktree: WorktreeSettings,
    /// How deep the subagents this runner starts are (1: the person's
    /// agent's).
    depth: u32,
    spent: Arc<AtomicU64>,
}

impl Runner {
    pub(crate) fn new(
        settings: AgentSettings,
        types: Types,
        environment: String,
        windows: ConfiguredWindows,
        context: ContextSettings,
        worktree: WorktreeSettings,
    ) -> Runner {
        Runner {
            settings,
            types,
            environment,
            windows,
            context,
            worktree,
            depth: 1,
            spent: Arc::default(),
        }
    }

    pub(crate) fn types(&self) -> &Types {
        &self.types
    }

    /// The runner of a subagent's own subagents, when they may nest deeper.
    fn deeper(&self) -> Option<Runner> {
        (self.depth < self.settings.max_depth).then(|| Runner {
            settings: self.settings,
            types: self.types.clone(),
            environment: self.environment.clone(),
            windows: self.windows.clone(),
            context: self.context,
            worktree: self.worktree.clone(),
            depth: self.depth + 1,
            spent: self.spent.clone(),
        })
    }
}

impl Agent {
    /// This agent starts subagents through `runner`.
    pub(crate) fn with_subagents(mut self, runner: Arc<Runner>) -> Agent {
        self.family.spawner = Some(runner);
        self
    }

    /// The agent types its subagents may be started as; `None` when it
    /// starts none.
    pub(crate) fn agent_types(&self) -> Option<&Types> {
        self.family.spawner.as_deref().map(|r| r.types())
    }
}

impl Spawner for Runner {
    fn types(&self) -> &Types {
        Runner::types(self)
    }

    fn run<'r>(
        &'r self,
        parent: &'r Spawn<'_>,
        round: &'r Round<'_>,
        id: &'r str,
        args: &'r Value,
    ) -> Pin<Box<dyn Future<Output = ToolOutput> + Send + 'r>> {
        Box::pin(self.subagent(parent, round, id, args))
    }
}

impl Runner {
    /// A worktree of its own for the subagent of call `id` — on a new
    /// branch from the HEAD of the folder its parent works in — and its
    /// tools working there. Fail closed: no repository, no subagent.
    async fn in_worktree(
        &self,
        tools: crate::tools::Registry,
        id: &str,
    ) -> Result<(crate::tools::Registry, crate::worktree::Opened), String> {
        let Some(from) = tools.cwd().map(std::path::Path::to_path_buf) else {
            return Err("this session has no working folder".into());
        };
        let tail: String = id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .take(16)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let name = format!("agent-{tail}");
        let opened = crate::worktree::open(&crate::worktree::Spec {
            name: &name,
            base: None,
            from: &from,
            dir: &self.worktree.dir,
            include: &self.worktree.include,
        })
        .await
        .map_err(|e| e.to_string().trim_start_matches("--worktree: ").to_string())?;
        let git = opened.worktree.git_writable();
        let tools = tools
            .in_folder(&opened.cwd, git)
            .map_err(|e| e.to_string())?;
        Ok((tools, opened))
    }

    /// [`Spawner::run`]: the subagent `args` asks for, as call `id` of
    /// `round`, on the provider and model `from` names.
    async fn subagent(
        &self,
        from: &Spawn<'_>,
        round: &Round<'_>,
        id: &str,
        args: &Value,
    ) -> ToolOutput {
        let r = self;
        let text = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("");
        let (prompt, description) = (text("prompt"), text("description"));
        let kind = Some(text("type")).filter(|t| !t.is_empty());
        let agent_type = match kind {
            None => None,
            Some(k) => match r.types.get(k) {
                Some(t) => Some(t),
                None => {
                    let known: Vec<&str> = r.types.types.iter().map(|t| t.name.as_str()).collect();
                    return ToolOutput::error(format!(
                        "there is no agent type `{k}`; the types are: {}",
                        if known.is_empty() {
                            "none (leave `type` out)".to_string()
                        } else {
                            known.join(", ")
                        }
                    ));
                }
            },
        };
        let Some(session) = round.session else {
            return ToolOutput::error("a subagent needs a session to record its conversation in");
        };
        let handle = session.for_agent(id);
        let model = agent_type
            .and_then(|t| t.model.clone())
            .unwrap_or_else(|| from.model.to_string());
        let budget = Budget::new(
            r.settings.max_tokens,
            r.settings.max_total_tokens,
            r.spent.clone(),
        );
        if let Err(why) = budget.check(0) {
            return ToolOutput::error(format!("the subagent was not started: {why}"));
        }
        let deeper = r.deeper().map(Arc::new);
        let tools = round.tools.for_subagent(
            agent_type.and_then(|t| t.tools.clone()),
            deeper.as_ref().map(|_| spec()),
        );
        let isolated = text("isolation") == "worktree" || agent_type.is_some_and(|t| t.worktree);
        let (tools, environment, worktree) = if isolated {
            match self.in_worktree(tools, id).await {
                Ok((tools, opened)) => {
                    let environment = crate::config::SystemPrompt::environment(
                        &opened.cwd,
                        &Utc::now(),
                    );
                    (tools, environment, Some(opened.worktree))
                }
                Err(why) => {
                    return ToolOutput::error(format!(
                        "the subagent was not started: {why} (it was to work in a worktree of its own; leave out `isolation` to run it in this folder)"
                    ))
                }
            }
        } else {
            (tools, r.environment.clone(), None)
        };
        let system = format!(
            "{}\n\n{}",
            agent_type.map_or(OWN_PROMPT, |t| t.prompt.as_str()),
            environment
        );
        let ts = Utc::now().rfc3339();
        let started = Record::Event {
            ts: ts.clone(),
            event: SessionEvent::SubagentStarted {
                agent_type: kind.map(str::to_string),
                description: description.to_string(),
                model: model.clone(),
            },
        };
        let system = Message::System { content: system };
        let placed = worktree.as_ref().map(|w| Record::Event {
            ts: ts.clone(),
            event: SessionEvent::Worktree {
                name: w.name.clone(),
                branch: w.branch.clone(),
                path: w.path.to_string_lossy().into_owned(),
                repo: w.repo.to_string_lossy().into_owned(),
            },
        });
        let records = [started].into_iter().chain(placed).chain([Record::Message {
            ts,
            message: system.clone(),
        }]);
        for record in records {
            if let Err(e) = handle.append(&record).await {
                return ToolOutput::error(format!("the subagent could not start: {e}"));
            }
        }
        // Its events, each under its id, to the parent's front end.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let (parent, who, label) = (
            round.events.clone(),
            id.to_string(),
            description.to_string(),
        );
        // Until the subagent is done, then what it left: a task it started
        // (a slow Notification hook) may hold a sender longer, and must
        // not hold the result back.
        let done = CancellationToken::new();
        let finished = done.clone();
        let forward = tokio::spawn(async move {
            let send = |event| {
                let _ = parent.send(Event::Subagent {
                    id: who.clone(),
                    description: label.clone(),
                    event: Box::new(event),
                });
            };
            loop {
                tokio::select! {
                    biased;
                    event = rx.recv() => match event {
                        Some(event) => send(event),
                        None => break,
                    },
                    _ = finished.cancelled() => {
                        while let Ok(event) = rx.try_recv() {
                            send(event);
                        }
                        break;
                    }
                }
            }
        });
        let parts = Parts {
            provider: from.provider.clone(),
            model,
            tools,
            policy: round.policy.for_subagent(),
            meter: Meter::new(r.windows.clone(), r.context),
            max_turns: r.settings.max_turns,
            events: tx,
            run_budget: from.run_budget.cloned(),
        };
        let mut agent = Agent::from_parts(parts, SessionStart::fresh(handle, vec![system]));
        agent.family.budget = Some(budget);
        agent.family.agent_type = kind.map(str::to_string);
        agent.family.spawner = deeper.map(|d| d as Arc<dyn Spawner>);
        // Its own stop (a hook's `continue: false`) ends it, not the
        // parent's round; the round's stop ends it too.
        let stop = round.cancel.child_token();
        let outcome = agent.run_turn(prompt, &stop).await;
        // Its events all delivered before its result is.
        drop(agent);
        done.cancel();
        let _ = forward.await;
        let whole = format!(
            "[hermes: the subagent's whole conversation: `hermes sessions show {} --agent {id}`]",
            session.id()
        );
        let whole = match &worktree {
            Some(w) => format!(
                "{whole}\n[hermes: the subagent worked in the git worktree {} on the branch {}: its \
                 changes are there, not in this folder — `hermes worktree diff {}` shows them, \
                 `hermes worktree merge {}` brings them here]",
                w.path.display(),
                w.branch,
                w.name,
                w.name
            ),
            None => whole,
        };
        match outcome {
            Ok(o) => {
                let room = r.settings.result_bytes.saturating_sub(whole.len() + 2);
                ToolOutput::ok(format!(
                    "{}\n\n{whole}",
                    crate::call::cut_text(o.text, room)
                ))
            }
            Err(AgentError::Cancelled) => ToolOutput::interrupted(Some(&whole)),
            Err(e) => ToolOutput::error(format!("the subagent did not finish: {e}\n\n{whole}")),
        }
    }
}
