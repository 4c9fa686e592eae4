//! `hermes acp`: hermes for editors, over the Agent Client Protocol on
//! stdio (`frontend::acp`). Here is what the protocol cannot do from the
//! front end: open a session as every run opens one — settings resolved
//! for the editor's folder, trust, AGENTS.md, the session file — with the
//! servers the editor brings added, and say which provider key is used.

use std::path::PathBuf;
use std::rc::Rc;

use serde_json::{json, Value};

use super::Context;
use crate::app::{assemble, CommandError};
use crate::config::{self, McpServerEntry, McpServerSettings, Overrides, Paths, Settings};
use crate::frontend::acp::{self, Open, Opened, Opening, RpcError, Server};
use crate::session;

pub(crate) async fn run(ctx: &Context<'_>) -> Result<(), CommandError> {
    let host = Rc::new(Host {
        paths: ctx.paths.clone(),
        overrides: ctx.overrides.clone(),
        cwd: ctx.cwd.to_path_buf(),
    });
    acp::serve(host).await?;
    Ok(())
}

struct Host {
    paths: Paths,
    overrides: Overrides,
    /// Where hermes was started: the settings `initialize` reads.
    cwd: PathBuf,
}

fn rpc(e: CommandError) -> RpcError {
    RpcError::new(acp::INTERNAL_ERROR, e.message).hint(e.hint)
}

impl Host {
    fn settings(&self) -> Option<Settings> {
        config::resolve(self.paths.clone(), &self.cwd, &self.overrides).ok()
    }
}

impl acp::Host for Host {
    fn auth_methods(&self) -> Vec<Value> {
        let Some(s) = self.settings() else {
            return Vec::new();
        };
        let p = &s.provider;
        let description = match &p.api_key_env {
            Some(var) => {
                format!("hermes reads {var} from its environment (or api_key in config.toml)")
            }
            None => format!("{} signs in as config.toml and the environment say", p.name),
        };
        // `agent`: hermes itself checks the key when `authenticate` asks.
        vec![json!({
            "id": p.name,
            "name": format!("{} key", p.name),
            "description": description,
            "type": "agent",
        })]
    }

    fn authenticate(&self, method: &str) -> Result<(), RpcError> {
        let s = self.settings().ok_or_else(|| {
            RpcError::new(
                acp::INTERNAL_ERROR,
                "hermes' config does not load: run `hermes config check` in a terminal",
            )
        })?;
        let p = &s.provider;
        if method != p.name {
            return Err(RpcError::params(format!(
                "no auth method \"{method}\": hermes offers \"{}\"",
                p.name
            )));
        }
        match &p.api_key_env {
            Some(var)
                if p.api_key.is_none() && std::env::var_os(var).is_none_or(|v| v.is_empty()) =>
            {
                Err(RpcError::new(
                    acp::AUTH_REQUIRED,
                    format!(
                        "{var} is not set: set it in the environment the editor starts hermes with"
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    fn sessions(&self, cwd: Option<&std::path::Path>) -> Vec<acp::Listed> {
        let dir = self.paths.sessions_dir();
        let cwd = cwd.map(|c| c.to_string_lossy().into_owned());
        session::list(&dir)
            .into_iter()
            .filter(|s| cwd.as_ref().is_none_or(|c| *c == s.meta.cwd))
            .map(|s| acp::Listed {
                updated: std::fs::metadata(&s.path)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| {
                        crate::util::time::Utc::from_unix(d.as_secs() as i64, d.subsec_millis())
                            .rfc3339()
                    }),
                title: crate::util::text::excerpt(s.title.lines().next().unwrap_or(""), 80),
                id: s.meta.id,
                cwd: s.meta.cwd,
            })
            .collect()
    }

    fn open(&self, open: Open) -> Opening<'_> {
        Box::pin(async move {
            let mut settings = config::resolve(self.paths.clone(), &open.cwd, &self.overrides)
                .map_err(|e| rpc(e.into()))?;
            let dir = settings.paths.sessions_dir();
            session::guard_folder(&dir).map_err(|e| rpc(e.into()))?;
            // A server with no folder of its own starts in the session's,
            // as it would in a terminal opened there (the process serves
            // sessions of several folders).
            for server in settings.mcp_servers.values_mut() {
                if server.cwd.is_none() {
                    server.cwd = Some(open.cwd.display().to_string());
                }
            }
            for s in &open.servers {
                let (name, entry) = entry_of(s, &open.cwd);
                let mut server = McpServerSettings::from_entry(&entry);
                if let Some(any) = settings.mcp_servers.values().next() {
                    server.limits = any.limits;
                }
                settings.mcp_servers.insert(name, server);
            }
            settings
                .builtin
                .shell
                .writable
                .extend(open.dirs.iter().cloned());
            settings.builtin.roots.extend(open.dirs.iter().cloned());
            settings.builtin.editor = open.editor.clone();
            // The editor opened one of hermes' worktrees: its commands may
            // commit on its branch, as a `--worktree` session's do.
            let worktree = crate::worktree::containing(&open.cwd).await;
            if let Some(w) = &worktree {
                settings.builtin.shell.writable.extend(w.git_writable());
            }
            let resume = match &open.load {
                Some(id) => Some(session::find(&dir, id).map_err(|e| {
                    RpcError::new(acp::RESOURCE_NOT_FOUND, format!("no session {id}: {e}"))
                })?),
                None => None,
            };
            let c = assemble(&settings, &open.cwd, resume.as_deref().into(), false)
                .await
                .map_err(rpc)?;
            if let Some(w) = &worktree {
                crate::app::in_worktree::record(&c.agent, w)
                    .await
                    .map_err(rpc)?;
            }
            Ok(Opened {
                agent: c.agent,
                events: c.events,
                mcp: c.mcp,
                config_file: settings.paths.config_file(),
                worktree,
            })
        })
    }

    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }
}

/// An editor's server as a configured one would be: its name made one
/// hermes takes, run in the session's folder. Every value of its env and
/// headers is hidden from then on wherever hermes writes or sends text —
/// the editor put them there, not the model.
fn entry_of(s: &Server, cwd: &std::path::Path) -> (String, McpServerEntry) {
    let remember = |pairs: &[(String, String)]| {
        for (_, v) in pairs {
            crate::util::secrets::remember(v);
        }
    };
    match s {
        Server::Stdio {
            name,
            command,
            args,
            env,
        } => {
            remember(env);
            (
                config::mcp_json::server_name(name),
                McpServerEntry {
                    command: command.clone(),
                    args: args.clone(),
                    env: env.iter().cloned().collect(),
                    cwd: Some(cwd.display().to_string()),
                    ..Default::default()
                },
            )
        }
        Server::Remote { name, url, headers } => {
            remember(headers);
            (
                config::mcp_json::server_name(name),
                McpServerEntry {
                    url: Some(url.clone()),
                    headers: headers.iter().cloned().collect(),
                    ..Default::default()
                },
            )
        }
    }
}
