//! One ACP session: a hermes conversation, its prompt running as a task of
//! its own, the questions its rounds ask sent to the editor as
//! `session/request_permission` and their answers handed back.

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

use super::commands::{Builtin, Typed};
use super::host::{Open, Opened, Server};
use super::updates::{self, Updates};
use super::wire::{Out, RpcError, INTERNAL_ERROR};
use crate::agent::{Agent, AgentError, EndReason, Event, TurnStop};
use crate::mcp::McpRegistry;
use crate::model::Image;
use crate::policy::{Answer, Answers};

/// How the session's calls are approved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    /// As config says: what no rule decides is asked.
    Ask,
    /// Every call runs unasked; deny rules and hooks still refuse (the
    /// REPL's `/yolo`).
    Auto,
    /// Reads and investigation only (`[approvals] mode = "plan"`).
    Plan,
}

impl Mode {
    fn id(self) -> &'static str {
        match self {
            Mode::Ask => "ask",
            Mode::Auto => "auto",
            Mode::Plan => "plan",
        }
    }
}

/// The modes, for `session/new` and `session/load`.
pub(crate) fn modes(current: Mode) -> Value {
    json!({
        "currentModeId": current.id(),
        "availableModes": [
            {"id": "ask", "name": "Ask", "description": "ask before what config does not allow (hermes' default)"},
            {"id": "auto", "name": "Auto", "description": "run every call without asking; deny rules and hooks still refuse"},
            {"id": "plan", "name": "Plan", "description": "reads and investigation only: nothing that changes files runs, commands see the folder read-only"},
        ],
    })
}

pub(crate) struct Session {
    pub id: String,
    cwd: PathBuf,
    /// hermes' config folder: its own custom commands live there.
    config_dir: PathBuf,
    /// The editor shows `notice` updates: warnings go there, not into
    /// the agent's message.
    pub notices: Cell<bool>,
    /// `None` while a prompt has it.
    agent: RefCell<Option<(Agent, UnboundedReceiver<Event>)>>,
    mcp: Arc<McpRegistry>,
    answers: Answers,
    mode: Cell<Mode>,
    /// The model the next prompt uses, and the models to offer.
    model: RefCell<String>,
    models: RefCell<Vec<String>>,
    stop: RefCell<CancellationToken>,
    /// The prompt running, to wait for at the end.
    running: RefCell<Option<tokio::sync::oneshot::Receiver<()>>>,
}

impl Session {
    pub(crate) fn new(mut opened: Opened, cwd: PathBuf) -> Session {
        let answers = Answers::default();
        opened
            .agent
            .policy_mut()
            .answered_on(answers.clone(), opened.config_file.clone());
        // What opening it said (warnings of config, trust, servers) goes
        // to stderr: the editor's log.
        while let Ok(ev) = opened.events.try_recv() {
            log(&ev);
        }
        let mode = if opened.agent.mode() == crate::config::ApprovalMode::Plan {
            Mode::Plan
        } else if opened.agent.policy_mut().yolo() {
            Mode::Auto
        } else {
            Mode::Ask
        };
        let model = opened.agent.model().to_string();
        let config_dir = opened
            .config_file
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        Session {
            id: opened.agent.session().id().to_string(),
            cwd,
            config_dir,
            notices: Cell::new(false),
            models: RefCell::new(vec![model.clone()]),
            model: RefCell::new(model),
            agent: RefCell::new(Some((opened.agent, opened.events))),
            mcp: opened.mcp,
            answers,
            mode: Cell::new(mode),
            stop: RefCell::new(CancellationToken::new()),
            running: RefCell::new(None),
        }
    }

