//! Which project folders may do more than choose a model. A project's
//! `.hermes/config.toml` comes with the code it sits in: a cloned repository
//! could otherwise start its own MCP servers, run its own hooks, send the
//! user's API key to its own `base_url` or let every tool run unasked, just
//! because hermes was started there. Until the user runs `hermes trust` in
//! the folder, the keys that can do so are held back, with a warning.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::Paths;

/// Top-level keys a project file applies only in a trusted folder: each can
/// run a command, send data or credentials elsewhere, or loosen approvals.
pub const HELD: &[&str] = &[
    "providers",
    "mcp_servers",
    "hooks",
    "approvals",
    "connectors",
];

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("no .hermes/config.toml in {} or any folder above it", cwd.display())]
    NoProject { cwd: PathBuf },
    #[error("cannot record trust in {}: {source}", path.display())]
    Store {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot trust {}: its path holds a line break", folder.display())]
    Unlisted { folder: PathBuf },
}

/// The file that lists trusted folders, one absolute path a line.
pub fn store(paths: &Paths) -> PathBuf {
    paths.data_dir.join("trusted-folders")
}

/// The folder a project config belongs to (the one holding `.hermes`),
/// resolved, so a symlink or `..` cannot stand in for a trusted folder.
pub fn folder_of(project_config: &Path) -> PathBuf {
    let folder = project_config
        .parent()
        .and_then(Path::parent)
        .unwrap_or(project_config);
    std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf())
}

fn listed(paths: &Paths) -> Vec<String> {
    std::fs::read_to_string(store(paths))
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn is_trusted(paths: &Paths, folder: &Path) -> bool {
    let folder = folder.to_string_lossy();
    listed(paths).iter().any(|l| *l == folder)
}

/// Trusts the project folder of `cwd`; returns it, and whether it was
/// trusted already.
pub fn trust(paths: &Paths, cwd: &Path) -> Result<(PathBuf, bool), TrustError> {
    let folder = project_folder(cwd)?;
    if is_trusted(paths, &folder) {
        return Ok((folder, true));
    }
    let line = folder.to_string_lossy().into_owned();
    if line.contains(['\n', '\r']) {
        return Err(TrustError::Unlisted { folder });
    }
    let path = store(paths);
    let write = || -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        f.write_all(format!("{line}\n").as_bytes())?;
        f.sync_all()
    };
    write().map_err(|source| TrustError::Store {
        path: path.clone(),
        source,
    })?;
    Ok((folder, false))
}

/// Stops trusting the project folder of `cwd`; whether it was trusted.
pub fn forget(paths: &Paths, cwd: &Path) -> Result<(PathBuf, bool), TrustError> {
    let folder = project_folder(cwd)?;
    let line = folder.to_string_lossy().into_owned();
    let all = listed(paths);
    if !all.contains(&line) {
        return Ok((folder, false));
    }
    let kept: String = all
        .iter()
        .filter(|l| **l != line)
        .map(|l| format!("{l}\n"))
        .collect();
    let path = store(paths);
    std::fs::write(&path, kept).map_err(|source| TrustError::Store { path, source })?;
    Ok((folder, true))
}

fn project_folder(cwd: &Path) -> Result<PathBuf, TrustError> {
    super::project_config(cwd)
        .map(|p| folder_of(&p))
        .ok_or_else(|| TrustError::NoProject {
            cwd: cwd.to_path_buf(),
        })
}

/// Removes the held keys from an untrusted project layer; the ones it set.
pub(super) fn hold_back(layer: &mut toml::Table) -> Vec<&'static str> {
    HELD.iter()
        .copied()
        .filter(|k| layer.remove(*k).is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_keys_that_can_act_are_held_back() {
        let mut t: toml::Table = toml::from_str(
            "model = \"m\"\n[tools]\ndefer = \"always\"\n[hooks]\n[mcp_servers.x]\ncommand = \"sh\"\n",
        )
        .unwrap();
        assert_eq!(hold_back(&mut t), ["mcp_servers", "hooks"]);
        let left: Vec<&String> = t.keys().collect();
        assert_eq!(left, ["model", "tools"]);
    }

    #[test]
    fn trust_is_per_folder_and_can_be_taken_back() {
        let home = tempfile::tempdir().unwrap();
        let paths = Paths::under(home.path());
        let project = tempfile::tempdir().unwrap();
        let nested = project.path().join("src/deep");
        std::fs::create_dir_all(project.path().join(".hermes")).unwrap();
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(project.path().join(".hermes/config.toml"), "").unwrap();
        let folder = std::fs::canonicalize(project.path()).unwrap();
        assert!(!is_trusted(&paths, &folder));
        assert_eq!(trust(&paths, &nested).unwrap(), (folder.clone(), false));
        assert_eq!(
            trust(&paths, project.path()).unwrap(),
            (folder.clone(), true)
        );
        assert!(is_trusted(&paths, &folder));
        assert!(!is_trusted(&paths, &folder.join("src")));
        assert_eq!(forget(&paths, &nested).unwrap(), (folder.clone(), true));
        assert!(!is_trusted(&paths, &folder));
        let elsewhere = tempfile::tempdir().unwrap();
        assert!(matches!(
            trust(&paths, elsewhere.path()),
            Err(TrustError::NoProject { .. })
        ));
    }
}
