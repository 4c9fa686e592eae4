//! Sessions: the append-only JSON Lines file that is the record of truth
//! (its records hold [`crate::model`]'s messages), its single writer, reading
//! it back for `--resume`, finding and removing sessions.

mod blobs;
mod error;
mod fork;
mod index;
mod load;
mod lock;
mod outcome;
mod own;
mod pairing;
mod record;
mod remove;
mod store;

pub(crate) use blobs::folder as blob_folder;
pub(crate) use blobs::sweep as sweep_blobs;
pub use error::SessionError;
pub(crate) use fork::fork;
pub(crate) use index::{
    find, find_exact, latest_in, list, matching, new_id, path_for, path_for_named, valid_name,
    Summary,
};
pub(crate) use load::{agent_conversations, load};
pub use load::{parse, LoadedSession};
pub use outcome::{Settled, Unanswered};
pub use own::guard_folder;
pub(crate) use own::{id_of, read_own};
pub use pairing::in_entry_order;
pub(crate) use pairing::pair_results;
pub use record::{CompactionReason, Meta, Record, RestoredFile, SessionEvent, FORMAT_VERSION};
pub(crate) use remove::{older_than, parse_age, remove};
pub(crate) use store::{SessionHandle, AGENT_PREFIX};
