//! Checkpoints: what each file a tool call changed was before it, so a
//! turn can be undone (`hermes rewind`). Kept in the `files_changed`
//! record of the call — the shell's, from the sandbox's review, and the
//! file tools' — each change with the file as it was (its bytes in the
//! session's blob folder, named by their hash, as large images are; a
//! link's target; or that nothing was there) and a stamp of it as the
//! call left it, by which a later hand edit is told and never clobbered.

pub(crate) mod diff;
pub(crate) mod rewind;
pub(crate) mod turns;

pub(crate) use crate::sandbox::kept::{Before, Keep, KeptFolder, Stamp};
