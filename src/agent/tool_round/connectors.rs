//! A `connectors__` batch in the round: each entry shown under its own id
//! (queued, started, finished in the gateway's state for it), one dispatch,
//! each sent entry's `post_tool_call` hooks, and the batch's one result.

use super::super::protocol::Event;
use super::Round;
use crate::call::{Entry, ToolOutput};

impl Round<'_> {
    /// A `connectors__` batch: each entry that will be sent is queued and
    /// started under its own id, tool and arguments; after the one dispatch,
    /// each entry ends under its id in its own state (what the gateway said
    /// of it, or why it was not sent), and each sent entry gets its
    /// `post_tool_call` hooks (not past a stop). The model gets the batch's
    /// one result.
    pub(super) async fn run_batch(
        &self,
        entries: &[Entry],
        ids: &[String],
        refused: &[Option<String>],
    ) -> ToolOutput {
        let sent: Vec<bool> = entries
            .iter()
            .zip(refused)
            .map(|(e, r)| r.is_none() && e.arguments.is_ok())
            .collect();
        for kind in [0, 1] {
            for ((e, id), s) in entries.iter().zip(ids).zip(&sent) {
                if let (true, Ok(args)) = (s, &e.arguments) {
                    let (id, name, arguments) = (id.clone(), e.name.clone(), args.to_string());
                    self.emit(if kind == 0 {
                        Event::ToolCallQueued {
                            id,
                            name,
                            arguments,
                            resolved_path: None,
                        }
                    } else {
                        Event::ToolCallStarted {
                            id,
                            name,
                            arguments,
                            resolved_path: None,
                        }
                    });
                }
            }
        }
        let mut outs = self
            .tools
            .run_batch(entries, ids, refused, self.cancel)
            .await;
        for (((e, id), s), out) in entries.iter().zip(ids).zip(&sent).zip(&outs) {
            // A refused entry was never shown started: its arguments now.
            let arguments = match (s, &e.arguments) {
                (false, Ok(a)) => Some(a.to_string()),
                (false, Err(_)) => Some(String::new()),
                (true, _) => None,
            };
            self.emit(Event::ToolCallFinished {
                id: id.clone(),
                name: e.name.clone(),
                arguments,
                is_error: out.is_error,
                content: out.content.clone(),
                diff: None,
                changed: Vec::new(),
            });
        }
        for (((e, id), s), out) in entries.iter().zip(ids).zip(&sent).zip(outs.iter_mut()) {
            if let (true, Ok(args)) = (s, &e.arguments) {
                let post = self
                    .policy
                    .post_tool_call(
                        &self.hook_ctx,
                        &crate::policy::Subject::named(&e.name),
                        id,
                        args,
                        out,
                        self.cancel,
                    )
                    .await;
                for problem in post.warnings {
                    self.emit(Event::Warning { message: problem });
                }
                for f in post.feedback {
                    out.content.push_str(&format!("\n\n[hook] {f}"));
                }
                self.hooks_said(None, post.stop);
            }
        }
        ToolOutput::batch(entries, &outs)
    }
}
