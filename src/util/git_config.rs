//! What git's config makes git read or run, as files and folders: the
//! review holds a command's change to any of them, wherever it lives — a
//! `core.hooksPath` folder (husky's `.husky/_`, lefthook's `.githooks`), a
//! file `include.path` or `includeIf` pulls in, `core.attributesFile`,
//! `core.excludesFile`, `init.templateDir`, and the program of every key
//! that names a command (`core.fsmonitor`, `core.pager`, a filter's
//! `clean`, a diff driver's `textconv`, a `!` alias …) when it is a path.
//! Read with a parser of our own rather than `git config`: the review runs
//! after every command, and hermes must not run git on a repository a
//! command may have planted things in.

use std::path::{Path, PathBuf};

/// One `key = value` of a config file: section and key lower-cased (git
/// compares them so), the subsection as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub section: String,
    pub sub: Option<String>,
    pub key: String,
    pub value: String,
}

/// The entries of one config file's text; a line git would refuse is
/// skipped (git would then refuse the whole file and run nothing of it).
pub(crate) fn entries(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut sub = None;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with('[') {
            if let Some((s, rest)) = header(t) {
                (section, sub) = s;
                // `[core] hooksPath = x` on one line is git's too.
                if let Some(e) = key_value(rest, &mut lines, &section, &sub) {
                    out.push(e);
                }
            }
            continue;
        }
        if let Some(e) = key_value(t, &mut lines, &section, &sub) {
            out.push(e);
        }
    }
    out
}

type Header = (String, Option<String>);

/// `[section]`, `[section "sub"]` or the older `[section.sub]`; what
/// follows the `]`.
fn header(t: &str) -> Option<(Header, &str)> {
    let body = &t[1..];
    if let Some(q) = body.find('"') {
        let name = body[..q].trim().to_ascii_lowercase();
        let mut sub = String::new();
        let mut chars = body[q + 1..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, n)) = chars.next() {
                        sub.push(n);
                    }
                }
                '"' => {
                    let rest = &body[q + 1 + i + 1..];
                    let rest = rest.trim_start().strip_prefix(']')?;
                    return Some(((name, Some(sub)), rest));
                }
                c => sub.push(c),
            }
        }
        return None;
    }
    let end = body.find(']')?;
    let name = body[..end].trim();
    let rest = &body[end + 1..];
    Some(match name.split_once('.') {
        Some((s, sub)) => (
            (s.to_ascii_lowercase(), Some(sub.to_ascii_lowercase())),
            rest,
        ),
        None => ((name.to_ascii_lowercase(), None), rest),
    })
}

/// `key = value` (or a bare `key`, which is true), its value unquoted and
/// unescaped, continued onto the next lines by a trailing backslash.
fn key_value<'a>(
    t: &str,
    more: &mut impl Iterator<Item = &'a str>,
    section: &str,
    sub: &Option<String>,
) -> Option<Entry> {
    let t = t.trim_start();
    if t.is_empty() || t.starts_with('#') || t.starts_with(';') || section.is_empty() {
        return None;
    }
    let name_end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(t.len());
    let key = t[..name_end].to_ascii_lowercase();
    if key.is_empty() {
        return None;
    }
    let rest = t[name_end..].trim_start();
    let value = match rest.strip_prefix('=') {
        Some(v) => value(v, more),
        None => "true".to_string(),
    };
    Some(Entry {
        section: section.to_string(),
        sub: sub.clone(),
        key,
        value,
    })
}

fn value<'a>(first: &str, more: &mut impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    let mut pending_space = String::new();
    let mut quoted = false;
    let mut line = first.trim_start().to_string();
    loop {
        let mut chars = line.chars().peekable();
        let mut continued = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    None => {
                        continued = true;
                        break;
                    }
                    Some(n) => {
                        out.push_str(&pending_space);
                        pending_space.clear();
                        out.push(match n {
                            'n' => '\n',
                            't' => '\t',
                            'b' => '\u{8}',
                            other => other,
                        });
                    }
                },
                '"' => {
                    out.push_str(&pending_space);
                    pending_space.clear();
                    quoted = !quoted;
                }
                '#' | ';' if !quoted => return out,
                c if c.is_whitespace() && !quoted => {
                    if !out.is_empty() {
                        pending_space.push(c);
                    }
                }
                c => {
                    out.push_str(&pending_space);
                    pending_space.clear();
                    out.push(c);
                }
            }
        }
        if !continued {
            return out;
        }
        match more.next() {
            Some(next) => line = next.to_string(),
            None => return out,
        }
    }
}

