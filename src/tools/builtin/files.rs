//! `read_file`, `write_file` and `edit_file`: the working folder's files,
//! read with line numbers and a cap that says how to read on, written
//! whole, or edited by exact replacement — each change shown as a diff.

use std::path::Path;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::context::{arg_str, blocking, Context};
use crate::call::ToolOutput;
use crate::model::ToolSpec;
use crate::policy::Hints;
use crate::tools::diff;
use crate::tools::{Change, Earlier, Expect, OnStart, Planned, Tool};

use super::reader::{changed_to_link, read_lines, text_lines, READ_LINES, SNIFF};

pub(crate) struct ReadFile(pub(crate) Arc<Context>);
pub(crate) struct WriteFile(pub(crate) Arc<Context>);
pub(crate) struct EditFile(pub(crate) Arc<Context>);

impl Tool for ReadFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_file".into(),
            description: "Read a text file, with line numbers. Paths are relative to the working \
                folder. Shows up to 2000 lines from `offset` (1-based); a longer file ends with \
                how to read on."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "offset": {"type": "integer", "minimum": 1, "description": "First line to show"},
                    "limit": {"type": "integer", "minimum": 1, "description": "Lines to show"}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        }
    }

    fn hints(&self, args: &Value) -> Hints {
        self.0.read_hints(args)
    }

    fn normalize(&self, args: &Value) -> Option<Value> {
        self.0.normalize(args, "path")
    }

    fn call<'a>(
        &'a self,
        args: Value,
        _cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let path = self.0.workspace.resolve(arg_str(&args, "path"));
            // After the writes to this path that come before it in the
            // batch, before those that come after.
            let place = self.0.gates.place(super::Touch::Read(path.clone()));
            place.turn().await;
            on_start();
            let offset = args["offset"].as_u64().unwrap_or(1).max(1) as usize;
            let limit = args["limit"].as_u64().map_or(READ_LINES, |l| l as usize);
            let budget = self.0.output_limit.saturating_sub(200);
            let shown = self.0.workspace.shown(&path);
            // The buffer the person sees, unsaved changes and all, when an
            // editor serves it; the disk when it cannot say.
            if let Some(editor) = &self.0.editor {
                if let Some(text) = editor.read(&path).await {
                    return match text_lines(&text, offset, limit, budget) {
                        Ok(lines) => ToolOutput::ok(lines.shown(&shown)),
                        Err(e) => ToolOutput::error(e.for_model(&shown)),
                    };
                }
            }
            blocking(move || match read_lines(&path, offset, limit, budget) {
                Ok(lines) => ToolOutput::ok(lines.shown(&shown)),
                Err(e) => ToolOutput::error(e.for_model(&shown)),
            })
            .await
        })
    }
}

/// Why a file could not be read for a change.
fn read_error(e: &std::io::Error, shown: &str) -> String {
    match e.kind() {
        _ if crate::util::beneath::is_link_error(e) => changed_to_link(shown),
        std::io::ErrorKind::IsADirectory => format!("{shown} is a folder"),
        _ => format!("cannot read {shown}: {e}"),
    }
}

/// A file as a plan finds it: as the round's earlier entries will have
/// left it, else as it is (read without following a link); `None`: none.
fn found(path: &Path, shown: &str, earlier: &Earlier) -> Result<Option<Vec<u8>>, String> {
    if let Some(c) = earlier.get(path) {
        return Ok(Some(c.clone().into_bytes()));
    }
    crate::util::beneath::read(path).map_err(|e| read_error(&e, shown))
}

