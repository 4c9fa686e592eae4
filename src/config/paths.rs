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

/// The project-local config: `.hermes/config.toml` in the working directory or the
/// nearest ancestor that has one.
pub(crate) fn project_config(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|dir| dir.join(".hermes").join("config.toml"))
        .find(|p| p.is_file())
}