/// What a set of config files makes git read or run.
#[derive(Debug, Default, Clone)]
pub(crate) struct Named {
    /// Files: config files included, attributes and excludes files,
    /// programs named by path.
    pub files: Vec<PathBuf>,
    /// Folders everything beneath which git runs or copies: hook folders,
    /// template folders.
    pub folders: Vec<PathBuf>,
}

impl Named {
    /// Whether `path` is one of these, or beneath one of the folders.
    pub(crate) fn covers(&self, path: &Path) -> bool {
        self.files.iter().any(|f| f == path) || self.folders.iter().any(|d| path.starts_with(d))
    }
}

/// Keys whose value is a command git runs (lower-cased; `*` stands for a
/// subsection).
const COMMANDS: &[(&str, &str)] = &[
    ("core", "fsmonitor"),
    ("core", "sshcommand"),
    ("core", "editor"),
    ("core", "pager"),
    ("core", "askpass"),
    ("sequence", "editor"),
    ("diff", "external"),
    ("diff", "textconv"),
    ("diff", "command"),
    ("gpg", "program"),
    ("credential", "helper"),
    ("filter", "clean"),
    ("filter", "smudge"),
    ("filter", "process"),
    ("merge", "driver"),
    ("mergetool", "cmd"),
    ("difftool", "cmd"),
    ("pager", "*"),
    ("alias", "*"),
    ("uploadpack", "packobjectshook"),
    ("receive", "procreceiverefs"),
];

/// Where a config's relative names are read from.
pub(crate) struct Context<'a> {
    /// The home folder, for `~/`.
    pub home: Option<&'a Path>,
    /// The folder hooks and commands run in (the worktree's top, or the
    /// git folder of a bare repository).
    pub top: &'a Path,
}

/// Adds to `named` what the config file at `path` (and every file it
/// includes, to git's own depth of 10) makes git read or run. `read`
/// gives a file's text (the review reads the real folder and the
/// command's layer both).
pub(crate) fn collect(
    path: &Path,
    cx: &Context<'_>,
    read: &dyn Fn(&Path) -> Vec<String>,
    named: &mut Named,
    depth: usize,
) {
    if depth > 10 {
        return;
    }
    let base = path.parent().unwrap_or(Path::new("/"));
    for text in read(path) {
        for e in entries(&text) {
            let s = e.section.as_str();
            let k = e.key.as_str();
            let included = (s == "include" || s == "includeif") && k == "path";
            if included {
                // Relative to the including file, as git reads it.
                if let Some(p) = resolve(&e.value, base, cx.home) {
                    if !named.files.contains(&p) {
                        named.files.push(p.clone());
                        collect(&p, cx, read, named, depth + 1);
                    }
                }
                continue;
            }
            match (s, k) {
                ("core", "hookspath") | ("init", "templatedir") => {
                    if let Some(p) = resolve(&e.value, cx.top, cx.home) {
                        named.folders.push(p);
                    }
                }
                ("core", "attributesfile") | ("core", "excludesfile") => {
                    if let Some(p) = resolve(&e.value, cx.top, cx.home) {
                        named.files.push(p);
                    }
                }
                _ => {
                    let runs = COMMANDS
                        .iter()
                        .any(|(cs, ck)| *cs == s && (*ck == "*" || *ck == k));
                    if runs {
                        if let Some(p) = program(&e.value, cx) {
                            named.files.push(p);
                        }
                    }
                }
            }
        }
    }
}

/// The program a command value runs, when it names one by path (a bare
/// name is found on the PATH, which the review guards on its own).
fn program(value: &str, cx: &Context<'_>) -> Option<PathBuf> {
    let v = value.trim().trim_start_matches('!').trim_start();
    let first = v.split_whitespace().next()?;
    let first = first.trim_matches(|c| c == '"' || c == '\'');
    if !first.contains('/') && !first.starts_with('~') {
        return None;
    }
    resolve(first, cx.top, cx.home)
}

