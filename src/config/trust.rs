//! Which project files may do more than choose a model. A project's
//! `.hermes/config.toml` comes with the code it sits in: a cloned repository
//! could otherwise start its own MCP servers, run its own hooks, send the
//! user's API key to its own `base_url`, loosen approvals or replace the
//! system prompt, just because hermes was started there. Until the user runs
//! `hermes trust` in the folder, the keys that can do so are held back, with
//! a warning. Trust is given to one content of the file (as direnv does): a
//! pull that changes it holds the keys again until it is trusted anew.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::Paths;

/// Top-level keys a project file applies only once trusted: each can run a
/// command, send data or credentials elsewhere, loosen approvals, or speak
/// to the model with the authority of hermes' own prompt.
pub(crate) const HELD: &[&str] = &[
    "providers",
    "mcp_servers",
    "hooks",
    "approvals",
    "connectors",
    "system_prompt",
];

#[derive(Debug, thiserror::Error)]
pub(crate) enum TrustError {
    #[error("no .hermes/config.toml in {} or any folder above it", cwd.display())]
    NoProject { cwd: PathBuf },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot record trust in {}: {source}", path.display())]
    Store {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot trust {}: its path is not UTF-8 or holds a line break", folder.display())]
    Unlisted { folder: PathBuf },
}

/// Whether a project file's held keys apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    Trusted,
    /// Trusted once, with other content.
    Changed,
    Untrusted,
}

/// The file that lists trusted folders: `<sha256 of the file> <folder>` a line.
pub(crate) fn store(paths: &Paths) -> PathBuf {
    paths.data_dir.join("trusted-folders")
}

/// The folder a project config belongs to (the one holding `.hermes`),
/// resolved, so a symlink or `..` cannot stand in for a trusted folder.
pub(crate) fn folder_of(project_config: &Path) -> PathBuf {
    let folder = project_config
        .parent()
        .and_then(Path::parent)
        .unwrap_or(project_config);
    std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf())
}

fn digest(text: &[u8]) -> String {
    Sha256::digest(text)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every line of the store as (digest, folder).
fn entries(paths: &Paths) -> Vec<(String, String)> {
    std::fs::read_to_string(store(paths))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(d, f)| (d.to_string(), f.to_string()))
        .collect()
}

/// The standing of the project file at `config`, whose text is `text`.
pub(crate) fn standing(paths: &Paths, config: &Path, text: &[u8]) -> Standing {
    let Some(folder) = folder_of(config).to_str().map(str::to_string) else {
        return Standing::Untrusted;
    };
    let d = digest(text);
    let mut standing = Standing::Untrusted;
    for (digest, f) in entries(paths) {
        if f == folder {
            if digest == d {
                return Standing::Trusted;
            }
            standing = Standing::Changed;
        }
    }
    standing
}

/// What trusting a project file lets it do: every held key it sets, as the
/// run would apply it (relative commands anchored, secrets masked), as TOML.
pub(crate) fn what_it_allows(config: &Path, text: &str) -> Result<String, super::ConfigError> {
    let mut t = super::load::parse_layer(config, text)?;
    super::anchor::anchor(&mut t, &folder_of(config), true);
    t.retain(|k, _| HELD.contains(&k));
    let file: super::ConfigFile =
        toml::Value::Table(t)
            .try_into()
            .map_err(|e: toml::de::Error| super::ConfigError::BadValue {
                what: config.display().to_string(),
                expected: "a valid config",
                got: e.message().to_string(),
            })?;
    Ok(super::show(&file, true))
}

/// Trusts the project file of `cwd` as it is now; returns its folder,
/// whether that content was trusted already, and the bytes trusted.
pub(crate) fn trust(paths: &Paths, cwd: &Path) -> Result<(PathBuf, bool, Vec<u8>), TrustError> {
    let config = super::project_config(cwd).ok_or_else(|| TrustError::NoProject {
        cwd: cwd.to_path_buf(),
    })?;
    let text = std::fs::read(&config).map_err(|source| TrustError::Read {
        path: config.clone(),
        source,
    })?;
    let folder = folder_of(&config);
    let line = listable(&folder)?;
    let d = digest(&text);
    let _lock = StoreLock::take(paths)?;
    let mut all = entries(paths);
    if all.iter().any(|(digest, f)| *f == line && *digest == d) {
        return Ok((folder, true, text));
    }
    all.retain(|(_, f)| *f != line);
    all.push((d, line));
    rewrite(paths, &all)?;
    Ok((folder, false, text))
}

/// Stops trusting the project folder of `cwd` (or `cwd` itself, once its
/// file is gone); the folder, and whether it was trusted.
pub(crate) fn forget(paths: &Paths, cwd: &Path) -> Result<(PathBuf, bool), TrustError> {
    let folder = match super::project_config(cwd) {
        Some(config) => folder_of(&config),
        None => std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf()),
    };
    let line = listable(&folder)?;
    let _lock = StoreLock::take(paths)?;
    let mut all = entries(paths);
    let before = all.len();
    all.retain(|(_, f)| *f != line);
    if all.len() == before {
        return Ok((folder, false));
    }
    rewrite(paths, &all)?;
    Ok((folder, true))
}

