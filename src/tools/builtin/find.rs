//! `glob` and `grep`: finding files and lines in the working folder the way
//! ripgrep does (its own walker and searcher): `.gitignore` respected, the
//! `.git` folder and binary files skipped, results in path order and
//! bounded, with a note of what was left out.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{sinks, BinaryDetection, SearcherBuilder};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::context::{arg_str, blocking, path_arg, Context};
use super::{order, Touch};
use crate::call::ToolOutput;
use crate::model::ToolSpec;
use crate::policy::Hints;
use crate::tools::{OnStart, Tool};

/// Paths `glob` lists at most.
const MAX_PATHS: usize = 500;
/// Matching lines `grep` shows at most.
const MAX_MATCHES: usize = 500;
/// Characters of a matching line shown.
const LINE_CHARS: usize = 300;

pub(crate) struct Glob(pub(crate) Arc<Context>);
pub(crate) struct Grep(pub(crate) Arc<Context>);

impl Tool for Glob {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "glob".into(),
            description: "List files whose path matches a glob (`**/*.rs`, `src/*.toml`), under \
                `path` (default: the working folder). .gitignore is respected."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string"}
                },
                "required": ["pattern"],
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
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let base = path_arg(&self.0, &args, "path");
            // After the writes under it that come before it in the batch.
            let place = self.0.gates.place(Touch::Scan(order::scanned(&base)));
            place.turn().await;
            on_start();
            let pattern = arg_str(&args, "pattern").to_string();
            let ctx = self.0.clone();
            let cancel = cancel.clone();
            blocking(move || glob(&ctx, &base, &pattern, &cancel)).await
        })
    }
}

fn glob(ctx: &Context, base: &Path, pattern: &str, cancel: &CancellationToken) -> ToolOutput {
    let walker = match walker(base, Some(pattern)) {
        Ok(w) => w,
        Err(e) => return ToolOutput::error(e),
    };
    let mut found: Vec<PathBuf> = Vec::new();
    let mut more = 0usize;
    for entry in walker.build().flatten() {
        if cancel.is_cancelled() {
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if found.len() < MAX_PATHS {
            found.push(entry.into_path());
        } else {
            more += 1;
        }
    }
    if found.is_empty() {
        return ToolOutput::ok(format!(
            "no file under {} matches {pattern}",
            ctx.workspace.shown(base)
        ));
    }
    let mut out: String = found
        .iter()
        .map(|p| format!("{}\n", ctx.workspace.shown(p)))
        .collect();
    if more > 0 {
        out.push_str(&format!(
            "[{more} more files match; narrow the pattern or the path]\n"
        ));
    }
    ToolOutput::ok(out)
}

impl Tool for Grep {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "grep".into(),
            description: "Search file contents for a regular expression (Rust regex syntax), \
                under `path` (default: the working folder), in files matching `glob` if given. \
                Answers `path:line:text`. .gitignore is respected; binary files are skipped."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string"},
                    "glob": {"type": "string", "description": "e.g. *.rs"},
                    "ignore_case": {"type": "boolean"}
                },
                "required": ["pattern"],
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
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let base = path_arg(&self.0, &args, "path");
            // After the writes under it that come before it in the batch.
            let place = self.0.gates.place(Touch::Scan(order::scanned(&base)));
            place.turn().await;
            on_start();
            let ctx = self.0.clone();
            let cancel = cancel.clone();
            blocking(move || grep(&ctx, &base, &args, &cancel)).await
        })
    }
}

