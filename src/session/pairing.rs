//! A session's tool results paired with their calls as the provider must be
//! sent them: each result with its round (late repairs moved back to it,
//! strays dropped), calls without one found, and each round's results in
//! the order of its calls.

use std::collections::HashMap;

use crate::model::{Message, ToolCall};

/// Pairs every tool result with its call: a result for an open call of
/// its round stays; one that comes later — the "interrupted" repair a resume
/// appends, after a run that could not write a round's results and went on —
/// moves to the end of its round; one that answers no open call (none
/// hermes writes, but a hand edit can add one, and sent on it would make the
/// provider refuse every later request) or answers a call twice is dropped,
/// `on_drop` told its position in `messages`. The file is not changed.
pub(crate) fn pair_results(
    messages: Vec<Message>,
    mut on_drop: impl FnMut(usize, &crate::model::ToolResult),
) -> Vec<Message> {
    struct Round {
        /// The round's calls not answered yet, by id: how many (an id two
        /// calls share — a file written before hermes renamed repeated ids —
        /// takes two results).
        open: HashMap<String, usize>,
        /// Index in `out` just past the round's results.
        end: usize,
    }
    impl Round {
        fn is_open(&self, id: &str) -> bool {
            self.open.get(id).is_some_and(|n| *n > 0)
        }
        /// Takes one open call of `id`, if there is one.
        fn answer(&mut self, id: &str) -> bool {
            match self.open.get_mut(id) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            }
        }
    }
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    let mut rounds: Vec<Round> = Vec::new();
    let mut current: Option<usize> = None;
    for (i, m) in messages.into_iter().enumerate() {
        let r = match &m {
            Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                out.push(m.clone());
                let mut open = HashMap::new();
                for c in tool_calls {
                    *open.entry(c.id.clone()).or_insert(0) += 1;
                }
                rounds.push(Round {
                    open,
                    end: out.len(),
                });
                current = Some(rounds.len() - 1);
                continue;
            }
            Message::Tool(r) => r.clone(),
            _ => {
                current = None;
                out.push(m);
                continue;
            }
        };
        if let Some(c) = current {
            if rounds[c].answer(&r.tool_call_id) {
                out.push(m);
                rounds[c].end = out.len();
                continue;
            }
        }
        match rounds.iter().position(|rd| rd.is_open(&r.tool_call_id)) {
            Some(late) => {
                rounds[late].answer(&r.tool_call_id);
                let at = rounds[late].end;
                out.insert(at, m);
                for (k, rd) in rounds.iter_mut().enumerate() {
                    if k == late || rd.end > at {
                        rd.end += 1;
                    }
                }
            }
            None => on_drop(i, &r),
        }
    }
    out
}

/// Tool calls of the history that have no result.
pub(super) fn unanswered(messages: &[Message]) -> Vec<ToolCall> {
    // How many results each id has (an id two calls share has two).
    let mut answered: HashMap<&str, usize> = HashMap::new();
    for m in messages {
        if let Message::Tool(r) = m {
            *answered.entry(r.tool_call_id.as_str()).or_insert(0) += 1;
        }
    }
    messages
        .iter()
        .flat_map(|m| match m {
            Message::Assistant { tool_calls, .. } => tool_calls.as_slice(),
            _ => &[],
        })
        .filter(|c| match answered.get_mut(c.id.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// Puts the results of every tool round in the order of the calls they
/// answer. The file holds them in the order they finished (each is written
/// the moment it exists); the model was sent them in entry order, and a
/// resumed history must be byte for byte what was sent. Results with an id
/// the round does not know keep their place after the known ones.
pub fn in_entry_order(messages: &mut [Message]) {
    let mut i = 0;
    while i < messages.len() {
        let order: Vec<String> = match &messages[i] {
            Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                tool_calls.iter().map(|c| c.id.clone()).collect()
            }
            _ => {
                i += 1;
                continue;
            }
        };
        let start = i + 1;
        let end = start
            + messages[start..]
                .iter()
                .take_while(|m| matches!(m, Message::Tool(_)))
                .count();
        let rank = |m: &Message| match m {
            Message::Tool(r) => order
                .iter()
                .position(|id| *id == r.tool_call_id)
                .unwrap_or(order.len()),
            _ => order.len(),
        };
        // Stable: two results for one id (never written by hermes) keep their order.
        messages[start..end].sort_by_key(rank);
        i = end.max(start);
    }
}