/// Bytes as text for an edit: UTF-8, not binary.
fn text_of(bytes: Vec<u8>, shown: &str) -> Result<String, String> {
    if bytes.iter().take(SNIFF).any(|b| *b == 0) {
        return Err(format!(
            "{shown} is a binary file ({} bytes); change it with shell",
            bytes.len()
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{shown} is not UTF-8 text; change it with shell"))
}

/// The file's content now, if the plan (`expect`) still holds for it;
/// otherwise what the stale result says.
fn as_planned(
    path: &Path,
    shown: &str,
    expect: Option<&Expect>,
    write: &Write,
) -> Result<Option<Vec<u8>>, ToolOutput> {
    // The editor's buffer, when it serves one: what the change was
    // planned on, and what it is made to.
    let now = match write.buffer(path) {
        Some(text) => Some(text.into_bytes()),
        None => crate::util::beneath::read(path)
            .map_err(|e| ToolOutput::error(read_error(&e, shown)))?,
    };
    match expect {
        Some(x) if !x.holds_for(now.as_deref()) => Err(ToolOutput::stale(format!(
            "{shown} changed after this change was planned and shown; nothing was written — \
             read it again"
        ))),
        _ => Ok(now),
    }
}

/// How a planned change is made to the file.
type Work = fn(&Path, &str, &Value, Option<&Expect>, &Write) -> ToolOutput;

/// The call of `tool`, a built-in that plans its changes: `work` made in
/// the entry's turn, planned again there by `tool` when it is asked then.
fn planned_call<'a, 'p: 'a>(
    tool: &'a (impl Tool + ?Sized),
    ctx: &'a Context,
    args: Value,
    planned: Planned<'p>,
    on_start: OnStart<'a>,
    work: Work,
) -> BoxFuture<'a, ToolOutput> {
    let plan = move |args: &Value| tool.plan(args, &Earlier::default());
    Box::pin(run_planned(ctx, args, planned, plan, on_start, work))
}

/// Runs a planned change (`work`) of the entry's path in its turn (after
/// the entries before it that read or write the path), off the runtime.
async fn run_planned<'a>(
    ctx: &Context,
    args: Value,
    planned: Planned<'a>,
    plan: impl Fn(&Value) -> Option<Result<Change, String>>,
    on_start: OnStart<'_>,
    work: Work,
) -> ToolOutput {
    let path = ctx.workspace.resolve(arg_str(&args, "path"));
    let place = ctx.gates.place(super::Touch::Write(path.clone()));
    place.turn().await;
    let expect = match planned {
        Planned::Free => None,
        Planned::Expect(x) => Some(x),
        // Planned now, on what the entries before it left, and asked
        // about while the place is held: nothing after it touching the
        // file runs before it.
        Planned::AtTurn(confirm) => match plan(&args) {
            Some(Ok(change)) => {
                let expect = change.expect();
                if let Err(out) = confirm(change).await {
                    return out;
                }
                Some(expect)
            }
            Some(Err(why)) => return ToolOutput::error(why),
            None => None,
        },
    };
    on_start();
    let shown = ctx.workspace.shown(&path);
    let write = Write(ctx.editor.clone());
    let keep = match ctx.keep.clone() {
        Some(k) if write.through_editor() => Some(k.copying()),
        k => k,
    };
    blocking(move || {
        // What stood there, kept before it is replaced (`hermes rewind`),
        // and the folders the write will make, outermost first.
        let was = std::fs::symlink_metadata(&path).ok();
        let mut made: Vec<std::path::PathBuf> = path
            .ancestors()
            .skip(1)
            .take_while(|d| std::fs::symlink_metadata(d).is_err())
            .map(std::path::Path::to_path_buf)
            .collect();
        made.reverse();
        let before = match (&keep, &was) {
            (None, _) => None,
            (Some(_), None) => Some(crate::sandbox::kept::Before::Absent),
            (Some(k), Some(m)) => k.path(&path, m).ok(),
        };
        let mut out = work(&path, &shown, &args, expect.as_ref(), &write);
        if !out.is_error && !out.stale {
            if keep.is_some() && before.is_none() {
                out.content
                    .push_str(&format!("\n[{}: {shown}]", super::changes_told::UNKEPT));
            }
            let after = crate::sandbox::kept::Stamp::of(&path);
            let bytes = std::fs::metadata(&path).ok().map(|m| m.len());
            out.changes = Some(Box::new(crate::sandbox::Changes {
                files: vec![crate::sandbox::FileChange {
                    kind: if was.is_some() {
                        crate::sandbox::ChangeKind::Modified
                    } else {
                        crate::sandbox::ChangeKind::Created
                    },
                    path,
                    bytes,
                    held: None,
                    before,
                    after: Some(after),
                    stripped: None,
                }],
                failed: Vec::new(),
                made_folders: made,
                kept_folders: Vec::new(),
            }));
        }
        out
    })
    .await
}