/// A path as git reads it: `~/` from the home, `%(prefix)/` ignored,
/// relative ones from `base`; `..` folded so it compares with the paths
/// the review walks.
fn resolve(value: &str, base: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let v = value.trim();
    if v.is_empty() || v.starts_with("%(prefix)") {
        return None;
    }
    let p = if let Some(rest) = v.strip_prefix("~/") {
        home?.join(rest)
    } else if v == "~" {
        home?.to_path_buf()
    } else {
        base.join(v)
    };
    Some(crate::util::path::normalize(&p))
}

/// Where a `.git` file's `gitdir:` line points, relative to its folder.
pub(crate) fn gitfile_target(dot: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot).ok()?;
    let line = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let base = dot.parent()?;
    let t = crate::util::path::normalize(&base.join(line));
    Some(std::fs::canonicalize(&t).unwrap_or(t))
}

/// The person's global and the system's git config files.
pub(crate) fn global_configs(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("/etc/gitconfig")];
    if let Some(g) = std::env::var_os("GIT_CONFIG_GLOBAL") {
        out.push(PathBuf::from(g));
    }
    if let Some(h) = home {
        out.push(h.join(".gitconfig"));
        let xdg = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| h.join(".config"));
        out.push(xdg.join("git/config"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_is_read_as_git_reads_it() {
        let text = "# a comment\n[core]\n\trepositoryformatversion = 0\n\tHooksPath = \".husky/_\" ; why\n\
                    [includeIf \"gitdir:~/work/\"]\n  path = ../shared.inc\n\
                    [Filter \"lfs\"] clean = ./tools/clean \\\n  --flag\n[alias]\n  st = !./bin/st\n\
                    [core.extra]\n  bare\n";
        let e = entries(text);
        let get = |s: &str, k: &str| {
            e.iter()
                .find(|x| x.section == s && x.key == k)
                .map(|x| x.value.clone())
        };
        assert_eq!(get("core", "hookspath").as_deref(), Some(".husky/_"));
        assert_eq!(get("includeif", "path").as_deref(), Some("../shared.inc"));
        assert_eq!(
            get("filter", "clean").as_deref(),
            Some("./tools/clean   --flag")
        );
        assert_eq!(get("alias", "st").as_deref(), Some("!./bin/st"));
        assert_eq!(
            e.iter()
                .find(|x| x.section == "includeif")
                .unwrap()
                .sub
                .as_deref(),
            Some("gitdir:~/work/")
        );
        assert_eq!(get("core", "bare").as_deref(), Some("true"));
    }

    #[test]
    fn hooks_includes_and_programs_are_named_wherever_they_lie() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("repo");
        let git = top.join(".git");
        std::fs::create_dir_all(&git).unwrap();
        std::fs::write(
            git.join("config"),
            "[core]\n\thooksPath = .githooks\n\tfsmonitor = tools/watch.sh\n\
             [include]\n\tpath = ../extra.cfg\n[diff \"img\"]\n\ttextconv = exiftool\n",
        )
        .unwrap();
        std::fs::write(
            top.join("extra.cfg"),
            "[core]\n\tattributesFile = ~/attrs\n[init]\n\ttemplateDir = /srv/tpl\n",
        )
        .unwrap();
        let home = dir.path().join("home");
        let cx = Context {
            home: Some(&home),
            top: &top,
        };
        let read = |p: &Path| std::fs::read_to_string(p).into_iter().collect();
        let mut named = Named::default();
        collect(&git.join("config"), &cx, &read, &mut named, 0);
        assert!(named.covers(&top.join(".githooks/pre-commit")));
        assert!(named.covers(&top.join("tools/watch.sh")));
        assert!(named.covers(&top.join("extra.cfg")));
        assert!(named.covers(&home.join("attrs")));
        assert!(named.covers(Path::new("/srv/tpl/hooks/post-checkout")));
        assert!(!named.covers(&top.join("src/main.rs")));
        assert!(
            !named.files.iter().any(|f| f.ends_with("exiftool")),
            "a bare program name is the PATH's: {named:?}"
        );
    }

    #[test]
    fn includes_that_include_themselves_end() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::write(&a, "[include]\npath = a\n").unwrap();
        let cx = Context {
            home: None,
            top: dir.path(),
        };
        let read = |p: &Path| std::fs::read_to_string(p).into_iter().collect();
        let mut named = Named::default();
        collect(&a, &cx, &read, &mut named, 0);
        assert_eq!(named.files, vec![a]);
    }
}