fn grep(ctx: &Context, base: &Path, args: &Value, cancel: &CancellationToken) -> ToolOutput {
    let pattern = arg_str(args, "pattern");
    let matcher = match RegexMatcherBuilder::new()
        .case_insensitive(args["ignore_case"].as_bool().unwrap_or(false))
        .build(pattern)
    {
        Ok(m) => m,
        Err(e) => {
            return ToolOutput::error(format!(
                "pattern {pattern:?} is not a regular expression: {e}"
            ))
        }
    };
    let walker = match walker(base, args["glob"].as_str().filter(|g| !g.is_empty())) {
        Ok(w) => w,
        Err(e) => return ToolOutput::error(e),
    };
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let budget = ctx.output_limit.saturating_sub(200);
    let mut out = String::new();
    let (mut shown, mut more) = (0usize, 0usize);
    for entry in walker.build().flatten() {
        if cancel.is_cancelled() {
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let name = ctx.workspace.shown(entry.path());
        let _ = searcher.search_path(
            &matcher,
            entry.path(),
            sinks::Lossy(|line_no, line| {
                if shown < MAX_MATCHES && out.len() < budget {
                    let line = line.trim_end_matches(['\n', '\r']);
                    let cut: String = line.chars().take(LINE_CHARS).collect();
                    let rest = line.chars().count().saturating_sub(LINE_CHARS);
                    let tail = if rest > 0 {
                        format!("… [{rest} more characters]")
                    } else {
                        String::new()
                    };
                    out.push_str(&format!("{name}:{line_no}:{cut}{tail}\n"));
                    shown += 1;
                } else {
                    more += 1;
                }
                Ok(true)
            }),
        );
    }
    if shown == 0 {
        return ToolOutput::ok(format!(
            "no line under {} matches {pattern:?}",
            ctx.workspace.shown(base)
        ));
    }
    if more > 0 {
        out.push_str(&format!(
            "[{more} more matching lines not shown; narrow the pattern, the path or the glob]\n"
        ));
    }
    ToolOutput::ok(out)
}

/// ripgrep's walk of `base`: `.gitignore` and `.ignore` respected, hidden
/// files included but not the `.git` folder, in path order; only files
/// matching `glob` (gitignore syntax: `*.rs` at any depth) when given.
fn walker(base: &Path, glob: Option<&str>) -> Result<ignore::WalkBuilder, String> {
    if !base.exists() {
        return Err(format!("{} does not exist", base.display()));
    }
    let mut w = ignore::WalkBuilder::new(base);
    w.hidden(false)
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(|e| e.file_name() != ".git");
    if let Some(g) = glob {
        let mut o = ignore::overrides::OverrideBuilder::new(base);
        o.add(g)
            .map_err(|e| format!("glob {g:?} is not a valid pattern: {e}"))?;
        let o = o
            .build()
            .map_err(|e| format!("glob {g:?} is not a valid pattern: {e}"))?;
        w.overrides(o);
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn glob_and_grep_respect_gitignore_and_skip_binaries() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("src/deep")).unwrap();
        std::fs::create_dir_all(p.join("target")).unwrap();
        std::fs::write(p.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(p.join("src/a.rs"), "fn main() {}\n// TODO: tidy\n").unwrap();
        std::fs::write(p.join("src/deep/b.rs"), "// todo later\n").unwrap();
        std::fs::write(p.join("target/c.rs"), "// TODO ignored\n").unwrap();
        std::fs::write(p.join("blob.bin"), b"TODO\x00\x01").unwrap();
        let ctx = Arc::new(Context::for_tests(p));
        let none = CancellationToken::new();
        let g = Glob(ctx.clone())
            .call(json!({"pattern": "*.rs"}), &none, &|| {})
            .await;
        assert_eq!(g.content, "src/a.rs\nsrc/deep/b.rs\n");
        let r = Grep(ctx.clone())
            .call(
                json!({"pattern": "todo", "ignore_case": true}),
                &none,
                &|| {},
            )
            .await;
        assert_eq!(
            r.content,
            "src/a.rs:2:// TODO: tidy\nsrc/deep/b.rs:1:// todo later\n"
        );
        let bad = Grep(ctx).call(json!({"pattern": "("}), &none, &|| {}).await;
        assert!(
            bad.is_error
                && bad
                    .content
                    .starts_with("pattern \"(\" is not a regular expression")
        );
    }
}
