//! The REPL's slash commands as one table — each command's name, aliases,
//! arguments and help — from which `/help`, the menu, Tab completion and
//! the "did you mean" of a typo are all made. The handlers are
//! `repl/commands.rs`; custom commands and skills check their names here.

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
        "/agents",
        &[],
        "",
        "the agent types subagents may be started as (the `agent` tool)",
    ),
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
        "/rewind",
        &[],
        "[N] [code|conversation]",
        "go back to before turn N: its files, its conversation or both (a picker without N; Esc Esc too)",
    ),
    cmd(
        "/context",
        &[],
        "",
        "what the next request carries, by part, in bytes and tokens",
    ),
    cmd(
        "/copy",
        &[],
        "",
        "the last answer to the clipboard (OSC 52: your terminal puts it there)",
    ),
    cmd(
        "/export",
        &[],
        "[FILE]",
        "the conversation as Markdown, each tool call collapsible (hermes-ID.md here without FILE)",
    ),
    cmd(
        "/diff",
        &[],
        "[N]",
        "the folder's uncommitted changes, or what turn N changed (N from /rewind)",
    ),
    cmd(
        "/ps",
        &[],
        "",
        "the session's background processes: command, time, ports, last line",
    ),
    cmd("/kill", &[], "N", "stop background process N and what it started"),
    cmd(
        "/forward",
        &[],
        "PORT",
        "reach a port a background process listens on in the sandbox from this machine",
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
        "/mode",
        &[],
        "[ask|auto|plan]",
        "switch the approval mode (no name: the next of ask, auto, plan); plan: reads only, then a plan to approve",
    ),
    cmd(
        "/update",
        &[],
        "",
        "check whether a newer hermes is available",
    ),
    cmd(
        "/worktree",
        &[],
        "[NAME]",
        "continue this session in hermes' git worktree NAME, on the branch hermes/NAME (no name: where it works now)",
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
        .map(|c| (strsim::levenshtein(word, c), c))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, c)| c)
}

/// A built-in slash command, parsed once from the line: which, and what
/// follows its name.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Slash {
    Help,
    New,
    Session,
    Sessions,
    Resume(Option<String>),
    Stop,
    Model(Option<String>),
    Tools(String),
    Mcp,
    Agents,
    Usage,
    Compact(Option<String>),
    Copy,
    Export(Option<String>),
    Diff(String),
    Ps,
    Kill(Option<String>),
    Forward(Option<String>),
    Rewind(String),
    Context,
    Init,
    Approvals,
    Yolo,
    Mode(Option<String>),
    Update,
    Worktree(Option<String>),
    Quit,
}

impl Slash {
    /// The built-in command `line` names (by its name or an alias); `None`
    /// for anything else — a custom command, a server's prompt, a typo, a
    /// message.
    pub(super) fn parse(line: &str) -> Option<Slash> {
        let line = line.trim();
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        let first = rest.split_whitespace().next().map(str::to_string);
        Some(match canonical(word)? {
            "/help" => Slash::Help,
            "/new" => Slash::New,
            "/session" => Slash::Session,
            "/sessions" => Slash::Sessions,
            "/resume" => Slash::Resume(first),
            "/stop" => Slash::Stop,
            "/model" => Slash::Model(first),
            "/tools" => Slash::Tools(rest.to_string()),
            "/mcp" => Slash::Mcp,
            "/agents" => Slash::Agents,
            "/usage" => Slash::Usage,
            "/compact" => Slash::Compact((!rest.is_empty()).then(|| rest.to_string())),
            "/copy" => Slash::Copy,
            "/export" => Slash::Export((!rest.is_empty()).then(|| rest.to_string())),
            "/rewind" => Slash::Rewind(rest.to_string()),
            "/diff" => Slash::Diff(rest.to_string()),
            "/ps" => Slash::Ps,
            "/kill" => Slash::Kill(first),
            "/forward" => Slash::Forward(first),
            "/context" => Slash::Context,
            "/init" => Slash::Init,
            "/approvals" => Slash::Approvals,
            "/yolo" => Slash::Yolo,
            "/mode" => Slash::Mode(first),
            "/update" => Slash::Update,
            "/worktree" => Slash::Worktree(first),
            "/quit" => Slash::Quit,
            // A name in the table with no variant is a bug the test below
            // catches.
            _ => return None,
        })
    }
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

    #[test]
    fn every_command_in_the_table_parses_with_what_follows_it() {
        for c in COMMANDS {
            assert!(Slash::parse(c.name).is_some(), "{} has no variant", c.name);
            for a in c.aliases {
                assert!(Slash::parse(a).is_some(), "{a}");
            }
        }
        assert_eq!(
            Slash::parse("/model  gpt-5 "),
            Some(Slash::Model(Some("gpt-5".into())))
        );
        assert_eq!(
            Slash::parse("/compact the pgbouncer limits"),
            Some(Slash::Compact(Some("the pgbouncer limits".into())))
        );
        assert_eq!(Slash::parse("/compact"), Some(Slash::Compact(None)));
        assert_eq!(
            Slash::parse("/tools read a file"),
            Some(Slash::Tools("read a file".into()))
        );
        assert_eq!(Slash::parse("/exit"), Some(Slash::Quit));
        assert_eq!(Slash::parse("/everything:args-prompt"), None);
        assert_eq!(Slash::parse("/review security"), None);
    }
}
