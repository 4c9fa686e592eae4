//! Compaction as the agent runs it: before a request that would fill the
//! window past `[context] compact_at`, on `/compact`, and after a provider
//! refused a request as too long. Old tool results are stubbed first; if
//! that is not enough, the older turns are summarised by the model in a
//! request of their own. The result is one `compaction` record: the
//! history from there on, which `--continue` replays as it is. Compactions
//! are the rare points where a request does not extend the one before.
//! Also what `/usage` and `/context` say of the window.

mod compact;
mod rules;
