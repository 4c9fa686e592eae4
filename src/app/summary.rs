//! A one-shot run summed up from the events it emitted: `run_summary`, the
//! last `--json` event, and whether an action was refused because nobody
//! could approve it (exit 4). Counted beside the printer, from the same
//! stream every front end reads, so the summary says what the person saw.

use std::collections::HashMap;
use std::time::Instant;

use crate::agent::{ChangedFile, Event, RunCalls, RunSummary, RunTokens, Settled};
use crate::call::{INTERRUPTED, NOT_STARTED};
use crate::frontend::{Printer, Sink};
use crate::sandbox::ChangeKind;

pub(super) struct Tally {
    started: Instant,
    requests: u64,
    tokens: RunTokens,
    calls: RunCalls,
    files: Vec<ChangedFile>,
    /// Background processes started, and how many of them exited.
    processes: crate::agent::RunProcesses,
    /// Pages web_fetch read.
    web: crate::agent::RunWeb,
    /// Entries settled `deny`, until their end is seen: whether nobody
    /// could be asked. Keyed by the subagents' call ids above them and
    /// the entry's own (a subagent's ids are its own).
    denied: HashMap<(String, String), bool>,
}

impl Tally {
    pub(super) fn new(started: Instant) -> Tally {
        Tally {
            started,
            requests: 0,
            tokens: RunTokens::default(),
            calls: RunCalls::default(),
            files: Vec::new(),
            processes: Default::default(),
            web: Default::default(),
            denied: HashMap::new(),
        }
    }

    pub(super) fn see(&mut self, ev: &Event) {
        self.see_in("", ev)
    }

    fn see_in(&mut self, within: &str, ev: &Event) {
        match ev {
            Event::Subagent { id, event, .. } => self.see_in(&format!("{within}/{id}"), event),
            Event::ModelRequest { .. } => self.requests += 1,
            Event::ProcessStarted { .. } => self.processes.started += 1,
            Event::WebFetched { domain, bytes, .. } => {
                self.web.fetches += 1;
                self.web.bytes += bytes;
                if !self.web.domains.contains(domain) {
                    self.web.domains.push(domain.clone());
                }
            }
            Event::ProcessExited {
                exit_code: Some(0), ..
            } => self.processes.exited_ok += 1,
            Event::Usage {
                prompt_tokens,
                completion_tokens,
                cache_read_tokens,
                ..
            } => {
                self.tokens.input += prompt_tokens;
                self.tokens.output += completion_tokens;
                self.tokens.cached += cache_read_tokens;
            }
            Event::Approval {
                id,
                decision: Settled::Deny,
                by,
                ..
            } => {
                self.denied
                    .insert((within.to_string(), id.clone()), by.nobody_to_ask);
            }
            Event::ToolCallFinished {
                id,
                is_error,
                content,
                changed,
                ..
            } => {
                let c = &mut self.calls;
                match self.denied.remove(&(within.to_string(), id.clone())) {
                    Some(true) => c.refused += 1,
                    Some(false) => c.denied += 1,
                    None if *is_error && stopped(content) => c.cancelled += 1,
                    None if *is_error => c.error += 1,
                    None => c.ok += 1,
                }
                for f in changed {
                    self.changed(f);
                }
            }
            _ => {}
        }
    }

    /// A file's change, merged with what the run did to it before: made
    /// then changed is made; made then removed is nothing; removed then
    /// made is changed.
    fn changed(&mut self, f: &ChangedFile) {
        use ChangeKind::*;
        let Some(k) = self.files.iter().position(|g| g.path == f.path) else {
            self.files.push(f.clone());
            return;
        };
        match (self.files[k].kind, f.kind) {
            (Created, Deleted) => {
                self.files.remove(k);
            }
            (Created, _) => {}
            (Deleted, Created) => self.files[k].kind = Modified,
            (_, kind) => self.files[k].kind = kind,
        }
    }

    /// Entries refused because nobody could approve them.
    pub(super) fn refused(&self) -> u64 {
        self.calls.refused
    }

    /// The summary; its exit code is set once the run's outcome is known.
    pub(super) fn summary(
        &self,
        session_id: String,
        output: Option<serde_json::Value>,
    ) -> RunSummary {
        RunSummary {
            session_id,
            exit_code: 0,
            duration_ms: self.started.elapsed().as_millis() as u64,
            model_requests: self.requests,
            tokens: self.tokens.clone(),
            calls: self.calls.clone(),
            files_changed: self.files.clone(),
            processes: self.processes.clone(),
            web: self.web.clone(),
            output,
            worktree: None,
        }
    }
}

