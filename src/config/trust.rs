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

use super::paths::folder_of;
use super::Paths;

/// What an untrusted project file may set: choices of how hermes works that
/// run nothing, send nothing elsewhere and widen no tool's reach. Every
/// other key — servers, hooks, providers (and which one), approvals,
/// connectors, the system prompt, the shell's sandbox, writable folders and
/// network, which built-ins exist, prompt budgets, limits, and any key added
/// later — waits for `hermes trust`: a list of what is allowed holds back
/// what nobody thought of.
pub(crate) const UNTRUSTED_MAY_SET: &[&str] = &[
    "model",
    "tools.defer",
    "tools.defer_max_tools",
    "tools.defer_max_share",
    "tools.context_window",
    "tools.warm_up",
    "tools.search_wait_ms",
    "tools.shell.timeout_ms",
    "tools.shell.concurrency",
    "context",
];

/// What the held keys are, for a person: the kinds `hermes trust` lets a
/// project file set.
pub(crate) const HELD_KINDS: &str = "servers, hooks, providers, approvals, connectors, the system \
     prompt, the shell's sandbox (writable folders, network), built-in tools, prompt budgets and limits";

#[derive(Debug, thiserror::Error)]
pub(crate) enum TrustError {
    #[error("no .hermes/config.toml, .claude/settings.json, .mcp.json or agent types (.claude/agents) in {} or a folder above it in its repository", cwd.display())]
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

/// What trust is given to: the project files' bytes and, when their hooks
/// and servers run scripts (`./scripts/guard.sh`, `python3
/// scripts/check.py`), each script's path and bytes — a changed script
/// asks again, as a changed file does. A lone `.hermes/config.toml` that
/// runs no script has the digest of its bytes alone, and one with scripts
/// the digest it had before Claude Code's files were read: trust given
/// then still holds.
fn digest(files: &[(PathBuf, Vec<u8>)], cwd: &Path) -> String {
    // The project's agent types — prompts that drive a model with tools —
    // are trusted with the files: one changed asks again.
    let agents: Vec<PathBuf> = files
        .first()
        .map(|(p, _)| super::paths::agent_type_files(&folder_of(p)))
        .unwrap_or_default()
        .into_iter()
        .filter(|a| !files.iter().any(|(p, _)| p == a))
        .collect();
    let scripts: Vec<PathBuf> = {
        let mut all: Vec<PathBuf> = files
            .iter()
            .flat_map(|(p, t)| scripts_of(p, t, cwd))
            .collect();
        all.sort();
        all.dedup();
        all
    };
    let mut h = Sha256::new();
    match files {
        [(only, text)] if only.ends_with(super::paths::HERMES_PROJECT_FILE) => {
            if scripts.is_empty() && agents.is_empty() {
                return crate::util::hash::sha256_hex(text);
            }
            h.update(text);
        }
        _ => {
            h.update(b"hermes project files\0");
            for (path, text) in files {
                let folder = folder_of(path);
                let name = path.strip_prefix(&folder).unwrap_or(path);
                h.update(name.as_os_str().as_encoded_bytes());
                h.update(b"\0");
                h.update(Sha256::digest(text));
                h.update(b"\0");
            }
        }
    }
    // Each file by its path and what is in it now.
    let each = |h: &mut Sha256, list: &[PathBuf]| {
        for f in list {
            h.update(f.as_os_str().as_encoded_bytes());
            h.update(b"\0");
            h.update(fingerprint(f));
            h.update(b"\0");
        }
    };
    h.update(b"\0scripts\0");
    each(&mut h, &scripts);
    // Only when there are some: a project trusted before agent types
    // existed keeps its digest.
    if !agents.is_empty() {
        h.update(b"\0agent types\0");
        each(&mut h, &agents);
    }
    crate::util::hash::digest_hex(&h.finalize())
}

/// What stands for a script's content: its bytes' digest, or — for a
/// program past 1 MiB (a binary in the project), which is not read at every
/// start — its size, modification time and inode.
fn fingerprint(path: &Path) -> Vec<u8> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) if m.len() > 1 << 20 => {
            format!("{} {} {} {}", m.len(), m.mtime(), m.mtime_nsec(), m.ino()).into_bytes()
        }
        Ok(_) => match std::fs::read(path) {
            Ok(bytes) => Sha256::digest(&bytes).to_vec(),
            Err(_) => b"unreadable".to_vec(),
        },
        Err(_) => b"missing".to_vec(),
    }
}

