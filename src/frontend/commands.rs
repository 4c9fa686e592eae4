//! The REPL's slash commands: one table — each command's name, aliases,
//! arguments and help — from which `/help`, Tab completion and the
//! "did you mean" of a typo are all made, and the handlers.

use std::io::IsTerminal;
use std::sync::Mutex;

use super::printer::group;
use super::repl::{context_line, leave, next_line, Editor, Flow, ReplContext, ReplError};
use crate::agent::{open_session, Agent};
use crate::util::text::excerpt;

/// A slash command as the user sees it.
pub(super) struct Command {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// Its arguments, as `/help` shows them.
    pub args: &'static str,
    pub help: &'static str,
}

const fn cmd(
    name: &'static str,
    aliases: &'static [&'static str],
    args: &'static str,
    help: &'static str,
) -> Command {
    Command {
        name,
        aliases,
        args,
        help,
    }
}

/// Every command, in the order `/help` lists them.
pub(super) const COMMANDS: &[Command] = &[
    cmd("/help", &["/?"], "", "this list"),
    cmd(
        "/new",
        &["/clear"],
        "",
        "start a new session (the current one stays on disk)",
    ),
    cmd(
        "/session",
        &[],
        "",
        "show the current session's id and file",
    ),
    cmd("/sessions", &[], "", "recent sessions"),
    cmd(
        "/resume",
        &[],
        "[ID]",
        "open a session (a picker without ID; a prefix lists its matches)",
    ),
    cmd(
        "/stop",
        &[],
        "",
        "while a turn runs: stop it (Esc and Ctrl-C do the same)",
    ),
    cmd(
        "/model",
        &[],
        "[M]",
        "pick a model, or use model M from now on (the menu lists the provider's)",
    ),
    cmd(
        "/tools",
        &[],
        "[Q]",
        "search the tools the model can find (all servers' catalogs)",
    ),
    cmd("/mcp", &[], "", "MCP servers: running or not, tool counts"),
    cmd(
        "/usage",
        &[],
        "",
        "tokens in and out (cached), model requests, how full the context is",
    ),
    cmd(
        "/compact",
        &[],
        "[FOCUS]",
        "summarise the older turns now (FOCUS: what to keep most of)",
    ),
    cmd(
        "/context",
        &[],
        "",
        "what the next request carries, by part, in bytes and tokens",
    ),
    cmd(
        "/init",
        &[],
        "",
        "draft an AGENTS.md for this folder (the model reads the project)",
    ),
    cmd(
        "/approvals",
        &[],
        "",
        "what runs without asking: this session's answers, rules, \"always\"",
    ),
    cmd(
        "/yolo",
        &[],
        "",
        "run tools without asking for this session (again: ask again)",
    ),
    cmd(
        "/update",
        &[],
        "",
        "check whether a newer hermes is available",
    ),
    cmd(
        "/quit",
        &["/exit", "/q"],
        "",
        "leave (Ctrl-D does the same)",
    ),
];

/// The command a word names, by its name or an alias.
pub(super) fn canonical(word: &str) -> Option<&'static str> {
    COMMANDS
        .iter()
        .find(|c| c.name == word || c.aliases.contains(&word))
        .map(|c| c.name)
}

/// `/help`'s text, from the table.
pub(super) fn help() -> String {
    let mut out = String::from("commands:\n");
    for c in COMMANDS {
        let head = match c.args {
            "" => c.name.to_string(),
            args => format!("{} {args}", c.name),
        };
        let aliases = match c.aliases {
            [] => String::new(),
            a => format!(" (also {})", a.join(", ")),
        };
        out.push_str(&format!("  {head:<18} {}{aliases}\n", c.help));
    }
    out.push_str(
        "  /SERVER:PROMPT [ARGS]  send a server's prompt (ARGS: words in order, or NAME=VALUE)\n\
         In a message, @PATH attaches a file (or a folder's listing) and\n\
         @SERVER:URI a server's resource. Tab lists commands, prompts, tool names\n\
         (mcp__…), mentions, models and paths, with what each is; Alt-Enter or a\n\
         line ending in \\ goes on on the next line. While a turn runs, type to\n\
         queue a message; Esc stops the turn.",
    );
    out
}

/// (name, help) of each command and alias, for Tab.
pub(super) fn for_completion() -> Vec<(String, String)> {
    COMMANDS
        .iter()
        .flat_map(|c| {
            std::iter::once(c.name)
                .chain(c.aliases.iter().copied())
                .filter(|n| n.len() > 2)
                .map(|n| (n.to_string(), c.help.to_string()))
        })
        .collect()
}

/// The known command nearest to `word` (edit distance ≤ 2), for a typo.
pub(super) fn nearest(word: &str) -> Option<&'static str> {
    COMMANDS
        .iter()
        .flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Runs the slash command `text` names (its aliases too).