/// A call a stop ended, before or while it ran.
fn stopped(content: &str) -> bool {
    content == NOT_STARTED || content.starts_with(INTERRUPTED)
}

/// The printer, with the run's tally watching the same events.
pub(super) struct Tallied<'a> {
    pub printer: &'a mut Printer,
    pub tally: &'a mut Tally,
}

impl Sink for Tallied<'_> {
    fn handle(&mut self, ev: &Event) {
        self.tally.see(ev);
        self.printer.handle(ev);
    }

    fn resized(&mut self) {
        self.printer.resized();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{By, SettledBy};

    fn finished(id: &str, is_error: bool, content: &str, changed: &[(&str, ChangeKind)]) -> Event {
        Event::ToolCallFinished {
            id: id.into(),
            name: "write_file".into(),
            arguments: None,
            is_error,
            content: content.into(),
            diff: None,
            changed: changed
                .iter()
                .map(|(p, kind)| ChangedFile {
                    path: p.to_string(),
                    kind: *kind,
                })
                .collect(),
        }
    }

    fn denied(id: &str, nobody_to_ask: bool) -> Event {
        Event::Approval {
            id: id.into(),
            name: "write_file".into(),
            decision: Settled::Deny,
            by: SettledBy {
                by: By::Hook,
                nobody_to_ask,
            },
            reason: None,
            arguments: None,
            resolved_path: None,
        }
    }

    #[test]
    fn calls_are_counted_by_how_they_ended_subagents_included() {
        let mut t = Tally::new(Instant::now());
        let events = [
            finished("call_a", false, "ok", &[("/p/a.txt", ChangeKind::Created)]),
            finished("call_b", true, "no such file", &[]),
            denied("call_c", false),
            finished("call_c", true, "`write_file` was not run: denied", &[]),
            denied("call_d", true),
            finished("call_d", true, "`write_file` was not run", &[]),
            finished("call_e", true, NOT_STARTED, &[]),
            finished("call_f", true, &format!("{INTERRUPTED}; it went on"), &[]),
            // A subagent's entry with an id its parent also used.
            Event::Subagent {
                id: "call_g".into(),
                description: "look".into(),
                event: Box::new(denied("call_b", true)),
            },
            Event::Subagent {
                id: "call_g".into(),
                description: "look".into(),
                event: Box::new(finished("call_b", true, "not run", &[])),
            },
            finished(
                "call_g",
                false,
                "done",
                &[("/p/a.txt", ChangeKind::Modified)],
            ),
        ];
        for e in &events {
            t.see(e);
        }
        let s = t.summary("s".into(), None);
        assert_eq!(
            s.calls,
            RunCalls {
                ok: 2,
                error: 1,
                denied: 1,
                refused: 2,
                cancelled: 2
            }
        );
        assert_eq!(t.refused(), 2);
        // Made, then changed: made.
        assert_eq!(s.files_changed.len(), 1);
        assert_eq!(s.files_changed[0].kind, ChangeKind::Created);
    }

    #[test]
    fn a_file_made_then_removed_is_not_listed_and_one_removed_then_made_was_changed() {
        let mut t = Tally::new(Instant::now());
        t.see(&finished("1", false, "", &[("/a", ChangeKind::Created)]));
        t.see(&finished("2", false, "", &[("/b", ChangeKind::Deleted)]));
        t.see(&finished("3", false, "", &[("/a", ChangeKind::Deleted)]));
        t.see(&finished("4", false, "", &[("/b", ChangeKind::Created)]));
        let files = t.summary("s".into(), None).files_changed;
        assert_eq!(files.len(), 1);
        assert_eq!(
            (files[0].path.as_str(), files[0].kind),
            ("/b", ChangeKind::Modified)
        );
    }

    #[test]
    fn tokens_and_requests_add_up_over_the_run() {
        let mut t = Tally::new(Instant::now());
        let usage = |p, c, r| Event::Usage {
            prompt_tokens: p,
            completion_tokens: c,
            total_tokens: p + c,
            cache_read_tokens: r,
            cache_write_tokens: 0,
            context_tokens: None,
            context_window: None,
        };
        t.see(&Event::ModelRequest { request: 1 });
        t.see(&usage(100, 10, 80));
        t.see(&Event::Subagent {
            id: "c".into(),
            description: "d".into(),
            event: Box::new(Event::ModelRequest { request: 1 }),
        });
        t.see(&Event::Subagent {
            id: "c".into(),
            description: "d".into(),
            event: Box::new(usage(50, 5, 0)),
        });
        let s = t.summary("s".into(), None);
        assert_eq!(s.model_requests, 2);
        assert_eq!(
            s.tokens,
            RunTokens {
                input: 150,
                output: 15,
                cached: 80
            }
        );
    }
}