/// The scripts a project file's hooks and servers run, as a run in `cwd`
/// would resolve them.
pub(crate) fn scripts_of(config: &Path, text: &[u8], cwd: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Vec::new();
    };
    let Ok(mut t) = super::load::layer_of(config, text) else {
        return Vec::new();
    };
    super::anchor::anchor(&mut t, &folder_of(config), true);
    match toml::Value::Table(t).try_into::<super::ConfigFile>() {
        Ok(file) => super::referenced::files(&file, cwd),
        Err(_) => Vec::new(),
    }
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

/// The standing of the project files (path and bytes, as read), for a run
/// in `cwd`.
pub(crate) fn standing(paths: &Paths, files: &[(PathBuf, Vec<u8>)], cwd: &Path) -> Standing {
    let Some(folder) = files
        .first()
        .and_then(|(p, _)| folder_of(p).to_str().map(str::to_string))
    else {
        return Standing::Untrusted;
    };
    let d = digest(files, cwd);
    let also = checkout_of_worktree(paths, Path::new(&folder));
    let mut standing = Standing::Untrusted;
    for (digest, f) in entries(paths) {
        if f == folder || also.as_deref() == Some(f.as_str()) {
            if digest == d {
                return Standing::Trusted;
            }
            standing = Standing::Changed;
        }
    }
    standing
}

/// For a project folder in one of hermes' worktrees (`--worktree`), the
/// same folder in the checkout it was made from: trust given there holds
/// for files that are byte for byte what was trusted (a digest of the
/// same files; a changed one, or a script of its own, asks again).
fn checkout_of_worktree(paths: &Paths, folder: &Path) -> Option<String> {
    if !folder.starts_with(paths.worktrees_dir()) {
        return None;
    }
    let top = folder.ancestors().find(|d| d.join(".git").is_file())?;
    let gitdir = crate::util::git_config::gitfile_target(&top.join(".git"))?;
    let common = std::fs::read_to_string(gitdir.join("commondir")).ok()?;
    let common = crate::util::path::normalize(&gitdir.join(common.trim()));
    let main = (common.file_name()? == ".git").then(|| common.parent())??;
    let rel = folder.strip_prefix(top).ok()?;
    let same = if rel.as_os_str().is_empty() {
        main.to_path_buf()
    } else {
        main.join(rel)
    };
    same.to_str().map(str::to_string)
}

/// What trusting a project file lets it do: every held key it sets, as the
/// run would apply it (relative commands anchored, secrets masked), as TOML.
pub(crate) fn what_it_allows(config: &Path, text: &str) -> Result<String, super::ConfigError> {
    let mut t = super::load::layer_of(config, text)?;
    super::anchor::anchor(&mut t, &folder_of(config), true);
    let file: super::ConfigFile =
        toml::Value::Table(split(t).held)
            .try_into()
            .map_err(|e: toml::de::Error| super::ConfigError::BadValue {
                what: config.display().to_string(),
                expected: "a valid config",
                got: e.message().to_string(),
            })?;
    Ok(super::show(&file, true))
}

