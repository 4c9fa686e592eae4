//! Where hermes keeps its files. `HERMES_HOME` relocates everything into one folder
//! (tests and portable installs rely on it); otherwise the platform's user dirs.

use std::path::{Path, PathBuf};

use super::ConfigError;

#[derive(Debug, Clone)]
pub struct Paths {
    pub config_dir: PathBuf,
    pub data_dir: PathBuf,
    pub cache_dir: PathBuf,
}

impl Paths {
    pub fn discover() -> Result<Paths, ConfigError> {
        if let Some(home) = std::env::var_os("HERMES_HOME").filter(|h| !h.is_empty()) {
            return Ok(Paths::under(Path::new(&home)));
        }
        let dirs = directories::ProjectDirs::from("", "", "hermes").ok_or(ConfigError::NoHome)?;
        Ok(Paths {
            config_dir: dirs.config_dir().to_path_buf(),
            data_dir: dirs.data_dir().to_path_buf(),
            cache_dir: dirs.cache_dir().to_path_buf(),
        })
    }

    pub fn under(home: &Path) -> Paths {
        Paths {
            config_dir: home.to_path_buf(),
            data_dir: home.to_path_buf(),
            cache_dir: home.join("cache"),
        }
    }

    /// Where each MCP server's stderr log is kept.
    pub fn mcp_log_dir(&self) -> PathBuf {
        self.data_dir.join("logs").join("mcp")
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    /// Where hermes' worktrees are kept unless `[worktree] dir` says.
    pub fn worktrees_dir(&self) -> PathBuf {
        self.data_dir.join("worktrees")
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.data_dir.join("sessions")
    }

    pub fn history_file(&self) -> PathBuf {
        self.data_dir.join("history.txt")
    }
}

/// The files of a project folder hermes reads, in the order their layers
/// apply: the servers of other agents' files first (so hermes' own config
/// wins), then its own config, then Claude Code's shared and local
/// settings.
pub(crate) const PROJECT_FILES: &[&str] = &[
    ".mcp.json",
    ".cursor/mcp.json",
    ".vscode/mcp.json",
    ".hermes/config.toml",
    ".claude/settings.json",
    ".claude/settings.local.json",
];

/// hermes' own project config among [`PROJECT_FILES`].
pub(crate) const HERMES_PROJECT_FILE: &str = ".hermes/config.toml";

/// The project folder's files (see [`PROJECT_FILES`]): those of the working
/// directory or the nearest folder above it that has one, looked for from
/// the working folder up to the repository's root (the nearest folder with
/// a `.git`) only — without a repository, in the working folder alone — and
/// never in the temp folder itself nor in a folder above the home folder:
/// places anyone, or a sandboxed command, may write to. The home folder's
/// own `.claude/settings.json` is the user's, not a project's.
pub(crate) fn project_files(cwd: &Path) -> Vec<PathBuf> {
    let repo = cwd.ancestors().find(|d| d.join(".git").exists());
    let top = repo.unwrap_or(cwd);
    let tmp = std::fs::canonicalize(std::env::temp_dir()).ok();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let user_claude = super::claude::user_settings().and_then(|p| std::fs::canonicalize(p).ok());
    let shared = |dir: &Path| {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        tmp.as_deref() == Some(real.as_path())
            || real.parent().is_none()
            || home
                .as_deref()
                .is_some_and(|h| h.starts_with(dir) && h != dir)
    };
    for dir in cwd.ancestors() {
        if !shared(dir) {
            let found: Vec<PathBuf> = PROJECT_FILES
                .iter()
                .map(|f| dir.join(f))
                .filter(|p| p.is_file())
                .filter(|p| user_claude.is_none() || std::fs::canonicalize(p).ok() != user_claude)
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        if dir == top {
            break;
        }
    }
    Vec::new()
}

/// The folders of a project's agent types, in the order they are read.
pub(crate) const AGENT_TYPE_DIRS: &[&str] = &[".hermes/agents", ".claude/agents"];

/// The `.md` files of the agent-type folders of `folder`, sorted.
pub(crate) fn agent_type_files(folder: &Path) -> Vec<PathBuf> {
    AGENT_TYPE_DIRS
        .iter()
        .flat_map(|d| agent_type_files_in(&folder.join(d)))
        .collect()
}

/// Subfolders of an agent-type folder read below it (Claude Code reads
/// them all; a bound keeps a link loop or a vendored tree from costing).
const AGENT_TYPE_DEPTH: usize = 4;

/// The `.md` files of one agent-type folder and its subfolders (as Claude
/// Code reads `.claude/agents/**`), sorted; links to folders not followed.
pub(crate) fn agent_type_files_in(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![(dir.to_path_buf(), 0)];
    while let Some((folder, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && depth < AGENT_TYPE_DEPTH {
                folders.push((p, depth + 1));
            } else if p.extension().is_some_and(|x| x == "md") && p.is_file() {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// The project's agent-type files: those of the folder holding its config
/// files, or — a project with none — of the nearest folder from `cwd` up
/// to the repository's root that has some.
pub(crate) fn project_agent_files(cwd: &Path) -> Vec<PathBuf> {
    if let Some(first) = project_files(cwd).first() {
        return agent_type_files(&folder_of(first));
    }
    let repo = cwd.ancestors().find(|d| d.join(".git").exists());
    let top = repo.unwrap_or(cwd);
    for dir in cwd.ancestors() {
        let found = agent_type_files(dir);
        if !found.is_empty() {
            return found;
        }
        if dir == top {
            break;
        }
    }
    Vec::new()
}

/// The folder a project file belongs to (the one holding `.hermes`,
/// `.claude` or `.mcp.json`), resolved, so a symlink or `..` cannot stand
/// in for a trusted folder.
pub(crate) fn folder_of(project_file: &Path) -> PathBuf {
    let in_root = project_file.file_name().is_some_and(|f| f == ".mcp.json");
    // An agent type: `<folder>/.claude/agents/[SUB/…]NAME.md`.
    let agents = project_file.ancestors().skip(1).find(|a| {
        a.file_name().is_some_and(|n| n == "agents")
            && a.parent()
                .and_then(Path::file_name)
                .is_some_and(|d| d == ".claude" || d == ".hermes")
    });
    let folder = if in_root {
        project_file.parent()
    } else if let Some(agents) = agents {
        agents.parent().and_then(Path::parent)
    } else {
        project_file.parent().and_then(Path::parent)
    }
    .unwrap_or(project_file);
    std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf())
}

/// The project's folder — the one holding its `.hermes` or `.claude` —
/// or, without one, the working folder: what hooks get as
/// `CLAUDE_PROJECT_DIR`.
pub(crate) fn project_dir(cwd: &Path) -> PathBuf {
    project_files(cwd)
        .first()
        .map(|p| folder_of(p))
        .unwrap_or_else(|| cwd.to_path_buf())
}