impl Tool for WriteFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "write_file".into(),
            description: "Create a file, or replace one whole, with `content`. Folders are \
                created as needed. To change part of a file, use edit_file."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string"}
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }),
        }
    }

    fn hints(&self, args: &Value) -> Hints {
        self.0.write_hints(args)
    }

    fn normalize(&self, args: &Value) -> Option<Value> {
        self.0.normalize(args, "path")
    }

    fn plans_changes(&self) -> bool {
        true
    }

    fn buffer<'a>(
        &'a self,
        args: &'a Value,
    ) -> BoxFuture<'a, Option<(std::path::PathBuf, String)>> {
        Box::pin(self.0.buffer(args))
    }

    fn plan(&self, args: &Value, earlier: &Earlier) -> Option<Result<Change, String>> {
        let path = self.0.workspace.resolve(arg_str(args, "path"));
        let shown = self.0.workspace.shown(&path);
        let bytes = match found(&path, &shown, earlier) {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(Change {
            // A file that is not text is replaced all the same.
            expect: Expect::of(bytes.as_deref()),
            before: bytes.map(|b| String::from_utf8_lossy(&b).into_owned()),
            path,
            shown,
            after: arg_str(args, "content").to_string(),
        }))
    }

    fn call<'a>(
        &'a self,
        args: Value,
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        self.call_expecting(args, Planned::Free, cancel, on_start)
    }

    fn call_expecting<'a, 'p: 'a>(
        &'a self,
        args: Value,
        planned: Planned<'p>,
        _cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        planned_call(self, &self.0, args, planned, on_start, write_whole)
    }
}

/// How a planned change is written: through the editor when it writes
/// (`hermes acp`, `fs/write_text_file`: its buffer becomes the file), and
/// to the disk, never through a link, otherwise — or when it cannot.
struct Write(Option<crate::util::editor_files::EditorFiles>);

impl Write {
    fn through_editor(&self) -> bool {
        self.0.as_ref().is_some_and(|e| e.writes())
    }

    /// The file's text as the editor's buffer has it, when it reads.
    fn buffer(&self, path: &Path) -> Option<String> {
        self.0.as_ref()?.read_blocking(path)
    }

    fn text(&self, path: &Path, text: &str) -> std::io::Result<()> {
        match self.0.as_ref().and_then(|e| e.write_blocking(path, text)) {
            Some(Ok(())) => Ok(()),
            _ => crate::util::beneath::replace(path, text.as_bytes()),
        }
    }
}

fn write_whole(
    path: &Path,
    shown: &str,
    args: &Value,
    expect: Option<&Expect>,
    write: &Write,
) -> ToolOutput {
    let content = arg_str(args, "content");
    let old = match as_planned(path, shown, expect, write) {
        Ok(old) => old.map(|b| String::from_utf8_lossy(&b).into_owned()),
        Err(out) => return out,
    };
    if let Err(e) = write.text(path, content) {
        if crate::util::beneath::is_link_error(&e) {
            return ToolOutput::error(changed_to_link(shown));
        }
        return ToolOutput::error(format!("cannot write {shown}: {e}"));
    }
    let lines = content.lines().count();
    let text = match &old {
        None => format!("created {shown} ({lines} lines, {} bytes)", content.len()),
        Some(_) => format!("replaced {shown} ({lines} lines, {} bytes)", content.len()),
    };
    ToolOutput::ok(text).with_diff(diff(shown, old.as_deref().unwrap_or(""), content))
}

