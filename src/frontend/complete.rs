//! Tab completion in the REPL, listed with what each candidate is: slash
//! commands and servers' prompts (`/server:prompt`) at the start of a line,
//! the provider's models after `/model `, tool names (`mcp__…`,
//! `connectors__…`) and mentions (`@path`, `@server:uri`) anywhere, file
//! paths otherwise. The same candidates fill the menu under the prompt
//! (`menu.rs`) as they are typed, with sessions after `/resume `.

use std::sync::{Arc, Mutex};

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use super::menu::Item;

pub(crate) struct Completion {
    /// (`/command`, what it does).
    commands: Vec<(String, String)>,
    /// (tool name, its description) of the catalogs, refreshed between turns.
    pub(crate) tools: Arc<Mutex<Vec<(String, String)>>>,
    /// The provider's models, once it has listed them.
    pub(crate) models: Arc<Mutex<Vec<String>>>,
    /// (`/server:prompt`, its description), refreshed between turns.
    pub(crate) prompts: Arc<Mutex<Vec<(String, String)>>>,
    /// (`@server:uri`, what it is), refreshed between turns.
    pub(crate) resources: Arc<Mutex<Vec<(String, String)>>>,
    /// (session id, its title and age) after `/resume `.
    pub(crate) sessions: Arc<Mutex<Sessions>>,
    /// The menu and status line drawn under the line.
    pub(crate) menu: Arc<super::menu::Menu>,
    /// Where `@path` is looked up.
    cwd: std::path::PathBuf,
    files: FilenameCompleter,
}

impl Completion {
    pub(crate) fn new(commands: Vec<(String, String)>, cwd: &std::path::Path) -> Completion {
        Completion {
            commands,
            tools: Arc::default(),
            models: Arc::default(),
            prompts: Arc::default(),
            resources: Arc::default(),
            sessions: Arc::default(),
            menu: Arc::default(),
            cwd: cwd.to_path_buf(),
            files: FilenameCompleter::new(),
        }
    }

    /// Candidates for the word ending at `pos`, each with what it is;
    /// `None` leaves the word to the file completer.
    fn words(&self, line: &str, pos: usize) -> Option<(usize, Vec<Item>)> {
        let start = line[..pos].rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &line[start..pos];
        if start == 0 && word.starts_with('/') {
            // Commands and prompts by what they start, then loosely.
            let prompts = self.prompts.lock().map(|l| l.clone()).unwrap_or_default();
            let mut all = self.commands.clone();
            all.extend(prompts);
            return Some((start, described_in(&all, word, true)));
        }
        if line[..start].trim_end() == "/model" {
            let models = self.models.lock().map(|m| m.clone()).unwrap_or_default();
            let found = models
                .into_iter()
                .filter(|m| m.starts_with(word))
                .map(|m| Item::new(m, ""))
                .collect();
            return Some((start, found));
        }
        if line[..start].trim_end() == "/resume" {
            let mut sessions = self.sessions.lock().ok()?;
            return Some((start, described_in(sessions.listed(), word, false)));
        }
        if crate::call::names::has_source_prefix(word) {
            return Some((start, described(&self.tools, word)));
        }
        // The folder's files first — what a person mentions most — then
        // the servers' resources.
        if let Some(target) = word.strip_prefix('@') {
            let mut found = paths(&self.cwd, target);
            found.extend(described(&self.resources, word));
            return Some((start, found));
        }
        None
    }
}

/// What lists the sessions: (id, its title and age), newest first.
type ListSessions = Box<dyn Fn() -> Vec<(String, String)> + Send>;

/// The sessions the menu offers after `/resume `, listed the first time
/// they are asked for after `forget`: listing reads the head of every
/// session file, not worth doing at every prompt.
#[derive(Default)]
pub(crate) struct Sessions {
    load: Option<ListSessions>,
    listed: Option<Vec<(String, String)>>,
}

impl Sessions {
    /// From now on sessions are listed by `load`, the next time they are
    /// asked for.
    pub(crate) fn forget(&mut self, load: impl Fn() -> Vec<(String, String)> + Send + 'static) {
        self.load = Some(Box::new(load));
        self.listed = None;
    }

    fn listed(&mut self) -> &[(String, String)] {
        if self.listed.is_none() {
            self.listed = Some(self.load.as_ref().map(|l| l()).unwrap_or_default());
        }
        self.listed.as_deref().unwrap_or_default()
    }
}

/// The entries of `list` that start with `word`, with their descriptions;
/// one that is `word` itself first.
fn described(list: &Mutex<Vec<(String, String)>>, word: &str) -> Vec<Item> {
    let list = list.lock().map(|l| l.clone()).unwrap_or_default();
    described_in(&list, word, false)
}

