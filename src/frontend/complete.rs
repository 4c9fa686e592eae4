//! Tab completion in the REPL: slash commands at the start of a line, tool
//! names (`mcp__…`, `connectors__…`) anywhere, file paths otherwise.

use std::sync::{Arc, Mutex};

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

pub(crate) struct Completion {
    commands: &'static [&'static str],
    /// Tool names of the catalogs, refreshed between turns.
    pub(crate) tools: Arc<Mutex<Vec<String>>>,
    /// The line as last edited: the line editor gives up a line when a typed
    /// byte is not UTF-8, and this is how the REPL gets it back.
    pub(crate) draft: Arc<Mutex<String>>,
    files: FilenameCompleter,
}

impl Completion {
    pub(crate) fn new(commands: &'static [&'static str]) -> Completion {
        Completion {
            commands,
            tools: Arc::default(),
            draft: Arc::default(),
            files: FilenameCompleter::new(),
        }
    }

    /// Candidates for the word ending at `pos` (no file-system lookup).
    fn words(&self, line: &str, pos: usize) -> Option<(usize, Vec<String>)> {
        let start = line[..pos].rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &line[start..pos];
        if start == 0 && word.starts_with('/') {
            let found = self
                .commands
                .iter()
                .filter(|c| c.starts_with(word))
                .map(|c| c.to_string())
                .collect();
            return Some((start, found));
        }
        if word.starts_with("mcp__") || word.starts_with("connectors__") {
            let tools = self.tools.lock().map(|t| t.clone()).unwrap_or_default();
            let found = tools.into_iter().filter(|t| t.starts_with(word)).collect();
            return Some((start, found));
        }
        None
    }
}

impl Completer for Completion {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        match self.words(line, pos) {
            Some((start, found)) => Ok((
                start,
                found
                    .into_iter()
                    .map(|w| Pair {
                        display: w.clone(),
                        replacement: w,
                    })
                    .collect(),
            )),
            None => self.files.complete(line, pos, ctx),
        }
    }
}

impl Hinter for Completion {
    type Hint = String;

    /// Never hints; called after every edit, so it keeps the draft.
    fn hint(&self, line: &str, _pos: usize, _ctx: &Context<'_>) -> Option<String> {
        if let Ok(mut d) = self.draft.lock() {
            line.clone_into(&mut d);
        }
        None
    }
}

impl Highlighter for Completion {}

impl Validator for Completion {}

impl Helper for Completion {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_tool_names_complete() {
        let c = Completion::new(&["/help", "/model", "/mcp"]);
        *c.tools.lock().unwrap() = vec![
            "mcp__files__read_text_file".into(),
            "mcp__git__git_status".into(),
        ];
        assert_eq!(
            c.words("/m", 2),
            Some((0, vec!["/model".into(), "/mcp".into()]))
        );
        assert_eq!(
            c.words("use mcp__fi", 11),
            Some((4, vec!["mcp__files__read_text_file".into()]))
        );
        assert_eq!(
            c.words("read ./sr", 9),
            None,
            "paths go to the file completer"
        );
    }
}
