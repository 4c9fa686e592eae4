//! Slash commands typed in an editor. The REPL's commands that make sense
//! there run as the REPL runs them, what they say sent as the agent's
//! message; the folder's custom commands and skills are expanded as the
//! REPL expands them (`frontend::custom`); a `/word` that names nothing is
//! said to be unknown — never sent to the model as text.

use serde_json::{json, Value};

use crate::frontend::command_table::{canonical, nearest, COMMANDS};
use crate::frontend::custom::Custom;

/// The REPL's commands an editor offers: the rest draw on a terminal
/// (pickers, the clipboard) or act on what the editor already shows.
const OFFERED: &[&str] = &["/compact", "/usage", "/context", "/init", "/mode", "/model"];

/// One of [`OFFERED`], with what follows it.
#[derive(Debug, PartialEq)]
pub(super) enum Builtin {
    Compact(Option<String>),
    Usage,
    Context,
    Init,
    Mode(Option<String>),
    Model(Option<String>),
}

/// What a prompt is.
#[derive(Debug, PartialEq)]
pub(super) enum Typed {
    /// A message (a custom command or skill among them, expanded later).
    Text,
    Run(Builtin),
    /// Not run: what to tell the person instead.
    Say(String),
}

/// The offered commands as ACP's `availableCommands` entries (names
/// without the slash, as editors show them after theirs).
pub(super) fn advertised() -> Vec<Value> {
    COMMANDS
        .iter()
        .filter(|c| OFFERED.contains(&c.name))
        .map(|c| {
            let mut v = json!({"name": &c.name[1..], "description": c.help});
            if !c.args.is_empty() {
                v["input"] = json!({"hint": c.args});
            }
            v
        })
        .collect()
}

/// What `text` is: `/usage`, a custom command's `/review x`, a path such
/// as `/etc/hosts is wrong` (a message), or a `/word` naming nothing.
pub(super) fn classify(text: &str, custom: &Custom) -> Typed {
    let line = text.trim();
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(w, r)| (w, r.trim()));
    let is_word = word.len() > 1
        && word.starts_with('/')
        && word[1..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
    if !is_word || custom.has(line) {
        return Typed::Text;
    }
    let arg = (!rest.is_empty()).then(|| rest.to_string());
    match canonical(word) {
        Some("/compact") => Typed::Run(Builtin::Compact(arg)),
        Some("/usage") => Typed::Run(Builtin::Usage),
        Some("/context") => Typed::Run(Builtin::Context),
        Some("/init") => Typed::Run(Builtin::Init),
        Some("/mode") => Typed::Run(Builtin::Mode(arg)),
        Some("/model") => Typed::Run(Builtin::Model(arg)),
        Some(other) => Typed::Say(format!(
            "{other} is a command of hermes' terminal; in an editor hermes offers {}",
            OFFERED.join(", ")
        )),
        // A server's prompt (`/server:prompt`) is for the terminal yet.
        None if word.contains(':') => Typed::Say(format!(
            "{word}: a server's prompt is sent from hermes' terminal; in an editor hermes \
             offers {}",
            OFFERED.join(", ")
        )),
        None => Typed::Say(match nearest(word).filter(|n| OFFERED.contains(n)) {
            Some(near) => format!("unknown command {word}; did you mean {near}?"),
            None => format!(
                "unknown command {word}; hermes offers {} and the folder's custom commands",
                OFFERED.join(", ")
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> Custom {
        let dir = tempfile::tempdir().unwrap();
        Custom::load(dir.path(), dir.path())
    }

    #[test]
    fn a_prompt_is_a_command_a_message_or_unknown() {
        let c = none();
        assert_eq!(classify("/usage", &c), Typed::Run(Builtin::Usage));
        assert_eq!(
            classify("/compact keep the API notes", &c),
            Typed::Run(Builtin::Compact(Some("keep the API notes".into())))
        );
        assert_eq!(classify("/etc/hosts has a typo", &c), Typed::Text);
        assert_eq!(classify("fix /usage in the docs", &c), Typed::Text);
        let Typed::Say(s) = classify("/usgae", &c) else {
            panic!()
        };
        assert!(s.contains("did you mean /usage?"), "{s}");
        let Typed::Say(s) = classify("/rewind 2", &c) else {
            panic!()
        };
        assert!(s.contains("terminal"), "{s}");
        let names: Vec<Value> = advertised().iter().map(|a| a["name"].clone()).collect();
        assert_eq!(
            names,
            ["model", "usage", "compact", "context", "init", "mode"].map(Value::from)
        );
    }
}