/// Trusts the project files of `cwd` as they are now; returns their
/// folder, whether that content was trusted already, and the files
/// trusted with their bytes.
pub(crate) fn trust(paths: &Paths, cwd: &Path) -> Result<(PathBuf, bool, Files), TrustError> {
    let files = read_project(cwd)?;
    let folder = folder_of(&files[0].0);
    let line = listable(&folder)?;
    let d = digest(&files, cwd);
    let _lock = StoreLock::take(paths)?;
    let mut all = entries(paths);
    if all.iter().any(|(digest, f)| *f == line && *digest == d) {
        return Ok((folder, true, files));
    }
    all.retain(|(_, f)| *f != line);
    all.push((d, line));
    rewrite(paths, &all)?;
    Ok((folder, false, files))
}

/// Project files with their bytes.
pub(crate) type Files = Vec<(PathBuf, Vec<u8>)>;

/// The project files of `cwd` — its config files, or without any, its
/// agent types — read; at least one.
fn read_project(cwd: &Path) -> Result<Files, TrustError> {
    let mut found = super::project_files(cwd);
    if found.is_empty() {
        found = super::paths::project_agent_files(cwd);
    }
    if found.is_empty() {
        return Err(TrustError::NoProject {
            cwd: cwd.to_path_buf(),
        });
    }
    found
        .into_iter()
        .map(|p| match std::fs::read(&p) {
            Ok(t) => Ok((p, t)),
            Err(source) => Err(TrustError::Read { path: p, source }),
        })
        .collect()
}

/// Whether the project of `cwd` is trusted as its files are now (its
/// agent types included): what lets its agent types be used.
pub(crate) fn project_standing(paths: &Paths, cwd: &Path) -> Standing {
    match read_project(cwd) {
        Ok(files) => standing(paths, &files, cwd),
        Err(_) => Standing::Untrusted,
    }
}

