//! The REPL's slash commands' handlers; their table (names, aliases,
//! arguments, help) is `frontend/command_table.rs`.

use std::io::IsTerminal;
use std::sync::Mutex;

use super::context::{Flow, ReplContext, ReplError};
use super::editor::{next_line, Editor};
use super::view::leave;
use crate::agent::Agent;
use crate::frontend::command_table::{nearest, Slash};
use crate::util::text::excerpt;

/// Runs a built-in slash command, parsed once (`Slash::parse`): each has
/// its handler below. `/compact` (it drives a turn's events) and `/help`
/// (it lists the custom commands the loop loaded) come back as flows the
/// loop runs — dispatched here like every other, never caught before.
pub(super) async fn command(
    slash: Slash,
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
) -> Result<Flow, ReplError> {
    match slash {
        Slash::Quit => Ok(Flow::Quit),
        Slash::Worktree(name) => Ok(worktree(agent, ctx, name.as_deref()).await),
        Slash::Help => Ok(Flow::Help),
        Slash::Session => {
            errln!(
                "session {} · {}",
                agent.session().id(),
                agent.session().path().display()
            );
            Ok(Flow::Continue)
        }
        Slash::Stop => {
            errln!("nothing is running.");
            Ok(Flow::Continue)
        }
        Slash::Compact(focus) => Ok(Flow::Compact(focus)),
        Slash::Copy => {
            copy(agent);
            Ok(Flow::Continue)
        }
        Slash::Export(file) => {
            export(agent, ctx, file.as_deref());
            Ok(Flow::Continue)
        }
        Slash::Rewind(args) => super::rewind::command(agent, ctx, &args).await,
        Slash::Diff(args) => {
            super::diff::command(agent, ctx, &args).await;
            Ok(Flow::Continue)
        }
        Slash::Ps => {
            super::processes::list(agent).await;
            Ok(Flow::Continue)
        }
        Slash::Kill(n) => {
            super::processes::kill(agent, n.as_deref()).await;
            Ok(Flow::Continue)
        }
        Slash::Forward(port) => {
            super::processes::forward(agent, port.as_deref()).await;
            Ok(Flow::Continue)
        }
        Slash::Init => init(ctx).await,
        Slash::Approvals => approvals(agent, ctx).await,
        Slash::Yolo => yolo(agent).await,
        Slash::Mode(name) => {
            super::plan::switch(agent, name.as_deref());
            Ok(Flow::Continue)
        }
        Slash::Update => update(ctx).await,
        Slash::Model(name) => model(agent, ctx, name.as_deref()).await,
        Slash::Usage => usage(agent).await,
        Slash::Context => context(agent).await,
        Slash::Tools(query) => tools(agent, &query).await,
        Slash::Mcp => mcp(agent).await,
        Slash::Agents => {
            agents(agent);
            Ok(Flow::Continue)
        }
        Slash::Sessions => sessions(ctx).await,
        Slash::Resume(id) => resume(agent, ctx, id.as_deref()).await,
        Slash::New => new(agent, ctx).await,
    }
}

/// A line that starts with `/` and names no command: the nearest one.
pub(super) fn unknown(word: &str) {
    match nearest(word) {
        Some(near) => errln!("unknown command {word}; did you mean {near}? (/help lists them)"),
        None => errln!("unknown command {word}; /help lists them"),
    }
}

/// `/init`: drafts an `AGENTS.md` unless the folder has one.
async fn init(ctx: &ReplContext<'_>) -> Result<Flow, ReplError> {
    match crate::frontend::offers::init_prompt(ctx.cwd) {
        Ok(prompt) => Ok(Flow::Send(prompt)),
        Err(why) => {
            errln!("{why}");
            Ok(Flow::Continue)
        }
    }
}

