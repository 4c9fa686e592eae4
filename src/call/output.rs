//! What a tool gives back, whichever kind of tool it is, and the one cut
//! every tool's output gets before the model sees it.

/// `is_error` marks a failure the model should read and act on; it never ends
/// the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    /// For the person, not the model: the diff a built-in edit made.
    pub diff: Option<String>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
            diff: None,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: true,
            diff: None,
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
