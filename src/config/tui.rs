//! `[tui]`: how the REPL edits and draws — vi-style line editing, and a
//! theme for light terminals.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    /// Emacs-style keys (rustyline's default): Ctrl-A, Ctrl-E, Alt-B, …
    #[default]
    Emacs,
    /// vi-style: Esc to normal mode, `dw`, `0`, `i`, …; Esc Esc does not
    /// rewind there (`/rewind` does).
    Vi,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// Colours that read on a dark background.
    #[default]
    Dark,
    /// Darker colours, for a light background.
    Light,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TuiSection {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit_mode: Option<EditMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
}

impl TuiSection {
    pub fn is_empty(&self) -> bool {
        self == &TuiSection::default()
    }
}

/// `[tui]` as a run uses it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TuiSettings {
    pub edit_mode: EditMode,
    pub theme: Theme,
}

impl TuiSettings {
    pub(super) fn from_section(s: &TuiSection) -> TuiSettings {
        TuiSettings {
            edit_mode: s.edit_mode.unwrap_or_default(),
            theme: s.theme.unwrap_or_default(),
        }
    }
}