    /// Until the next prompt, what a background process of the session
    /// does (it exits, a port opens) is told to the editor as it happens.
    fn forward_while_idle(&self, agent: &Agent, out: &Out) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
        agent.listen_idle(Some(tx));
        let (out, id, cwd) = (out.clone(), self.id.clone(), self.cwd.clone());
        tokio::task::spawn_local(async move {
            let mut updates = Updates::new(&cwd);
            while let Some(ev) = rx.recv().await {
                for u in updates.of(&ev) {
                    out.notify("session/update", json!({"sessionId": id, "update": u}));
                }
            }
        });
    }

    pub(crate) fn mode(&self) -> Mode {
        self.mode.get()
    }

    /// ACP's config options: the model, as a select of those the provider
    /// lists (the one in use until it has answered).
    pub(crate) fn config_options(&self) -> Value {
        let current = self.model.borrow().clone();
        let mut models = self.models.borrow().clone();
        if !models.contains(&current) {
            models.insert(0, current.clone());
        }
        let options: Vec<Value> = models
            .iter()
            .map(|m| json!({"value": m, "name": m}))
            .collect();
        json!([{
            "id": "model",
            "name": "Model",
            "category": "model",
            "type": "select",
            "currentValue": current,
            "options": options,
        }])
    }

    /// The REPL's commands an editor can use, and the folder's custom
    /// commands and skills, told to the editor as ACP's slash commands (an
    /// editor offers them as the person types `/`).
    pub(crate) fn list_commands(&self, out: &Out) {
        let offered = crate::frontend::offered_commands(&self.cwd, &self.config_dir);
        let mut commands = super::commands::advertised();
        commands.extend(offered.into_iter().map(|(name, description, hint)| {
            let mut c = json!({"name": name, "description": description});
            if let Some(h) = hint {
                c["input"] = json!({"hint": h});
            }
            c
        }));
        out.notify(
            "session/update",
            json!({"sessionId": self.id, "update": {"sessionUpdate": "available_commands_update", "availableCommands": commands}}),
        );
    }

    /// Asks the provider for its models, and tells the editor the list
    /// once it answers.
    pub(crate) fn list_models(self: &Rc<Self>, out: &Out) {
        let Some(listed) = self.agent.borrow().as_ref().map(|(a, _)| a.models_listed()) else {
            return;
        };
        let (s, out) = (self.clone(), out.clone());
        tokio::task::spawn_local(async move {
            let Ok(Some(mut list)) =
                tokio::time::timeout(std::time::Duration::from_secs(30), listed).await
            else {
                return;
            };
            list.sort();
            *s.models.borrow_mut() = list;
            out.notify(
                "session/update",
                json!({"sessionId": s.id, "update": {"sessionUpdate": "config_option_update", "configOptions": s.config_options()}}),
            );
        });
    }

    /// What the file tools ask of the editor, asked as
    /// `fs/read_text_file` and `fs/write_text_file`; an error or no answer
    /// sends them to the disk.
    pub(crate) fn serve_files(
        &self,
        mut asks: tokio::sync::mpsc::UnboundedReceiver<crate::util::editor_files::Ask>,
        out: &Out,
    ) {
        use crate::util::editor_files::Ask;
        let (id, out) = (self.id.clone(), out.clone());
        tokio::task::spawn_local(async move {
            while let Some(ask) = asks.recv().await {
                match ask {
                    Ask::Read { path, answer } => {
                        let rx = out
                            .request("fs/read_text_file", json!({"sessionId": id, "path": path}));
                        tokio::task::spawn_local(async move {
                            let text = match rx.await {
                                Ok(Ok(v)) => v["content"].as_str().map(str::to_string),
                                _ => None,
                            };
                            let _ = answer.send(text);
                        });
                    }
                    Ask::Write { path, text, answer } => {
                        let rx = out.request(
                            "fs/write_text_file",
                            json!({"sessionId": id, "path": path, "content": text}),
                        );
                        tokio::task::spawn_local(async move {
                            let done = match rx.await {
                                Ok(Ok(_)) => Ok(()),
                                Ok(Err(e)) => {
                                    Err(e["message"].as_str().unwrap_or("refused").to_string())
                                }
                                Err(_) => Err("the editor has gone".to_string()),
                            };
                            let _ = answer.send(done);
                        });
                    }
                }
            }
        });
    }

    /// `session/set_config_option`: the model of the next prompt.
    pub(crate) fn set_option(&self, id: &str, value: &Value) -> Result<Value, RpcError> {
        if id != "model" {
            return Err(RpcError::params(format!(
                "no config option \"{id}\": hermes has \"model\""
            )));
        }
        let model = value
            .as_str()
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| RpcError::params("the model must be a name"))?;
        *self.model.borrow_mut() = model.to_string();
        if let Some((agent, _)) = &mut *self.agent.borrow_mut() {
            agent.set_model(model);
        }
        Ok(self.config_options())
    }

    pub(crate) fn replay(&self) -> Vec<Value> {
        match &*self.agent.borrow() {
            Some((agent, _)) => super::replay::updates(agent.messages(), &self.cwd),
            None => Vec::new(),
        }
    }

    pub(crate) fn set_mode(&self, mode: &str, out: &Out) -> Result<(), RpcError> {
        let m = match mode {
            "ask" => Mode::Ask,
            "auto" => Mode::Auto,
            "plan" => Mode::Plan,
            other => {
                return Err(RpcError::params(format!(
                    "no mode \"{other}\": hermes has \"ask\", \"auto\" and \"plan\""
                )))
            }
        };
        self.mode.set(m);
        if let Some((agent, _)) = &mut *self.agent.borrow_mut() {
            apply_mode(agent, m);
        }
        out.notify(
            "session/update",
            json!({"sessionId": self.id, "update": {"sessionUpdate": "current_mode_update", "currentModeId": mode}}),
        );
        Ok(())
    }

    /// `/stop`: the turn's entries not started are never sent, the
    /// question open is a denial, and the prompt answers `cancelled`.
    pub(crate) fn cancel(&self) {
        self.stop.borrow().cancel();
    }

    /// Runs one turn, telling the editor what happens as it happens.
    pub(crate) async fn prompt(
        self: &Rc<Self>,
        text: String,
        images: Vec<Image>,
        out: &Out,
    ) -> Result<Value, RpcError> {
        let Some((mut agent, mut events)) = self.agent.borrow_mut().take() else {
            return Err(RpcError::new(
                INTERNAL_ERROR,
                "a prompt is already running in this session: wait for it, or cancel it",
            ));
        };
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        *self.running.borrow_mut() = Some(done_rx);
        let stop = CancellationToken::new();
        *self.stop.borrow_mut() = stop.clone();
        apply_mode(&mut agent, self.mode.get());
        agent.set_model(&self.model.borrow());
        // During the prompt, background processes' events come with its
        // own (the forwarder of the idle time ends).
        agent.listen_idle(None);
        let mut told = Told {
            updates: Updates::new(&self.cwd),
            stop: TurnStop::EndTurn,
            session: self,
            out,
        };
        let custom = crate::frontend::custom::Custom::load(&self.cwd, &self.config_dir);
        let text = match super::commands::classify(&text, &custom) {
            Typed::Text => Some(text),
            Typed::Say(words) => {
                told.say(&words);
                None
            }
            Typed::Run(Builtin::Init) => match crate::frontend::offers::init_prompt(&self.cwd) {
                Ok(prompt) => Some(prompt),
                Err(why) => {
                    told.say(&why);
                    None
                }
            },
            Typed::Run(b) => {
                let said = self
                    .builtin(b, &mut agent, &mut events, &mut told, &stop)
                    .await;
                match said {
                    Ok(words) => told.say(&words),
                    Err(e) => told.say(&format!("error: {e}")),
                }
                None
            }
        };
        let result = match text {
            // `/review src/lib.rs`: a custom command or a skill expanded
            // as the REPL expands it — its `!` lines asked about like any
            // call.
            Some(text) => {
                let expanded = told
                    .pumped(
                        &mut events,
                        crate::frontend::expand_command(
                            &text,
                            &agent,
                            &self.cwd,
                            &self.config_dir,
                            &stop,
                        ),
                    )
                    .await;
                let text = match expanded {
                    None => Ok(text),
                    Some(Ok(loaded)) => {
                        if let Some(m) = &loaded.model {
                            agent.set_model(m);
                        }
                        Ok(loaded.text)
                    }
                    Some(Err(why)) => Err(why),
                };
                match text {
                    Ok(text) => {
                        let turn = agent.run_turn_with(&text, images, &stop);
                        told.pumped(&mut events, turn).await.map(|_| ())
                    }
                    Err(why) => Err(AgentError::PromptBlocked(why)),
                }
            }
            None => Ok(()),
        };
        let stopped = told.stop;
        self.forward_while_idle(&agent, out);
        *self.agent.borrow_mut() = Some((agent, events));
        let _ = done_tx.send(());
        let reason = match result {
            Ok(_) => match stopped {
                TurnStop::EndTurn => "end_turn",
                TurnStop::MaxTokens => "max_tokens",
                TurnStop::Refusal => "refusal",
            },
            Err(AgentError::Cancelled) => "cancelled",
            Err(AgentError::MaxTurns(_)) => "max_turn_requests",
            Err(AgentError::PromptBlocked(why)) => {
                eprintln!("hermes: the prompt was not sent: {why}");
                "refusal"
            }
            Err(e) => {
                return Err(RpcError::new(INTERNAL_ERROR, e.to_string()).hint(e.hint()));
            }
        };
        Ok(json!({"stopReason": reason}))
    }

    /// Runs one of the REPL's commands an editor offers; what it says.
    async fn builtin(
        &self,
        b: Builtin,
        agent: &mut Agent,
        events: &mut UnboundedReceiver<Event>,
        told: &mut Told<'_>,
        stop: &CancellationToken,
    ) -> Result<String, AgentError> {
        use crate::frontend::usage_report;
        Ok(match b {
            Builtin::Usage => usage_report::usage(agent),
            Builtin::Context => usage_report::context(agent),
            Builtin::Compact(focus) => {
                let compacted = told
                    .pumped(events, agent.compact_now(focus.as_deref(), stop))
                    .await?;
                match compacted {
                    true => format!("compacted: {}", usage_report::context_line(agent)),
                    false => "nothing to compact: the conversation is its newest turn".into(),
                }
            }
            Builtin::Mode(None) => format!("mode: {}", self.mode.get().id()),
            Builtin::Mode(Some(m)) => {
                self.set_mode(m.trim(), told.out)
                    .map_err(|e| AgentError::PromptBlocked(e.message))?;
                apply_mode(agent, self.mode.get());
                format!("mode: {}", self.mode.get().id())
            }
            Builtin::Model(None) => format!(
                "model: {} (the editor's model menu lists the others)",
                agent.model()
            ),
            Builtin::Model(Some(m)) => {
                *self.model.borrow_mut() = m.clone();
                agent.set_model(&m);
                told.out.notify(
                    "session/update",
                    json!({"sessionId": self.id, "update": {"sessionUpdate": "config_option_update", "configOptions": self.config_options()}}),
                );
                format!("model: {m}, from the next message on")
            }
            Builtin::Init => String::new(),
        })
    }

    /// The end: what runs stopped and waited for (a few seconds at most),
    /// the session left as a REPL's is — its SessionEnd hooks run, kept if
    /// it is worth keeping —, the servers stopped.
    pub(crate) async fn end(&self) {
        self.cancel();
        let running = self.running.borrow_mut().take();
        if let Some(done) = running {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), done).await;
        }
        let agent = self.agent.borrow_mut().take();
        if let Some((mut agent, _)) = agent {
            for w in agent.leave(EndReason::Other).await.warnings {
                eprintln!("hermes: warning: {w}");
            }
        }
        self.mcp.shutdown().await;
    }

    /// Servers' forms go to the editor from now on (it offers
    /// `elicitation.form`): before, a server that asks is declined.
    pub(crate) fn draw_forms(&self) {
        if let Some((agent, _)) = &*self.agent.borrow() {
            self.mcp.on_form(agent.form_asker(self.answers.clone()));
        }
    }

    /// A server's form put to the editor as `elicitation/create`, with the
    /// server's own schema; its answer handed to the server's request.
    fn elicit(&self, out: &Out, form_id: &str, server: &str, message: &str, schema: &Value) {
        let rx = out.request(
            "elicitation/create",
            json!({
                "sessionId": self.id,
                "mode": "form",
                "message": format!("{server}: {message}"),
                "requestedSchema": schema,
            }),
        );
        let answers = self.answers.clone();
        let id = form_id.to_string();
        tokio::task::spawn_local(async move {
            use crate::policy::FormAnswer;
            let answer = match rx.await {
                Ok(Ok(v)) => match v["action"].as_str() {
                    Some("accept") => {
                        FormAnswer::Accept(v["content"].as_object().cloned().unwrap_or_default())
                    }
                    Some("decline") => FormAnswer::Decline,
                    _ => FormAnswer::Cancel,
                },
                // The editor could not answer (an error, or it has gone).
                _ => FormAnswer::Cancel,
            };
            // Content the form does not take is a dismissal: the editor
            // is not asked again.
            if answers.answer(&id, Answer::Form(answer)).is_err() {
                let _ = answers.answer(&id, Answer::Form(FormAnswer::Cancel));
            }
        });
    }

    /// The editor's answer to one question, handed to the round.
    fn ask(&self, out: &Out, answer_id: &str, request: Value) {
        let rx = out.request("session/request_permission", request);
        let answers = self.answers.clone();
        let id = answer_id.to_string();
        tokio::task::spawn_local(async move {
            let answer = match rx.await {
                Ok(Ok(v)) => answer_of(&v),
                // The editor could not answer (an error, or it has gone):
                // not allowed.
                _ => Answer::Deny(None),
            };
            // A turn stopped meanwhile has settled it already.
            let _ = answers.answer(&id, answer);
        });
    }
}

