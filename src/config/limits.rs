//! `[limits]` resolved: what hermes holds, keeps and passes on, every
//! default filled in.

use super::defaults;
use super::file::LimitsSection;

/// Bounds on what hermes holds, keeps and passes on (`[limits]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub tool_output_bytes: usize,
    pub stderr_line_bytes: usize,
    pub stderr_quote_chars: usize,
    pub server_log_bytes: u64,
    pub servers_started_at_once: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::from_section(&LimitsSection::default())
    }
}

impl Limits {
    pub(super) fn from_section(l: &LimitsSection) -> Limits {
        let or = |v: Option<std::num::NonZeroU64>, d: u64| v.map_or(d, |n| n.get());
        let size = |v, d| usize::try_from(or(v, d)).unwrap_or(usize::MAX);
        Limits {
            tool_output_bytes: size(l.tool_output_bytes, defaults::TOOL_OUTPUT_BYTES),
            stderr_line_bytes: size(l.stderr_line_bytes, defaults::STDERR_LINE_BYTES),
            stderr_quote_chars: size(l.stderr_quote_chars, defaults::STDERR_QUOTE_CHARS),
            server_log_bytes: or(l.server_log_bytes, defaults::SERVER_LOG_BYTES),
            servers_started_at_once: size(
                l.servers_started_at_once,
                defaults::SERVERS_STARTED_AT_ONCE,
            ),
        }
    }
}