impl Tool for EditFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "edit_file".into(),
            description: "Replace `old_string` with `new_string` in a file. `old_string` must \
                match the file exactly (whitespace included) and only once, unless \
                `replace_all` is true; read the file first."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old_string": {"type": "string"},
                    "new_string": {"type": "string"},
                    "replace_all": {"type": "boolean"}
                },
                "required": ["path", "old_string", "new_string"],
                "additionalProperties": false
            }),
        }
    }

    fn hints(&self, args: &Value) -> Hints {
        self.0.write_hints(args)
    }

    fn normalize(&self, args: &Value) -> Option<Value> {
        self.0.normalize(args, "path")
    }

    fn plans_changes(&self) -> bool {
        true
    }

    fn buffer<'a>(
        &'a self,
        args: &'a Value,
    ) -> BoxFuture<'a, Option<(std::path::PathBuf, String)>> {
        Box::pin(self.0.buffer(args))
    }

    fn plan(&self, args: &Value, earlier: &Earlier) -> Option<Result<Change, String>> {
        let path = self.0.workspace.resolve(arg_str(args, "path"));
        let shown = self.0.workspace.shown(&path);
        let bytes = match found(&path, &shown, earlier) {
            Ok(Some(b)) => b,
            Ok(None) => return Some(Err(format!("{shown} does not exist"))),
            Err(e) => return Some(Err(e)),
        };
        let expect = Expect::of(Some(&bytes));
        let before = match text_of(bytes, &shown) {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        Some(planned_edit(&before, &shown, args).map(|edit| Change {
            path,
            shown,
            before: Some(before),
            after: edit.new,
            expect,
        }))
    }

    fn call<'a>(
        &'a self,
        args: Value,
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        self.call_expecting(args, Planned::Free, cancel, on_start)
    }

    fn call_expecting<'a, 'p: 'a>(
        &'a self,
        args: Value,
        planned: Planned<'p>,
        _cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        planned_call(self, &self.0, args, planned, on_start, edit_in_place)
    }
}

fn edit_in_place(
    path: &Path,
    shown: &str,
    args: &Value,
    expect: Option<&Expect>,
    write: &Write,
) -> ToolOutput {
    let old = match as_planned(path, shown, expect, write) {
        Ok(Some(b)) => b,
        Ok(None) => return ToolOutput::error(format!("{shown} does not exist")),
        Err(out) => return out,
    };
    let old = match text_of(old, shown) {
        Ok(t) => t,
        Err(e) => return ToolOutput::error(e),
    };
    let edit = match planned_edit(&old, shown, args) {
        Ok(e) => e,
        Err(why) => return ToolOutput::error(why),
    };
    if let Err(e) = write.text(path, &edit.new) {
        if crate::util::beneath::is_link_error(&e) {
            return ToolOutput::error(changed_to_link(shown));
        }
        return ToolOutput::error(format!("cannot write {shown}: {e}"));
    }
    let lines = edit
        .lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let n = edit.lines.len();
    let what = if n == 1 {
        format!("1 replacement at line {lines}")
    } else {
        format!("{n} replacements, at lines {lines}")
    };
    ToolOutput::ok(format!("edited {shown}: {what}")).with_diff(diff(shown, &old, &edit.new))
}

/// An edit worked out on a file's text.
struct Edit {
    new: String,
    /// The line of each replacement.
    lines: Vec<usize>,
}

