//! The sandbox for hooks that run the project's code (`make lint`, `npx
//! prettier --write .`, `python3 -m scripts.check`, a script in the
//! folder): the same walls as `shell` — the session's writable roots, no
//! network, changes reviewed before they land — so code a command could
//! rewrite never runs outside the sandbox through a trusted hook. The
//! built-in tools set a template for each working folder they are made
//! for (`hermes acp` holds sessions of several), when the shell's settings
//! and the control paths are known; a hook takes its own folder's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::held::Held;
use super::{Changes, Policy, SandboxError, Stage};

type Control = dyn Fn(&Path) -> Option<&'static str> + Send + Sync;

/// How a hook's sandbox is made.
pub(crate) struct Template {
    /// The shell's policy (writable roots, protected and hidden paths,
    /// bounds), network off.
    pub policy: Box<dyn Fn() -> Policy + Send + Sync>,
    /// The control paths' check, for the review.
    pub control: Box<Control>,
    /// The working folder.
    pub project: PathBuf,
}

/// The templates set, one per working folder.
static TEMPLATES: Mutex<Vec<Arc<Template>>> = Mutex::new(Vec::new());

/// Set for its working folder (again for the same folder: replaced).
pub(crate) fn set(t: Template) {
    let mut all = TEMPLATES.lock().unwrap_or_else(|e| e.into_inner());
    all.retain(|o| o.project != t.project);
    all.push(Arc::new(t));
}

/// The template for a hook run in `dir`: the one of the deepest working
/// folder holding it, else the first set (a hook run elsewhere).
fn template(dir: &Path) -> Option<Arc<Template>> {
    let all = TEMPLATES.lock().unwrap_or_else(|e| e.into_inner());
    all.iter()
        .filter(|t| dir.starts_with(&t.project))
        .max_by_key(|t| t.project.components().count())
        .or_else(|| all.first())
        .cloned()
}

/// The writable roots a hook run in `dir` would have; empty when hooks
/// are not sandboxed (no template: the shell sandbox is off).
pub(crate) fn roots(dir: &Path) -> Vec<PathBuf> {
    template(dir)
        .map(|t| (t.policy)().writable)
        .unwrap_or_default()
}

/// `program` in `dir`, sandboxed as a hook; `None` without a template.
pub(crate) fn command(
    dir: &Path,
    program: &[OsString],
) -> Option<Result<(tokio::process::Command, Option<Stage>), SandboxError>> {
    let t = template(dir)?;
    let mut policy = (t.policy)();
    policy.network = false;
    Some(super::command(&policy, dir, program))
}

/// Lands what a sandboxed hook run in `dir` changed.
pub(crate) fn land(stage: &Stage, dir: &Path) -> Changes {
    match template(dir) {
        Some(t) => stage.land(&Held::for_this_process(&*t.control, &t.project), None),
        None => stage.land(
            &Held::for_this_process(&|_: &Path| None, Path::new("/")),
            None,
        ),
    }
}
