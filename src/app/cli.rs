//! The top-level flags (those of a conversation, and the global ones). Each
//! subcommand's own flags live beside its code in `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::commands;

#[derive(Debug, Parser)]
#[command(
    name = "hermes",
    version = crate::build_info::VERSION_LINE,
    about = "A terminal AI agent for people who work with MCP tools",
    after_help = "With no -q and a terminal on stdin, hermes opens an interactive session.\n\
                  Piped stdin is read as the prompt of a one-shot run.\n\n\
                  Exit codes: 0 the turn ended with an answer; 1 a failure (provider, server, I/O);\n\
                  2 usage or config; 3 a limit reached (--max-turns, --max-budget-tokens);\n\
                  4 blocked: an action was refused because nobody could approve it (the answer\n\
                  may be incomplete); 130 interrupted. With --json the last event is run_summary."
)]
pub(crate) struct Cli {
    /// Open the interactive session with this first message: `hermes "fix the failing test"`.
    #[arg(value_name = "MESSAGE", conflicts_with = "query")]
    pub prompt: Vec<String>,

    /// Run one prompt and exit ("-" reads the prompt from stdin).
    #[arg(short = 'q', long = "query", value_name = "PROMPT")]
    pub query: Option<String>,

    /// Model to use (overrides `model` in config.toml).
    #[arg(short = 'm', long, global = true)]
    pub model: Option<String>,

    /// Provider to use: a preset or a [providers.NAME] (the presets are
    /// listed from their table: [`command`]).
    #[arg(long, global = true)]
    pub provider: Option<String>,

    /// Print events as JSON Lines on stdout instead of text (before or after a subcommand).
    #[arg(long, global = true)]
    pub json: bool,

    /// With --json and -q TEXT: put approval questions to the script as
    /// `approval_asked` events and read its answers as JSON lines on stdin,
    /// e.g. {"id":"call_…","answer":"once"} (once, session, always, deny)
    #[arg(long, requires = "json", requires = "query")]
    pub json_answers: bool,

    /// Model requests allowed per user turn.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,

    /// Tokens the run may spend (input and output of every model request,
    /// subagents' included): it stops before a request would pass them, exit 3.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_budget_tokens: Option<u64>,

    /// The final answer must be one JSON value valid against this JSON
    /// Schema; it is printed alone on stdout (one-shot runs).
    #[arg(long, value_name = "FILE")]
    pub output_schema: Option<PathBuf>,

    /// Also write the final answer to FILE (one-shot runs).
    #[arg(short = 'o', long = "output-last-message", value_name = "FILE")]
    pub output_last_message: Option<PathBuf>,

    /// Let tools matching GLOB run without asking (repeatable), e.g. --approve 'mcp__files__*'
    #[arg(long, value_name = "GLOB")]
    pub approve: Vec<String>,

    /// Run every tool without asking; rules that deny still hold
    #[arg(long)]
    pub yolo: bool,

    /// The approval mode of this run (over `[approvals] mode`): ask, auto,
    /// deny, or plan — reads and investigation only, nothing that changes
    /// files runs (not even with --yolo) and commands see every working
    /// folder read-only.
    #[arg(long, value_name = "MODE", value_parser = ["ask", "auto", "deny", "plan"])]
    pub mode: Option<String>,

    #[command(flatten)]
    pub config: ConfigArgs,

    /// Continue the session with this id.
    #[arg(long, value_name = "ID", conflicts_with = "continue_last")]
    pub resume: Option<String>,

    /// Continue the session with exactly this id if there is one, else
    /// start it under this id (letters, digits, `._-`, up to 64): a
    /// retried job continues instead of starting over.
    #[arg(long, value_name = "ID", conflicts_with_all = ["resume", "continue_last", "fork"])]
    pub session_id: Option<String>,

    /// Keep no session file: nothing is written under the sessions folder
    /// (and no checkpoints, so nothing to rewind).
    #[arg(long, conflicts_with_all = ["resume", "continue_last", "fork", "session_id"])]
    pub ephemeral: bool,

    /// Run as if hermes were started in DIR (before anything else, so
    /// other paths given are read from there).
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub directory: Option<PathBuf>,

    /// Another folder the built-in tools and commands may write in, as in
    /// the working one (repeatable).
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dirs: Vec<PathBuf>,

    /// Work in hermes' git worktree NAME, on the branch `hermes/NAME`:
    /// made from HEAD (or --worktree-base) the first time, continued after.
    /// The main checkout stays read-only to the session; outside a
    /// repository (or a detached HEAD, a bare one) nothing runs: exit 2.
    #[arg(long, value_name = "NAME")]
    pub worktree: Option<String>,

    /// With --worktree: where a new worktree's branch starts (a branch,
    /// tag or commit) instead of HEAD.
    #[arg(long, value_name = "REF", requires = "worktree")]
    pub worktree_base: Option<String>,

    /// Continue the latest session started in this directory.
    #[arg(long = "continue")]
    pub continue_last: bool,

    /// With --resume or --continue: continue in a copy of the session (a new
    /// id), leaving the original as it is — e.g. while another hermes has it.
    #[arg(long)]
    pub fork: bool,

    /// Open the interactive session even when stdin is not a terminal.
    #[arg(long, hide = true, conflicts_with = "query")]
    pub interactive: bool,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Args, Clone)]
pub(crate) struct ConfigArgs {
    /// Use this config file instead of the one in the user config dir.
    #[arg(long = "config", value_name = "PATH", global = true)]
    pub config_path: Option<PathBuf>,

    /// Override a config key for this run (repeatable), e.g. -c model=gpt-4o.
    #[arg(short = 'c', value_name = "KEY=VALUE", global = true)]
    pub sets: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Inspect the configuration.
    Config {
        #[command(subcommand)]
        action: commands::config::ConfigCommand,
    },
    /// List and show recorded sessions.
    Sessions {
        #[command(subcommand)]
        action: commands::sessions::SessionsCommand,
    },
    /// Update this installation from the git checkout it was built from.
    Update(commands::update::UpdateArgs),
    /// Print a shell completion script: `hermes completions bash > /etc/bash_completion.d/hermes`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Try a configured hook on a made-up tool call.
    Hooks {
        #[command(subcommand)]
        action: commands::hooks::HooksCommand,
    },
    /// Let this project's .hermes/config.toml, as it is now, set servers,
    /// hooks, providers, approvals, connectors and the system prompt
    /// (`--forget` takes it back).
    Trust(commands::trust::TrustArgs),
    /// Go back to before a turn: its files and its conversation, or one
    /// of them (`--list` shows the turns and the files each changed).
    Rewind(commands::rewind::RewindArgs),
    /// Serve an editor (Zed, JetBrains, Neovim, Emacs) over the Agent
    /// Client Protocol on stdin and stdout (docs/editors.md).
    Acp,
    /// List hermes' worktrees of this repository, and look at, merge or
    /// remove one (`--worktree NAME` makes them).
    Worktree {
        #[command(subcommand)]
        action: commands::worktree::WorktreeCommand,
    },
    /// Manage MCP servers.
    Mcp {
        #[command(subcommand)]
        action: commands::mcp::McpCommand,
    },
}

/// The command line's definition, with what is known only at run time:
/// the presets `--provider` takes, from the preset table itself.
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command().mut_arg("provider", |a| {
        a.help(format!(
            "Provider to use: a preset ({}) or a [providers.NAME]",
            crate::config::PRESETS.join(", ")
        ))
    })
}

/// The command line, parsed; a usage error (or `--help`) exits as clap does.
pub(crate) fn parse() -> Cli {
    use clap::FromArgMatches;
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}
