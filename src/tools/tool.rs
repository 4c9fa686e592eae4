//! The `Tool` trait every tool implements — built-in, MCP, connector,
//! bridge — with `OnStart`, how a call says it has begun; and where the
//! sandbox helper the built-in shell runs commands through is found.

use super::change::{Change, Earlier, Planned};

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::call::ToolOutput;

use crate::model::ToolSpec;

/// For benchmarks and tests that link the library: the hermes binary that
/// serves as the shell's sandbox helper (the binary itself needs nothing).
#[doc(hidden)]
pub fn use_sandbox_helper(exe: std::path::PathBuf) {
    crate::sandbox::use_helper(exe);
}

/// Called once when an entry is about to be sent to its tool (after its
/// server's concurrency gate and start-up): the moment it is "started".
pub type OnStart<'a> = &'a (dyn Fn() + Send + Sync);

pub(crate) trait Tool: Send + Sync {
    fn spec(&self) -> ToolSpec;
    /// What approval should know of this call (a read inside the working
    /// folder, a write outside it).
    fn hints(&self, _args: &Value) -> crate::policy::Hints {
        crate::policy::Hints::default()
    }
    /// The arguments as rules, hooks, the question and the call itself see
    /// them: a built-in's path resolved once (absolute, `//`, `..` and
    /// links resolved), so a rule for `^/proj/protected/` holds for
    /// `//proj/protected/b`, `sub/../protected/c` and a link alike.
    fn normalize(&self, _args: &Value) -> Option<Value> {
        None
    }
    /// Whether the tool changes files: its entries are planned in entry
    /// order ([`Tool::plan`]).
    fn plans_changes(&self) -> bool {
        false
    }
    /// The change the call would make, worked out on the file as the
    /// round's earlier entries will have left it (`earlier`), or why it
    /// cannot apply (an edit whose text is not there is a failure, never a
    /// question).
    fn plan(&self, _args: &Value, _earlier: &Earlier) -> Option<Result<Change, String>> {
        None
    }
    /// The text of the file a change would act on as the editor has it
    /// (its buffer, unsaved edits and all), when hermes serves an editor
    /// that reads files: what the change is planned on.
    fn buffer<'a>(
        &'a self,
        _args: &'a Value,
    ) -> BoxFuture<'a, Option<(std::path::PathBuf, String)>> {
        Box::pin(async { None })
    }
    /// Runs the call; `on_start` is called once it has passed its own gate
    /// (a path another entry writes, a serial shell) and really starts.
    fn call<'a>(
        &'a self,
        args: serde_json::Value,
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput>;
    /// As [`Tool::call`], for a planned change: the file must still be as
    /// the plan found it, or be planned and confirmed at its turn
    /// ([`Planned`]), or nothing is written.
    fn call_expecting<'a, 'p: 'a>(
        &'a self,
        args: serde_json::Value,
        _planned: Planned<'p>,
        cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        self.call(args, cancel, on_start)
    }
}
