//! What servers offer the user in the REPL — prompts as `/server:prompt`
//! commands, resources as `@server:uri` mentions — in the forms the line
//! editor and the command loop use, and the request `/init` sends.

use crate::agent::{bind_arguments, Offers};

/// `/init`'s message: the request for an AGENTS.md — or, when the folder
/// has one (or a CLAUDE.md), what to say instead.
pub(super) fn init_prompt(cwd: &std::path::Path) -> Result<String, String> {
    match ["AGENTS.md", "CLAUDE.md"]
        .into_iter()
        .find(|f| cwd.join(f).exists())
    {
        Some(f) => Err(format!(
            "{f} already exists in this folder; edit it, or remove it to draft a new one"
        )),
        None => Ok(INIT.to_string()),
    }
}

/// What `/init` asks the model for.
pub(super) const INIT: &str = "\
Draft an AGENTS.md for this repository: a short guide for coding agents (and \
people) working in it. First read what the project says of itself — the \
README, the build and test files, the layout of the source folders, any CI \
configuration — then write AGENTS.md in the current folder with these \
sections, each a few lines, every command one that works here: Project \
layout; Build and run; Tests (how to run all, and one); Code style and \
conventions; Commits and reviews. Keep it under 400 words and specific to \
this repository: nothing a generic guide would say. If you cannot write \
files, give the file's full text in your answer instead.";

/// A prompt command as typed, its arguments bound so far.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PromptAsked {
    pub server: String,
    pub prompt: String,
    pub arguments: serde_json::Map<String, serde_json::Value>,
    /// Required arguments not given: (name, description), to ask for.
    pub missing: Vec<(String, String)>,
}

/// A line that names a server's prompt.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum PromptLine {
    Asked(PromptAsked),
    /// Why it cannot be sent (the server offers no such prompt).
    Refused(String),
}

/// `/server:prompt ARGS`, when the line is one: the server part names a
/// configured server.
pub(super) fn prompt_command(text: &str, offers: &Offers) -> Option<PromptLine> {
    let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let (server, prompt) = word.strip_prefix('/')?.split_once(':')?;
    if !offers.servers.iter().any(|s| s == server) {
        return None;
    }
    let Some((_, p)) = offers
        .prompts
        .iter()
        .find(|(s, p)| s == server && p.name == prompt)
    else {
        let has: Vec<&str> = offers
            .prompts
            .iter()
            .filter(|(s, _)| s == server)
            .map(|(_, p)| p.name.as_str())
            .collect();
        return Some(PromptLine::Refused(if has.is_empty() {
            format!(
                "server `{server}` offers no prompts (or has not listed them yet: /mcp shows it)"
            )
        } else {
            format!(
                "server `{server}` offers no prompt `{prompt}`; it has {}",
                has.join(", ")
            )
        }));
    };
    let (arguments, missing) = bind_arguments(p, rest);
    Some(PromptLine::Asked(PromptAsked {
        server: server.to_string(),
        prompt: prompt.to_string(),
        missing: missing
            .into_iter()
            .map(|a| (a.name.clone(), a.description.clone()))
            .collect(),
        arguments,
    }))
}

/// The server a `/server:…` line names, when it has not been listed yet.
pub(super) fn unlisted_server<'a>(text: &str, offers: &'a Offers) -> Option<&'a str> {
    let word = text.split_whitespace().next()?;
    let (server, _) = word.strip_prefix('/')?.split_once(':')?;
    offers
        .unlisted
        .iter()
        .find(|s| *s == server)
        .map(String::as_str)
}

/// (`/server:prompt`, description) for the completer.
pub(super) fn prompt_commands(offers: &Offers) -> Vec<(String, String)> {
    offers
        .prompts
        .iter()
        .map(|(s, p)| {
            // Its arguments, optional ones in brackets, after what it is.
            let args: Vec<String> = p
                .arguments
                .iter()
                .map(|a| {
                    if a.required {
                        a.name.clone()
                    } else {
                        format!("[{}]", a.name)
                    }
                })
                .collect();
            let about = match (p.description.lines().next(), args.is_empty()) {
                (_, true) => p.description.clone(),
                (Some(d), false) if !d.is_empty() => format!("{d} ({})", args.join(" ")),
                _ => format!("({})", args.join(" ")),
            };
            (format!("/{s}:{}", p.name), about)
        })
        .collect()
}

/// (`@server:uri`, what it is) for the completer.
pub(super) fn resource_mentions(offers: &Offers) -> Vec<(String, String)> {
    offers
        .resources
        .iter()
        .map(|(s, r)| {
            let about = if r.description.is_empty() {
                r.name.clone()
            } else {
                r.description.clone()
            };
            (format!("@{s}:{}", r.uri), about)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{CachedPrompt, PromptArgument};

    fn offers() -> Offers {
        Offers {
            prompts: vec![(
                "everything".into(),
                CachedPrompt {
                    name: "args-prompt".into(),
                    description: "A prompt with two arguments".into(),
                    arguments: vec![
                        PromptArgument {
                            name: "city".into(),
                            description: "Name of the city".into(),
                            required: true,
                        },
                        PromptArgument {
                            name: "state".into(),
                            description: String::new(),
                            required: false,
                        },
                    ],
                },
            )],
            resources: vec![],
            servers: vec!["everything".into(), "git".into(), "cold".into()],
            unlisted: vec!["cold".into()],
        }
    }

    #[test]
    fn a_prompt_line_binds_its_arguments_and_names_what_is_missing() {
        let Some(PromptLine::Asked(a)) =
            prompt_command("/everything:args-prompt state=CA", &offers())
        else {
            panic!("a prompt line")
        };
        assert_eq!(a.arguments["state"], "CA");
        assert_eq!(
            a.missing,
            [("city".to_string(), "Name of the city".to_string())]
        );
        assert_eq!(
            prompt_command("/everything:nope", &offers()),
            Some(PromptLine::Refused(
                "server `everything` offers no prompt `nope`; it has args-prompt".into()
            ))
        );
        assert!(matches!(
            prompt_command("/git:x", &offers()),
            Some(PromptLine::Refused(r)) if r.contains("offers no prompts")
        ));
        assert_eq!(prompt_command("/other:x", &offers()), None, "not a server");
        assert_eq!(prompt_command("/help", &offers()), None);
        assert_eq!(unlisted_server("/cold:p a", &offers()), Some("cold"));
        assert_eq!(unlisted_server("/everything:args-prompt", &offers()), None);
    }

    #[test]
    fn a_prompt_is_listed_with_its_arguments() {
        assert_eq!(
            prompt_commands(&offers()),
            [(
                "/everything:args-prompt".to_string(),
                "A prompt with two arguments (city [state])".to_string()
            )]
        );
    }
}