/// The entries of `list` that `word` names: those it starts, in the
/// list's order, then — `loose` — those it matches loosely (its letters in
/// order — `/cmp` for `/compact`), the closest first; one that is `word`
/// itself first of all.
fn described_in(list: &[(String, String)], word: &str, loose: bool) -> Vec<Item> {
    let item = |(w, d): &(String, String)| Item::new(w, d.lines().next().unwrap_or(""));
    let mut found: Vec<Item> = list
        .iter()
        .filter(|&(w, _)| w.starts_with(word))
        .map(item)
        .collect();
    let mut near: Vec<(usize, Item)> = list
        .iter()
        .filter(|_| loose)
        .filter(|&(w, _)| !w.starts_with(word))
        .filter_map(|e| loosely(&e.0, word).map(|score| (score, item(e))))
        .collect();
    near.sort_by_key(|(score, _)| *score);
    found.extend(near.into_iter().map(|(_, i)| i));
    if let Some(i) = found.iter().position(|f| f.value == word) {
        let exact = found.remove(i);
        found.insert(0, exact);
    }
    found
}

/// How loosely `word` names `name` — its characters in order, case aside,
/// after the leading `/` or `@` both share — as the span they cover and,
/// weighing more, where it starts (smaller is closer: `/cp` is `/copy`
/// before `/mcp`); `None` when it does not. Two
/// characters at least, so a lone letter lists only what it starts.
fn loosely(name: &str, word: &str) -> Option<usize> {
    let lead = |s: &str| s.starts_with(['/', '@']).then(|| s[..1].to_string());
    let (name, word) = match (lead(name), lead(word)) {
        (Some(a), Some(b)) if a == b => (&name[1..], &word[1..]),
        (None, None) => (name, word),
        _ => return None,
    };
    let wanted: Vec<char> = word.to_lowercase().chars().collect();
    if wanted.len() < 2 {
        return None;
    }
    let hay: Vec<char> = name.to_lowercase().chars().collect();
    let mut first = None;
    let mut next = 0;
    for (i, c) in hay.iter().enumerate() {
        if next < wanted.len() && *c == wanted[next] {
            first.get_or_insert(i);
            next += 1;
            if next == wanted.len() {
                let start = first.unwrap_or(0);
                return Some(i - start + start * 8);
            }
        }
    }
    None
}

/// How Tab's list shows a candidate: with what it is, cut.
fn listed(item: &Item) -> String {
    if item.about.is_empty() {
        item.value.clone()
    } else {
        format!(
            "{}  {}",
            item.value,
            crate::util::text::excerpt(&item.about, 60)
        )
    }
}

/// `@` + the paths under `cwd` that start with `target` (folders end in `/`).
fn paths(cwd: &std::path::Path, target: &str) -> Vec<Item> {
    let (dir, prefix) = match target.rfind('/') {
        Some(i) => (&target[..=i], &target[i + 1..]),
        None => ("", target),
    };
    let Ok(read) = std::fs::read_dir(cwd.join(if dir.is_empty() { "." } else { dir })) else {
        return Vec::new();
    };
    let mut found: Vec<Item> = read
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            // Hidden entries only when asked for.
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            let slash = if e.file_type().is_ok_and(|t| t.is_dir()) {
                "/"
            } else {
                ""
            };
            Some(Item::new(format!("@{dir}{name}{slash}"), ""))
        })
        .collect();
    found.sort_by(|a, b| a.value.cmp(&b.value));
    found
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
                    .iter()
                    .map(|item| Pair {
                        display: listed(item),
                        replacement: item.value.clone(),
                    })
                    .collect(),
            )),
            None => self.files.complete(line, pos, ctx),
        }
    }
}

impl Hinter for Completion {
    type Hint = super::menu::Rows;

    fn hint(&self, line: &str, pos: usize, _: &Context<'_>) -> Option<Self::Hint> {
        // The menu is for the word at the end of the line, being typed.
        let found = (pos == line.len()).then(|| self.words(line, pos)).flatten();
        self.menu.rows(line, found)
    }
}

impl Highlighter for Completion {
    fn highlight_hint<'h>(&self, hint: &'h str) -> std::borrow::Cow<'h, str> {
        super::menu::styled(hint, self.menu.has_status()).into()
    }
}

impl Validator for Completion {}