fn apply_mode(agent: &mut Agent, mode: Mode) {
    use crate::config::ApprovalMode;
    let policy = agent.policy_mut();
    if policy.yolo() != (mode == Mode::Auto) {
        policy.toggle_yolo();
    }
    match (mode, agent.mode() == ApprovalMode::Plan) {
        (Mode::Plan, false) => {
            agent.set_mode(ApprovalMode::Plan);
        }
        (Mode::Ask | Mode::Auto, true) => agent.leave_plan(),
        _ => {}
    }
}

/// What an option the editor picked means.
fn answer_of(v: &Value) -> Answer {
    let outcome = &v["outcome"];
    if outcome["outcome"] != "selected" {
        return Answer::Deny(None);
    }
    match outcome["optionId"].as_str() {
        Some("allow_once") => Answer::Once,
        Some("allow_session") => Answer::Session,
        Some("allow_always") => Answer::Always,
        _ => Answer::Deny(None),
    }
}

/// What a prompt has told the editor.
struct Told<'a> {
    updates: Updates,
    stop: TurnStop,
    session: &'a Session,
    out: &'a Out,
}

impl Told<'_> {
    /// `work` run to its end, the events it sends told meanwhile (a
    /// question it puts must reach the editor for it to go on).
    async fn pumped<T>(
        &mut self,
        events: &mut UnboundedReceiver<Event>,
        work: impl std::future::Future<Output = T>,
    ) -> T {
        tokio::pin!(work);
        loop {
            tokio::select! {
                biased;
                Some(ev) = events.recv() => self.tell(&ev),
                res = &mut work => {
                    while let Ok(ev) = events.try_recv() {
                        self.tell(&ev);
                    }
                    return res;
                }
            }
        }
    }

    /// Words of hermes' own (what a command says) as the agent's message.
    fn say(&self, text: &str) {
        self.out.notify(
            "session/update",
            json!({"sessionId": self.session.id, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}),
        );
    }

    fn tell(&mut self, ev: &Event) {
        for u in self.updates.of(ev) {
            self.out.notify(
                "session/update",
                json!({"sessionId": self.session.id, "update": u}),
            );
        }
        let (prefix, inner) = match ev {
            Event::Subagent { id, event, .. } => (format!("{id}/"), &**event),
            _ => (String::new(), ev),
        };
        match inner {
            Event::ApprovalAsked {
                id,
                name,
                arguments,
                preview,
                grants,
                why,
                ..
            } => {
                let mut call = updates::tool_call(
                    &format!("{prefix}{id}"),
                    name,
                    &arguments.value.to_string(),
                    &self.session.cwd,
                    "pending",
                );
                call.as_object_mut().map(|o| o.remove("sessionUpdate"));
                if let Some(p) = preview {
                    call["content"] = Value::Array(updates::diff_blocks(p, &self.session.cwd));
                }
                let mut options = vec![
                    json!({"optionId": "allow_once", "name": "Allow once", "kind": "allow_once"}),
                ];
                if let Some(g) = grants {
                    options.push(json!({"optionId": "allow_session", "name": format!("Allow {g} for this session"), "kind": "allow_always"}));
                    options.push(json!({"optionId": "allow_always", "name": format!("Always allow {g} (saved in config.toml)"), "kind": "allow_always"}));
                }
                options.push(
                    json!({"optionId": "reject_once", "name": "Reject", "kind": "reject_once"}),
                );
                eprintln!("hermes: asking the editor about {name} ({why})");
                self.session.ask(
                    self.out,
                    id,
                    json!({"sessionId": self.session.id, "toolCall": call, "options": options}),
                );
            }
            Event::TurnDone { stop, .. } if prefix.is_empty() => self.stop = *stop,
            Event::FormAsked {
                id,
                server,
                message,
                schema,
                ..
            } => self.session.elicit(self.out, id, server, message, schema),
            // A warning (a server that failed, a hook's message) is the
            // person's to see, not only the editor's log's.
            Event::Warning { message } => {
                log(ev);
                let message = crate::util::secrets::mask_known(message);
                let update = if self.session.notices.get() {
                    json!({"sessionUpdate": "notice", "severity": "warning", "title": message})
                } else {
                    json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": format!("\n\n> warning: {message}\n\n")}})
                };
                self.out.notify(
                    "session/update",
                    json!({"sessionId": self.session.id, "update": update}),
                );
            }
            _ => log(ev),
        }
    }
}

