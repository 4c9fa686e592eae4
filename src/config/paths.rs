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

    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.data_dir.join("sessions")
    }

    pub fn history_file(&self) -> PathBuf {
        self.data_dir.join("history.txt")
    }
}

/// The project-local config: `.hermes/config.toml` in the working
/// directory or the nearest folder above it that has one, looked for from
/// the working folder up to the repository's root (the nearest folder with
/// a `.git`) only — without a repository, in the working folder alone — and
/// never in the temp folder itself nor in a folder above the home folder:
/// places anyone, or a sandboxed command, may write to.
pub(crate) fn project_config(cwd: &Path) -> Option<PathBuf> {
    let repo = cwd.ancestors().find(|d| d.join(".git").exists());
    let top = repo.unwrap_or(cwd);
    let tmp = std::fs::canonicalize(std::env::temp_dir()).ok();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let shared = |dir: &Path| {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        tmp.as_deref() == Some(real.as_path())
            || real.parent().is_none()
            || home
                .as_deref()
                .is_some_and(|h| h.starts_with(dir) && h != dir)
    };
    for dir in cwd.ancestors() {
        let p = dir.join(".hermes").join("config.toml");
        if !shared(dir) && p.is_file() {
            return Some(p);
        }
        if dir == top {
            break;
        }
    }
    None
}