impl Helper for Completion {}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(c: &Completion, line: &str) -> Vec<String> {
        c.words(line, line.len())
            .map(|(_, f)| f.into_iter().map(|i| i.value).collect())
            .unwrap_or_default()
    }

    #[test]
    fn commands_and_tool_names_complete() {
        let commands = ["/help", "/model", "/mcp"]
            .map(|c| (c.to_string(), String::new()))
            .to_vec();
        let c = Completion::new(commands, std::path::Path::new("."));
        *c.tools.lock().unwrap() = vec![
            ("mcp__files__read_text_file".into(), "Read a file".into()),
            (
                "mcp__git__git_status".into(),
                "Show the working tree status".into(),
            ),
        ];
        *c.models.lock().unwrap() = vec!["gpt-5".into(), "gpt-5-mini".into(), "o3".into()];
        assert_eq!(words(&c, "/model gpt"), ["gpt-5", "gpt-5-mini"]);
        let found = c.words("use mcp__git", 12).unwrap().1;
        assert_eq!(
            found,
            [Item::new(
                "mcp__git__git_status",
                "Show the working tree status"
            )]
        );
        assert_eq!(
            listed(&found[0]),
            "mcp__git__git_status  Show the working tree status"
        );
        assert_eq!(words(&c, "/m"), ["/model", "/mcp"]);
        assert_eq!(c.words("use mcp__fi", 11).map(|w| w.0), Some(4));
        assert_eq!(words(&c, "use mcp__fi"), ["mcp__files__read_text_file"]);
        assert_eq!(
            c.words("read ./sr", 9),
            None,
            "paths go to the file completer"
        );
    }

    #[test]
    fn a_word_names_entries_loosely_after_those_it_starts() {
        let commands = ["/compact", "/context", "/copy", "/mcp", "/help", "/clear"]
            .map(|c| (c.to_string(), String::new()))
            .to_vec();
        let c = Completion::new(commands, std::path::Path::new("."));
        assert_eq!(words(&c, "/cmp"), ["/compact"]);
        // What it starts first, in the table's order; then the closest.
        assert_eq!(words(&c, "/c"), ["/compact", "/context", "/copy", "/clear"]);
        assert_eq!(words(&c, "/cp"), ["/copy", "/compact", "/mcp"]);
        assert_eq!(words(&c, "/CTX"), ["/context"]);
        assert!(words(&c, "/zz").is_empty());
        assert_eq!(loosely("/help", "help"), None, "a `/` only against a `/`");
    }

    #[test]
    fn prompts_resources_and_mentioned_paths_complete_with_descriptions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        std::fs::write(dir.path().join(".hidden"), "").unwrap();
        let commands = ["/help", "/everything"]
            .map(|c| (c.to_string(), String::new()))
            .to_vec();
        let c = Completion::new(commands, dir.path());
        *c.prompts.lock().unwrap() = vec![(
            "/everything:args-prompt".into(),
            "A prompt with two arguments, one required and one optional".into(),
        )];
        *c.resources.lock().unwrap() = vec![(
            "@everything:demo://resource/static/document/features.md".into(),
            "Static document file exposed from /docs: features.md".into(),
        )];
        let (_, found) = c.words("/everything:", 12).unwrap();
        assert_eq!(
            found,
            [Item::new(
                "/everything:args-prompt",
                "A prompt with two arguments, one required and one optional"
            )]
        );
        assert_eq!(
            words(&c, "explain @ev"),
            ["@everything:demo://resource/static/document/features.md"]
        );
        assert_eq!(words(&c, "explain @s"), ["@src/"]);
        assert_eq!(words(&c, "explain @src/m"), ["@src/main.rs"]);
        assert_eq!(words(&c, "explain @.h"), ["@.hidden"]);
        // A bare `@`: files before resources.
        let bare = words(&c, "explain @");
        let file = bare.iter().position(|w| w == "@src/").unwrap();
        let resource = bare
            .iter()
            .position(|w| w.starts_with("@everything:"))
            .unwrap();
        assert!(file < resource, "{bare:?}");
    }

    #[test]
    fn sessions_are_listed_once_when_resume_asks_for_them() {
        let c = Completion::new(Vec::new(), std::path::Path::new("."));
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = calls.clone();
        c.sessions.lock().unwrap().forget(move || {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            vec![(
                "20261203-101502-3f9a2c".into(),
                "who is ferris? · 3 min ago".into(),
            )]
        });
        assert_eq!(words(&c, "hello"), Vec::<String>::new());
        assert_eq!(
            calls.load(std::sync::atomic::Ordering::SeqCst),
            0,
            "not at every prompt"
        );
        assert_eq!(words(&c, "/resume 2026"), ["20261203-101502-3f9a2c"]);
        assert_eq!(words(&c, "/resume 20261203"), ["20261203-101502-3f9a2c"]);
        assert_eq!(
            calls.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "listed once"
        );
    }
}