/// What the editor's log (stderr) gets: warnings and retries.
fn log(ev: &Event) {
    let line = match ev {
        Event::Warning { message } => format!("hermes: warning: {message}"),
        Event::Retrying {
            attempt,
            delay_ms,
            reason,
        } => format!("hermes: retrying ({attempt}) in {delay_ms} ms: {reason}"),
        _ => return,
    };
    eprintln!("{}", crate::util::secrets::mask_known(&line));
}

/// `session/new`'s and `session/load`'s parameters, checked.
pub(crate) fn open_params(params: &Value, load: bool) -> Result<Open, RpcError> {
    let cwd = params
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .ok_or_else(|| RpcError::params("\"cwd\" must be an absolute path"))?;
    if !cwd.is_dir() {
        return Err(RpcError::params(format!(
            "cwd {} is not a folder",
            cwd.display()
        )));
    }
    let servers = match params.get("mcpServers") {
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, s)| server(s).map_err(|e| RpcError::params(format!("mcpServers[{i}]: {e}"))))
            .collect::<Result<Vec<_>, _>>()?,
        Some(Value::Null) => Vec::new(),
        // `session/resume` may leave them out.
        None if load => Vec::new(),
        _ => return Err(RpcError::params("\"mcpServers\" must be an array")),
    };
    let dirs = match params.get("additionalDirectories") {
        Some(Value::Array(list)) => list
            .iter()
            .map(|d| {
                d.as_str()
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
                    .ok_or_else(|| {
                        RpcError::params("additionalDirectories: each must be an absolute path")
                    })
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => Vec::new(),
    };
    let id = params
        .get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_string);
    if load && id.is_none() {
        return Err(RpcError::params("\"sessionId\" is missing"));
    }
    Ok(Open {
        cwd,
        servers,
        dirs,
        load: if load { id } else { None },
        editor: None,
    })
}

