//! The sandbox for hooks that run the project's code (`make lint`, `npx
//! prettier --write .`, `python3 -m scripts.check`, a script in the
//! folder): the same walls as `shell` — the session's writable roots, no
//! network, changes reviewed before they land — so code a command could
//! rewrite never runs outside the sandbox through a trusted hook. The
//! built-in tools set the template once, when the shell's settings and
//! the control paths are known.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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

static TEMPLATE: OnceLock<Template> = OnceLock::new();

/// Set once a run, by whoever builds the `shell` tool's settings.
pub(crate) fn set(t: Template) {
    let _ = TEMPLATE.set(t);
}

/// The writable roots a hook's sandbox would have; empty when hooks are
/// not sandboxed (no template: the shell sandbox is off).
pub(crate) fn roots() -> Vec<PathBuf> {
    TEMPLATE
        .get()
        .map(|t| (t.policy)().writable)
        .unwrap_or_default()
}

/// `program` in `dir`, sandboxed as a hook; `None` without a template.
pub(crate) fn command(
    dir: &Path,
    program: &[OsString],
) -> Option<Result<(tokio::process::Command, Option<Stage>), SandboxError>> {
    let t = TEMPLATE.get()?;
    let mut policy = (t.policy)();
    policy.network = false;
    Some(super::command(&policy, dir, program))
}

/// Lands what a sandboxed hook changed.
pub(crate) fn land(stage: &Stage) -> Changes {
    let none = |_: &Path| None;
    type ControlRef<'a> = &'a (dyn Fn(&Path) -> Option<&'static str> + Sync);
    let (control, project): (ControlRef<'_>, &Path) = match TEMPLATE.get() {
        Some(t) => (&*t.control, &t.project),
        None => (&none, Path::new("/")),
    };
    stage.land(&Held::for_this_process(control, project), None)
}
