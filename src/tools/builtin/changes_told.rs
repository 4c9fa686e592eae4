//! What a `shell` result says of the command's changes, foreground or
//! background: what landed, what was held back and why, what could not be
//! written, what a rewind cannot bring back — and what was held, put to
//! the person (`held_back`).

use super::context::Context;
use crate::call::ToolOutput;
use crate::util::text::escaped;

/// Why a command's changes land unreviewed.
pub(super) const LANDLOCK_ONLY: &str = "the sandbox is Landlock and seccomp only here";

/// How many changes a result names before it counts the rest.
const NAMED: usize = 20;

/// The result with the command's changes: named at its end, what was held
/// back put to the person (`held_back`), and an error when what should
/// have been held has landed — the call failed at what matters most.
pub(super) fn with_changes(
    ctx: &Context,
    mut out: ToolOutput,
    changes: crate::sandbox::Changes,
    stage: Option<crate::sandbox::Stage>,
    unreviewed: bool,
) -> ToolOutput {
    let body = out.content.clone();
    let kept = ctx.keep.is_some();
    out.content
        .push_str(&describe(&changes, unreviewed, kept, |p| {
            escaped(&ctx.workspace.shown(p))
        }));
    if let Some(stage) = stage {
        let preview = changes
            .held()
            .map(|f| {
                format!(
                    "{} — {}\n",
                    escaped(&ctx.workspace.shown(&f.path)),
                    f.held.as_deref().unwrap_or("")
                )
            })
            .collect();
        let workspace = ctx.workspace.clone();
        out.held_back = Some(crate::sandbox::HeldBack::new(
            stage,
            preview,
            body,
            Box::new(move |c: &crate::sandbox::Changes| {
                describe(c, false, kept, |p| escaped(&workspace.shown(p)))
            }),
            ctx.keep.clone(),
        ));
    }
    if unreviewed && changes.held().next().is_some() {
        out.is_error = true;
    }
    out.changes = Some(Box::new(changes));
    out
}

/// The lines a result ends with: what changed, what was held back and
/// why, what could not land.
/// `kept`: checkpoints are on (a change replaced with nothing kept is then
/// said: rewinding cannot bring it back).
fn describe(
    c: &crate::sandbox::Changes,
    unreviewed: bool,
    kept: bool,
    shown: impl Fn(&std::path::Path) -> String,
) -> String {
    use crate::sandbox::ChangeKind;
    let size = |b: Option<u64>| match b {
        Some(b) if b < 10 * 1024 => format!(" ({b} B)"),
        Some(b) if b < 10 * 1024 * 1024 => format!(" ({} KiB)", b / 1024),
        Some(b) => format!(" ({} MiB)", b >> 20),
        None => String::new(),
    };
    let mut s = String::new();
    let landed: Vec<String> = c
        .landed()
        .map(|f| {
            let kind = match f.kind {
                ChangeKind::Created => "created",
                ChangeKind::Modified => "modified",
                ChangeKind::Deleted => "deleted",
            };
            format!("{kind} {}{}", shown(&f.path), size(f.bytes))
        })
        .collect();
    if !landed.is_empty() {
        s.push_str(&format!("\n[files changed: {}]", named(&landed)));
    }
    let stripped: Vec<String> = c
        .landed()
        .filter_map(|f| Some(format!("{} ({})", shown(&f.path), f.stripped.as_deref()?)))
        .collect();
    if !stripped.is_empty() {
        s.push_str(&format!(
            "\n[landed without what would run it with other rights: {}]",
            named(&stripped)
        ));
    }
    let held: Vec<String> = c
        .held()
        .map(|f| format!("{} — {}", shown(&f.path), f.held.as_deref().unwrap_or("")))
        .collect();
    if !held.is_empty() && unreviewed {
        s.push_str(&format!(
            "\n[changed without review ({LANDLOCK_ONLY}): {} — these run later outside the \
             sandbox; the person should look at them before git or their shell runs them]",
            named(&held)
        ));
    } else if !held.is_empty() {
        s.push_str(&format!(
            "\n[held back, not written: {} — the sandbox does not let a command change what \
             runs later outside it; if the person wants it, they make the change themselves]",
            named(&held)
        ));
    }
    if !c.failed.is_empty() {
        s.push_str(&format!("\n[could not be written: {}]", named(&c.failed)));
    }
    let unkept: Vec<String> = c
        .landed()
        .filter(|f| f.before.is_none())
        .map(|f| shown(&f.path))
        .collect();
    if kept && !unreviewed && !unkept.is_empty() {
        s.push_str(&format!("\n[{UNKEPT}: {}]", named(&unkept)));
    }
    s
}

/// What a result says of changes a rewind cannot undo.
pub(super) const UNKEPT: &str = "not kept for `hermes rewind` (past this turn's \
     [checkpoints] max_mb, or unreadable); rewinding cannot bring these back";

fn named(items: &[String]) -> String {
    let mut s = items[..items.len().min(NAMED)].join("; ");
    if items.len() > NAMED {
        s.push_str(&format!("; and {} more", items.len() - NAMED));
    }
    s
}