fn server(s: &Value) -> Result<Server, String> {
    let text = |k: &str| s.get(k).and_then(Value::as_str).map(str::to_string);
    let pairs = |k: &str| -> Result<Vec<(String, String)>, String> {
        match s.get(k) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(list)) => list
                .iter()
                .map(|p| match (p["name"].as_str(), p["value"].as_str()) {
                    (Some(n), Some(v)) => Ok((n.to_string(), v.to_string())),
                    _ => Err(format!("each of \"{k}\" needs \"name\" and \"value\"")),
                })
                .collect(),
            Some(_) => Err(format!("\"{k}\" must be an array")),
        }
    };
    let name = text("name").ok_or("a server needs \"name\"")?;
    match s.get("type").and_then(Value::as_str) {
        Some("http") | Some("sse") => Ok(Server::Remote {
            name,
            url: text("url").ok_or("an http or sse server needs \"url\"")?,
            headers: pairs("headers")?,
        }),
        None | Some("stdio") => Ok(Server::Stdio {
            name,
            command: text("command").ok_or("a stdio server needs \"command\"")?,
            args: match s.get("args") {
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(str::to_string)
                            .ok_or("\"args\" must be strings")
                    })
                    .collect::<Result<_, _>>()?,
                None | Some(Value::Null) => Vec::new(),
                Some(_) => return Err("\"args\" must be an array".into()),
            },
            env: pairs("env")?,
        }),
        Some(other) => Err(format!(
            "a server of type \"{other}\" (hermes takes stdio, http and sse)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_of_every_transport_are_read_and_bad_ones_named() {
        let open = open_params(
            &json!({
                "cwd": "/tmp",
                "additionalDirectories": ["/srv/shared"],
                "mcpServers": [
                    {"name": "fs", "command": "/usr/bin/mcp-fs", "args": ["--root", "/tmp"], "env": [{"name": "GITHUB_TOKEN", "value": "ghp_x"}]},
                    {"type": "http", "name": "web", "url": "https://mcp.example/mcp", "headers": [{"name": "Authorization", "value": "Bearer t"}]},
                ],
            }),
            false,
        )
        .unwrap();
        assert_eq!(open.dirs, [PathBuf::from("/srv/shared")]);
        assert!(
            matches!(&open.servers[0], Server::Stdio { env, .. } if env[0].0 == "GITHUB_TOKEN")
        );
        assert!(
            matches!(&open.servers[1], Server::Remote { url, .. } if url == "https://mcp.example/mcp")
        );
        for (params, says) in [
            (json!({"cwd": "rel", "mcpServers": []}), "absolute"),
            (json!({"cwd": "/tmp"}), "\"mcpServers\" must be an array"),
            (
                json!({"cwd": "/tmp", "mcpServers": [{"name": "x"}]}),
                "mcpServers[0]: a stdio server needs \"command\"",
            ),
            (
                json!({"cwd": "/tmp", "mcpServers": [{"type": "ws", "name": "x"}]}),
                "type \"ws\"",
            ),
        ] {
            let e = open_params(&params, false).unwrap_err();
            assert!(e.message.contains(says), "{params}: {}", e.message);
        }
    }

    #[test]
    fn an_option_picked_is_the_answer_and_a_cancelled_question_a_denial() {
        let pick = |id: &str| json!({"outcome": {"outcome": "selected", "optionId": id}});
        assert_eq!(answer_of(&pick("allow_once")), Answer::Once);
        assert_eq!(answer_of(&pick("allow_session")), Answer::Session);
        assert_eq!(answer_of(&pick("allow_always")), Answer::Always);
        assert_eq!(answer_of(&pick("reject_once")), Answer::Deny(None));
        assert_eq!(
            answer_of(&json!({"outcome": {"outcome": "cancelled"}})),
            Answer::Deny(None)
        );
    }
}