pub(super) async fn command(
    text: &str,
    agent: &mut Agent,
    ctx: &ReplContext<'_>,
) -> Result<Flow, ReplError> {
    let word = text.split_whitespace().next().unwrap_or("");
    match canonical(word).unwrap_or(word) {
        "/quit" => return Ok(Flow::Quit),
        "/help" => errln!("{}", help()),
        "/session" => errln!(
            "session {} · {}",
            agent.session().id(),
            agent.session().path().display()
        ),
        "/stop" => errln!("nothing is running."),
        "/init" => {
            let existing = ["AGENTS.md", "CLAUDE.md"]
                .into_iter()
                .find(|f| ctx.cwd.join(f).exists());
            match existing {
                Some(f) => errln!(
                    "{f} already exists in this folder; edit it, or remove it to draft a new one"
                ),
                None => return Ok(Flow::Send(super::offers::INIT.to_string())),
            }
        }
        "/approvals" => {
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
        }
        "/yolo" => {
            if agent.policy_mut().toggle_yolo() {
                errln!("yolo on: tools run without asking for this session (rules that deny still hold); /yolo again to ask again");
            } else {
                errln!("yolo off: approvals ask again");
            }
        }
        "/update" => {
            let paths = ctx.settings.paths.clone();
            let line =
                tokio::task::spawn_blocking(move || crate::update::status_line(&paths)).await?;
            errln!("{line}");
        }
        "/model" => {
            let listed = ctx.models.lock().ok().and_then(|m| m.clone());
            match text.split_whitespace().nth(1) {
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
        }
        "/usage" => {
            let u = agent.usage_totals();
            errln!(
                "{} model request(s) · {} tokens in ({} read from the cache, {} written to it) · {} out",
                u.requests, u.prompt_tokens, u.cache_read_tokens, u.cache_write_tokens, u.completion_tokens
            );
            errln!("{}", context_line(agent));
        }
        "/context" => {
            let parts = agent.context_parts();
            let (bytes, tokens) = parts
                .iter()
                .fold((0, 0), |(b, t), (_, pb, pt)| (b + pb, t + pt));
            errln!("the next request carries (tokens estimated at the provider's last count):");
            for (name, b, t) in &parts {
                errln!(
                    "  {name:<40} {:>9} bytes {:>8} tokens",
                    group(*b),
                    group(*t)
                );
            }
            errln!(
                "  {:<40} {:>9} bytes {:>8} tokens",
                "total",
                group(bytes),
                group(tokens)
            );
            errln!("{}", context_line(agent));
        }

        "/tools" => {
            let query = text.split_once(' ').map(|(_, q)| q.trim()).unwrap_or("");
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
                for l in super::markdown::fit_to_stderr(&line, "  ", "      ") {
                    errln!("{l}");
                }
            }
            if !unsearched.is_empty() {
                errln!("not searched yet: {}", unsearched.join(", "));
            }
        }
        "/mcp" => {
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
        }
        "/sessions" => {
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
        }
        "/resume" => {
            let dir = ctx.settings.paths.sessions_dir();
            let path = match text.split_whitespace().nth(1) {
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
        }
        "/new" => {
            leave(agent).await;
            let reach = agent.reach_prompt(ctx.cwd, &ctx.settings.prompt);
            let start = open_session(ctx.settings, ctx.cwd, None, || reach).await?;
            let id = start.handle.id().to_string();
            let old = agent.begin(start).await;
            // Closed now, not whenever its writer notices: it may be
            // resumed with the next command.
            let _ = old.close().await;
            errln!("new session {id}");
        }
        other => match nearest(other) {
            Some(near) => {
                errln!("unknown command {other}; did you mean {near}? (/help lists them)")
            }
            None => errln!("unknown command {other}; /help lists them"),
        },
    }
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
    match open_session(ctx.settings, ctx.cwd, Some(path), String::new).await {
        Ok(start) => {
            leave(agent).await;
            let old = agent.begin(start).await;
            let _ = old.close().await;
            super::resumed::show(agent);
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
            super::menu::Item::new(n, about)
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
    items: Vec<super::menu::Item>,
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
                super::menu::Item::new(&s.meta.id, format!("{title} · {}", s.meta.cwd))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_gets_the_nearest_command() {
        assert_eq!(nearest("/quti"), Some("/quit"));
        assert_eq!(nearest("/aprovals"), Some("/approvals"));
        assert_eq!(nearest("/zzzzzz"), None);
    }

    #[test]
    fn help_and_completion_come_from_the_one_table() {
        let h = help();
        for c in COMMANDS {
            assert!(h.contains(c.name) && h.contains(c.help), "{}", c.name);
        }
        assert!(h.contains("/new") && h.contains("(also /clear)"), "{h}");
        assert_eq!(canonical("/exit"), Some("/quit"));
        assert_eq!(canonical("/clear"), Some("/new"));
        let names: Vec<String> = for_completion().into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"/clear".to_string()) && !names.contains(&"/q".to_string()));
    }
}
