//! What a tool gives back, whichever kind of tool it is, and the one cut
//! every tool's output gets before the model sees it.

/// What a call stopped before it was sent says (a stop pairs every call
/// with a result).
pub(crate) const NOT_STARTED: &str = "cancelled before it started";
/// What a call stopped while it ran says, before what became of it.
pub(crate) const INTERRUPTED: &str = "interrupted by the user while running";

/// `is_error` marks a failure the model should read and act on; it never ends
/// the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    /// For the person, not the model: the diff a built-in edit made.
    pub diff: Option<String>,
    /// A planned change found the file other than it was planned on (it
    /// changed since the question): nothing was written, and the round may
    /// ask again.
    pub(crate) stale: bool,
    /// Images for the model (an MCP image result).
    pub images: Vec<crate::model::Image>,
    /// What a `shell` command changed in the writable folders, landed and
    /// held back: recorded beside the result.
    pub changes: Option<Box<crate::sandbox::Changes>>,
    /// What of those changes was held back, still staged: the round asks
    /// the person once whether it lands.
    pub(crate) held_back: Option<crate::sandbox::HeldBack>,
    /// What the shell's proxy refused while the command ran, as the
    /// `[network] allow` entries that would let it through: the round asks
    /// the person once whether commands may reach them.
    pub(crate) refused: Vec<String>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
            diff: None,
            stale: false,
            images: Vec::new(),
            changes: None,
            held_back: None,
            refused: Vec::new(),
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: true,
            diff: None,
            stale: false,
            images: Vec::new(),
            changes: None,
            held_back: None,
            refused: Vec::new(),
        }
    }

    /// A call stopped before it was sent: it never ran.
    pub(crate) fn not_started() -> Self {
        Self::error(NOT_STARTED)
    }

    /// A call stopped while it ran; `then`, what became of it.
    pub(crate) fn interrupted(then: Option<&str>) -> Self {
        Self::error(match then {
            Some(then) => format!("{INTERRUPTED}; {then}"),
            None => INTERRUPTED.to_string(),
        })
    }

    /// A call stopped before or after it was sent.
    pub(crate) fn stopped(started: bool) -> Self {
        if started {
            Self::interrupted(None)
        } else {
            Self::not_started()
        }
    }

    /// A `connectors__` call with no gateway to send it to.
    pub(crate) fn no_gateway() -> Self {
        Self::error("no connector gateway is configured ([connectors] url in config.toml)")
    }

    /// A connectors batch's one result: `{"count", "results": [{name,
    /// is_error, content}]}`, in entry order; an error when every entry is.
    pub(crate) fn batch(entries: &[super::Entry], outs: &[ToolOutput]) -> Self {
        ToolOutput {
            diff: None,
            stale: false,
            is_error: outs.iter().all(|o| o.is_error),
            content: serde_json::json!({
                "count": outs.len(),
                "results": entries
                    .iter()
                    .zip(outs)
                    .map(|(e, o)| serde_json::json!({"name": e.name, "is_error": o.is_error, "content": o.content}))
                    .collect::<Vec<_>>(),
            })
            .to_string(),
            images: Vec::new(),
            changes: None,
            held_back: None,
            refused: Vec::new(),
        }
    }

    /// Nothing written: the file is not as the plan found it.
    pub(crate) fn stale(content: impl Into<String>) -> Self {
        ToolOutput {
            stale: true,
            ..Self::error(content)
        }
    }

    pub(crate) fn with_diff(mut self, diff: String) -> Self {
        self.diff = Some(diff);
        self
    }

    /// The output cut to `max` bytes, with a note of how much was cut.
    pub(crate) fn cut(self, max: usize) -> ToolOutput {
        ToolOutput {
            content: cut_text(self.content, max),
            ..self
        }
    }
}

/// `text` cut to at most `max` bytes (on a character boundary), with a note
/// of how much was cut.
pub(crate) fn cut_text(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[output cut: {} of {} bytes not shown]",
        &text[..end],
        text.len() - end,
        text.len()
    )
}
