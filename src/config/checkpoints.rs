//! `[checkpoints]`: whether what each turn's changes replace is kept, for
//! `hermes rewind` and `/rewind`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CheckpointsSection {
    /// Keep a copy of each file a tool call replaces or removes, beside the
    /// session (default true). Off, turns can still be taken out of the
    /// conversation, but their files cannot be put back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep: Option<bool>,
    /// The most one turn keeps, in MB (default 1024; 0: no bound). Past
    /// it, changes still land but are not kept, and each result says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_mb: Option<u64>,
}

impl CheckpointsSection {
    pub fn is_empty(&self) -> bool {
        self == &CheckpointsSection::default()
    }
}