/// `/copy`: the last answer to the clipboard, by OSC 52 — the terminal
/// (or tmux, or an SSH client's terminal) puts it there. The answer goes
/// base64-encoded, so nothing the model wrote reaches the terminal as an
/// escape.
fn copy(agent: &Agent) {
    use base64::Engine;
    use std::io::{IsTerminal, Write};
    let last = agent.messages().iter().rev().find_map(|m| match m {
        crate::model::Message::Assistant { content, .. } if !content.trim().is_empty() => {
            Some(content.as_str())
        }
        _ => None,
    });
    let Some(answer) = last else {
        errln!("no answer to copy yet");
        return;
    };
    let mut err = std::io::stderr();
    if !err.is_terminal() {
        errln!("/copy needs a terminal: stderr is not one");
        return;
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(answer);
    let sent = write!(err, "\u{1b}]52;c;{encoded}\u{7}").and_then(|_| err.flush());
    match sent {
        Ok(()) => errln!(
            "copied the last answer ({} characters) to the clipboard (OSC 52: a terminal \
             that does not take it ignores it)",
            answer.chars().count()
        ),
        Err(e) => errln!("could not write to the terminal: {e}"),
    }
}

/// `/export [FILE]`: the conversation as Markdown, to FILE (relative to the
/// working folder) or `hermes-ID.md` there. An existing file is never
/// overwritten.
fn export(agent: &Agent, ctx: &ReplContext<'_>, file: Option<&str>) {
    let id = agent.session().id().to_string();
    let cwd = std::fs::canonicalize(ctx.cwd).unwrap_or_else(|_| ctx.cwd.to_path_buf());
    let path = cwd.join(file.map_or_else(|| format!("hermes-{id}.md"), str::to_string));
    let text = crate::frontend::export::markdown(agent.messages(), &id);
    // Beneath the working folder as it was resolved at start: a link a
    // command planted on the way is refused.
    let written = crate::util::beneath::create_new(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
    match written {
        Ok(()) => errln!("exported the conversation to {}", path.display()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            errln!("{} exists; give /export another file name", path.display())
        }
        Err(e) => errln!("could not write {}: {e}", path.display()),
    }
}

/// `/agents`: the types subagents may be started as, and the project's
/// held until its folder is trusted.
fn agents(agent: &Agent) {
    let Some(types) = agent.agent_types() else {
        errln!("subagents are off: `agent` is not among [tools] builtin");
        return;
    };
    if types.types.is_empty() && types.held.is_empty() {
        errln!(
            "no agent types: subagents start with hermes' own prompt and every tool; \
             add types in .claude/agents/ or ~/.claude/agents/ (Claude Code's format)"
        );
    }
    for t in &types.types {
        let tools = t
            .tools
            .as_ref()
            .map(|l| l.join(", "))
            .unwrap_or_else(|| "every tool".into());
        let model = t.model.as_deref().unwrap_or("the run's model");
        errln!(
            "  {}  {} · tools: {tools} · model: {model} · {}",
            t.name,
            excerpt(&t.description, 80),
            t.origin
        );
    }
    for held in &types.held {
        errln!(
            "  (held) {}: this folder is not trusted; `hermes trust` uses it",
            held.display()
        );
    }
}

/// `/approvals`: what runs without asking, and why.
async fn approvals(agent: &mut Agent, ctx: &ReplContext<'_>) -> Result<Flow, ReplError> {
    let p = agent.policy_mut();
    let allowed = p.allowed_this_session();
    let config = ctx.settings.paths.config_file();
    let standing = standing_allows(ctx, &config);
    if allowed.is_empty() && standing.is_empty() {
        errln!("nothing is allowed without asking (answer s or a to a question to allow a tool)");
    }
    for t in allowed {
        errln!("  {t}  (this session)");
    }
    for line in standing {
        errln!("  {line}");
    }
    if p.yolo() {
        errln!("  /yolo is on: tools run without asking (rules that deny still hold)");
    }
    Ok(Flow::Continue)
}

/// `/yolo`: tools run without asking, or ask again.
async fn yolo(agent: &mut Agent) -> Result<Flow, ReplError> {
    if agent.policy_mut().toggle_yolo() {
        errln!("yolo on: tools run without asking for this session (rules that deny still hold); /yolo again to ask again");
    } else {
        errln!("yolo off: approvals ask again");
    }
    Ok(Flow::Continue)
}

/// `/update`: whether this installation is behind main.
async fn update(ctx: &ReplContext<'_>) -> Result<Flow, ReplError> {
    let paths = ctx.settings.paths.clone();
    let line = tokio::task::spawn_blocking(move || crate::update::status_line(&paths)).await?;
    errln!("{line}");
    Ok(Flow::Continue)
}

/// `/model [NAME]`: a picker on a terminal, else the model; with a name, that model from now on.
async fn model(
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    name: Option<&str>,
) -> Result<Flow, ReplError> {
    let listed = ctx.models.lock().ok().and_then(|m| m.clone());
    match name {
        // On a terminal, a picker over the models the provider lists.
        None if std::io::stdin().is_terminal() && listed.is_some() => {
            return Ok(Flow::PickModel(listed.unwrap_or_default()));
        }
        None => {
            errln!("model {}", agent.model());
            if let Some(names) = &listed {
                errln!(
                    "{} lists {} models (Tab after /model completes them)",
                    ctx.settings.provider.name,
                    names.len()
                );
            }
        }
        Some(m) => {
            agent.set_model(m);
            errln!("model {m} from the next request on");
            if listed.is_some_and(|names| !names.iter().any(|n| n == m)) {
                errln!(
                    "warning: {} does not list a model `{m}` (Tab after /model completes the ones it does); using it anyway",
                    ctx.settings.provider.name
                );
            }
        }
    }
    Ok(Flow::Continue)
}

/// `/usage`: requests and tokens so far, and how full the window is.
async fn usage(agent: &mut Agent) -> Result<Flow, ReplError> {
    errln!("{}", crate::frontend::usage_report::usage(agent));
    Ok(Flow::Continue)
}

/// `/context`: what the next request carries, by part.
async fn context(agent: &mut Agent) -> Result<Flow, ReplError> {
    errln!("{}", crate::frontend::usage_report::context(agent));
    Ok(Flow::Continue)
}

/// `/tools [WORDS]`: what `tool_search` would find.
async fn tools(agent: &mut Agent, query: &str) -> Result<Flow, ReplError> {
    let (found, unsearched) = agent.find_tools(query).await;
    if query.is_empty() {
        errln!(
            "{} tools in the catalogs; /tools WORDS searches them",
            found.len()
        );
    } else if found.is_empty() {
        errln!("no tool matches `{query}`");
    }
    for t in found.iter().filter(|_| !query.is_empty()) {
        let first = t.description.lines().next().unwrap_or("");
        let line = format!("{}  ({})  {}", t.name, t.source, excerpt(first, 100));
        for l in crate::frontend::markdown::fit_to_stderr(&line, "  ", "      ") {
            errln!("{l}");
        }
    }
    if !unsearched.is_empty() {
        errln!("not searched yet: {}", unsearched.join(", "));
    }
    Ok(Flow::Continue)
}

/// `/mcp`: each server, running or not, and its tools.
async fn mcp(agent: &mut Agent) -> Result<Flow, ReplError> {
    let (servers, (warmed, unused)) = agent.mcp_overview().await;
    if servers.is_empty() {
        errln!("no MCP servers configured (hermes mcp add NAME -- COMMAND …)");
    }
    for s in servers {
        let state = match (s.running, s.warmed, s.called) {
            (true, true, false) => "running, started ahead, not called yet",
            (true, true, true) => "running, started ahead",
            (true, _, _) => "running",
            (false, _, _) => "not running",
        };
        errln!("  {:<16} {:>3} tools  {state}", s.name, s.tools);
    }
    if warmed > 0 {
        errln!("started ahead of a call this session: {warmed} (not called: {unused})");
    }
    Ok(Flow::Continue)
}

/// `/sessions`: the ten newest.
async fn sessions(ctx: &ReplContext<'_>) -> Result<Flow, ReplError> {
    for s in crate::session::list(&ctx.settings.paths.sessions_dir())
        .into_iter()
        .take(10)
    {
        errln!(
            "  {}  {}  {}",
            s.meta.id,
            s.meta.cwd,
            crate::util::sanitize::clean(&excerpt(&s.title, 60))
        );
    }
    Ok(Flow::Continue)
}

/// `/resume [ID]`: a picker on a terminal, else the newest here; an id prefix with several matches asks which.
async fn resume(
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    id: Option<&str>,
) -> Result<Flow, ReplError> {
    let dir = ctx.settings.paths.sessions_dir();
    let path = match id {
        Some(id) => match crate::session::find(&dir, id) {
            Err(crate::session::SessionError::Ambiguous { .. }) => {
                // Not the one open now (this REPL's own).
                let mut found = crate::session::matching(&dir, id);
                found.retain(|s| s.meta.id != agent.session().id());
                return Ok(Flow::Pick(found));
            }
            found => found.map(Some),
        },
        // On a terminal, a picker over the sessions kept.
        None if std::io::stdin().is_terminal() => {
            let dir = ctx.settings.paths.sessions_dir();
            let items = super::pickers::sessions(&dir, ctx.cwd, agent.session().id());
            if items.is_empty() {
                errln!("no other session is kept");
                return Ok(Flow::Continue);
            }
            return Ok(Flow::PickSession(items));
        }
        None => {
            let here = ctx.cwd.to_string_lossy();
            Ok(crate::session::list(&dir)
                .into_iter()
                .find(|s| s.meta.cwd == here && s.meta.id != agent.session().id())
                .map(|s| s.path))
        }
    };
    match path {
        Ok(Some(path)) => resume_at(agent, ctx, &path).await,
        Ok(None) => errln!("no other session in this folder; /sessions lists them all"),
        Err(e) => errln!("{e}"),
    }
    Ok(Flow::Continue)
}

/// `/new`: leaves this session for a new one.
async fn new(agent: &mut Agent, ctx: &ReplContext<'_>) -> Result<Flow, ReplError> {
    leave(agent, crate::agent::EndReason::Clear).await;
    let start = agent.open(ctx.settings, ctx.cwd, None).await?;
    let id = start.handle.id().to_string();
    let old = agent.begin(start).await;
    // Closed now, not whenever its writer notices: it may be
    // resumed with the next command.
    let _ = old.close().await;
    errln!("new session {id}");
    Ok(Flow::Continue)
}

/// The rules that allow tools without asking: those the run began with
/// (every config layer, `--approve`) and those "always" answers have saved
/// in the user's config since, each once, with where it comes from.
fn standing_allows(ctx: &ReplContext<'_>, config: &std::path::Path) -> Vec<String> {
    use crate::config::Decision;
    let shown = |r: &crate::config::ApprovalRule| {
        let when: Vec<String> = r
            .when
            .iter()
            .map(|(ptr, re)| format!(" when {ptr} ~ {}", excerpt(re.as_str(), 60)))
            .collect();
        format!("{}{}", r.tool, when.concat())
    };
    let mut seen = std::collections::HashSet::new();
    let mut lines = Vec::new();
    let at_start = ctx
        .settings
        .approvals
        .rules
        .iter()
        .filter(|r| r.decision == Decision::Allow)
        .map(|r| (shown(r), crate::policy::By::of(&r.origin).to_string()));
    let saved = crate::config::edit::saved_allows(config)
        .into_iter()
        .map(|r| (shown(&r), format!("always, in {}", config.display())));
    for (rule, from) in at_start.chain(saved) {
        if seen.insert(rule.clone()) {
            lines.push(format!("{}  ({from})", crate::util::sanitize::clean(&rule)));
        }
    }
    lines
}

/// Opens the session at `path` in place of the current one.
async fn resume_at(agent: &mut Agent, ctx: &ReplContext<'_>, path: &std::path::Path) {
    match agent.open(ctx.settings, ctx.cwd, Some(path)).await {
        Ok(start) => {
            leave(agent, crate::agent::EndReason::Resume).await;
            let old = agent.begin(start).await;
            let _ = old.close().await;
            crate::frontend::resumed::show(agent);
        }
        Err(e) => errln!("error: {e}"),
    }
}

/// `/model` on a terminal: the provider's models to pick from, the one in
/// use highlighted.
pub(super) async fn pick_model(
    editor: Editor,
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    names: Vec<String>,
) -> Result<Editor, ReplError> {
    let now = agent.model().to_string();
    let selected = names.iter().position(|n| *n == now).unwrap_or(0);
    let items = names
        .into_iter()
        .map(|n| {
            let about = if n == now { "(in use)" } else { "" };
            crate::frontend::menu::Item::new(n, about)
        })
        .collect();
    let what = format!("model {now}; {} lists", ctx.settings.provider.name);
    let (editor, taken) = super::pickers::pick(editor, &what, "model › ", items, selected).await?;
    match taken {
        Some(m) if m != now => {
            agent.set_model(&m);
            errln!("model {m} from the next request on");
        }
        _ => errln!("model {now} kept"),
    }
    Ok(editor)
}

/// `/resume` on a terminal: the sessions kept to pick from, the newest of
/// this folder highlighted.
pub(super) async fn pick_session(
    editor: Editor,
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    items: Vec<crate::frontend::menu::Item>,
) -> Result<Editor, ReplError> {
    let (editor, taken) =
        super::pickers::pick(editor, "resume a session", "resume › ", items, 0).await?;
    let dir = ctx.settings.paths.sessions_dir();
    match taken.map(|id| crate::session::find(&dir, &id)) {
        Some(Ok(path)) => resume_at(agent, ctx, &path).await,
        Some(Err(e)) => errln!("{e}"),
        None => errln!("no session opened"),
    }
    Ok(editor)
}

/// The sessions a `/resume PREFIX` matched: a picker on a terminal, else
/// numbered; the one chosen is opened (an empty answer opens none).
pub(super) async fn pick_and_resume(
    editor: Editor,
    queued: &Mutex<Vec<String>>,
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
    found: Vec<crate::session::Summary>,
) -> Result<Editor, ReplError> {
    if std::io::stdin().is_terminal() {
        let items = found
            .iter()
            .map(|s| {
                let title = crate::util::sanitize::clean(&excerpt(&s.title, 60));
                crate::frontend::menu::Item::new(&s.meta.id, format!("{title} · {}", s.meta.cwd))
            })
            .collect();
        let what = format!("{} sessions match", found.len());
        let (editor, taken) = super::pickers::pick(editor, &what, "resume › ", items, 0).await?;
        if let Some(s) = taken.and_then(|id| found.iter().find(|s| s.meta.id == id)) {
            resume_at(agent, ctx, &s.path).await;
        }
        return Ok(editor);
    }
    errln!("{} sessions match:", found.len());
    for (i, s) in found.iter().enumerate() {
        errln!(
            "  {}  {}  {}  {}",
            i + 1,
            s.meta.id,
            s.meta.cwd,
            crate::util::sanitize::clean(&excerpt(&s.title, 60))
        );
    }
    let ask = format!("resume which (1-{}, Enter for none)? ", found.len());
    let (editor, answer) = next_line(editor, queued, ask, None).await?;
    let answer = answer.unwrap_or_default();
    let answer = answer.trim();
    if answer.is_empty() {
        return Ok(editor);
    }
    match answer
        .parse::<usize>()
        .ok()
        .and_then(|n| found.get(n.wrapping_sub(1)))
    {
        Some(s) => resume_at(agent, ctx, &s.path).await,
        None => errln!(
            "`{answer}` is not one of 1-{}; nothing was opened",
            found.len()
        ),
    }
    Ok(editor)
}

/// `/worktree [NAME]`: where the session works, or the worktree made (or
/// found) that it goes on in — the REPL ends and hermes starts again
/// there on the same session. Made first, so a failure leaves the person
/// where they are.
async fn worktree(agent: &Agent, ctx: &ReplContext<'_>, name: Option<&str>) -> Flow {
    let Some(name) = name else {
        errln!(
            "working in {} — /worktree NAME continues this session in hermes' worktree NAME",
            crate::util::sanitize::clean(&ctx.cwd.display().to_string())
        );
        return Flow::Continue;
    };
    let spec = crate::worktree::Spec {
        name,
        base: None,
        from: ctx.cwd,
        dir: &ctx.settings.worktree.dir,
        include: &ctx.settings.worktree.include,
    };
    match crate::worktree::open(&spec).await {
        Ok(opened) => {
            for n in &opened.notes {
                errln!("{n}");
            }
            errln!(
                "continuing in worktree {name} ({}, {})…",
                opened.worktree.branch,
                crate::util::sanitize::clean(&opened.worktree.path.display().to_string())
            );
            *ctx.moving.lock().unwrap_or_else(|p| p.into_inner()) =
                Some((name.to_string(), agent.session().id().to_string()));
            Flow::Quit
        }
        Err(e) => {
            errln!(
                "error: {}",
                e.to_string().replace("--worktree", "/worktree")
            );
            errln!(
                "hint: {}",
                e.hint().replace(
                    "--worktree-base REF",
                    "hermes --worktree NAME --worktree-base REF"
                )
            );
            Flow::Continue
        }
    }
}
