//! Custom slash commands and skills in the REPL: listed in Tab and /help
//! with where each comes from, and run as `/NAME ARGS` — a command's body
//! filled, its `` !`…` `` run through the `shell` tool (asked as any call
//! is), then sent as a typed message would be (its `@file`s attached); a
//! skill's body sent with where it lives.

use tokio_util::sync::CancellationToken;

use crate::agent::Agent;
use crate::slash::{commands, skills};

pub(super) struct Custom {
    pub commands: Vec<commands::Command>,
    pub skills: Vec<skills::Skill>,
}

/// What `/NAME ARGS` becomes.
pub(crate) struct Loaded {
    pub text: String,
    /// The model the command asks for, for this message only.
    pub model: Option<String>,
}

/// A one-shot run's prompt that names a custom command or a skill
/// (`hermes -q "/review src/lib.rs"`), expanded exactly as the REPL expands
/// it — its arguments, its `` !`cmd` `` run down the tool path, its model;
/// `None` when it names neither (it is sent as it is).
pub(crate) async fn expand(
    prompt: &str,
    agent: &Agent,
    cwd: &std::path::Path,
    config_dir: &std::path::Path,
    cancel: &CancellationToken,
) -> Option<Result<Loaded, String>> {
    let line = prompt.trim();
    if !line.starts_with('/') {
        return None;
    }
    Custom::load(cwd, config_dir)
        .load_line(line, agent, cancel)
        .await
}

/// The custom commands and skills of a folder as an editor lists them
/// (ACP's `available_commands_update`): name, what it does, and the
/// argument hint of a command that has one.
pub(crate) fn offered(
    cwd: &std::path::Path,
    config_dir: &std::path::Path,
) -> Vec<(String, String, Option<String>)> {
    let custom = Custom::load(cwd, config_dir);
    let commands = custom.commands.into_iter().map(|c| {
        let what = format!("{} ({})", c.description, c.origin);
        (c.name, what, c.argument_hint)
    });
    let skills = custom.skills.into_iter().map(|s| {
        let what = format!(
            "skill: {} ({})",
            crate::util::text::excerpt(&s.description, 80),
            s.origin
        );
        (s.name, what, None)
    });
    commands.chain(skills).collect()
}

impl Custom {
    pub(super) fn load(cwd: &std::path::Path, config_dir: &std::path::Path) -> Custom {
        let reserved: Vec<&str> = super::command_table::for_completion()
            .iter()
            .filter_map(|(n, _)| super::command_table::canonical(n))
            .collect();
        let commands = commands::discover(cwd, config_dir, &reserved);
        let skills = skills::discover(cwd)
            .into_iter()
            .filter(|s| {
                !reserved.contains(&format!("/{}", s.name).as_str())
                    && !commands.iter().any(|c| c.name == s.name)
            })
            .collect();
        Custom { commands, skills }
    }

    /// (name, what it is) for Tab.
    pub(super) fn for_completion(&self) -> Vec<(String, String)> {
        let commands = self.commands.iter().map(|c| {
            (
                format!("/{}", c.name),
                format!("{} ({})", c.description, c.origin),
            )
        });
        let skills = self.skills.iter().map(|s| {
            (
                format!("/{}", s.name),
                format!(
                    "skill: {} ({})",
                    crate::util::text::excerpt(&s.description, 80),
                    s.origin
                ),
            )
        });
        commands.chain(skills).collect()
    }

    /// /help's part for them.
    pub(super) fn help(&self) -> String {
        let mut out = String::new();
        if !self.commands.is_empty() {
            out.push_str("custom commands:\n");
            for c in &self.commands {
                let head = match &c.argument_hint {
                    Some(h) => format!("/{} {h}", c.name),
                    None => format!("/{}", c.name),
                };
                out.push_str(&format!("  {head:<18} {} ({})\n", c.description, c.origin));
            }
        }
        if !self.skills.is_empty() {
            out.push_str("skills (/NAME loads one; the model reads them when they apply):\n");
            for s in &self.skills {
                out.push_str(&format!(
                    "  /{:<17} {} ({})\n",
                    s.name,
                    crate::util::text::excerpt(&s.description, 70),
                    s.origin
                ));
            }
        }
        out
    }

    /// Whether `text` is `/NAME …` for a skill or a custom command: the
    /// lines [`Custom::load_line`] makes a prompt of.
    pub(super) fn has(&self, text: &str) -> bool {
        let (word, _) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        word.strip_prefix('/')
            .map(codex_spelling)
            .is_some_and(|name| {
                self.skills.iter().any(|s| s.name == name)
                    || self.commands.iter().any(|c| c.name == name)
            })
    }

    /// Whether `text` names a custom command with `` !`…` `` lines to run.
    pub(super) fn runs_commands(&self, text: &str) -> bool {
        let word = text.split_whitespace().next().unwrap_or(text);
        let Some(name) = word.strip_prefix('/').map(codex_spelling) else {
            return false;
        };
        self.commands
            .iter()
            .find(|c| c.name == name)
            .is_some_and(|c| !commands::shell_spans(&c.body).is_empty())
    }

    /// `/NAME ARGS` as a prompt, when NAME is one of them; `Some(Err)` says
    /// why it was not sent.
    pub(super) async fn load_line(
        &self,
        text: &str,
        agent: &Agent,
        cancel: &CancellationToken,
    ) -> Option<Result<Loaded, String>> {
        let (word, args) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let name = codex_spelling(word.strip_prefix('/')?);
        if let Some(s) = self.skills.iter().find(|s| s.name == name) {
            return Some(Ok(Loaded {
                text: skills::prompt(s, args),
                model: None,
            }));
        }
        let c = self.commands.iter().find(|c| c.name == name)?;
        let mut prompt = commands::fill(&c.body, args);
        for (span, command) in commands::shell_spans(&prompt) {
            match agent.run_command_shell(&command, cancel).await {
                Ok(out) => prompt = prompt.replacen(&span, out.trim_end(), 1),
                Err(why) => {
                    return Some(Err(format!(
                        "/{name}: `{command}` did not run ({}); nothing was sent",
                        crate::util::text::excerpt(&why, 200)
                    )))
                }
            }
        }
        // Claude Code's aliases (`haiku`) name no model a provider takes:
        // the session's model runs it, and the person is told.
        let model = match c.model.as_deref() {
            Some(a) if crate::config::claude::MODEL_ALIASES.contains(&a) => {
                errln!(
                    "/{name} asks for `{a}`, Claude Code's alias for one of its models; it \
                     runs on this session's model ({})",
                    agent.model()
                );
                None
            }
            other => other.map(str::to_string),
        };
        Some(Ok(Loaded {
            text: prompt,
            model,
        }))
    }
}

/// A command as Codex spells its prompts (`/prompts:draftpr`): the name.
fn codex_spelling(name: &str) -> &str {
    name.strip_prefix("prompts:").unwrap_or(name)
}