fn listable(folder: &Path) -> Result<String, TrustError> {
    folder
        .to_str()
        .filter(|s| !s.contains(['\n', '\r']))
        .map(str::to_string)
        .ok_or_else(|| TrustError::Unlisted {
            folder: folder.to_path_buf(),
        })
}

/// The whole store, written beside it (owner-only) and renamed over it: a
/// crash leaves the old list or the new one, never a cut line naming
/// another folder.
fn rewrite(paths: &Paths, all: &[(String, String)]) -> Result<(), TrustError> {
    let path = store(paths);
    let text: String = all.iter().map(|(d, f)| format!("{d} {f}\n")).collect();
    crate::util::private::replace(&path, text.as_bytes())
        .map_err(|source| TrustError::Store { path, source })
}

/// Held while the store is read, changed and written back: two `hermes
/// trust` at once must not each write a list missing the other's folder.
struct StoreLock(#[allow(dead_code)] std::fs::File);

impl StoreLock {
    fn take(paths: &Paths) -> Result<StoreLock, TrustError> {
        let path = store(paths).with_extension("lock");
        let fail = |source| TrustError::Store {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            crate::util::private::create_dir_all(dir).map_err(fail)?;
        }
        let file = crate::util::private::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(fail)?;
        crate::util::private::lock_exclusive(&file).map_err(fail)?;
        Ok(StoreLock(file))
    }
}

/// Removes the held keys from an untrusted project layer; the ones it set.
pub(super) fn hold_back(layer: &mut toml::Table) -> Vec<&'static str> {
    HELD.iter()
        .copied()
        .filter(|k| layer.remove(*k).is_some())
        .collect()
}

/// Whether another user owns the file: a project file planted in a shared
/// folder above the working directory (`/tmp/.hermes`) is not read.
pub(super) fn owned_by_another(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: getuid has no preconditions and cannot fail.
        let me = unsafe { libc::getuid() };
        std::fs::metadata(path).is_ok_and(|m| m.uid() != me)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_keys_that_can_act_are_held_back() {
        let mut t: toml::Table = toml::from_str(
            "model = \"m\"\nsystem_prompt = \"p\"\n[tools]\ndefer = \"always\"\n[hooks]\n[mcp_servers.x]\ncommand = \"sh\"\n",
        )
        .unwrap();
        assert_eq!(hold_back(&mut t), ["mcp_servers", "hooks", "system_prompt"]);
        let left: Vec<&String> = t.keys().collect();
        assert_eq!(left, ["model", "tools"]);
    }

    #[test]
    fn trust_is_per_folder_and_content_and_can_be_taken_back() {
        let home = tempfile::tempdir().unwrap();
        let paths = Paths::under(home.path());
        let project = tempfile::tempdir().unwrap();
        let nested = project.path().join("src/deep");
        let config = project.path().join(".hermes/config.toml");
        std::fs::create_dir_all(project.path().join(".hermes")).unwrap();
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(&config, "model = \"a\"\n").unwrap();
        let folder = std::fs::canonicalize(project.path()).unwrap();
        let now = || standing(&paths, &config, &std::fs::read(&config).unwrap());
        assert_eq!(now(), Standing::Untrusted);
        let t = |cwd: &Path| {
            let (f, already, _) = trust(&paths, cwd).unwrap();
            (f, already)
        };
        assert_eq!(t(&nested), (folder.clone(), false));
        assert_eq!(t(project.path()), (folder.clone(), true));
        assert_eq!(now(), Standing::Trusted);
        // A pull that changes the file takes the trust away until renewed.
        std::fs::write(&config, "model = \"a\"\n[hooks]\n").unwrap();
        assert_eq!(now(), Standing::Changed);
        assert_eq!(t(&nested), (folder.clone(), false));
        assert_eq!(now(), Standing::Trusted);
        assert_eq!(
            std::fs::read_to_string(store(&paths))
                .unwrap()
                .lines()
                .count(),
            1,
            "one line a folder"
        );
        // Forgetting works from below, and once the file is gone.
        assert_eq!(forget(&paths, &nested).unwrap(), (folder.clone(), true));
        assert_eq!(now(), Standing::Untrusted);
        trust(&paths, project.path()).unwrap();
        std::fs::remove_file(&config).unwrap();
        assert_eq!(
            forget(&paths, project.path()).unwrap(),
            (folder.clone(), true)
        );
        let elsewhere = tempfile::tempdir().unwrap();
        assert!(matches!(
            trust(&paths, elsewhere.path()),
            Err(TrustError::NoProject { .. })
        ));
    }
}