fn planned_edit(old: &str, shown: &str, args: &Value) -> Result<Edit, String> {
    let (from, to) = (arg_str(args, "old_string"), arg_str(args, "new_string"));
    let all = args["replace_all"].as_bool().unwrap_or(false);
    if from.is_empty() {
        return Err("old_string is empty; to create or replace a whole file use write_file".into());
    }
    if from == to {
        return Err("old_string and new_string are the same: nothing would change".into());
    }
    let at: Vec<usize> = old.match_indices(from).map(|(i, _)| i).collect();
    let line_of = |i: usize| old[..i].matches('\n').count() + 1;
    let lines: Vec<usize> = at.iter().map(|i| line_of(*i)).collect();
    match at.len() {
        0 => Err(not_found(old, from, shown)),
        n if n > 1 && !all => Err(format!(
            "old_string occurs {n} times in {shown} (lines {}); add the lines around it to make it \
             unique, or set replace_all to change every one",
            lines
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => {
            let new = if all {
                old.replace(from, to)
            } else {
                old.replacen(from, to, 1)
            };
            Ok(Edit { new, lines })
        }
    }
}

/// Why `from` is not in the file, with where it nearly is: a match that
/// differs only in whitespace is named by its line.
fn not_found(old: &str, from: &str, shown: &str) -> String {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = from.lines().find(|l| !l.trim().is_empty()).map(squash);
    let near = first.and_then(|f| {
        old.lines().position(|l| squash(l).contains(&f)).map(|i| {
            format!(
                "; a line like its first one is at line {} (whitespace differs?)",
                i + 1
            )
        })
    });
    format!(
        "old_string was not found in {shown}{}; read the file again and copy the text exactly",
        near.unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(dir: &Path) -> Arc<Context> {
        Arc::new(Context::for_tests(dir))
    }

    async fn run(t: &dyn Tool, args: Value) -> ToolOutput {
        t.call(args, &CancellationToken::new(), &|| {}).await
    }

    #[tokio::test]
    async fn read_numbers_lines_and_says_how_to_read_on() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("a.txt"), text).unwrap();
        let r = ReadFile(ctx(dir.path()));
        let out = run(&r, json!({"path": "a.txt", "offset": 10, "limit": 3})).await;
        assert_eq!(
            out.content,
            "    10\tline 10\n    11\tline 11\n    12\tline 12\n[lines 10–12 of 30 of a.txt; read on with offset=13]\n"
        );
        let out = run(&r, json!({"path": "a.txt", "offset": 40})).await;
        assert_eq!(
            out.content,
            "offset 40 is past the end of a.txt, which has 30 lines"
        );
        std::fs::write(dir.path().join("b.bin"), b"\x7fELF\x00\x01").unwrap();
        let out = run(&r, json!({"path": "b.bin"})).await;
        assert!(
            out.is_error && out.content.contains("is a binary file (6 bytes)"),
            "{}",
            out.content
        );
        let out = run(&r, json!({"path": "missing.txt"})).await;
        assert_eq!(out.content, "missing.txt does not exist");
    }

    #[tokio::test]
    async fn a_huge_file_is_read_within_the_output_budget() {
        let dir = tempfile::tempdir().unwrap();
        let long = "y".repeat(5000);
        let text: String = (0..100).map(|_| format!("{long}\n")).collect();
        std::fs::write(dir.path().join("h.txt"), text).unwrap();
        let out = run(&ReadFile(ctx(dir.path())), json!({"path": "h.txt"})).await;
        assert!(out.content.len() < 70_000, "{}", out.content.len());
        assert!(out.content.contains("… [3000 more characters]"));
        assert!(out
            .content
            .contains("of 100 of h.txt; read on with offset="));
    }

    #[tokio::test]
    async fn an_edit_must_match_exactly_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.rs"), "fn a() {}\nfn b() {}\nfn a() {}\n").unwrap();
        let e = EditFile(ctx(dir.path()));
        let twice = run(
            &e,
            json!({"path": "c.rs", "old_string": "fn a() {}", "new_string": "fn z() {}"}),
        )
        .await;
        assert_eq!(
            twice.content,
            "old_string occurs 2 times in c.rs (lines 1, 3); add the lines around it to make it unique, or set replace_all to change every one"
        );
        let none = run(
            &e,
            json!({"path": "c.rs", "old_string": "fn  b()  {}", "new_string": "x"}),
        )
        .await;
        assert!(
            none.content
                .contains("a line like its first one is at line 2"),
            "{}",
            none.content
        );
        let ok = run(
            &e,
            json!({"path": "c.rs", "old_string": "fn b() {}", "new_string": "fn b() { 1 }"}),
        )
        .await;
        assert_eq!(ok.content, "edited c.rs: 1 replacement at line 2");
        assert!(ok
            .diff
            .as_deref()
            .unwrap()
            .contains("-fn b() {}\n+fn b() { 1 }\n"));
        let all = run(&e, json!({"path": "c.rs", "old_string": "fn a", "new_string": "fn y", "replace_all": true})).await;
        assert_eq!(all.content, "edited c.rs: 2 replacements, at lines 1, 3");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("c.rs")).unwrap(),
            "fn y() {}\nfn b() { 1 }\nfn y() {}\n"
        );
    }
}