/// Stops trusting the project folder of `cwd` (or `cwd` itself, once its
/// file is gone); the folder, and whether it was trusted.
pub(crate) fn forget(paths: &Paths, cwd: &Path) -> Result<(PathBuf, bool), TrustError> {
    let folder = match super::project_files(cwd).first() {
        Some(config) => folder_of(config),
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

/// Removes the held keys from an untrusted project layer; the ones it set,
/// dotted (`tools.shell.writable`).
pub(super) fn hold_back(layer: &mut toml::Table) -> Vec<String> {
    let cut = split(std::mem::take(layer));
    *layer = cut.kept;
    cut.names
}

/// A project layer cut in two.
struct Cut {
    /// What an untrusted file may set.
    kept: toml::Table,
    /// What trust adds.
    held: toml::Table,
    /// The held keys, dotted.
    names: Vec<String>,
}

fn split(layer: toml::Table) -> Cut {
    let mut held = toml::Table::new();
    let mut names = Vec::new();
    let kept = split_at(layer, "", &mut held, &mut names);
    Cut { kept, held, names }
}

fn split_at(
    table: toml::Table,
    at: &str,
    held: &mut toml::Table,
    names: &mut Vec<String>,
) -> toml::Table {
    let mut kept = toml::Table::new();
    for (k, v) in table {
        let path = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}.{k}")
        };
        if UNTRUSTED_MAY_SET.contains(&path.as_str()) {
            kept.insert(k, v);
            continue;
        }
        let below = format!("{path}.");
        let partly = UNTRUSTED_MAY_SET.iter().any(|a| a.starts_with(&below));
        match v {
            toml::Value::Table(inner) if partly => {
                let mut inner_held = toml::Table::new();
                let inner_kept = split_at(inner, &path, &mut inner_held, names);
                if !inner_kept.is_empty() {
                    kept.insert(k.clone(), toml::Value::Table(inner_kept));
                }
                if !inner_held.is_empty() {
                    held.insert(k, toml::Value::Table(inner_held));
                }
            }
            v => {
                names.push(path);
                held.insert(k, v);
            }
        }
    }
    kept
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

/// Whether the project of `cwd` is trusted as it is now, agent types
/// included (they are used only then).
pub(crate) fn project_trusted(paths: &super::Paths, cwd: &std::path::Path) -> bool {
    project_standing(paths, cwd) == Standing::Trusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_but_what_an_untrusted_file_may_set_is_held_back() {
        let mut t: toml::Table = toml::from_str(
            "model = \"m\"\nprovider = \"openrouter\"\nsystem_prompt = \"p\"\nmax_turns = 90\n\
             [tools]\ndefer = \"always\"\nbuiltin = [\"shell\"]\n\
             [tools.shell]\ntimeout_ms = 5000\nwritable = [\"~/\"]\nnetwork = true\nsandbox = \"off\"\n\
             [prompt]\nproject_instructions_bytes = 3000000\n[limits]\ntool_output_bytes = 9000000\n\
             [context]\nauto_compact = false\n[hooks]\n[mcp_servers.x]\ncommand = \"sh\"\n",
        )
        .unwrap();
        assert_eq!(
            hold_back(&mut t),
            [
                "provider",
                "system_prompt",
                "max_turns",
                "tools.builtin",
                "tools.shell.writable",
                "tools.shell.network",
                "tools.shell.sandbox",
                "prompt",
                "limits",
                "hooks",
                "mcp_servers"
            ]
        );
        let left = toml::to_string(&t).unwrap();
        assert_eq!(
            left,
            "model = \"m\"\n\n[tools]\ndefer = \"always\"\n\n[tools.shell]\ntimeout_ms = 5000\n\n[context]\nauto_compact = false\n"
        );
    }

    #[test]
    fn a_changed_hook_script_takes_the_trust_away() {
        let home = tempfile::tempdir().unwrap();
        let paths = Paths::under(home.path());
        let project = tempfile::tempdir().unwrap();
        let p = project.path();
        std::fs::create_dir_all(p.join(".hermes")).unwrap();
        std::fs::create_dir_all(p.join("scripts")).unwrap();
        let config = p.join(".hermes/config.toml");
        std::fs::write(
            &config,
            "[[hooks.pre_tool_call]]\ncommand = \"./scripts/guard.sh\"\n\
             [[hooks.pre_tool_call]]\ncommand = \"python3 scripts/check.py\"\n",
        )
        .unwrap();
        std::fs::write(p.join("scripts/guard.sh"), "exit 0\n").unwrap();
        std::fs::write(p.join("scripts/check.py"), "pass\n").unwrap();
        let now = || {
            standing(
                &paths,
                &[(config.clone(), std::fs::read(&config).unwrap())],
                p,
            )
        };
        trust(&paths, p).unwrap();
        assert_eq!(now(), Standing::Trusted);
        std::fs::write(p.join("scripts/guard.sh"), "exit 0 # now it allows all\n").unwrap();
        assert_eq!(now(), Standing::Changed, "the first word's script");
        trust(&paths, p).unwrap();
        std::fs::write(p.join("scripts/check.py"), "import os\n").unwrap();
        assert_eq!(now(), Standing::Changed, "an argument's script");
        trust(&paths, p).unwrap();
        std::fs::remove_file(p.join("scripts/check.py")).unwrap();
        assert_eq!(now(), Standing::Changed, "a script gone");
    }

    #[test]
    fn trust_is_per_folder_and_content_and_can_be_taken_back() {
        let home = tempfile::tempdir().unwrap();
        let paths = Paths::under(home.path());
        let project = tempfile::tempdir().unwrap();
        let nested = project.path().join("src/deep");
        let config = project.path().join(".hermes/config.toml");
        std::fs::create_dir_all(project.path().join(".hermes")).unwrap();
        // The nested folder finds the file: it is in the same repository.
        std::fs::create_dir_all(project.path().join(".git")).unwrap();
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(&config, "model = \"a\"\n").unwrap();
        let folder = std::fs::canonicalize(project.path()).unwrap();
        let now = || {
            standing(
                &paths,
                &[(config.clone(), std::fs::read(&config).unwrap())],
                &nested,
            )
        };
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
