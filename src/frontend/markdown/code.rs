//! Syntax highlighting of a fenced code block: syntect's grammars, loaded
//! the first time a block needs them (never at start-up), coloured by scope
//! with the terminal's own 16 colours rather than a theme.

use std::sync::OnceLock;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxSet};

use super::style::{cyan, DIM, RESET};
use crate::util::palette::{start, Colour};

/// Syntax highlighting of one code block (syntect's grammars, loaded the
/// first time a block needs them — never at start-up), coloured by scope
/// with the terminal's own 16 colours rather than a theme.
pub(super) struct Code {
    parse: ParseState,
    stack: ScopeStack,
}

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

impl Code {
    pub(super) fn for_language(lang: &str) -> Option<Code> {
        let lang = lang.trim();
        if lang.is_empty() {
            return None;
        }
        let syntax = syntaxes().find_syntax_by_token(lang)?;
        Some(Code {
            parse: ParseState::new(syntax),
            stack: ScopeStack::new(),
        })
    }

    pub(super) fn line(&mut self, line: &str) -> String {
        let with_nl = format!("{line}\n");
        let Ok(ops) = self.parse.parse_line(&with_nl, syntaxes()) else {
            return format!("{}{line}{RESET}", cyan());
        };
        let mut out = String::new();
        let mut at = 0;
        for (i, op) in ops {
            let i = i.min(line.len());
            if i > at {
                out.push_str(&paint(&self.stack, &line[at..i]));
                at = i;
            }
            let _ = self.stack.apply(&op);
        }
        if at < line.len() {
            out.push_str(&paint(&self.stack, &line[at..]));
        }
        out
    }
}

/// One token in the colour of its innermost scope that has one.
fn paint(stack: &ScopeStack, text: &str) -> String {
    let colour = stack.as_slice().iter().rev().find_map(|s: &Scope| {
        let name = s.build_string();
        let starts = |p: &str| name.starts_with(p);
        Some(if starts("comment") {
            DIM.to_string()
        } else if starts("string") {
            start(Colour::Green)
        } else if starts("constant.numeric") || starts("constant.language") {
            start(Colour::Yellow)
        } else if starts("keyword") || starts("storage") {
            start(Colour::Magenta)
        } else if starts("entity.name.function") || starts("support.function") {
            start(Colour::Blue)
        } else if starts("entity.name.type") || starts("support.type") {
            cyan()
        } else {
            return None;
        })
    });
    match colour {
        Some(c) => format!("{c}{text}{RESET}"),
        None => text.to_string(),
    }
}
