//! The built-in tools' settings: which are offered, how `shell` runs and
//! is sandboxed, and the control paths the config knows of.

use std::time::Duration;

use super::defaults::{self, ms};
use super::Concurrency;

/// The built-in tools: which are offered, and how `shell` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltinSettings {
    pub names: Vec<String>,
    pub shell: ShellSettings,
    /// hermes' own folders (config, data, cache): control paths that are
    /// created before a command could create them.
    pub own_folders: Vec<std::path::PathBuf>,
    /// hermes' worktrees folder, inside its own: a working folder there
    /// (`--worktree`, a subagent's) is the session's to write, the rest of
    /// hermes' own folders still not.
    pub worktrees_dir: Option<std::path::PathBuf>,
    /// The config files read and the scripts their hooks and servers run:
    /// control paths (see `tools::builtin::control`).
    pub run_files: Vec<std::path::PathBuf>,
    /// The folder checkpoints are kept in (the sessions' blob folder), and
    /// the most one turn keeps there, in MB (0: no bound).
    pub checkpoints: Option<(std::path::PathBuf, u64)>,
    /// More working folders (an editor's `additionalDirectories`): the file
    /// tools write in them as in the working folder, and so may commands.
    pub roots: Vec<std::path::PathBuf>,
    /// An editor `read_file` reads through (`hermes acp`), when it offers.
    pub editor: Option<crate::util::editor_files::EditorFiles>,
    /// `[network]`: the hosts `web_fetch` reaches without asking, and never.
    pub network: super::NetworkSettings,
    pub web_fetch: WebFetchSettings,
}

/// How much of a page `web_fetch` reads, and how long it waits.
#[derive(Debug, Clone, PartialEq)]
pub struct WebFetchSettings {
    pub max_bytes: u64,
    pub timeout: Duration,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ShellSettings {
    /// Whether commands run in the OS sandbox.
    pub sandbox: bool,
    /// Whether the sandbox builds its namespace view (`sandbox = "on"`),
    /// or is Landlock and seccomp only (`"landlock"`).
    pub namespaces: bool,
    /// Commands reach the network, everything of it (`network = true`).
    pub network: bool,
    /// Commands reach what `[network] allow` names through hermes' proxy
    /// (`network = "allowed"`, the default).
    pub proxy: bool,
    pub timeout: Duration,
    pub concurrency: Concurrency,
    /// More writable folders, `~/` expanded.
    pub writable: Vec<std::path::PathBuf>,
    /// Absent inside the sandbox: the secret folders, and hermes' own
    /// state (sessions, tokens, trust, config) once the paths are known.
    pub hidden: Vec<std::path::PathBuf>,
    /// Where a command's changes wait for review (hermes' data folder).
    pub stage: Option<std::path::PathBuf>,
    pub max_processes: u64,
    pub max_memory_mb: u64,
    /// How long a background process may run.
    pub background_max: Duration,
    pub forward_ports: super::ForwardPorts,
}

impl Default for BuiltinSettings {
    fn default() -> Self {
        BuiltinSettings::from_section(&super::ToolsSection::default())
    }
}

impl BuiltinSettings {
    pub(super) fn from_section(t: &super::ToolsSection) -> BuiltinSettings {
        let s = t.shell.clone().unwrap_or_default();
        BuiltinSettings {
            names: t.builtin.clone().unwrap_or_else(|| {
                defaults::BUILTIN_TOOLS
                    .iter()
                    .map(|n| n.to_string())
                    .collect()
            }),
            shell: ShellSettings {
                sandbox: s.sandbox != Some(super::ShellSandbox::Off),
                namespaces: s.sandbox != Some(super::ShellSandbox::Landlock),
                network: s.network == Some(super::ShellNetwork::On),
                proxy: s.network.unwrap_or_default() == super::ShellNetwork::Allowed,
                timeout: ms(s.timeout_ms.map_or(defaults::SHELL_TIMEOUT_MS, |n| n.get())),
                concurrency: s.concurrency.unwrap_or(defaults::SHELL_CONCURRENCY),
                writable: s
                    .writable
                    .iter()
                    .map(|w| crate::util::path::expand_home(w))
                    .collect(),
                hidden: match &s.hide {
                    Some(list) => list
                        .iter()
                        .map(|h| crate::util::path::expand_home(h))
                        .collect(),
                    None => defaults::SHELL_HIDDEN
                        .iter()
                        .map(|h| crate::util::path::expand_home(h))
                        .collect(),
                },
                stage: None,
                max_processes: s
                    .max_processes
                    .map_or(defaults::SHELL_MAX_PROCESSES, |n| n.get()),
                max_memory_mb: s
                    .max_memory_mb
                    .map_or(defaults::SHELL_MAX_MEMORY_MB, |n| n.get()),
                background_max: Duration::from_secs(
                    s.background_max_s
                        .map_or(defaults::BACKGROUND_MAX_S, |n| n.get()),
                ),
                forward_ports: s.forward_ports.unwrap_or_default(),
            },
            own_folders: Vec::new(),
            worktrees_dir: None,
            checkpoints: None,
            roots: Vec::new(),
            editor: None,
            run_files: Vec::new(),
            network: super::NetworkSettings::default(),
            web_fetch: {
                let w = t.web_fetch.clone().unwrap_or_default();
                WebFetchSettings {
                    max_bytes: w
                        .max_bytes
                        .map_or(defaults::WEB_FETCH_MAX_BYTES, |n| n.get()),
                    timeout: ms(w
                        .timeout_ms
                        .map_or(defaults::WEB_FETCH_TIMEOUT_MS, |n| n.get())),
                }
            },
        }
    }
}
